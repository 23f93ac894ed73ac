"""Sort the failure of one scikit-learn test run against skml into one of a few classes.

A pure function of the record the pytest plugin writes (exception type and message,
traceback frames, the test's source), so it can be re-run on a saved JSON file and
tested on synthetic records. The rules are heuristics, tried in this order:

1. ``private internals``: the test (or the sklearn helper it calls) reaches for
   something skml is not meant to have: an ``_``-prefixed attribute or sklearn's
   internal structures (``tree_``, ``_tree``), a failing test line that reads a private
   attribute, a monkeypatched sklearn private function that skml never calls, or a
   branch on ``issubclass`` of a class of sklearn's private modules.
2. ``missing feature``: a parameter or argument skml does not accept, a public
   attribute or method skml lacks, ``NotImplementedError``; and, outside a
   ``pytest.raises`` block, input the test treats as valid that skml refuses with a
   clear error: sparse, multi-output or multilabel targets, NaN, a parameter value,
   a single class, or any other deliberate ``raise`` in skml or in the validation
   helpers it calls.
3. ``different error``: an expected exception or warning did not come (``DID NOT
   RAISE``, ``DID NOT WARN``), its message did not match, another exception type came
   out of a ``pytest.raises`` block, or a warning turned into an error.
4. ``wrong result``: anything else, chiefly a failed assertion on numbers or labels and
   crashes on valid input (IndexError, UFuncTypeError, a numba typing error, a
   ValueError from inside numpy).

``timeout`` is kept apart: a test stopped by the per-test or per-module limit.
"""

import ast
import re
import textwrap

PRIVATE = "private internals"
MISSING = "missing feature"
DIFFERENT = "different error"
WRONG = "wrong result"
TIMEOUT = "timeout"
CLASSES = (PRIVATE, MISSING, DIFFERENT, WRONG, TIMEOUT)

# Public-looking attributes that are sklearn's internal data structures.
_INTERNAL_ATTRS = {"tree_", "_tree", "loss_functions", "n_features_", "_fit_X"}

_RAISES_CALL = re.compile(
    r"(?:\braises|\bwarns|assert_raise\w*|assert_warns\w*|assert_no_warnings"
    r"|_raises\w*|deprecated_call)\s*\(")
_PRIVATE_ACCESS = re.compile(r"\.(?:_[A-Za-z]\w*|tree_)\b(?!\()|\._[A-Za-z]\w*\(")
_PATCHED_SKLEARN = re.compile(
    r"(?:monkeypatch\.setattr|mock\.patch(?:\.object)?|patch(?:\.object)?)\(\s*"
    r"(?:[\"']sklearn\.[\w.]*\._\w+|[\w.]*\._\w+|[\w.]+,\s*[\"']_\w+)")
_NO_ATTR = re.compile(
    r"(?:'(?P<obj>[\w.]+)' object|type object '(?P<tobj>[\w.]+)'|This '(?P<aobj>\w+)'"
    r"|module '(?P<mod>[\w.]+)')\s+has no attribute '(?P<attr>\w+)'")
_PRIVATE_WRITE = re.compile(
    r"\b(?!self\b)\w+\.(?:_[A-Za-z]\w*|tree_)(?:\[[^\]]*\])?\s*=[^=]")
_CONTAINER = re.compile(r"object of type '(?P<obj>\w+)' has no len\(\)|"
                        r"'(?P<obj2>\w+)' object is not (?:subscriptable|iterable)")
_PRIVATE_BY_NAME = re.compile(
    r"(?:hasattr|getattr|setattr|delattr)\([^,]+,\s*[\"']_[A-Za-z]")
# Classes of sklearn's private modules (sklearn.neighbors._base) that a test
# dispatches on: skml's estimators never subclass them, so such a test takes
# the branch meant for other estimators (e.g. passes a radius as n_neighbors).
_PRIVATE_DISPATCH = re.compile(
    r"issubclass\([^,()]+,\s*(?P<cls>KNeighborsMixin|RadiusNeighborsMixin|NeighborsBase)\)")
_SET_PARAMS = re.compile(r"Invalid parameter '(?P<arg>\w+)' for estimator (?P<est>\w+)")
_KWARG = re.compile(r"(?P<func>[\w.]+)\(\) got an unexpected keyword argument "
                    r"'(?P<arg>\w+)'")
