"""pytest plugin loaded (``-p benchmarks.sklearn_tests._plugin``) in the child process.

It does three things, configured by environment variables set by the parent
(:mod:`benchmarks.sklearn_tests.__main__`):

1. **Substitution.** An import hook placed first on ``sys.meta_path`` loads the target
   test modules (``SKT_TARGETS``, dotted names such as ``sklearn.tree.tests.test_tree``)
   from their own files, but with the syntax tree changed: after every import statement
   each bound name goes through :func:`substitute`, which returns skml's class when the
   imported object *is* one of the counterpart classes (``SKT_NAMES``), wraps an
   sklearn module that exposes one (so ``svm.SVC`` in ``from sklearn import svm`` is
   skml's) and leaves anything else alone. Then pytest's own assertion rewriting is
   applied, so failing asserts keep their explanations.
2. **Did skml run?** Every function defined in skml on the skml estimator classes (and
   their skml base classes) is wrapped once to note the call; the note is reset before
   each test and read after it.
3. **Recording.** One JSON line per test (``SKT_OUT``): outcome, whether skml ran and
   which classes, and for failures the exception type, message, traceback frames and
   the test's source, for the parent to classify. ``SKT_TEST_TIMEOUT`` seconds (0: no
   limit) bounds each test's call phase with ``SIGALRM``.
"""

import ast
import functools
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import json
import os
import signal
import sys
import time
import traceback
import types

import pytest

_OUT = os.environ.get("SKT_OUT")
_TARGETS = set(filter(None, os.environ.get("SKT_TARGETS", "").split(",")))
_NAMES = set(filter(None, os.environ.get("SKT_NAMES", "").split(",")))
_TEST_TIMEOUT = float(os.environ.get("SKT_TEST_TIMEOUT", "0") or 0)

_SUBST = {}  # id(sklearn class) -> (sklearn class, skml class)
_PROXY_MODULES = set()  # sklearn modules through which a counterpart is reached
_STATE = {"ran": False, "classes": set()}
_CONFIG = None
_SKIP_DUNDERS = {
    "__new__", "__init_subclass__", "__class_getitem__", "__subclasshook__",
    "__getattr__", "__getattribute__", "__setattr__", "__delattr__", "__dir__",
    "__reduce__", "__reduce_ex__", "__repr__", "__str__", "__hash__", "__eq__",
    "__sizeof__", "__format__",
}


class SkmlTestTimeout(Exception):
    """Raised by ``SIGALRM`` when a test runs longer than ``SKT_TEST_TIMEOUT``."""


# --- substitution --------------------------------------------------------------------

class _ModuleProxy:
    """A view of an sklearn module whose counterpart attributes are skml's classes."""

    def __init__(self, module):
        object.__setattr__(self, "_skt_module", module)

    def __getattr__(self, name):
        return substitute(getattr(object.__getattribute__(self, "_skt_module"), name))

    def __setattr__(self, name, value):
        setattr(object.__getattribute__(self, "_skt_module"), name, value)

    def __delattr__(self, name):
        delattr(object.__getattribute__(self, "_skt_module"), name)

    def __dir__(self):
        return dir(object.__getattribute__(self, "_skt_module"))

    def __repr__(self):
        return f"<skml view of {object.__getattribute__(self, '_skt_module')!r}>"


def substitute(obj):
    """skml's class for a counterpart class, a view for its module, else ``obj``."""
    hit = _SUBST.get(id(obj))
    if hit is not None and hit[0] is obj:
        return hit[1]
    if isinstance(obj, types.ModuleType) and obj.__name__ in _PROXY_MODULES:
        return _ModuleProxy(obj)
    return obj


def _substitute_star(namespace):
    for key, value in list(namespace.items()):
        new = substitute(value)
        if new is not value:
            namespace[key] = new


def _call_substitute(name, node):
    stmt = ast.Assign(
        targets=[ast.Name(id=name, ctx=ast.Store())],
        value=ast.Call(func=ast.Name(id="__skml_substitute__", ctx=ast.Load()),
                       args=[ast.Name(id=name, ctx=ast.Load())], keywords=[]),
    )
    return ast.copy_location(stmt, node)


