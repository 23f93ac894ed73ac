"""An outside check: scikit-learn's own test modules, run against skml's classes.

Run by hand, never by the default test suite::

    python -m benchmarks.sklearn_tests [--module tree] [--out results/sklearn_tests.md]

scikit-learn's wheel ships its tests (``sklearn/tree/tests/test_tree.py``, ...).
:data:`MODULES` maps each of them to the skml classes it exercises. For each module a
child ``pytest`` process (one worker, ``-p no:cacheprovider``, BLAS pinned to one
thread, a per-test and a per-module time limit) runs the installed file with the plugin
:mod:`benchmarks.sklearn_tests._plugin` loaded, which:

* **substitutes** the classes. The test module is not copied: an import hook loads it
  from its own file with its syntax tree changed so that after every ``import`` each
  name is bound again through a function that swaps an sklearn class for skml's class
  of the same name, matched by identity, so ``from sklearn.tree import X``, a private
  path such as ``from sklearn.tree._classes import X`` and ``from sklearn import svm;
  svm.SVC`` (through a view of the module) all give skml's class. Running the file in
  place keeps its package, so relative imports and sklearn's ``conftest.py`` fixtures
  (``global_random_seed``, ...) work unchanged; pytest's assertion rewriting is applied
  after the change. Patching the attributes of ``sklearn.tree`` itself was rejected:
  every sklearn module imported later (and sklearn's lazy imports inside functions)
  would then bind skml's classes too, so sklearn's own forests would be built on skml's
  trees and a failure could not be told apart. With the hook only the test module
  sees skml, and sklearn's meta-estimators are substituted only where the test names
  them (``BaggingClassifier`` is skml's; a ``DecisionTreeClassifier`` passed to it by
  the test is skml's too);
* **detects skml code**: every function skml defines on its estimator classes is
  wrapped to note the call, and a test counts only if some did run (construction
  included), so tests of sklearn classes skml lacks are left out of the figures;
* **records** each test as a JSON line: outcome, skml classes that ran, exception,
  frames and the test source. A module whose child crashes (a segfault) or overruns its
  time limit is resumed without the tests already recorded; a module that cannot even
  be imported (skml refuses a parameter used at module level) counts as one failed
  test, ``<module>::<collection>``.

The parent classifies each failure (:func:`benchmarks.sklearn_tests.classify.classify`)
as private internals, missing feature, different error, wrong result (or timeout), and
writes a markdown report and a JSON file (``benchmarks/results/sklearn_tests.md`` /
``.json`` by default). Figures move with skml (and with what else runs on the machine:
the timeouts), so the report names the commit it ran on.
"""

# (test module, skml classes it is there for). Every counterpart name is substituted
# in every module (``--substitute home`` restricts it to the listed classes).
MODULES = {
    "tree": [
        ("sklearn/tree/tests/test_tree.py",
         ["DecisionTreeClassifier", "DecisionTreeRegressor", "ExtraTreeClassifier",
          "ExtraTreeRegressor"]),
        ("sklearn/tree/tests/test_monotonic_tree.py",
         ["DecisionTreeClassifier", "DecisionTreeRegressor", "ExtraTreeClassifier",
          "ExtraTreeRegressor", "RandomForestClassifier", "RandomForestRegressor",
          "ExtraTreesClassifier", "ExtraTreesRegressor"]),
    ],
    "ensemble": [
        ("sklearn/ensemble/tests/test_forest.py",
         ["RandomForestClassifier", "RandomForestRegressor", "ExtraTreesClassifier",
          "ExtraTreesRegressor"]),
        ("sklearn/ensemble/tests/test_gradient_boosting.py",
         ["GradientBoostingClassifier", "GradientBoostingRegressor"]),
        ("sklearn/ensemble/tests/test_weight_boosting.py", ["AdaBoostClassifier"]),
        ("sklearn/ensemble/tests/test_bagging.py",
         ["BaggingClassifier", "BaggingRegressor"]),
        ("sklearn/ensemble/tests/test_stacking.py",
         ["StackingClassifier", "StackingRegressor"]),
        ("sklearn/ensemble/tests/test_voting.py",
         ["VotingClassifier", "VotingRegressor"]),
        ("sklearn/ensemble/tests/test_common.py",
         ["StackingClassifier", "StackingRegressor", "VotingClassifier",
          "VotingRegressor"]),
    ],
    "naive_bayes": [
        ("sklearn/tests/test_naive_bayes.py", ["GaussianNB", "BernoulliNB"]),
    ],
    "discriminant_analysis": [
        ("sklearn/tests/test_discriminant_analysis.py",
         ["LinearDiscriminantAnalysis", "QuadraticDiscriminantAnalysis"]),
    ],
    "mixture": [
        ("sklearn/mixture/tests/test_gaussian_mixture.py", ["GaussianMixture"]),
        ("sklearn/mixture/tests/test_mixture.py", ["GaussianMixture"]),
    ],
    "cluster": [
        ("sklearn/cluster/tests/test_k_means.py", ["KMeans"]),
        ("sklearn/cluster/tests/test_spectral.py", ["SpectralClustering"]),
    ],
    "neighbors": [
        ("sklearn/neighbors/tests/test_neighbors.py",
         ["NearestNeighbors", "KNeighborsClassifier", "KNeighborsRegressor"]),
        ("sklearn/neighbors/tests/test_nca.py", ["NeighborhoodComponentsAnalysis"]),
        ("sklearn/neighbors/tests/test_neighbors_pipeline.py",
         ["KNeighborsRegressor", "SpectralClustering", "TSNE"]),
    ],
    "linear_model": [
        ("sklearn/linear_model/tests/test_base.py", ["LinearRegression"]),
        ("sklearn/linear_model/tests/test_ridge.py", ["Ridge"]),
        ("sklearn/linear_model/tests/test_coordinate_descent.py", ["Lasso"]),
        ("sklearn/linear_model/tests/test_sparse_coordinate_descent.py", ["Lasso"]),
        ("sklearn/linear_model/tests/test_logistic.py", ["LogisticRegression"]),
        ("sklearn/linear_model/tests/test_sgd.py", ["SGDClassifier", "SGDRegressor"]),
        ("sklearn/linear_model/tests/test_perceptron.py", ["Perceptron"]),
        ("sklearn/linear_model/tests/test_common.py",
         ["LinearRegression", "Ridge", "Lasso", "LogisticRegression", "SGDClassifier",
          "SGDRegressor", "Perceptron", "LinearSVC"]),
    ],
    "svm": [
        ("sklearn/svm/tests/test_svm.py", ["SVC", "SVR", "LinearSVC"]),
        ("sklearn/svm/tests/test_sparse.py", ["SVC", "LinearSVC"]),
    ],
    "preprocessing": [
        ("sklearn/preprocessing/tests/test_data.py",
         ["StandardScaler", "MinMaxScaler"]),
        ("sklearn/preprocessing/tests/test_common.py",
         ["StandardScaler", "MinMaxScaler"]),
    ],
    "decomposition": [
        ("sklearn/decomposition/tests/test_pca.py", ["PCA"]),
    ],
    "neural_network": [
        ("sklearn/neural_network/tests/test_mlp.py", ["MLPClassifier", "MLPRegressor"]),
    ],
    "manifold": [
        ("sklearn/manifold/tests/test_t_sne.py", ["TSNE"]),
    ],
}
