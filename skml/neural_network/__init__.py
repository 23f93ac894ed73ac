"""Neural networks: multilayer perceptrons, convolutional networks, ProxylessNAS."""

# One import line per estimator module (kept sorted).
from ._conv_modules import conv2d_as_matrix, conv2d_output_shape, im2col
from ._convnet import ConvNetClassifier, ConvNetRegressor
from ._multilayer_perceptron import MLPClassifier, MLPRegressor
from ._nas import ProxylessNASClassifier

__all__ = ["ConvNetClassifier", "ConvNetRegressor", "MLPClassifier", "MLPRegressor",
           "ProxylessNASClassifier",
           "conv2d_as_matrix", "conv2d_output_shape", "im2col"]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
