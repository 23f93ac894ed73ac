"""The child process that runs the cases (driven by ``_runner.py``).

Requests arrive as JSON lines on stdin; messages go out as JSON lines on the
original stdout (fd 1 is pointed at stderr, so prints from estimators or C
code cannot corrupt the stream):

- ``{"op": "run", "estimator": name, "cases": [ids] | null, "skip": [ids]}``:
  for each case ``{"op": "start", ...}`` before each library's run, then
  ``{"op": "side", ...}`` with its raw result, then ``{"op": "done"}``.
- ``{"op": "dump", "estimator": name, "path": file}``: pickle the clean fit.

``python -m tests.robustness._worker --load DIR`` is the fresh process of
the pickle round trip: it loads every ``DIR/<name>.pkl`` and prints one
JSON line per estimator.
"""

import json
import os
import sys
import warnings


def _channel():
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def _send(out, message):
    out.write(json.dumps(message, default=_jsonable) + "\n")
    out.flush()


def _jsonable(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return repr(value)


def serve():
    out = _channel()
    from . import _cases as C

    sklearn_subjects = {}

    def sklearn_subject(name):
        if name not in sklearn_subjects:
            sklearn_subjects[name] = None
            for candidate in C.sklearn_candidates(name, C.skml_subject(name).template):
                subject = C.Subject("sklearn", name, candidate)
                try:
                    subject.clean  # noqa: B018  (the instance must fit the clean data)
                except Exception:
                    continue
                sklearn_subjects[name] = subject
                break
        return sklearn_subjects[name]

    _send(out, {"op": "ready"})
    for line in sys.stdin:
        request = json.loads(line)
        name = request["estimator"]
        if request["op"] == "dump":
            case = C.Case("pickle_fresh_process", "pickle", "answer", "identical", "", None)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    C.dump_fitted(C.skml_subject(name), request["path"])
                    raw = None
                except Exception as exc:  # reported as the pickle case's error
                    raw = C.raw_error(case, exc)
            _send(out, {"op": "dumped", "estimator": name, "raw": raw})
            continue
        try:
            subject = C.skml_subject(name)
        except Exception as exc:  # no usable instance: one failing case says why
            meta = {"id": "instance", "group": "instance", "expect": "answer",
                    "oracle": "finite", "estimator": name}
            raw = {"status": "error", "clarity": "crash", "message": (
                f"cannot build a test instance ({type(exc).__name__}: {exc}); "
                "add one to tests/estimator_instances.py")[:300]}
            for side in ("skml", "sklearn"):
                _send(out, {"op": "start", "case": meta, "side": side})
                _send(out, {"op": "side", "case": meta, "side": side,
                            "raw": raw if side == "skml" else C.not_applicable("")})
            _send(out, {"op": "done", "estimator": name})
            continue
        wanted = request.get("cases")
        skip = set(request.get("skip") or ())
        for case in C.cases_for(subject):
            if case.id in skip or (wanted is not None and case.id not in wanted):
                continue
            if case.id == "pickle_fresh_process":
                continue
            meta = case.meta(name)
            for side in ("skml", "sklearn"):
                if side in request.get("skip_side", {}).get(case.id, ()):
                    continue
                _send(out, {"op": "start", "case": meta, "side": side})
                target = subject if side == "skml" else sklearn_subject(name)
                raw = C.run_case(case, target)
                _send(out, {"op": "side", "case": meta, "side": side, "raw": raw})
        _send(out, {"op": "done", "estimator": name})


def load(directory, names):
    out = _channel()
    from . import _cases as C

    for name in names:
        _send(out, {"op": "start", "estimator": name})
        path = os.path.join(directory, f"{name}.pkl")
        case = C.Case("pickle_fresh_process", "pickle", "answer", "identical", "", None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                raw = C.check_loaded(name, path)
            except Exception as exc:
                raw = C.raw_error(case, exc)
        _send(out, {"op": "loaded", "estimator": name, "raw": raw})
    _send(out, {"op": "done"})


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--load":
        load(sys.argv[2], sys.argv[3:])
    else:
        serve()
