"""ConvNetClassifier / ConvNetRegressor against scikit-learn's MLPs.

scikit-learn has no convolutional network (PyTorch, the peer, is studied in
``benchmarks/convnet_peers.py``), so the reference is the dense network a
user would otherwise train, for the same number of epochs, batch size and
learning rate:

- ``ConvNetClassifier`` reads each digits row as its 8 x 8 image, against
  ``MLPClassifier`` with one hidden layer of 64 units;
- ``ConvNetRegressor`` reads the 10 diabetes features as a 1 x 10 line (the
  default ``image_shape``; a tabular problem, the hard case for a
  convolution), against ``MLPRegressor`` with 32 hidden units.
"""

from benchmarks.case import Case

_TRAIN = {"batch_size": 64, "learning_rate_init": 3e-3, "max_iter": 20, "tol": 0.0,
          "n_iter_no_change": 21, "random_state": 0}
_TRAIN_REG = {"batch_size": 32, "learning_rate_init": 3e-3, "max_iter": 200,
              "random_state": 0}

CASES = [
    Case(
        estimator="ConvNetClassifier",
        skml="skml.neural_network:ConvNetClassifier",
        reference="sklearn.neural_network:MLPClassifier",
        dataset="digits",
        score="accuracy",
        family="neural_network",
        params={"image_shape": (8, 8),
                "layers": [("conv", 16, 3), ("maxpool", 2), ("conv", 32, 3),
                           ("dense", 64)], **_TRAIN},
        reference_params={"hidden_layer_sizes": (64,), **_TRAIN},
        label="conv vs dense, equal epochs",
    ),
    Case(
        estimator="ConvNetRegressor",
        skml="skml.neural_network:ConvNetRegressor",
        reference="sklearn.neural_network:MLPRegressor",
        dataset="diabetes",
        score="r2",
        family="neural_network",
        params={"layers": [("conv", 8, 3), ("dense", 32)], **_TRAIN_REG},
        reference_params={"hidden_layer_sizes": (32,), **_TRAIN_REG},
        label="conv vs dense, equal epochs",
    ),
]
