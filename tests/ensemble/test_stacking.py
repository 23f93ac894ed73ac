"""StackingClassifier / StackingRegressor: folds, prefit blending, parity."""

import numpy as np
import pytest
from sklearn import datasets
from sklearn import ensemble as sken
from sklearn.linear_model import LogisticRegression as SkLogistic
from sklearn.linear_model import Ridge as SkRidge
from sklearn.model_selection import KFold, cross_val_predict, train_test_split

from skml.ensemble import StackingClassifier, StackingRegressor
from skml.linear_model import LogisticRegression, Ridge
from skml.naive_bayes import GaussianNB
from skml.tree import DecisionTreeClassifier, DecisionTreeRegressor
from tests._parity import parity_test


def _clf_members():
    return [("nb", GaussianNB()), ("tree", DecisionTreeClassifier(max_depth=3, random_state=0))]


@parity_test(StackingClassifier)
def test_classifier_parity_on_iris():
    X, y = datasets.load_iris(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0, stratify=y)
    ours = StackingClassifier(_clf_members(), cv=5).fit(Xtr, ytr)
    ref = sken.StackingClassifier(_clf_members(), final_estimator=SkLogistic(), cv=5).fit(Xtr, ytr)
    # Same members and folds: same meta-features.
    assert np.allclose(ours.transform(Xte), ref.transform(Xte))
    assert abs(ours.score(Xte, yte) - ref.score(Xte, yte)) <= 0.03


@parity_test(StackingRegressor)
def test_regressor_parity_on_diabetes():
    X, y = datasets.load_diabetes(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)
    members = [("ridge", Ridge(alpha=0.1)), ("tree", DecisionTreeRegressor(max_depth=3))]
    cv = KFold(5, shuffle=True, random_state=0)
    ours = StackingRegressor(members, cv=cv).fit(Xtr, ytr)
    ref = sken.StackingRegressor(members, final_estimator=SkRidge(), cv=cv).fit(Xtr, ytr)
    assert np.allclose(ours.transform(Xte), ref.transform(Xte))
    assert np.allclose(ours.predict(Xte), ref.predict(Xte), rtol=1e-6)


def test_meta_features_are_out_of_fold():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    cv = KFold(4, shuffle=True, random_state=0)
    final = LogisticRegression(max_iter=300)
    stack = StackingClassifier(_clf_members(), final_estimator=final, cv=cv).fit(X, y)
    # The final estimator was fitted on out-of-fold probabilities (class 1 only).
    oof = np.column_stack([
        cross_val_predict(est, X, y, cv=cv, method="predict_proba")[:, 1]
        for _, est in _clf_members()
    ])
    expected = LogisticRegression(max_iter=300).fit(oof, y)
    assert np.allclose(stack.final_estimator_.coef_, expected.coef_)


def test_prefit_is_the_notes_holdout_blending():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    X1, X2, y1, y2 = train_test_split(X, y, test_size=0.5, random_state=0)
    members = [(n, e.fit(X1, y1)) for n, e in _clf_members()]
    ours = StackingClassifier(members, cv="prefit").fit(X2, y2)
    ref = sken.StackingClassifier(members, final_estimator=SkLogistic(), cv="prefit").fit(X2, y2)
    # The members never saw part 2: they are the very objects fitted on part 1.
    assert ours.estimators_[0] is members[0][1]
    assert np.allclose(ours.transform(X2), ref.transform(X2))
    assert abs(ours.score(X2, y2) - ref.score(X2, y2)) <= 0.02


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_passthrough_and_stack_method():
    X, y = datasets.load_iris(return_X_y=True)
    stack = StackingClassifier(_clf_members(), stack_method="predict", passthrough=True,
                               cv=3).fit(X, y)
    assert stack.transform(X).shape == (150, 2 + 4)
    assert stack.stack_method_ == ["predict", "predict"]
    assert len(stack.get_feature_names_out()) == 6


def test_string_labels():
    X, y = datasets.load_iris(return_X_y=True)
    labels = np.array(["a", "b", "c"])[y]
    stack = StackingClassifier(_clf_members(), cv=3).fit(X, labels)
    assert set(stack.predict(X)) <= {"a", "b", "c"}
    assert stack.predict_proba(X).shape == (150, 3)


