"""The registry of small test instances for the common checks.

``TEST_PARAMS[name]`` lists the constructor keyword arguments of each instance
run through ``parametrize_with_checks``; an estimator without an entry is
tested once with its defaults. Keep instances small and fast (few iterations).

``EXPECTED_FAILED_CHECKS[name]`` maps a check name to the reason it fails
(``EXPECTED_FAILED_FOR_PARAMS`` does the same for one instance of a class).
An entry is allowed only where scikit-learn's counterpart has the same one
(``sklearn/utils/_test_common/instance_generator.py``); with
``xfail_strict=True`` a listed check that passes fails the suite.
"""

from skml.linear_model import LogisticRegression, Ridge
from skml.neighbors import KNeighborsRegressor
from skml.neural_network import MLPClassifier
from skml.tree import DecisionTreeClassifier, DecisionTreeRegressor

SAMPLE_WEIGHT_EQUIVALENCE = {
    "check_sample_weight_equivalence_on_dense_data": (
        "#16298: a stochastic fit is not equivalent to repeating samples "
        "(scikit-learn lists the same failure for its counterpart)"
    ),
}

TEST_PARAMS = {
    # skml.adversarial: the defences train a small MLP (2-step inner PGD); the
    # smoothed classifier wraps a logistic regression with few noise draws and
    # does not abstain in predict (the checks want predict = argmax predict_proba;
    # tests/adversarial covers abstention).
    "AdversarialTrainingClassifier": [{
        "estimator": MLPClassifier((8,), learning_rate_init=0.01, max_iter=50,
                                   random_state=0),
        "eps": 0.05, "n_iter": 2, "random_state": 0}],
    "TRADESClassifier": [{
        "estimator": MLPClassifier((8,), learning_rate_init=0.01, max_iter=50,
                                   random_state=0),
        "beta": 1.0, "eps": 0.05, "n_iter": 2, "random_state": 0}],
    "SmoothedClassifier": [{"estimator": LogisticRegression(max_iter=200), "sigma": 0.05,
                            "n_samples": 100, "n0": 20, "abstain": False,
                            "random_state": 0}],
    "AdaBoostClassifier": [{"n_estimators": 5}],
    "BaggingClassifier": [{"n_estimators": 5}, {"n_estimators": 5, "max_features": 0.5,
                                                "bootstrap_features": True}],
    "BaggingRegressor": [{"n_estimators": 5}],
    # scikit-learn's instances (n_estimators=5, no bootstrap) plus a bootstrap
    # with oob_score, and other criteria and class weights.
    "ExtraTreesClassifier": [
        {"n_estimators": 5},
        {"n_estimators": 5, "bootstrap": True, "oob_score": True, "max_samples": 0.8,
         "criterion": "entropy", "class_weight": "balanced_subsample", "max_depth": 6},
    ],
    "ExtraTreesRegressor": [
        {"n_estimators": 5},
        {"n_estimators": 5, "bootstrap": True, "criterion": "absolute_error",
         "max_features": "sqrt", "min_samples_leaf": 2, "n_jobs": 2},
    ],
    "RandomForestClassifier": [
        {"n_estimators": 5},
        {"n_estimators": 5, "criterion": "entropy", "class_weight": "balanced_subsample",
         "max_samples": 0.8, "oob_score": True, "max_depth": 6},
        {"n_estimators": 5, "bootstrap": False, "max_features": None,
         "class_weight": "balanced", "max_leaf_nodes": 10, "n_jobs": 2},
    ],
    "RandomForestRegressor": [
        {"n_estimators": 5},
        {"n_estimators": 5, "criterion": "absolute_error", "max_features": "sqrt",
         "min_samples_leaf": 2, "n_jobs": 2},
    ],
    "StackingClassifier": [{"estimators": [
        ("lr", LogisticRegression(max_iter=50)),
        ("tree", DecisionTreeClassifier(max_depth=3, random_state=0))], "cv": 3}],
    "StackingRegressor": [{"estimators": [
        ("ridge", Ridge()), ("tree", DecisionTreeRegressor(max_depth=3, random_state=0))],
        "cv": 3}],
    "VotingClassifier": [
        {"estimators": [("lr", LogisticRegression(max_iter=50)),
                        ("tree", DecisionTreeClassifier(max_depth=3, random_state=0))]},
        {"estimators": [("lr", LogisticRegression(max_iter=50)),
                        ("tree", DecisionTreeClassifier(max_depth=3, random_state=0))],
         "voting": "soft", "weights": [2, 1]},
    ],
    "VotingRegressor": [{"estimators": [
        ("ridge", Ridge()), ("tree", DecisionTreeRegressor(max_depth=3, random_state=0))]}],
    "BernoulliNB": [{}, {"alpha": 0.5, "fit_prior": False}],
    "GradientBoostingClassifier": [
        {"n_estimators": 5},
        {"n_estimators": 5, "max_bins": None, "subsample": 0.8, "random_state": 0},
    ],
    "GradientBoostingRegressor": [
        {"n_estimators": 5},
        {"n_estimators": 5, "max_bins": None, "loss": "huber", "learning_rate": 0.5},
    ],
    "GaussianNB": [{}, {"var_smoothing": 1e-3}],
    # The linear default refuses (correctly) the checks' data that no
    # hyperplane separates, so the common instance is the rbf kernel, whose
    # Gram matrix on distinct points is positive definite: every labelling is
    # separable. gamma=10 keeps the margins of the checks' random labels
    # large enough for a quick fit (gamma=1 gives margins ~1e-4 on
    # check_n_features_in's data and SMO needs millions of iterations).
    # tests/svm/test_hard_margin.py covers the linear default.
    "HardMarginSVC": [{"kernel": "rbf", "gamma": 10.0}],
    "DecisionTreeClassifier": [
        {},
        {"criterion": "gain_ratio", "max_leaf_nodes": 8, "random_state": 0},
        {"criterion": "entropy", "splitter": "random", "max_features": "sqrt"},
    ],
    "DecisionTreeRegressor": [{}, {"criterion": "absolute_error", "ccp_alpha": 0.01}],
    "ExtraTreeClassifier": [{}, {"criterion": "entropy", "max_leaf_nodes": 8,
                                 "random_state": 0}],
    "ExtraTreeRegressor": [{}, {"criterion": "absolute_error", "max_features": "sqrt",
                                "random_state": 0}],
    # scikit-learn's instance (n_init=2, max_iter=5) plus the other covariance
    # types and initialisations; one component, as scikit-learn's default.
    "GaussianMixture": [
        {"n_init": 2, "max_iter": 5},
        {"covariance_type": "tied", "init_params": "k-means++", "max_iter": 5},
        {"covariance_type": "diag", "init_params": "random", "max_iter": 5},
        {"covariance_type": "spherical", "init_params": "random_from_data",
         "max_iter": 5},
    ],
    # rbf with gamma="scale" first: scale- and shift-invariant, so the
    # robustness suite's magnitude cases see the clean model (the default
    # linear kernel has no intercept and an absolute alpha, as scikit-learn's).
    "KernelRidge": [{"kernel": "rbf", "gamma": "scale"}, {}],
    "KernelLogisticRegression": [{}, {"kernel": "linear"}],
    "KMeans": [
        {"n_clusters": 2, "n_init": 2, "max_iter": 5},
        {"n_clusters": 2, "init": "random", "n_init": 2, "max_iter": 5},
    ],
    "KernelKMeans": [
        {"n_clusters": 2, "n_init": 2, "max_iter": 5},
        {"n_clusters": 2, "kernel": "linear", "init": "random", "n_init": 2},
    ],
    # scikit-learn's instance (n_clusters=2, n_init=2) plus the other graphs,
    # Laplacians and eigensolvers.
    "SpectralClustering": [
        {"n_clusters": 2, "n_init": 2},
        {"n_clusters": 2, "n_init": 2, "affinity": "nearest_neighbors",
         "n_neighbors": 5, "laplacian": "unnormalized", "eigen_solver": "arpack"},
        {"n_clusters": 2, "n_init": 2, "laplacian": "sym", "eigen_solver": "lobpcg"},
    ],
    "LargeMarginNearestNeighbor": [
        {"max_iter": 5},
        {"objective": "triplet", "max_iter": 5},
        {"search_every": 2, "solver": "gd", "max_iter": 4},
    ],
    # scikit-learn's instances (n_neighbors=2, metric="precomputed") plus the
    # other engine and weighting.
    "KNeighborsClassifier": [
        {"n_neighbors": 2},
        {"metric": "precomputed"},
        {"algorithm": "kd_tree", "weights": "distance", "n_neighbors": 3},
    ],
    "KNeighborsRegressor": [
        {"n_neighbors": 2},
        {"metric": "precomputed"},
        {"algorithm": "brute", "metric": "cosine", "weights": "distance"},
        {"algorithm": "ball_tree", "p": 1},
    ],
    "NearestNeighbors": [{}, {"algorithm": "brute", "metric": "manhattan"},
                         {"algorithm": "ball_tree"}],
    "LSHNearestNeighbors": [
        {"random_state": 0},
        {"family": "hyperplane", "multi_probe": 2, "max_candidates": "2L+1",
         "random_state": 0},
    ],
    "LSHKNeighborsTransformer": [
        {"random_state": 0},
        {"mode": "connectivity", "family": "pstable_cauchy", "multi_probe": 3,
         "random_state": 0},
    ],
    "Lasso": [
        {"max_iter": 200},
        {"max_iter": 200, "precompute": True, "selection": "random", "random_state": 0},
    ],
    "LinearDiscriminantAnalysis": [
        {},
        {"solver": "eigen", "shrinkage": "auto"},
        {"n_components": 1, "store_covariance": True},
    ],
    "LinearRegression": [{}, {"solver": "gd", "max_iter": 200}],
    "LinearSVC": [{}, {"solver": "pegasos", "max_iter": 20},
                  {"multi_class": "crammer_singer"}],
    "LogisticRegression": [
        {"max_iter": 50},
        {"solver": "newton", "max_iter": 20},
        {"solver": "gd", "max_iter": 50},
        {"solver": "sgd", "max_iter": 100, "random_state": 0},
        {"solver": "newton-cg"}, {"solver": "newton-cholesky"},
        {"solver": "saga", "l1_ratio": 0.5, "tol": 1e-13, "max_iter": 10_000,
         "random_state": 0},
    ],
    # No dropout instance: its random masks depend on the row count, so it
    # cannot pass the sample-weight equivalence check (scikit-learn's MLP has
    # no dropout); tests/neural_network covers it.
    "MLPClassifier": [
        {"hidden_layer_sizes": (16,), "learning_rate_init": 0.01, "max_iter": 50,
         "random_state": 0},
        {"hidden_layer_sizes": (6, 5), "activation": "tanh", "solver": "nesterov",
         "batch_norm": True, "learning_rate_init": 0.05, "max_iter": 30,
         "random_state": 0},
        {"hidden_layer_sizes": (8,), "solver": "lbfgs", "max_iter": 50,
         "random_state": 0},
        {"hidden_layer_sizes": (8,), "activation": "prelu", "init": "normal",
         "learning_rate_init": 0.01, "max_iter": 30, "random_state": 0},
        {"hidden_layer_sizes": (8,), "activation": "elu", "solver": "lbfgs",
         "max_iter": 50, "random_state": 0},
    ],
    # Small ConvNets (image_shape None: the rows as one (1, d) image line).
    "ConvNetClassifier": [
        {"layers": [("conv", 4, 3), ("maxpool", 2), ("dense", 8)],
         "learning_rate_init": 0.01, "max_iter": 30, "random_state": 0},
        {"layers": [("residual", 3, 3), ("globalavgpool",)], "solver": "lbfgs",
         "max_iter": 30, "random_state": 0},
    ],
    "ConvNetRegressor": [
        {"layers": [("conv", 4, 3), ("avgpool", 2), ("dense", 8)],
         "learning_rate_init": 0.01, "max_iter": 50, "random_state": 0},
    ],
    "ProxylessNASClassifier": [
        {"n_blocks": 1, "block_width": 8, "widths": (8,), "search_epochs": 5,
         "warmup_epochs": 1, "learning_rate_init": 0.05, "max_iter": 100,
         "random_state": 0},
    ],
    "ContrastiveEmbedding": [{"hidden_layer_sizes": (8,), "projection_dim": 8,
                              "max_iter": 10, "random_state": 0}],
    "GAN": [{"generator_layer_sizes": (8,), "discriminator_layer_sizes": (8,),
             "max_iter": 5, "random_state": 0}],
    "RectifiedFlow": [
        {"hidden_layer_sizes": (8,), "max_iter": 5, "n_steps": 10, "random_state": 0},
        {"hidden_layer_sizes": (8,), "max_iter": 3, "n_steps": 5, "n_reflow": 1,
         "distill": True, "coupling": "minibatch_ot", "random_state": 0},
    ],
    # skml.attention: float rows read as T scalar tokens; small and few epochs.
    "TransformerClassifier": [
        {"n_layers": 1, "n_heads": 2, "d_model": 8, "learning_rate_init": 0.01,
         "max_iter": 30, "random_state": 0},
        {"n_layers": 1, "n_heads": 2, "d_model": 8, "positional": "rope",
         "causal": True, "pooling": "last", "label_smoothing": 0.1,
         "learning_rate_init": 0.01, "max_iter": 30, "random_state": 0},
    ],
    "TransformerRegressor": [
        {"n_layers": 1, "n_heads": 2, "d_model": 16, "learning_rate_init": 0.01,
         "max_iter": 50, "random_state": 0},
    ],
    "MLPRegressor": [
        {"hidden_layer_sizes": (16,), "learning_rate_init": 0.01, "max_iter": 50,
         "random_state": 0},
        {"hidden_layer_sizes": (16,), "activation": "leaky_relu", "solver": "rmsprop",
         "learning_rate_init": 0.01, "max_iter": 100, "random_state": 0},
        {"hidden_layer_sizes": (8,), "solver": "lbfgs", "max_iter": 50,
         "random_state": 0},
    ],
    "DPSGDClassifier": [
        # raw iris in the robustness suite: clip_norm and Adam fit it at any seed
        {"noise_multiplier": 0.3, "epochs": 50, "lot_size": 16, "clip_norm": 10.0,
         "optimizer": "adam", "random_state": 0},
        {"model": "mlp", "hidden_layer_sizes": (8,), "target_epsilon": 8.0,
         "epochs": 10, "lot_size": 16, "random_state": 0},
    ],
    "DPSGDRegressor": [
        {"noise_multiplier": 0.3, "epochs": 30, "lot_size": 16, "clip_norm": 10.0,
         "learning_rate": 0.02, "random_state": 0},
        {"model": "mlp", "hidden_layer_sizes": (8,), "noise_multiplier": 0.3,
         "epochs": 10, "lot_size": 16, "random_state": 0},
    ],
    "PCA": [{}, {"svd_solver": "power"}, {"svd_solver": "randomized", "n_components": 1}],
    "NeighborhoodComponentsAnalysis": [{"max_iter": 5}],
    "Perceptron": [{"max_iter": 5}, {"multi_class": "ovo", "max_iter": 5},
                   {"tol": "no_mistakes", "max_iter": 5}],
    "QuadraticDiscriminantAnalysis": [{}, {"reg_param": 0.1}],
    "Ridge": [{}, {"solver": "svd"}, {"solver": "gd", "max_iter": 200},
              {"solver": "sparse_cg"}, {"positive": True},
              {"solver": "saga", "tol": 1e-12, "max_iter": 10_000, "random_state": 0,
               "fit_intercept": False}],
    "SGDClassifier": [
        {"max_iter": 5},
        {"loss": "log_loss", "max_iter": 5, "average": True},
        {"loss": "modified_huber", "optimizer": "adam", "eta0": 0.1, "max_iter": 20},
    ],
    "SGDRegressor": [
        {"max_iter": 5},
        {"optimizer": "adam", "eta0": 0.1, "max_iter": 20},
    ],
    "StandardScaler": [{}, {"with_mean": False}],
    # scikit-learn's instance is TSNE(perplexity=2); short runs, each method.
    "TSNE": [
        {"perplexity": 2, "max_iter": 250, "method": "exact"},
        {"perplexity": 2, "max_iter": 250, "method": "fft"},
        {"perplexity": 2, "max_iter": 250, "method": "barnes_hut"},
        {"perplexity": 2, "max_iter": 250, "method": "exact",
         "q_normalization": "symmetrized_conditional", "init": "random"},
    ],
    "SNE": [{"perplexity": 2, "max_iter": 100}],
    "SVC": [
        {},
        {"kernel": "linear", "break_ties": True},
        {"kernel": "precomputed"},
        {"multi_class": "ovr"},
    ],
    "SVR": [{}, {"kernel": "precomputed"}],
    # Search meta-estimators: small spaces, 3 folds; one classifier with the
    # rows resource (refits), one regressor through Hyperband's brackets.
    "SuccessiveHalvingSearchCV": [{
        "estimator": DecisionTreeClassifier(random_state=0),
        "param_distributions": {"max_depth": [2, 4, 6, 8]}, "n_candidates": 4,
        "cv": 3, "random_state": 0}],
    # k-NN, as for BayesSearchCV below: Ridge(alpha >= 0.1) rightly predicts
    # the mean at X * 1e-300 (its own robustness row compares with
    # scikit-learn's Ridge), but a search has no counterpart to compare with.
    "HyperbandSearchCV": [{
        "estimator": KNeighborsRegressor(),
        "param_distributions": {"n_neighbors": [1, 2, 3]},
        "min_resource": 5, "cv": 3, "random_state": 0}],
    # The common checks' data are real-valued: the Boolean learners see them
    # through their binarize option (x > 0).
    "LowDegreeFourierRegressor": [{"binarize": 0.0}],
    "HarmonicaRegressor": [{"binarize": 0.0, "degree": 2}],
    # k-NN rather than Ridge: its answer is scale-invariant, so the
    # robustness suite's magnitude cases have the clean run as their oracle.
    "HarmonicaSearchCV": [{
        "estimator": KNeighborsRegressor(),
        "param_grid": {"n_neighbors": [1, 3], "weights": ["uniform", "distance"]},
        "n_samples": 4, "n_stages": 1, "cv": 3, "random_state": 0}],
    "BayesSearchCV": [{
        "estimator": KNeighborsRegressor(), "search_spaces": {"n_neighbors": (1, 15)},
        "n_iter": 4, "n_initial_points": 2, "n_candidates": 200, "cv": 3,
        "random_state": 0}],
}

