"""Sphinx configuration for skml's documentation.

The build must pass with ``-W`` on a machine without network access, so no
extension here fetches anything at build time (no intersphinx, no remote
images, no analytics). Benchmark figures are included only when the benchmark
has been run: see ``_bench_snippets`` below.
"""

import importlib
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS / "_ext"))

import skml  # noqa: E402

# -- Project ------------------------------------------------------------------

project = "skml"
author = "the skml developers"
copyright = "the skml developers"
release = skml.__version__
version = ".".join(release.split(".")[:2])

# -- Extensions ----------------------------------------------------------------

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    # Figures drawn at build time (the tree page's plot_tree); matplotlib is in the docs extra.
    "matplotlib.sphinxext.plot_directive",
    # The example gallery (examples/ at the repository root), run at every build.
    "sphinx_gallery.gen_gallery",
]

# Formulas are rendered in the browser by MathJax. By default Sphinx points the
# pages at MathJax on a CDN, so a reader without network sees raw LaTeX. When
# the ``sphinx-mathjax-offline`` package is installed, MathJax is copied into
# the built site instead and the pages render anywhere.
try:
    importlib.import_module("sphinx-mathjax-offline")
except ImportError:
    pass
else:
    extensions.append("sphinx-mathjax-offline")

templates_path = ["_templates"]
# Generated snippets are pulled in with ``.. include::``; they are not pages.
exclude_patterns = ["_build", "_generated_*.rst", "_ext"]
root_doc = "index"
default_role = "literal"

autosummary_generate = True
autosummary_imported_members = False
autodoc_typehints = "none"

# numpydoc lays out each docstring; class members are listed by our class
# template instead, as scikit-learn's pages do.
numpydoc_show_class_members = False
numpydoc_show_inherited_class_members = False
numpydoc_class_members_toctree = False
# Docstring style is enforced by the tests, not by the docs build: an empty
# set keeps numpydoc's validation from turning style nits into -W errors.
numpydoc_validation_checks = set()
numpydoc_xref_param_type = False
numpydoc_attributes_as_param_list = True

# -- Example gallery -------------------------------------------------------------
#
# sphinx-gallery runs every ``examples/plot_*.py`` at each build (small data: the
# whole gallery takes a few minutes on two busy cores) and writes the pages, figures,
# notebooks and run times under docs/auto_examples/ and docs/gen_modules/ (both
# ignored by git). An example that raises fails the build. ``backreferences_dir``
# records which examples use which skml object; the class and function pages show
# them as a mini-gallery (_templates/autosummary/).

import matplotlib  # noqa: E402

matplotlib.use("Agg")

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "doc_module": ("skml",),
    "reference_url": {"skml": None},
    "backreferences_dir": "gen_modules/backreferences",
    "image_scrapers": ("matplotlib",),
    "capture_repr": ("_repr_html_", "__repr__"),
    "remove_config_comments": True,
    "show_memory": False,
    "min_reported_time": 1,
    "abort_on_example_error": False,
    "only_warn_on_example_error": False,
    "download_all_examples": False,
}

# -- HTML ----------------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = f"skml {release}"
html_static_path = ["_static"]
html_css_files = ["skml.css"]
html_show_sourcelink = False
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    # Nothing that needs the network: no icon links, analytics or version switcher.
    "icon_links": [],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    # The benchmark report's table is wide: give it the whole page.
    "secondary_sidebar_items": {"**": ["page-toc"], "benchmarks": []},
}
html_sidebars = {"index": [], "install": [], "scaling": [], "benchmarks": [], "contributing": []}

# -- Benchmark results ---------------------------------------------------------
#
# ``python3 dev.py bench`` writes benchmarks/results/report-quick.md and its
# plots. The pages include snippets made from them here (see
# _ext/bench_report.py); without results the snippets say how to produce
# them, so the build never depends on the benchmark having run.

from bench_report import write_snippets  # noqa: E402

def _families():
    """``docs/modules/<family>.rst`` pages and the public names of ``skml.<family>``."""
    families = {}
    for page in sorted((DOCS / "modules").glob("*.rst")):
        try:
            module = importlib.import_module(f"skml.{page.stem}")
        except ImportError:
            continue
        families[page.stem] = set(getattr(module, "__all__", ()))
    return families


FAMILIES = _families()
write_snippets(ROOT / "benchmarks" / "results", DOCS, FAMILIES)

# -- From the notes to skml ----------------------------------------------------
#
# notes_map.rst lists every section of the notes with the public objects whose
# docstrings cite it (_ext/notes_map.py), generated here so it follows the code.

from notes_map import write_notes_map  # noqa: E402

write_notes_map(DOCS)

# -- scikit-learn's own tests --------------------------------------------------
#
# sklearn_tests.rst shows the per-class pass table of the outside check
# (benchmarks/results/sklearn_tests.json, _ext/sklearn_tests_report.py).

from sklearn_tests_report import write_sklearn_tests  # noqa: E402

