"""
The HTML repr links to these docs
=================================

In a notebook, an estimator's last-line value is drawn by scikit-learn's HTML
repr: a diagram of the pipeline whose boxes unfold into the parameters. For
skml's estimators the "?" in each box links to the estimator's page in these
docs, and each parameter name to its description there.

skml's docs are built locally rather than served from one fixed site, so the
links start with the environment variable ``SKML_DOCS_URL``, read each time a
repr is drawn: set it to where the built docs are served, ending in ``/``, e.g.
``http://localhost:8000/`` after ``python -m http.server -d docs/_build/html``.
Unset, the links are relative to the docs root. This page sets it to ``../``
(the gallery is one folder down), so the links below work.
"""

import os

from sklearn.pipeline import make_pipeline

from skml.linear_model import LogisticRegression
from skml.preprocessing import StandardScaler

os.environ["SKML_DOCS_URL"] = "../"
pipe = make_pipeline(StandardScaler(), LogisticRegression(C=0.5))
pipe

# %%
# The link of one estimator:
print(LogisticRegression()._get_doc_link())