class _Substituter(ast.NodeTransformer):
    """Append ``name = __skml_substitute__(name)`` after each sklearn import."""

    def visit_Import(self, node):
        extra = []
        for alias in node.names:
            if alias.name.split(".")[0] != "sklearn":
                continue
            bound = alias.asname or alias.name.split(".")[0]
            extra.append(_call_substitute(bound, node))
        return [node, *extra]

    def visit_ImportFrom(self, node):
        if node.level == 0 and (node.module or "").split(".")[0] != "sklearn":
            return node
        extra = []
        for alias in node.names:
            if alias.name == "*":
                call = ast.Expr(ast.Call(
                    func=ast.Name(id="__skml_substitute_star__", ctx=ast.Load()),
                    args=[ast.Call(func=ast.Name(id="globals", ctx=ast.Load()),
                                   args=[], keywords=[])], keywords=[]))
                extra.append(ast.copy_location(call, node))
            else:
                extra.append(_call_substitute(alias.asname or alias.name, node))
        return [node, *extra]


class _SubstitutingFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Load the target test modules from their files with the substitution applied."""

    def find_spec(self, fullname, path, target=None):
        if fullname not in _TARGETS:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not spec.origin:
            return None
        return importlib.util.spec_from_file_location(fullname, spec.origin,
                                                      loader=self)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        path = module.__spec__.origin
        with open(path, "rb") as f:
            source = f.read()
        tree = _Substituter().visit(ast.parse(source, path))
        ast.fix_missing_locations(tree)
        try:  # pytest's assertion rewriting, so failing asserts explain themselves
            from _pytest.assertion.rewrite import rewrite_asserts
            rewrite_asserts(tree, source, path, _CONFIG)
        except Exception:  # a private pytest API: plain asserts still work
            pass
        code = compile(tree, path, "exec", dont_inherit=True)
        module.__dict__["__skml_substitute__"] = substitute
        module.__dict__["__skml_substitute_star__"] = _substitute_star
        exec(code, module.__dict__)


def _build_substitution():
    from sklearn.utils.discovery import all_estimators as sklearn_estimators

    from skml.utils.discovery import all_estimators as skml_estimators

    # Importing every sklearn estimator first binds sklearn's own internal imports to
    # sklearn's classes; the substitution below touches nothing but the test modules.
    sk = dict(sklearn_estimators())
    for name, cls in skml_estimators():
        if name in _NAMES and name in sk:
            _SUBST[id(sk[name])] = (sk[name], cls)
    for modname, module in list(sys.modules.items()):
        if modname.split(".")[0] != "sklearn" or any(
                p.startswith("_") for p in modname.split(".")):
            continue
        if any(getattr(module, sk_cls.__name__, None) is sk_cls
               for sk_cls, _ in _SUBST.values()):
            parts = modname.split(".")
            _PROXY_MODULES.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))


# --- did skml run? -------------------------------------------------------------------

def _note(args, owner):
    _STATE["ran"] = True
    if args and type(args[0]).__module__.startswith("skml"):
        _STATE["classes"].add(type(args[0]).__name__)
    else:
        _STATE["classes"].add(owner)


def _wrap(fn, owner):
    if getattr(fn, "__skt_wrapped__", False):
        return fn

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        _note(args, owner)
        return fn(*args, **kwargs)

    wrapper.__skt_wrapped__ = True
    return wrapper


def _instrument_class(klass):
    for attr, value in list(vars(klass).items()):
        if attr in _SKIP_DUNDERS:
            continue
        owner = klass.__name__
        if isinstance(value, (staticmethod, classmethod)):
            func = value.__func__
            if inspect.isfunction(func) and not getattr(func, "__skt_wrapped__", False):
                setattr(klass, attr, type(value)(_wrap(func, owner)))
        elif isinstance(value, property):
            if value.fget is not None and not getattr(value.fget, "__skt_wrapped__", 0):
                setattr(klass, attr, property(_wrap(value.fget, owner), value.fset,
                                              value.fdel, value.__doc__))
        elif inspect.isfunction(value):
            setattr(klass, attr, _wrap(value, owner))
        elif hasattr(value, "fn") and hasattr(value, "check"):  # sklearn's available_if
            if inspect.isfunction(value.fn):
                value.fn = _wrap(value.fn, owner)


def _instrument_skml():
    from skml.utils.discovery import all_estimators as skml_estimators

    done = set()
    for _, cls in skml_estimators():
        for klass in cls.__mro__:
            if klass in done or not klass.__module__.startswith("skml"):
                continue
            done.add(klass)
            _instrument_class(klass)


# --- recording -----------------------------------------------------------------------

def _write(record):
    with open(_OUT, "a", encoding="utf-8") as f:
        f.write(json.dumps(record, default=str) + "\n")


def _frame_kind(filename, test_path):
    if os.path.realpath(filename) == test_path:
        return "test"
    norm = filename.replace(os.sep, "/")
    for key, marker in (("skml", "/skml/"), ("pytest", "/_pytest/"),
                        ("pytest", "/pluggy/"), ("sklearn", "/sklearn/"),
                        ("numpy", "/numpy/"), ("scipy", "/scipy/"),
                        ("numba", "/numba/"), ("joblib", "/joblib/")):
        if marker in norm:
            return key
    return "other"


def _short(filename):
    norm = filename.replace(os.sep, "/")
    for marker in ("/site-packages/", "/work/main/"):
        if marker in norm:
            return norm.split(marker, 1)[1]
    return norm


def _exception_info(excinfo, item):
    exc = excinfo.value
    test_path = os.path.realpath(str(item.path))
    frames = []
    for fs in traceback.extract_tb(excinfo.tb):
        frames.append({"kind": _frame_kind(fs.filename, test_path),
                       "file": _short(fs.filename), "line": fs.lineno,
                       "func": fs.name, "code": (fs.line or "")[:300]})
    # Keep the frames from the test on (or, for a fixture, past pytest's machinery),
    # without the wrappers this plugin put around skml's methods.
    frames = [f for f in frames if not f["file"].endswith("sklearn_tests/_plugin.py")]
    tests = [i for i, f in enumerate(frames) if f["kind"] == "test"]
    if tests:
        frames = frames[tests[0]:]
    while frames and frames[0]["kind"] == "pytest":
        frames.pop(0)
    if len(frames) > 40:
        frames = frames[:5] + frames[-35:]
    chain = []
    cause = exc.__cause__ or exc.__context__
    while cause is not None and len(chain) < 3:
        chain.append(f"{type(cause).__name__}: {str(cause)[:300]}")
        cause = cause.__cause__ or cause.__context__
    mro = [k.__name__ for k in type(exc).__mro__]
    return {"exc_type": type(exc).__name__,
            "exc_module": type(exc).__module__,
            "exc_mro": mro,
            "exc_msg": str(exc)[:3000],
            "exc_chain": chain,
            "frames": frames}


def _test_source(item):
    try:
        func = getattr(item, "function", None) or item.obj
        lines, start = inspect.getsourcelines(func)
        return "".join(lines)[:20000], start
    except Exception:
        return None, None


def pytest_configure(config):
    global _CONFIG
    _CONFIG = config
    if not _OUT:
        return
    _build_substitution()
    _instrument_skml()
    sys.meta_path.insert(0, _SubstitutingFinder())
    if _TEST_TIMEOUT > 0 and hasattr(signal, "SIGALRM"):
        def on_alarm(signum, frame):
            raise SkmlTestTimeout(f"test ran longer than {_TEST_TIMEOUT:.0f} s")
        signal.signal(signal.SIGALRM, on_alarm)


def pytest_sessionstart(session):
    if not _OUT:
        return
    try:  # one BLAS/OpenMP thread: the machine is shared (sklearn's conftest asks more)
        from threadpoolctl import threadpool_limits
        threadpool_limits(1)
    except Exception:
        pass


def pytest_collection_modifyitems(session, config, items):
    """Leave out the tests a previous (crashed or stopped) child already recorded."""
    done_file = os.environ.get("SKT_DONE")
    if not (_OUT and done_file and os.path.exists(done_file)):
        return
    with open(done_file, encoding="utf-8") as f:
        done = set(f.read().splitlines())
    keep = [item for item in items if item.nodeid not in done]
    config.hook.pytest_deselected(items=[i for i in items if i.nodeid in done])
    items[:] = keep


def pytest_collectreport(report):
    """A module that fails to import (e.g. skml refuses a parameter used at module
    level) is recorded as one failed pseudo-test, ``<module>::<collection>``."""
    if not (_OUT and report.failed):
        return
    text = str(report.longrepr)
    last = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
    head = last[-1] if last else text.strip().splitlines()[-1]
    exc_type, _, msg = head.partition(": ")
    if exc_type.replace(".", "").isidentifier():
        exc_type = exc_type.split(".")[-1]
    else:
        exc_type = "CollectionError"
    _write({"nodeid": f"{report.nodeid}::<collection>", "outcome": "error",
            "phase": "collect", "skml_ran": True, "skml_classes": [],
            "exc_type": exc_type, "exc_mro": [exc_type], "exc_msg": msg or head,
            "frames": [], "longrepr": text[-3000:]})


def pytest_collection_finish(session):
    if _OUT:
        _write({"collected": [item.nodeid for item in session.items]})


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not _OUT:
        return (yield)
    _write({"started": item.nodeid})
    _STATE["ran"] = False
    _STATE["classes"] = set()
    item.stash[_REPORTS] = {}
    t0 = time.perf_counter()
    try:
        return (yield)
    finally:
        _finish(item, time.perf_counter() - t0)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    armed = _OUT and _TEST_TIMEOUT > 0 and hasattr(signal, "SIGALRM")
    if armed:
        signal.setitimer(signal.ITIMER_REAL, _TEST_TIMEOUT)
    try:
        return (yield)
    finally:
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)


_REPORTS = pytest.StashKey[dict]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if _OUT and _REPORTS in item.stash:
        entry = {"outcome": report.outcome, "wasxfail": hasattr(report, "wasxfail")}
        if report.failed and call.excinfo is not None:
            entry.update(_exception_info(call.excinfo, item))
        elif report.skipped and call.excinfo is not None and not entry["wasxfail"]:
            entry["skip_reason"] = str(call.excinfo.value)[:300]
        item.stash[_REPORTS][call.when] = entry
    return report


def _finish(item, duration):
    reports = item.stash.get(_REPORTS, {})
    record = {"nodeid": item.nodeid, "skml_ran": _STATE["ran"],
              "skml_classes": sorted(_STATE["classes"]), "duration": round(duration, 3)}
    setup, call, teardown = (reports.get(w, {}) for w in ("setup", "call", "teardown"))
    if setup.get("outcome") == "failed":
        record.update(outcome="error", phase="setup", **_failure_fields(setup))
    elif call.get("wasxfail"):
        record.update(outcome="xfailed" if call["outcome"] == "skipped" else "xpassed")
    elif setup.get("wasxfail"):
        record.update(outcome="xfailed")
    elif call.get("outcome") == "failed":
        record.update(outcome="failed", phase="call", **_failure_fields(call))
    elif setup.get("outcome") == "skipped" or call.get("outcome") == "skipped":
        record.update(outcome="skipped",
                      skip_reason=(setup.get("skip_reason") or call.get("skip_reason")))
    elif teardown.get("outcome") == "failed":
        record.update(outcome="error", phase="teardown", **_failure_fields(teardown))
    else:
        record.update(outcome="passed")
    if record["outcome"] in ("failed", "error"):
        record["test_source"], record["test_source_line"] = _test_source(item)
        record["test_file"] = _short(str(item.path))
    _write(record)


def _failure_fields(entry):
    return {k: v for k, v in entry.items() if k not in ("outcome", "wasxfail")}
