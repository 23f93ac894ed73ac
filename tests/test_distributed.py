"""GridSearchCV over an skml pipeline on a real dask.distributed cluster."""

import joblib
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

distributed = pytest.importorskip("distributed")


def test_grid_search_on_local_cluster():
    from skml.linear_model import LogisticRegression
    from skml.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    pipe = make_pipeline(StandardScaler(), LogisticRegression())
    grid = {"logisticregression__C": [0.01, 0.1, 1.0, 10.0]}

    # In-process workers (threads) keep the test fast and need no installed
    # package on separate worker processes; the scheduler is the real one.
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        with distributed.get_task_stream(client) as stream:
            with joblib.parallel_backend("dask"):
                search = GridSearchCV(pipe, grid, cv=3, n_jobs=-1).fit(X, y)
        workers = {task["worker"] for task in stream.data}

    local = GridSearchCV(pipe, grid, cv=3).fit(X, y)
    assert len(stream.data) > 0, "no task reached the dask workers"
    assert len(workers) >= 1
    assert search.best_params_ == local.best_params_
    np.testing.assert_allclose(
        search.cv_results_["mean_test_score"], local.cv_results_["mean_test_score"]
    )