EXPECTED_FAILED_CHECKS = {
    "HardMarginSVC": {
        check: (
            "the check's sparse data have 23 all-zero rows carrying both labels: "
            "no feature space separates identical points, so the hard-margin SVM "
            "has no solution and fit says so (dense = sparse is tested in "
            "tests/svm/test_hard_margin.py on separable data)"
        )
        for check in ("check_estimator_sparse_tag", "check_estimator_sparse_array",
                      "check_estimator_sparse_matrix")
    },
    "AdaBoostClassifier": {
        "check_sample_weight_equivalence_on_dense_data": (
            "weighted and repeated fits add the same weights in other orders, so "
            "two stumps that split the training rows alike swap on round-off and "
            "the rows of weight 0 are voted on differently (scikit-learn lists "
            "the same failure for AdaBoostClassifier)"
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            "as on dense data: the sparse fit grows the same stumps"
        ),
    },
    "BaggingClassifier": {
        "check_sample_weight_equivalence_on_dense_data": (
            "weights are drawing probabilities of the bootstrap, not repetitions "
            "(scikit-learn lists the same failure for BaggingClassifier)"
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            "weights are drawing probabilities of the bootstrap, not repetitions"
        ),
    },
    "BaggingRegressor": {
        "check_sample_weight_equivalence_on_dense_data": (
            "weights are drawing probabilities of the bootstrap, not repetitions "
            "(scikit-learn lists the same failure for BaggingRegressor)"
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            "weights are drawing probabilities of the bootstrap, not repetitions"
        ),
    },
    "GradientBoostingClassifier": {
        "check_sample_weight_equivalence_on_dense_data": (
            "weighted and repeated fits add the same gradients in other orders, so "
            "two features that split the training rows alike swap on round-off and "
            "the rows of weight 0 are predicted differently; with subsample < 1 the "
            "random subsample also depends on the row count (scikit-learn lists the "
            "same failure for GradientBoostingClassifier)"
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            "as on dense data: the sparse fit grows the same trees"
        ),
    },
    "RandomForestRegressor": {
        "check_sample_weight_equivalence_on_dense_data": (
            "weights are drawing probabilities of the bootstrap, not repetitions "
            "(scikit-learn lists the same failure for RandomForestRegressor)"
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            "weights are drawing probabilities of the bootstrap, not repetitions"
        ),
    },
    "LinearSVC": {
        "check_sample_weight_equivalence_on_dense_data": (
            "dual CD stops at tol (and Pegasos is stochastic), so weighted and "
            "repeated fits agree to ~tol, not 1e-7 (scikit-learn lists it too)"
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            "dual CD stops at tol (and Pegasos is stochastic), so weighted and "
            "repeated fits agree to ~tol, not 1e-7 (scikit-learn lists it too)"
        ),
    },
    "KMeans": {
        **SAMPLE_WEIGHT_EQUIVALENCE,
        "check_sample_weight_equivalence_on_sparse_data": (
            SAMPLE_WEIGHT_EQUIVALENCE["check_sample_weight_equivalence_on_dense_data"]
        ),
    },
    "AdversarialTrainingClassifier": SAMPLE_WEIGHT_EQUIVALENCE,  # its MLP's (stochastic)
    "TRADESClassifier": SAMPLE_WEIGHT_EQUIVALENCE,
    # The seeding draws rows with probability ∝ w, so shuffled weighted rows
    # and repeated rows get different seeds (as KMeans); from the same
    # initial labels weights equal repeats (tests/cluster/test_kernel_kmeans.py).
    "KernelKMeans": {
        **SAMPLE_WEIGHT_EQUIVALENCE,
        "check_sample_weight_equivalence_on_sparse_data": (
            SAMPLE_WEIGHT_EQUIVALENCE["check_sample_weight_equivalence_on_dense_data"]
        ),
    },
    "Perceptron": {
        **SAMPLE_WEIGHT_EQUIVALENCE,
        "check_sample_weight_equivalence_on_sparse_data": (
            SAMPLE_WEIGHT_EQUIVALENCE["check_sample_weight_equivalence_on_dense_data"]
        ),
    },
    "SGDClassifier": {
        **SAMPLE_WEIGHT_EQUIVALENCE,
        "check_sample_weight_equivalence_on_sparse_data": (
            SAMPLE_WEIGHT_EQUIVALENCE["check_sample_weight_equivalence_on_dense_data"]
        ),
    },
    "SGDRegressor": {
        **SAMPLE_WEIGHT_EQUIVALENCE,
        "check_sample_weight_equivalence_on_sparse_data": (
            SAMPLE_WEIGHT_EQUIVALENCE["check_sample_weight_equivalence_on_dense_data"]
        ),
    },
    "SVC": {
        "check_sample_weight_equivalence_on_dense_data": (
            "SMO stops at the KKT tolerance, so weighted and repeated fits agree "
            "to ~tol, not 1e-7 (scikit-learn lists it for SVC too)"
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            "SMO stops at the KKT tolerance, so weighted and repeated fits agree "
            "to ~tol, not 1e-7 (scikit-learn lists it for SVC too)"
        ),
    },
    "SVR": {
        "check_sample_weight_equivalence_on_dense_data": (
            "SMO stops at the KKT tolerance, so weighted and repeated fits agree "
            "to ~tol, not 1e-7 (scikit-learn lists it for SVR too)"
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            "SMO stops at the KKT tolerance, so weighted and repeated fits agree "
            "to ~tol, not 1e-7 (scikit-learn lists it for SVR too)"
        ),
    },
}


