"""LogisticRegression(threshold=c): the decision threshold of notes D3 (B §3.3).

The notes' rule: h(x) >= c -> y = 1, h(x) < c -> y = 0, with h(x) = P(y=1|x).
"""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.model_selection import FixedThresholdClassifier

from skml.linear_model import LogisticRegression

from .. import _data


@pytest.mark.parametrize("c", [0.05, 0.3, 0.5, 0.9])
def test_predict_is_h_at_least_c(cancer, c):
    X, y = cancer
    clf = LogisticRegression(threshold=c).fit(X, y)
    h = clf.predict_proba(X)[:, 1]
    assert np.any(h >= c) and np.any(h < c)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[(h >= c).astype(int)])


def test_threshold_changes_the_decision_only(cancer):
    X, y = cancer
    base = LogisticRegression().fit(X, y)
    shifted = LogisticRegression(threshold=0.9).fit(X, y)
    np.testing.assert_array_equal(shifted.coef_, base.coef_)
    np.testing.assert_array_equal(shifted.predict_proba(X), base.predict_proba(X))
    assert np.any(shifted.predict(X) != base.predict(X))


def test_positive_set_shrinks_as_c_grows(cancer):
    # {x : h(x) >= c} is nested: raising c never turns a 0 into a 1, so the
    # recall of class 1 never increases.
    X, y = cancer
    clf = LogisticRegression().fit(X, y)
    previous = np.ones(len(y), dtype=bool)
    recalls = []
    for c in np.linspace(0, 1, 21):
        positive = clf.set_params(threshold=c).predict(X) == clf.classes_[1]
        assert not np.any(positive & ~previous)
        previous = positive
        recalls.append(positive[y == 1].mean())
    assert recalls[0] == 1.0 and np.all(np.diff(recalls) <= 0)


@pytest.mark.parametrize("c", [0.2, 0.7])
def test_matches_sklearn_fixed_threshold_classifier(cancer, c):
    X, y = cancer
    ours = LogisticRegression(threshold=c, tol=1e-10, max_iter=1000).fit(X, y)
    theirs = FixedThresholdClassifier(
        SkLogisticRegression(tol=1e-10, max_iter=1000), threshold=c,
        response_method="predict_proba").fit(X, y)
    h = ours.predict_proba(X)[:, 1]
    clear = np.abs(h - c) > 1e-6  # ties at c may round either way
    np.testing.assert_array_equal(ours.predict(X)[clear], theirs.predict(X)[clear])


def test_threshold_refused_for_multiclass_and_out_of_range():
    X, y = _data.load("wine", scale=True)
    with pytest.raises(ValueError, match="binary"):
        LogisticRegression(threshold=0.3).fit(X, y)
    with pytest.raises(ValueError, match="threshold"):
        LogisticRegression(threshold=1.5).fit(X[y < 2], y[y < 2])
