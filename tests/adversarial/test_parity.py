"""Parity of the adversarial meta-estimators with scikit-learn, where they reduce to it.

With no attack (``ratio=0``, ``beta=0``) the defences train exactly skml's
MLPClassifier, which follows scikit-learn's initial network and Adam; with a
negligible noise the smoothed classifier is its base classifier.
"""

import numpy as np
import sklearn.linear_model as sk_linear
import sklearn.neural_network as sk_nn
from numpy.testing import assert_allclose
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from skml.adversarial import (
    AdversarialTrainingClassifier,
    SmoothedClassifier,
    TRADESClassifier,
)
from skml.linear_model import LogisticRegression
from skml.neural_network import MLPClassifier
from tests._parity import parity_test


def _cancer():
    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, random_state=0,
                                              stratify=y)
    scaler = StandardScaler().fit(X_tr)
    return scaler.transform(X_tr), scaler.transform(X_te), y_tr, y_te


@parity_test(AdversarialTrainingClassifier, TRADESClassifier)
def test_defences_without_attack_match_scikit_learn_mlp():
    X_tr, X_te, y_tr, y_te = _cancer()
    params = dict(hidden_layer_sizes=(20,), solver="adam", max_iter=30, random_state=0)
    with threadpool_limits(1):
        ref = sk_nn.MLPClassifier(**params).fit(X_tr, y_tr)
    for clf in (AdversarialTrainingClassifier(MLPClassifier(**params), ratio=0.0),
                TRADESClassifier(MLPClassifier(**params), beta=0.0)):
        clf.fit(X_tr, y_tr)
        assert abs(clf.score(X_te, y_te) - ref.score(X_te, y_te)) <= 0.02
        assert_allclose(clf.estimator_.loss_curve_, ref.loss_curve_, rtol=0.05)


@parity_test(SmoothedClassifier)
def test_smoothed_classifier_with_tiny_noise_is_its_base():
    X_tr, X_te, y_tr, y_te = _cancer()
    ref = sk_linear.LogisticRegression(max_iter=1000).fit(X_tr, y_tr)
    clf = SmoothedClassifier(LogisticRegression(max_iter=1000), sigma=1e-6, n_samples=50,
                             random_state=0).fit(X_tr, y_tr)
    assert np.mean(clf.predict(X_te) == ref.predict(X_te)) >= 0.99
    assert abs(clf.score(X_te, y_te) - ref.score(X_te, y_te)) <= 0.01
    # every row is certified (all draws agree) at sigma Phi^-1(alpha^(1/n))
    labels, radii = clf.certify(X_te)
    assert np.all(labels == clf.predict(X_te)) and np.all(radii > 0)
