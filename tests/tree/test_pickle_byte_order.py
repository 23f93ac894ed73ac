"""A tree pickled on a machine of the other byte order (scikit-learn's
test_different_endianness_pickle): the loaded model predicts as the original."""

import copyreg
import io
import pickle

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from skml.ensemble import (
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from skml.tree import DecisionTreeClassifier, DecisionTreeRegressor


def _swapped_byte_order_round_trip(model):
    def reduce_ndarray(arr):
        return arr.byteswap().view(arr.dtype.newbyteorder()).__reduce__()

    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer)
    pickler.dispatch_table = copyreg.dispatch_table.copy()
    pickler.dispatch_table[np.ndarray] = reduce_ndarray
    pickler.dump(model)
    buffer.seek(0)
    return pickle.load(buffer)


@pytest.mark.parametrize("model", [
    DecisionTreeClassifier(max_depth=4, random_state=0),
    DecisionTreeRegressor(max_depth=4, random_state=0),
    RandomForestClassifier(n_estimators=3, max_depth=3, random_state=0),
    RandomForestRegressor(n_estimators=3, max_depth=3, random_state=0),
    GradientBoostingClassifier(n_estimators=5, random_state=0),
    GradientBoostingRegressor(n_estimators=5, random_state=0),
], ids=lambda model: type(model).__name__)
def test_tree_pickled_in_the_other_byte_order_predicts_the_same(model):
    X, y = load_breast_cancer(return_X_y=True)
    model.fit(X, y)
    loaded = _swapped_byte_order_round_trip(model)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    np.testing.assert_array_equal(loaded.apply(X), model.apply(X))
    if hasattr(model, "predict_proba"):
        np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