def test_same_result_for_any_n_jobs_and_verbose(capsys):
    X, y = datasets.load_breast_cancer(return_X_y=True)
    cv = KFold(3, shuffle=True, random_state=0)
    a = StackingClassifier(_clf_members(), cv=cv, n_jobs=1, verbose=1).fit(X, y)
    assert "final estimator" in capsys.readouterr().out
    b = StackingClassifier(_clf_members(), cv=cv, n_jobs=2).fit(X, y)
    assert np.array_equal(a.transform(X), b.transform(X))
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("loader", [datasets.load_breast_cancer, datasets.load_iris])
@pytest.mark.parametrize("stack_method", ["auto", "predict", "decision_function"])
def test_feature_names_as_scikit_learn(loader, stack_method):
    # Issue 19: a binary predict_proba member gives one column, named
    # "stackingclassifier_lr" (not "lr1"); several columns are numbered.
    X, y = loader(return_X_y=True)
    X = X[:, :4]
    members = [("lr", LogisticRegression(max_iter=50)), ("lr2", LogisticRegression(max_iter=50))]
    if stack_method != "decision_function":
        members.append(("tree", DecisionTreeClassifier(max_depth=2, random_state=0)))
    kw = dict(stack_method=stack_method, cv=3, passthrough=True)
    ours = StackingClassifier(members, **kw).fit(X, y)
    ref = sken.StackingClassifier(members, final_estimator=SkLogistic(), **kw).fit(X, y)
    names = ours.get_feature_names_out()
    np.testing.assert_array_equal(names, ref.get_feature_names_out())
    assert len(names) == ours.transform(X).shape[1]
    np.testing.assert_array_equal(ours.get_feature_names_out([f"f{i}" for i in range(4)]),
                                  ref.get_feature_names_out([f"f{i}" for i in range(4)]))


def test_regressor_feature_names_as_scikit_learn():
    X, y = datasets.load_diabetes(return_X_y=True)
    members = [("ridge", Ridge(alpha=0.1)), ("tree", DecisionTreeRegressor(max_depth=3))]
    ours = StackingRegressor(members, cv=3).fit(X, y)
    ref = sken.StackingRegressor(members, final_estimator=SkRidge(), cv=3).fit(X, y)
    np.testing.assert_array_equal(ours.get_feature_names_out(), ref.get_feature_names_out())


# -- Issue 20: sparse X through to the members, sparse passthrough


@parity_test(StackingClassifier, StackingRegressor)
@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_sparse_X_as_scikit_learn(fmt):
    import scipy.sparse as sp
    from sklearn.utils import get_tags

    X, y = datasets.load_iris(return_X_y=True)
    X = X * (X > np.median(X, axis=0))
    Xs = sp.csr_matrix(X).asformat(fmt)
    members = [("lr", LogisticRegression(max_iter=300)), ("sk", SkLogistic(C=0.1))]
    for passthrough in [False, True]:
        ours = StackingClassifier(members, passthrough=passthrough, cv=KFold(3, shuffle=True, random_state=0)).fit(Xs, y)
        ref = sken.StackingClassifier(members, final_estimator=SkLogistic(),
                                      passthrough=passthrough, cv=KFold(3, shuffle=True, random_state=0)).fit(Xs, y)
        meta, ref_meta = ours.transform(Xs), ref.transform(Xs)
        # with passthrough the meta-features stay sparse, in X's format
        assert sp.issparse(meta) == passthrough == sp.issparse(ref_meta)
        if passthrough:
            assert meta.format == fmt
            meta, ref_meta = meta.toarray(), ref_meta.toarray()
        np.testing.assert_allclose(meta, ref_meta, atol=2e-3)
        assert np.mean(ours.predict(Xs) == ref.predict(Xs)) >= 0.97
        dense = StackingClassifier(members, passthrough=passthrough, cv=KFold(3, shuffle=True, random_state=0)).fit(X, y)
        np.testing.assert_allclose(ours.predict_proba(Xs), dense.predict_proba(X),
                                   atol=1e-5)
    assert get_tags(ours).input_tags.sparse
    assert not get_tags(StackingClassifier(_clf_members())).input_tags.sparse

    Xr, yr = datasets.load_diabetes(return_X_y=True)
    Xrs = sp.csr_matrix(Xr * (Xr > 0)).asformat(fmt)
    members = [("ridge", Ridge(alpha=0.5)), ("sk", SkRidge())]
    ours = StackingRegressor(members, final_estimator=SkRidge(), passthrough=True,
                             cv=KFold(3, shuffle=True, random_state=0)).fit(Xrs, yr)
    ref = sken.StackingRegressor(members, final_estimator=SkRidge(), passthrough=True,
                                 cv=KFold(3, shuffle=True, random_state=0)).fit(Xrs, yr)
    np.testing.assert_allclose(ours.predict(Xrs), ref.predict(Xrs), rtol=1e-4)


def test_multi_output_y_refused_as_scikit_learn():
    rng = np.random.RandomState(0)
    X, Y = rng.rand(40, 3), rng.rand(40, 2)
    for cls, kw in [(sken.StackingRegressor, {}), (StackingRegressor, {})]:
        with pytest.raises(ValueError, match="1d array"):
            cls([("r", Ridge())], **kw).fit(X, Y)