_PARAM = re.compile(r"The '(?P<param>\w+)' parameter of (?P<est>\w+) must be .*?"
                    r"Got (?P<got>.*?) instead", re.S)

_SPARSE_WORDS = ("sparse", "csr_matrix", "csc_matrix", "coo_matrix", "spmatrix",
                 "csr_array", "csc_array", "coo_array", "_csr.", "_csc.")
_SPARSE_REFUSAL = ("dense data is required", "not supported", "does not support",
                   "sparse matrix was passed", "sparse input", "sparse data",
                   "sparse array was passed", "accept_sparse", "is ambiguous")
_MULTI_OUTPUT = ("y must be 1-d", "1d array", "1-d array", "multi-output",
                 "multioutput", "multi output", "multilabel", "column-vector y",
                 "multiclass-multioutput", "y should be a 1d", "bad input shape",
                 "2-d y", "2d y", "one output", "single output")
_NAN = ("contains nan", "contains infinity", "input x contains", "input contains nan",
        "missing values")
_ONE_CLASS = ("only one class", "at least 2 classes", "only 1 class",
              "needs samples of at least", "contain only 1 class",
              "at least two classes", "classes in the data")
_CRASH_TYPES = {"IndexError", "KeyError", "ZeroDivisionError", "FloatingPointError",
                "OverflowError", "LinAlgError", "RecursionError", "MemoryError",
                "UFuncTypeError", "TypingError", "NumbaError", "LoweringError",
                "UnboundLocalError", "NameError", "SystemError", "ProcessCrash",
                "UnsupportedError", "NumbaValueError", "NumbaTypeError"}
_VALIDATION_FILES = ("sklearn/utils/validation.py", "sklearn/utils/multiclass.py",
                     "sklearn/utils/_param_validation.py", "sklearn/base.py",
                     "sklearn/utils/_array_api.py", "sklearn/utils/_tags.py")


def _first_line(text, limit=160):
    for line in (text or "").splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= limit else line[: limit - 3] + "..."
    return ""


def _exc_label(rec, limit=140):
    return f"{rec.get('exc_type')}: {_first_line(rec.get('exc_msg'), limit)}"


def _test_frame(rec):
    frames = [f for f in rec.get("frames") or [] if f.get("kind") == "test"]
    return frames[-1] if frames else None


def _innermost(rec):
    frames = rec.get("frames") or []
    return frames[-1] if frames else None


def _raise_context(rec):
    """Return the source of the expectation (``pytest.raises(...)`` call) around the
    failing test line, or ``None`` when the line is outside any such block."""
    frame = _test_frame(rec)
    if frame is None:
        return None
    if _RAISES_CALL.search(frame.get("code") or ""):
        return frame.get("code").strip()
    src, start = rec.get("test_source"), rec.get("test_source_line")
    if not src or not start:
        return None
    try:
        tree = ast.parse(textwrap.dedent(src))
    except SyntaxError:
        return None
    line = frame["line"] - start + 1
    for node in ast.walk(tree):
        if not isinstance(node, (ast.With, ast.AsyncWith)):
            continue
        end = getattr(node, "end_lineno", node.lineno)
        if not (node.lineno <= line <= end):
            continue
        for item in node.items:
            text = ast.unparse(item.context_expr)
            if _RAISES_CALL.search(text):
                return text
    return None


def _words(names):
    return r"\b(?:%s)\b" % "|".join(map(re.escape, names))


def _is_private_attr(name):
    dunder = name.startswith("__")
    return (name.startswith("_") and not dunder) or name in _INTERNAL_ATTRS


def _private_variables(src):
    """Names the test assigns from an expression that reads a private attribute."""
    if not src:
        return []
    try:
        tree = ast.parse(textwrap.dedent(src))
    except SyntaxError:
        return []
    names = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign):
            continue
        if not any(isinstance(a, ast.Attribute) and _is_private_attr(a.attr)
                   and not (isinstance(a.value, ast.Name) and a.value.id == "self")
                   for a in ast.walk(node.value)):
            continue
        for target in node.targets:
            names += [t.id for t in ast.walk(target) if isinstance(t, ast.Name)]
    return names


def _caught_names(src):
    """Names bound by ``with pytest.raises(...) as name`` (or ``warns``) in the test."""
    if not src:
        return []
    try:
        tree = ast.parse(textwrap.dedent(src))
    except SyntaxError:
        return []
    names = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if (isinstance(item.optional_vars, ast.Name)
                        and _RAISES_CALL.search(ast.unparse(item.context_expr))):
                    names.append(item.optional_vars.id)
    return names


