"""SuccessiveHalvingSearchCV's rounds on a dask.distributed cluster through joblib."""

import joblib
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

distributed = pytest.importorskip("distributed")


def test_halving_search_on_local_cluster():
    from skml.linear_model import SGDClassifier
    from skml.model_selection import SuccessiveHalvingSearchCV

    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)

    def search(n_jobs):
        return SuccessiveHalvingSearchCV(
            SGDClassifier(max_iter=12, tol=None, random_state=0),
            {"alpha": [1e-5, 1e-4, 1e-3, 1e-2]}, n_candidates=4, resource="max_iter",
            cv=3, n_jobs=n_jobs, random_state=0)

    # One in-process worker (threads) keeps the test light; two threads,
    # because a cluster of one thread makes joblib run everything in the
    # client (CONVENTIONS.md §5, gotcha 2).
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        with distributed.get_task_stream(client) as stream:
            with joblib.parallel_backend("dask"):
                remote = search(-1).fit(X, y)
    local = search(None).fit(X, y)

    assert len(stream.data) > 0, "no task reached the dask workers"
    assert remote.best_params_ == local.best_params_
    assert remote.n_resources_ == local.n_resources_ == [4, 12]
    np.testing.assert_allclose(
        remote.cv_results_["mean_test_score"], local.cv_results_["mean_test_score"])
    assert remote.cv_results_["continued"][remote.cv_results_["iter"] == 1].all()