# -- Issue 18: the notes' hold-out stacking ("blending", B §9.6, D4 "Stacking")


class _RowSpy(GaussianNB):
    """Records the rows it was fitted on (X's first column holds the row id)."""

    def fit(self, X, y, sample_weight=None):
        self.rows_ = np.asarray(X)[:, 0].astype(int)
        return super().fit(X, y, sample_weight)


def test_holdout_members_never_see_the_held_out_rows():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    X = np.column_stack([np.arange(len(y)), X])
    stack = StackingClassifier([("spy", _RowSpy()), ("tree", DecisionTreeClassifier(
        max_depth=2, random_state=0))], cv="holdout", holdout_fraction=0.3,
        random_state=0).fit(X, y)
    seen = stack.estimators_[0].rows_
    _, part2 = train_test_split(np.arange(len(y)), test_size=0.3, random_state=0,
                                stratify=y)
    # part 1 fits the members, part 2 only the final classifier (D4)
    assert len(seen) == len(y) - len(part2)
    assert not np.isin(seen, part2).any()
    np.testing.assert_array_equal(np.sort(np.concatenate([seen, part2])), np.arange(len(y)))
    # the members are fitted once, never refitted on all rows
    assert stack.final_estimator_.n_features_in_ == 2


@parity_test(StackingClassifier, StackingRegressor)
def test_holdout_equals_scikit_learn_on_frozen_members():
    from sklearn.frozen import FrozenEstimator

    X, y = datasets.load_breast_cancer(return_X_y=True)
    ours = StackingClassifier(_clf_members(), cv="holdout", random_state=3).fit(X, y)
    part1, part2 = train_test_split(np.arange(len(y)), test_size=0.5, random_state=3,
                                    stratify=y)
    frozen = [(n, FrozenEstimator(e.fit(X[part1], y[part1]))) for n, e in _clf_members()]
    ref = sken.StackingClassifier(frozen, final_estimator=SkLogistic()).fit(
        X[part2], y[part2])
    np.testing.assert_allclose(ours.transform(X), ref.transform(X))
    assert np.mean(ours.predict(X) == ref.predict(X)) >= 0.99

    Xr, yr = datasets.load_diabetes(return_X_y=True)
    members = [("ridge", Ridge()), ("tree", DecisionTreeRegressor(max_depth=3, random_state=0))]
    ours = StackingRegressor(members, final_estimator=SkRidge(), cv="holdout",
                             holdout_fraction=0.25, random_state=1).fit(Xr, yr)
    part1, part2 = train_test_split(np.arange(len(yr)), test_size=0.25, random_state=1)
    frozen = [(n, FrozenEstimator(e.fit(Xr[part1], yr[part1]))) for n, e in members]
    ref = sken.StackingRegressor(frozen, final_estimator=SkRidge()).fit(Xr[part2], yr[part2])
    np.testing.assert_allclose(ours.predict(Xr), ref.predict(Xr), rtol=1e-8)


def test_holdout_fraction_checked():
    X, y = datasets.load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="holdout_fraction"):
        StackingClassifier(_clf_members(), cv="holdout", holdout_fraction=1.0).fit(X, y)


# -- multilabel indicator y (issue 20) ---------------------------------------------------
@parity_test(StackingClassifier)
@pytest.mark.parametrize("n_labels", [2, 3])
@pytest.mark.parametrize("passthrough", [False, True])
def test_multilabel_equals_scikit_learn(n_labels, passthrough):
    # Members whose predict_proba is a list of one (n, 2) array per label;
    # scikit-learn's members and final estimator on both sides, fixed folds.
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.tree import DecisionTreeClassifier as SkTree

    X, Y = datasets.make_multilabel_classification(240, 6, n_classes=n_labels,
                                                   random_state=0)

    def members():
        return [("knn", KNeighborsClassifier(5)),
                ("tree", SkTree(max_depth=3, random_state=0))]

    params = dict(final_estimator=KNeighborsClassifier(3), cv=KFold(3),
                  passthrough=passthrough)
    ref = sken.StackingClassifier(members(), **params).fit(X, Y)
    got = StackingClassifier(members(), **params).fit(X, Y)
    np.testing.assert_array_equal(got.transform(X), ref.transform(X))
    np.testing.assert_array_equal(got.predict(X), ref.predict(X))
    assert got.predict(X).shape == Y.shape
    for a, b in zip(got.classes_, ref.classes_):
        np.testing.assert_array_equal(a, b)
    # scikit-learn 1.9 returns each label's first-class (absent) probability;
    # skml the present one: complements, same shape.
    proba = got.predict_proba(X)
    assert proba.shape == Y.shape
    np.testing.assert_allclose(proba, 1.0 - ref.predict_proba(X))