write_sklearn_tests(ROOT / "benchmarks" / "results", DOCS)


# -- Links to scikit-learn without intersphinx ----------------------------------
#
# Intersphinx would download scikit-learn's inventory at build time, which this
# project's machines cannot do. Methods inherited from scikit-learn
# (``get_params``, ``set_output``, ``set_fit_request``, ...) carry docstrings
# with references to labels and glossary terms of scikit-learn's own docs; they
# are resolved here to plain links to scikit-learn's site (nothing is fetched),
# and so are ``:class:`sklearn.X``` references in these pages.

SKLEARN = "https://scikit-learn.org/stable/"
SKLEARN_LABELS = {
    "metadata_routing": ("metadata_routing.html", "Metadata Routing User Guide"),
    "df_output_transform": (
        "auto_examples/miscellaneous/plot_set_output.html",
        "Introducing the set_output API",
    ),
    # Summary lines of the inherited ``score`` methods (class method tables).
    "r2_score": (
        "modules/model_evaluation.html#r2-score",
        "coefficient of determination",
    ),
    "accuracy_score": ("modules/model_evaluation.html#accuracy-score", "accuracy"),
}


def _sklearn_url(node):
    domain, reftype = node.get("refdomain"), node.get("reftype")
    target = node.get("reftarget", "")
    if domain == "std" and reftype == "term":
        slug = re.sub(r"[^a-z0-9]+", "-", target.lower()).strip("-")
        return f"{SKLEARN}glossary.html#term-{slug}", target
    if domain == "std" and reftype in ("ref", "doc"):
        if target in SKLEARN_LABELS:
            page, title = SKLEARN_LABELS[target]
            return SKLEARN + page, title
        example = re.fullmatch(r"sphx_glr_auto_examples_(\w+?)_(plot_\w+)\.py", target)
        if example:
            return f"{SKLEARN}auto_examples/{example[1]}/{example[2]}.html", target
        return f"{SKLEARN}search.html?q={target}", target
    if domain == "py" and target.startswith("sklearn."):
        # Classes and functions have a page of their own; for a method or an
        # attribute, link the page of the object that owns it.
        parts = target.split(".")
        owner = next(
            (i for i, p in enumerate(parts) if p[:1].isupper()), len(parts) - 1
        )
        page = ".".join(parts[: owner + 1])
        return f"{SKLEARN}modules/generated/{page}.html#{target}", target
    return None


# The same, offline, for the few names of numpy, scipy and joblib that
# docstrings refer to: each package's API pages follow one URL pattern
# (``generated/<dotted name>.html``); the exceptions are listed.
EXTERNAL = {
    "numpy.": "https://numpy.org/doc/stable/reference/generated/{}.html",
    "scipy.": "https://docs.scipy.org/doc/scipy/reference/generated/{}.html",
    "joblib.": "https://joblib.readthedocs.io/en/stable/generated/{}.html",
}
EXTERNAL_PAGES = {
    "numpy.random.Generator": "https://numpy.org/doc/stable/reference/random/generator.html",
}


def _external_url(node):
    target = node.get("reftarget", "")
    if node.get("refdomain") != "py":
        return None
    if target in EXTERNAL_PAGES:
        return EXTERNAL_PAGES[target]
    for prefix, pattern in EXTERNAL.items():
        if target.startswith(prefix):
            return pattern.format(target)
    return None


def _documented_object(source):
    """The object whose docstring ``source`` ("...docstring of a.b.C.x") is."""
    found = re.search(r"docstring of ([\w.]+)", source)
    if not found:
        return None
    parts = found[1].split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for part in parts[i:]:
                obj = getattr(obj, part)
        except AttributeError:
            return None
        return obj
    return None


def _from_sklearn(node):
    source = node.source or ""
    if "docstring of sklearn." in source or node.get("reftarget", "").startswith(
        "sklearn."
    ):
        return True
    # A property inherited from scikit-learn (a search's ``n_features_in_``)
    # is documented on skml's class page, with scikit-learn's docstring.
    obj = _documented_object(source)
    obj = getattr(obj, "fget", obj)
    return getattr(obj, "__module__", "").startswith("sklearn.")


def _resolve_sklearn(app, env, node, contnode):
    external = _external_url(node)
    if external is not None:
        from docutils import nodes

        reference = nodes.reference("", "", internal=False, refuri=external)
        reference += contnode
        return reference
    known_label = node.get("reftype") == "ref" and node.get("reftarget") in SKLEARN_LABELS
    if not (_from_sklearn(node) or known_label or node.get("refdomain") == "py"):
        return None
    found = _sklearn_url(node)
    if found is None:
        return None
    from docutils import nodes

    url, title = found
    reference = nodes.reference("", "", internal=False, refuri=url)
    if node.get("refexplicit") or node.get("reftype") not in ("ref", "doc"):
        reference += contnode
    else:
        reference += nodes.inline(title, title)
    return reference


def setup(app):
    app.connect("missing-reference", _resolve_sklearn)
