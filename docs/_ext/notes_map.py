"""The "From the notes to skml" page, generated from the docstrings.

Every public object of ``skml`` (the ``__all__`` of each subpackage) whose
docstring, or whose module's docstring, cites a section of the notes
("notes A §7.1", "notes B §6.2-6.3", "A §12.4") is listed under that section.
The sections come from ``docs/notes_sections.tsv`` (the catalogue's
headings). A section no docstring cites is listed as left out, with the
reason from :data:`LEFT_OUT` or "not built yet". Because the page is built
from the code, it cannot drift from it.
"""

import importlib
import inspect
import re
from collections import defaultdict
from pathlib import Path

# "notes A §7.1", "notes B §6.2-6.3", "(A §12.4)", "notes B §2.5, §11.3-11.4"
_REF = r"§\s*\d+(?:\.\d+)?(?:\s*[-–]\s*\d+(?:\.\d+)?)?"
_CITE = re.compile(r"(?:notes\s+|\()([AB])\s*(" + _REF + r"(?:\s*(?:,|/|and)\s*" + _REF + r")*)")
_ONE = re.compile(_REF)

# Sections no estimator implements on purpose, and why.
LEFT_OUT = {
    ("A", "0"): "the catalogue's list of the notes' errata and open choices",
    ("B", "0"): "the catalogue's list of the notes' errata and open choices",
    ("A", "2.1"): "a data structure; skml.boolean works with the Boolean "
                  "functions such trees compute",
    ("A", "2.2"): "a theorem, no algorithm (LowDegreeFourierRegressor relies on it)",
    ("A", "7.5"): "a theorem, no algorithm",
    ("B", "1.1"): "scikit-learn's CountVectorizer(binary=True) builds these "
                  "features; every skml estimator takes them",
    ("B", "1.2"): "every linear model fits its intercept (fit_intercept)",
    ("B", "1.4"): "scikit-learn's LabelBinarizer / OneHotEncoder; the "
                  "classifiers encode targets themselves",
    ("B", "1.5"): "explicit feature maps as transformers: not built yet (issue 18)",
    ("B", "2.2"): "LinearRegression(solver='gd'), cited in its private solver",
    ("B", "3.7"): "an anti-pattern the notes warn against",
    ("B", "5.13"): "mentioned only",
    ("B", "9.1"): "the general framework; each ensemble cites its own section",
    ("B", "10.1"): "the distances of skml.metrics.pairwise; Pearson and Hamming "
                   "counts not built yet (issue 18)",
    ("B", "11.1"): "scikit-learn's train_test_split and GridSearchCV(refit=True) "
                   "take every skml estimator (the common checks test it)",
    ("B", "11.2"): "scikit-learn's KFold / cross_validate take every skml estimator",
    ("B", "11.5"): "a statistics fact the notes use as an analogy; no API",
    ("B", "11.6"): "scikit-learn's validation_curve / GridSearchCV over skml "
                   "estimators",
    ("B", "14.1"): "the common form of the linear models' objectives",
    ("B", "14.2"): "mentioned without algorithmic content",
}


def _expand(part, ref):
    """``"6.2-6.3"`` -> ``["6.2", "6.3"]``; ``"7-9"`` -> whole chapters."""
    ref = re.sub(r"\s", "", ref).replace("–", "-")
    if "-" not in ref:
        return [ref]
    lo, hi = ref.split("-")
    if "." in lo and "." not in hi:
        hi = f"{lo.split('.')[0]}.{hi}"
    if "." in lo and lo.split(".")[0] == hi.split(".")[0]:
        major = lo.split(".")[0]
        return [f"{major}.{i}" for i in range(int(lo.split(".")[1]),
                                              int(hi.split(".")[1]) + 1)]
    return [lo, hi]


def _public_objects():
    import skml

    objects = []
    for name in sorted(getattr(skml, "__all__", ())):
        try:
            module = importlib.import_module(f"skml.{name}")
        except ImportError:
            continue
        if not inspect.ismodule(module):
            continue
        for attr in sorted(getattr(module, "__all__", ())):
            obj = getattr(module, attr, None)
            if obj is None:
                continue
            # An object defined in a submodule the package exports is
            # documented under that module's name
            # (skml.metrics.pairwise.pairwise_kernels).
            home = getattr(obj, "__module__", None) or ""
            sub = home[len(f"skml.{name}."):] if home.startswith(f"skml.{name}.") else ""
            if sub in getattr(module, "__all__", ()) and hasattr(obj, "__name__"):
                objects.append((f"{home}.{obj.__name__}", obj))
            else:
                objects.append((f"skml.{name}.{attr}", obj))
    return objects


def _citations(objects):
    cited = defaultdict(set)
    for path, obj in objects:
        texts = [inspect.getdoc(obj) or ""]
        owner = inspect.getmodule(obj)
        if owner is not None and owner.__doc__:
            texts.append(owner.__doc__)
        for text in texts:
            for part, refs in _CITE.findall(text):
                for ref in _ONE.findall(refs):
                    for section in _expand(part, ref.lstrip("§").strip()):
                        cited[(part, section)].add(path)
    return cited


def _sections(docs):
    rows = []
    for line in (docs / "notes_sections.tsv").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        part, section, title = line.split("\t", 2)
        rows.append((part, section, title))
    return rows


def _escape(text):
    return text.replace("*", r"\*").replace("`", r"\`").replace("|", r"\|")


def _role(path, obj_kinds):
    kind = obj_kinds.get(path, "obj")
    return f":{kind}:`~{path}`"


def write_notes_map(docs):
    """Write ``_generated_notes_map.rst`` into ``docs``."""
    objects = _public_objects()
    kinds = {path: "class" if inspect.isclass(obj) else "func" if callable(obj)
             else "obj" for path, obj in objects}
    cited = _citations(objects)
    lines = []
    left_out = []
    n_built = 0
    for part, label in (("A", "Notes A"), ("B", "Notes B")):
        rows = []
        for p, section, title in _sections(docs):
            if p != part:
                continue
            paths = sorted(cited.get((part, section), ()))
            if not paths:
                # a chapter-level citation ("notes A §7") covers its sections
                paths = sorted(cited.get((part, section.split(".")[0]), ()))
            if paths:
                n_built += 1
                shown = ", ".join(_role(x, kinds) for x in paths[:8])
                if len(paths) > 8:
                    shown += f" and {len(paths) - 8} more"
                rows.append((f"§{section}", _escape(title), shown))
            else:
                reason = LEFT_OUT.get((part, section.split(".")[0]),
                                      LEFT_OUT.get((part, section),
                                                   "not built yet (see the open issues)"))
                left_out.append((f"{label} §{section}", _escape(title), reason))
        lines += [label, "-" * len(label), "", ".. list-table::", "   :header-rows: 1",
                  "   :widths: 8 42 50", "", "   * - section", "     - title",
                  "     - in skml"]
        for section, title, shown in rows:
            lines += [f"   * - {section}", f"     - {title}", f"     - {shown}"]
        lines.append("")
    lines += ["Sections not cited by any docstring", "-" * 35, "",
              ".. list-table::", "   :header-rows: 1", "   :widths: 12 48 40", "",
              "   * - section", "     - title", "     - why"]
    for section, title, reason in left_out:
        lines += [f"   * - {section}", f"     - {title}", f"     - {reason}"]
    lines.append("")
    head = [f"{n_built} of {n_built + len(left_out)} sections of the catalogue are "
            "cited by a public object's docstring.", ""]
    (docs / "_generated_notes_map.rst").write_text("\n".join(head + lines),
                                                   encoding="utf-8")
