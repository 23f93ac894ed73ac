"""
Bernoulli naive Bayes on binarised digits
=========================================

:class:`skml.naive_bayes.BernoulliNB` (notes B §4.3) treats each pixel of an
8x8 digit as an independent yes/no feature given the class (``binarize=4``
turns the 0-16 grey levels into ink / no ink). What it learns is one
probability of ink per pixel and class, drawn below as an image per digit:
the model's picture of each class. The test accuracy is printed beside
scikit-learn's ``BernoulliNB`` on the same split (the same estimates) and
skml's :class:`skml.naive_bayes.GaussianNB` on the grey levels.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn import naive_bayes as sk_naive_bayes
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from skml.naive_bayes import BernoulliNB, GaussianNB

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)

model = BernoulliNB(binarize=4.0).fit(X_train, y_train)
ink = np.exp(model.feature_log_prob_)

fig, axes = plt.subplots(1, 10, figsize=(12, 1.7))
for k, ax in enumerate(axes):
    ax.imshow(ink[k].reshape(8, 8), cmap="gray_r", vmin=0, vmax=1)
    ax.set_title(str(model.classes_[k]))
    ax.set_axis_off()
fig.suptitle("P(ink | class) per pixel", y=1.02)

# %%
# Test accuracy:
peer = sk_naive_bayes.BernoulliNB(binarize=4.0).fit(X_train, y_train)
print(f"skml BernoulliNB:         {model.score(X_test, y_test):.3f}")
print(f"scikit-learn BernoulliNB: {peer.score(X_test, y_test):.3f}")
print(f"skml GaussianNB:          {GaussianNB().fit(X_train, y_train).score(X_test, y_test):.3f}")
print("same log-probabilities:", np.allclose(model.feature_log_prob_, peer.feature_log_prob_))