def _in_skml_raise(rec):
    """True when the exception was raised on purpose by skml (or by the validation
    helpers skml calls): the innermost frame is a ``raise`` in skml or a validator."""
    frames = rec.get("frames") or []
    if not frames:
        return False
    last = frames[-1]
    kinds = [f.get("kind") for f in frames]
    if "skml" not in kinds:
        return False
    code = (last.get("code") or "").lstrip()
    if last.get("kind") == "skml":
        return code.startswith("raise") or "raise " in code
    if any(last.get("file", "").endswith(v) for v in _VALIDATION_FILES):
        return True
    return False


def _has(msg, words):
    low = msg.lower()
    return any(w in low for w in words)


def classify(rec):
    """Return ``(class, reason)`` for a failed or errored test record."""
    exc = rec.get("exc_type") or ""
    msg = rec.get("exc_msg") or ""
    mro = set(rec.get("exc_mro") or [exc])
    frame = _test_frame(rec)
    line = (frame or {}).get("code") or ""
    src = rec.get("test_source") or ""

    if exc in ("SkmlTestTimeout", "ModuleTimeout"):
        return TIMEOUT, _first_line(msg)

    # 1. private internals
    m = _NO_ATTR.search(msg)
    if m and "AttributeError" in mro:
        attr = m.group("attr")
        if attr.startswith("_") or attr in _INTERNAL_ATTRS:
            return PRIVATE, f"no attribute {attr!r}"
    if _PRIVATE_ACCESS.search(line) or _PRIVATE_BY_NAME.search(line):
        return PRIVATE, f"test reads a private attribute: {line.strip()[:120]}"
    private_vars = _private_variables(src)
    if private_vars and re.search(_words(private_vars), line):
        return PRIVATE, f"test compares a private attribute: {line.strip()[:110]}"
    if _PATCHED_SKLEARN.search(src) and mro & {"AssertionError", "AttributeError"}:
        return PRIVATE, "test monkeypatches an sklearn private function"
    if _PRIVATE_WRITE.search(src) and "AssertionError" in mro:
        return PRIVATE, "test sets a private attribute of the estimator"
    m = _PRIVATE_DISPATCH.search(src)
    if m:
        return PRIVATE, f"test dispatches on sklearn's private class {m.group('cls')}"

    # 2. missing feature that no context excuses
    m = _KWARG.search(msg)
    if m and "TypeError" in mro:
        return MISSING, f"parameter not accepted: {m.group('func')}({m.group('arg')}=)"
    if "TypeError" in mro and re.search(
            r"takes \d+ positional arguments? but \d+ (were|was) given|"
            r"takes from \d+ to \d+ positional arguments", msg):
        return MISSING, f"argument not accepted: {_first_line(msg, 120)}"
    m = _SET_PARAMS.search(msg)
    if m:
        return MISSING, f"parameter not accepted: {m.group('est')}({m.group('arg')}=)"
    if "NotImplementedError" in mro:
        return MISSING, f"not implemented: {_first_line(msg, 120)}"
    m = _NO_ATTR.search(msg)
    if m and "AttributeError" in mro and not m.group("mod"):
        obj = m.group("obj") or m.group("tobj") or m.group("aobj")
        if obj and obj.lstrip("_")[:1].isupper() and obj not in ("NoneType",):
            return MISSING, f"attribute missing: {obj}.{m.group('attr')}"

    m = _CONTAINER.search(msg)
    obj = m and (m.group("obj") or m.group("obj2"))
    if obj and "TypeError" in mro and obj[:1].isupper():
        return MISSING, f"{obj} is not a sequence of its estimators ({m.group(0)})"

    context = _raise_context(rec)
    actual = re.search(r"Actual message: ['\"]?(.*)", msg)
    actual = actual.group(1) if actual else msg
    if (_has(actual, _SPARSE_WORDS) and _has(actual, _SPARSE_REFUSAL)
            and not re.search(r"sparse|dense", context or "", re.I)):
        return MISSING, f"sparse input refused: {_first_line(actual, 120)}"

    # 3a. expected error / warning behaviour
    if exc == "Failed" and msg.startswith("DID NOT RAISE"):
        return DIFFERENT, f"no exception: {_first_line(msg, 100)}" + (
            f" [{context[:100]}]" if context else "")
    if exc == "Failed" and "DID NOT WARN" in msg:
        return DIFFERENT, "expected warning not given" + (
            f" [{context[:100]}]" if context else "")
    expected = re.search(r"Expected regex: (.*)", msg)
    m = _PARAM.search(actual)
    if m and "Regex pattern did not match" in msg and "parameter" not in (
            expected.group(1) if expected else ""):
        # The test expected another complaint: skml refused the value itself first.
        return MISSING, (f"parameter value not accepted: {m.group('param')}="
                         f"{_first_line(m.group('got'), 60)}")
    if "Regex pattern did not match" in msg or "does not match" in msg and context:
        got = re.search(r"Actual message: (.*)", msg)
        return DIFFERENT, "message differs" + (
            f": got {got.group(1)[:120]}" if got else f" [{(context or '')[:100]}]")
    if "Warning" in mro or exc.endswith("Warning"):
        return DIFFERENT, f"warning raised as error: {_exc_label(rec, 120)}"
    if context and exc not in ("AssertionError", "Failed"):
        return DIFFERENT, f"{_exc_label(rec, 100)} [{context[:100]}]"

    # 2b. input refused on purpose outside any expectation
    if not context and mro & {"ValueError", "TypeError"}:
        if _has(msg, _SPARSE_WORDS) and (_has(msg, _SPARSE_REFUSAL) or
                                         not _in_skml_raise(rec)):
            return MISSING, f"sparse input refused: {_first_line(msg, 120)}"
        if _has(msg, _MULTI_OUTPUT):
            return MISSING, f"multi-output/multilabel refused: {_first_line(msg, 120)}"
        m = _PARAM.search(msg)
        if m:
            return MISSING, (f"parameter value not accepted: {m.group('param')}="
                             f"{_first_line(m.group('got'), 60)}")
        if _has(msg, _NAN) and _in_skml_raise(rec):
            return MISSING, f"missing values refused: {_first_line(msg, 120)}"
        if _has(msg, _ONE_CLASS):
            return MISSING, f"one class refused: {_first_line(msg, 120)}"
        if _in_skml_raise(rec):
            return MISSING, f"input refused: {_exc_label(rec, 120)}"
    if exc in ("TypingError", "NumbaTypeError") and _has(msg, _SPARSE_WORDS):
        return MISSING, f"sparse input refused (numba): {_first_line(msg, 100)}"

    if exc == "KeyError" and re.search(r"param", line, re.I):
        return MISSING, f"parameter missing from get_params: {_first_line(msg, 60)}"

    # 3b. checks by hand on the exception caught, on warnings and on printed output
    caught = _caught_names(src)
    if exc == "AssertionError" and caught and re.search(_words(caught), line):
        return DIFFERENT, ("details of the exception or warning differ: "
                           f"{line.strip()[:110]}")
    if exc == "AssertionError" and (
            re.search(r"capsys|capfd|readouterr|stdout", line + " " + msg)
            or re.search(r"capsys|capfd|sys\.stdout|StringIO", src)
            and re.search(r"verbose", src)):
        return MISSING, f"printed (verbose) output differs: {line.strip()[:110]}"
    if exc == "AssertionError" and "dtype" in line + msg and "float32" in (
            rec.get("nodeid", "") + line + msg):
        return MISSING, f"float32 not preserved: {_first_line(msg or line, 110)}"
    if exc == "AssertionError" and (
            re.search(r"\bwarn|record|caplog", line, re.I) or "Got warnings" in msg
            or "warnings" in _first_line(msg).lower()):
        return DIFFERENT, f"warning check failed: {_first_line(msg or line, 120)}"

    # 4. wrong result
    if "AssertionError" in mro:
        return WRONG, f"assertion: {_assert_reason(msg, line)}"
    return WRONG, f"crash: {_exc_label(rec, 140)}"


def _assert_reason(msg, line):
    """One line from an assertion message: numpy's headline and the mismatch count."""
    lines = [x.strip() for x in (msg or "").splitlines() if x.strip()]
    if not lines:
        return line.strip()[:160] or "assert failed"
    head = lines[0]
    extra = next((x for x in lines[1:] if x.startswith(("Mismatched elements",
                                                          "Max absolute",
                                                          "Max relative"))), "")
    if head.startswith("Not equal") or head.startswith("Arrays are not"):
        text = f"{head} {extra}".strip()
        return f"{text} ({line.strip()[:80]})" if line else text
    return head[:160]
