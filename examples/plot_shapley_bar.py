"""
Shapley values of a forest: TreeSHAP bar plot
=============================================

:class:`skml.inspection.ShapleyExplainer` (notes A §12) computes exact
path-dependent TreeSHAP values for a :class:`skml.ensemble.RandomForestRegressor`
on the diabetes data. Left: the mean absolute Shapley value of each feature, the
usual global importance. Right: :func:`skml.inspection.plot_waterfall` for one
patient, from the base value (the mean prediction) to the prediction.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_diabetes

from skml.ensemble import RandomForestRegressor
from skml.inspection import ShapleyExplainer, plot_waterfall

data = load_diabetes()
X, y = data.data, data.target
forest = RandomForestRegressor(n_estimators=30, max_depth=5, random_state=0).fit(X, y)
explanation = ShapleyExplainer(forest, feature_names=data.feature_names).explain(X[:200])

importance = np.abs(explanation.values).mean(axis=0)
order = np.argsort(importance)
fig, (ax_bar, ax_fall) = plt.subplots(1, 2, figsize=(11, 4.5))
ax_bar.barh(np.array(data.feature_names)[order], importance[order], color="C0")
ax_bar.set_xlabel("mean |Shapley value| over 200 patients")
ax_bar.set_title("TreeSHAP importance, RandomForestRegressor")
plot_waterfall(explanation, row=0, ax=ax_fall)
fig.tight_layout()

# %%
# The values add up to the prediction (local accuracy):
print(np.allclose(explanation.values.sum(axis=1) + explanation.base_values,
                  forest.predict(X[:200])))