# Failures of one instance only: (class name, the parameters that select it,
# {check name: reason}).
EXPECTED_FAILED_FOR_PARAMS = [
    # Without a bootstrap the weights weight the trees directly (that instance
    # passes); scikit-learn lists the failure for every RandomForestClassifier.
    ("RandomForestClassifier", {"bootstrap": True}, {
        "check_sample_weight_equivalence_on_dense_data": (
            "weights are drawing probabilities of the bootstrap, not repetitions "
            "(scikit-learn lists the same failure for RandomForestClassifier)"
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            "weights are drawing probabilities of the bootstrap, not repetitions"
        ),
    }),
    # The same for the extra trees with a bootstrap (scikit-learn's instance of
    # ExtraTrees* has none, hence no entry there; its RandomForest* entries
    # name this failure of any bootstrap forest).
    *[(name, {"bootstrap": True}, {
        "check_sample_weight_equivalence_on_dense_data": (
            "weights are drawing probabilities of the bootstrap, not repetitions "
            "(scikit-learn lists the same failure for its bootstrap forests)"
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            "weights are drawing probabilities of the bootstrap, not repetitions"
        ),
    }) for name in ("ExtraTreesClassifier", "ExtraTreesRegressor")],
    # A closed-form solve, sparse_cg and lbfgs (positive) have n_iter_ None,
    # as scikit-learn's Ridge (which lists the same failure: "n_iter_ cannot
    # be easily accessed").
    *[("Ridge", {"solver": solver, "positive": positive}, {
        "check_non_transformer_estimators_n_iter": (
            "n_iter_ is None for the closed-form solvers, sparse_cg and lbfgs, as "
            "scikit-learn's Ridge (scikit-learn lists this check for Ridge too)"),
    }) for solver, positive in (("auto", False), ("svd", False),
                                ("sparse_cg", False), ("auto", True))],
]


def make_instances(all_estimators):
    """Build the test instances for ``all_estimators()``'s (name, class) pairs."""
    instances = []
    for name, cls in all_estimators:
        for params in TEST_PARAMS.get(name, [{}]):
            instances.append(cls(**params))
    return instances


def expected_failed_checks(estimator):
    name = type(estimator).__name__
    failures = dict(EXPECTED_FAILED_CHECKS.get(name, {}))
    params = estimator.get_params(deep=False)
    for owner, selector, reasons in EXPECTED_FAILED_FOR_PARAMS:
        if owner == name and all(params.get(k) == v for k, v in selector.items()):
            failures.update(reasons)
    return failures
