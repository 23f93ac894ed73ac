"""The one growth loop (skml.tree._grower): parity with the loops it
replaced, and its splitter registry."""

import ast
import hashlib
from collections import namedtuple
from pathlib import Path

import numpy as np
import pytest
from scipy import sparse

import skml.tree
from skml.tree._builder_kernels import DenseTreeData
from skml.tree._grower import _HOOK_NAMES, _HOOKS, register_splitter
from skml.tree._hist_kernels import HistData
from skml.tree._splitter_kernels import TreeData
from skml.tree._tree import bin_features, grow_tree


def _data(seed, n, p, kind, nan_rate=0.0, n_cat=0, zero_w=False, int_w=False):
    """Ties in half the columns, ``n_cat`` categorical codes, 3 classes or a
    noisy regression target, NaN, zero or integer weights."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    X[:, : p // 2] = np.round(X[:, : p // 2] * 3) / 3  # ties
    for j in range(n_cat):
        X[:, j] = rng.integers(0, 4 + j, n)
    signal = X[:, -1] + np.sin(3 * X[:, -2]) + 0.3 * X[:, 0]
    if kind == "cls":
        noisy = signal + rng.normal(scale=0.5, size=n)
        y = np.digitize(noisy, [-0.7, 0.4]).astype(float)
    else:
        y = signal + rng.normal(scale=0.3, size=n)
    if nan_rate:
        X[rng.random((n, p)) < nan_rate] = np.nan
    w = np.ones(n)
    if int_w:
        w = rng.integers(0, 4, n).astype(float)
    elif zero_w:
        w = rng.random(n) * 2
        w[rng.random(n) < 0.2] = 0.0
    return X, y, w


def _name(*parts):
    return "-".join(",".join(f"{k}={v}" for k, v in sorted(p.items()))
                    if isinstance(p, dict) else p for p in parts if p != {})


# (name, data kwargs, grow_tree kwargs, mode): mode "exact", "sparse" or "hist".
CASES = []
for crit, kind, n_classes in [("gini", "cls", 3), ("entropy", "cls", 3),
                              ("squared_error", "reg", 0), ("absolute_error", "reg", 0),
                              ("gain_ratio", "cls", 3)]:
    for extra in [{}, {"max_depth": 4}, {"max_leaf_nodes": 12}, {"min_samples_leaf": 5},
                  {"max_features": 2, "seed": 3}, {"splitter": "random", "seed": 5},
                  {"presort": False}, {"min_impurity_decrease": 0.01}]:
        for data in [{}, {"nan_rate": 0.1, "zero_w": True}, {"n_cat": 2}]:
            if crit == "absolute_error" and data:
                continue
            CASES.append((_name(crit, extra, data),
                          dict(kind=kind, **data),
                          dict(criterion=crit, n_classes=n_classes, **extra), "exact"))
for crit, kind, n_classes in [("gini", "cls", 3), ("squared_error", "reg", 0)]:
    for extra in [{}, {"max_leaf_nodes": 10}, {"max_features": 3, "seed": 1}]:
        CASES.append((_name("sparse", crit, extra), dict(kind=kind, int_w=True),
                      dict(criterion=crit, n_classes=n_classes, **extra), "sparse"))
for extra in [{}, {"max_depth": 3}, {"max_leaf_nodes": 8},
              {"max_leaf_nodes": 31, "max_depth": 6}, {"max_features": 3, "seed": 7},
              {"min_samples_leaf": 20}, {"min_impurity_decrease": 0.005}]:
    for data in [{}, {"nan_rate": 0.1, "zero_w": True}, {"int_w": True}]:
        CASES.append((_name("hist", extra, data), dict(kind="reg", **data),
                      dict(criterion="squared_error", **extra), "hist"))


def grow_case(case):
    name, data, kw, mode = case
    n_cat = data.get("n_cat", 0)
    X, y, w = _data(sum(map(ord, name)) % 1000, 600, 6, **data)
    kw = dict(kw)
    if n_cat:
        slots = [4 + j for j in range(n_cat)] + [0] * (6 - n_cat)
        kw["n_category_slots"] = np.array(slots)
    if mode == "hist":
        return grow_tree(None, y, w, binned=bin_features(X, 64), **kw)
    if mode == "sparse":
        X[np.abs(X) < 0.8] = 0.0
        X = sparse.csc_matrix(X)
    return grow_tree(X, y, w, **kw)


def fingerprint(tree):
    """A digest of every array of the tree (bit for bit), and its size."""
    h = hashlib.sha256()
    for name in ["children_left", "children_right", "feature", "threshold",
                 "missing_go_to_left", "impurity", "n_node_samples",
                 "weighted_n_node_samples", "value",
                 "category_offset", "category_children", "feature_has_missing"]:
        a = getattr(tree, name, None)
        if a is not None:
            h.update(name.encode())
            h.update(np.ascontiguousarray(a).tobytes())
    return tree.node_count, tree.max_depth, h.hexdigest()[:16]


# Node count, depth and a digest of every array of each case's tree, recorded
# from the two loops this one replaced (build_tree and grow_tree_hist at
# 717c060), bit for bit. The max_features cases whose trees changed were
# re-recorded at feat/mf, when max_features came to count every drawn
# feature, constant ones too (scikit-learn's rule, tests/tree/
# test_max_features.py): a node with constant features now evaluates fewer.
# The four random-splitter cases with NaN were re-recorded at feat/rsplit,
# when the random splitter came to send the missing values to the side of a
# coin (scikit-learn's rule, tests/tree/test_random_splitter.py) instead of
# the better side.
EXPECTED = {
    'gini': (265, 16, '0148e06c41542831'),
    'gini-nan_rate=0.1,zero_w=True': (303, 14, 'c405a5fb7649ea55'),
    'gini-n_cat=2': (306, 10, '56fec6c3a73a5754'),
    'gini-max_depth=4': (29, 4, '7063971855ca51d1'),
    'gini-max_depth=4-nan_rate=0.1,zero_w=True': (29, 4, '2bc53be3bd45deef'),
    'gini-max_depth=4-n_cat=2': (39, 4, '7eeb34ebe5813001'),
    'gini-max_leaf_nodes=12': (23, 5, 'ee66edb58a603658'),
    'gini-max_leaf_nodes=12-nan_rate=0.1,zero_w=True': (23, 6, 'e046719ad1d5e4a6'),
    'gini-max_leaf_nodes=12-n_cat=2': (23, 6, 'ebe10868639eddda'),
    'gini-min_samples_leaf=5': (119, 9, 'fa980f28dded8bf9'),
    'gini-min_samples_leaf=5-nan_rate=0.1,zero_w=True': (119, 10, '51dbfe072acba3fe'),
    'gini-min_samples_leaf=5-n_cat=2': (121, 8, '07a51795595b0689'),
    'gini-max_features=2,seed=3': (317, 16, '8d4287500d276924'),
    'gini-max_features=2,seed=3-nan_rate=0.1,zero_w=True':
        (339, 13, 'fee09e6486513a17'),
    'gini-max_features=2,seed=3-n_cat=2': (402, 12, '9f527245270bccc4'),
    'gini-seed=5,splitter=random': (555, 20, 'cc5317bf9969a4d7'),
    'gini-seed=5,splitter=random-nan_rate=0.1,zero_w=True':
        (451, 17, '3c490808eb5b9ef7'),
    'gini-seed=5,splitter=random-n_cat=2': (531, 13, '1d24f696a8242002'),
    'gini-presort=False': (259, 14, '6da50355a9af034e'),
    'gini-presort=False-nan_rate=0.1,zero_w=True': (243, 15, '3540d1477c014c19'),
    'gini-presort=False-n_cat=2': (312, 10, 'b897eabde46866a7'),
    'gini-min_impurity_decrease=0.01': (19, 5, '1a3a9f6feda92df0'),
    'gini-min_impurity_decrease=0.01-nan_rate=0.1,zero_w=True':
        (19, 5, '63e0a42667302d2e'),
    'gini-min_impurity_decrease=0.01-n_cat=2': (33, 6, '99b60231402808c3'),
    'entropy': (271, 14, 'c2214f24b1f92e85'),
    'entropy-nan_rate=0.1,zero_w=True': (245, 13, '083e488013d6d508'),
    'entropy-n_cat=2': (301, 10, '5bf7d3c967fbe5f9'),
    'entropy-max_depth=4': (29, 4, '18388fc9e6d68f1d'),
    'entropy-max_depth=4-nan_rate=0.1,zero_w=True': (31, 4, '201ae2ff28178025'),
    'entropy-max_depth=4-n_cat=2': (51, 4, '9adfc91f15d3cf8e'),
    'entropy-max_leaf_nodes=12': (23, 6, '334085ce7c7f311f'),
    'entropy-max_leaf_nodes=12-nan_rate=0.1,zero_w=True': (23, 6, '350494b3d0f5c083'),
    'entropy-max_leaf_nodes=12-n_cat=2': (21, 5, '7c9b7b1fbc10e043'),
    'entropy-min_samples_leaf=5': (131, 11, '62b8a501f7471cd0'),
    'entropy-min_samples_leaf=5-nan_rate=0.1,zero_w=True':
        (115, 11, '2c0c8317852536d2'),
    'entropy-min_samples_leaf=5-n_cat=2': (131, 9, 'b14947fadc55a347'),
    'entropy-max_features=2,seed=3': (325, 17, '989fa896346e988e'),
    'entropy-max_features=2,seed=3-nan_rate=0.1,zero_w=True':
        (323, 16, '80f614cd7d6b8437'),
    'entropy-max_features=2,seed=3-n_cat=2': (460, 12, '783acfce8e199a8e'),
    'entropy-seed=5,splitter=random': (503, 18, 'b9f92347bf7fe7be'),
    'entropy-seed=5,splitter=random-nan_rate=0.1,zero_w=True':
        (427, 18, '7eb6bc4b311fdaa5'),
    'entropy-seed=5,splitter=random-n_cat=2': (572, 14, '08f71e8faccc001d'),
    'entropy-presort=False': (237, 13, 'be9f9f4530c040f3'),
    'entropy-presort=False-nan_rate=0.1,zero_w=True': (235, 11, 'dc4ace16ba0f64c6'),
    'entropy-presort=False-n_cat=2': (319, 13, '16d0bb25800739da'),
    'entropy-min_impurity_decrease=0.01': (59, 7, '4e507b430d69a2ef'),
    'entropy-min_impurity_decrease=0.01-nan_rate=0.1,zero_w=True':
        (99, 9, '776f86c18a5ef8ab'),
    'entropy-min_impurity_decrease=0.01-n_cat=2': (98, 7, '7e792726250466c1'),
    'squared_error': (1199, 18, '68378ad3e0305059'),
    'squared_error-nan_rate=0.1,zero_w=True': (933, 17, '3ed9bb94bc781318'),
    'squared_error-n_cat=2': (1049, 13, '95ca3ccb5c4c16eb'),
    'squared_error-max_depth=4': (31, 4, '21df949f7e1ca244'),
    'squared_error-max_depth=4-nan_rate=0.1,zero_w=True': (31, 4, 'e6f31fb0ea6a21c3'),
    'squared_error-max_depth=4-n_cat=2': (63, 4, '48dc41a6132f5019'),
    'squared_error-max_leaf_nodes=12': (23, 4, '2cb4f52f63f3e247'),
    'squared_error-max_leaf_nodes=12-nan_rate=0.1,zero_w=True':
        (23, 5, 'e40a708aca9d786f'),
    'squared_error-max_leaf_nodes=12-n_cat=2': (21, 5, '8957ecf5914b8a39'),
    'squared_error-min_samples_leaf=5': (191, 11, '2268c094356bacaf'),
    'squared_error-min_samples_leaf=5-nan_rate=0.1,zero_w=True':
        (153, 11, '6278640e0d015b4a'),
    'squared_error-min_samples_leaf=5-n_cat=2': (185, 8, 'cdf774331d9b0b35'),
    'squared_error-max_features=2,seed=3': (1199, 18, '9904e130112eb97e'),
    'squared_error-max_features=2,seed=3-nan_rate=0.1,zero_w=True':
        (949, 17, 'c9b9f42de7a50be0'),
    'squared_error-max_features=2,seed=3-n_cat=2': (1118, 15, '1321839af213da8e'),
    'squared_error-seed=5,splitter=random': (1199, 23, '7a5e2a9fa75f662e'),
    'squared_error-seed=5,splitter=random-nan_rate=0.1,zero_w=True':
        (967, 20, 'd2a3c28d4d6fe0ee'),
    'squared_error-seed=5,splitter=random-n_cat=2': (1145, 16, '212a8b2d5a11ba21'),
    'squared_error-presort=False': (1199, 16, 'b1737abe0d64e1f3'),
    'squared_error-presort=False-nan_rate=0.1,zero_w=True':
        (983, 21, 'd62cc507a49490c8'),
    'squared_error-presort=False-n_cat=2': (1033, 14, '10027a6ad3189119'),
    'squared_error-min_impurity_decrease=0.01': (33, 5, '48bb12464249492c'),
    'squared_error-min_impurity_decrease=0.01-nan_rate=0.1,zero_w=True':
        (41, 6, 'b4b7ddb4d3790d4b'),
    'squared_error-min_impurity_decrease=0.01-n_cat=2': (45, 5, '5b15d928f5ed4c76'),
    'absolute_error': (1199, 18, 'd67a7df1b7e2a248'),
    'absolute_error-max_depth=4': (31, 4, '60b796312eecac0c'),
    'absolute_error-max_leaf_nodes=12': (23, 5, '1336d67aea6f91bf'),
    'absolute_error-min_samples_leaf=5': (191, 11, '5ee77ed398d9c9d8'),
    'absolute_error-max_features=2,seed=3': (1199, 18, '7c1d9a1766973fb0'),
    'absolute_error-seed=5,splitter=random': (1199, 24, '35ad773d95d956c6'),
    'absolute_error-presort=False': (1199, 20, '66404b795591cb2d'),
    'absolute_error-min_impurity_decrease=0.01': (31, 5, 'c14c2dd5adc4d7ee'),
    'gain_ratio': (267, 16, '6acc89f475b94d44'),
    'gain_ratio-nan_rate=0.1,zero_w=True': (253, 16, '55661330b2151d56'),
    'gain_ratio-n_cat=2': (302, 12, 'a36172c1583b5086'),
    'gain_ratio-max_depth=4': (29, 4, '4c580aca77844e07'),
    'gain_ratio-max_depth=4-nan_rate=0.1,zero_w=True': (29, 4, '53df01488d0ad9ef'),
    'gain_ratio-max_depth=4-n_cat=2': (29, 4, 'ac2d654e2df42eb2'),
    'gain_ratio-max_leaf_nodes=12': (23, 6, '6e767b8486595815'),
    'gain_ratio-max_leaf_nodes=12-nan_rate=0.1,zero_w=True':
        (23, 5, 'b71f21b635ab9f8e'),
    'gain_ratio-max_leaf_nodes=12-n_cat=2': (23, 5, 'cf3139b64454b0ad'),
    'gain_ratio-min_samples_leaf=5': (137, 12, '1ce5b081a905739f'),
    'gain_ratio-min_samples_leaf=5-nan_rate=0.1,zero_w=True':
        (123, 11, '5103a0a3662cc06f'),
    'gain_ratio-min_samples_leaf=5-n_cat=2': (137, 14, 'ac87d1133b6da5d4'),
    'gain_ratio-max_features=2,seed=3': (385, 17, 'f846e8da1eb7f191'),
    'gain_ratio-max_features=2,seed=3-nan_rate=0.1,zero_w=True':
        (385, 15, 'b26e8b995ba67eae'),
    'gain_ratio-max_features=2,seed=3-n_cat=2': (408, 12, 'bc9c39f16e33ab7f'),
    'gain_ratio-seed=5,splitter=random': (475, 23, '61184e2292c682e7'),
    'gain_ratio-seed=5,splitter=random-nan_rate=0.1,zero_w=True':
        (425, 21, 'b0337f289a1bcdbf'),
    'gain_ratio-seed=5,splitter=random-n_cat=2': (519, 17, '221120d51e823515'),
    'gain_ratio-presort=False': (259, 14, '9ccd4ab9a87cb614'),
    'gain_ratio-presort=False-nan_rate=0.1,zero_w=True': (257, 15, 'd2a2173ab6ad5df4'),
    'gain_ratio-presort=False-n_cat=2': (266, 11, '6678c937f3983c21'),
    'gain_ratio-min_impurity_decrease=0.01': (61, 7, 'e389a9aba6bb32d9'),
    'gain_ratio-min_impurity_decrease=0.01-nan_rate=0.1,zero_w=True':
        (67, 8, '9f850ce4e54660b4'),
    'gain_ratio-min_impurity_decrease=0.01-n_cat=2': (63, 8, 'ac7f3dd881a56c7e'),
    'sparse-gini': (325, 38, '66434ce6b6b04ed0'),
    'sparse-gini-max_leaf_nodes=10': (19, 6, '739fda1d9fa972ee'),
    'sparse-gini-max_features=3,seed=1': (383, 36, '23575082ee68de5f'),
    'sparse-squared_error': (821, 23, '49fe75e4445804f2'),
    'sparse-squared_error-max_leaf_nodes=10': (19, 5, 'd65e368d9ad76393'),
    'sparse-squared_error-max_features=3,seed=1': (817, 33, '6eb5f1fd59ebe8c1'),
    'hist': (1199, 18, '9ff1bce2b2032f8a'),
    'hist-nan_rate=0.1,zero_w=True': (931, 16, '435fe4f01a9e0673'),
    'hist-int_w=True': (917, 21, '6685dcb8ed29bd29'),
    'hist-max_depth=3': (15, 3, '325fe32e82d51e6b'),
    'hist-max_depth=3-nan_rate=0.1,zero_w=True': (15, 3, '7ec73fcc7a12d430'),
    'hist-max_depth=3-int_w=True': (15, 3, '8693ca7d02988392'),
    'hist-max_leaf_nodes=8': (15, 4, 'd5631d1995581f0e'),
    'hist-max_leaf_nodes=8-nan_rate=0.1,zero_w=True': (15, 4, 'b35b8d6f224797db'),
    'hist-max_leaf_nodes=8-int_w=True': (15, 4, '991fcb6c68899569'),
    'hist-max_depth=6,max_leaf_nodes=31': (61, 6, '76526000c0bd2313'),
    'hist-max_depth=6,max_leaf_nodes=31-nan_rate=0.1,zero_w=True':
        (61, 6, 'df4cb4a72271ca28'),
    'hist-max_depth=6,max_leaf_nodes=31-int_w=True': (61, 6, 'd4c045505ca15a01'),
    'hist-max_features=3,seed=7': (1199, 18, 'aa863ccb0b7ce041'),
    'hist-max_features=3,seed=7-nan_rate=0.1,zero_w=True':
        (971, 17, 'cb84d8921773f0c4'),
    'hist-max_features=3,seed=7-int_w=True': (943, 18, '14d5c64f540d4012'),
    'hist-min_samples_leaf=20': (43, 6, 'c145a2abefcd7cb5'),
    'hist-min_samples_leaf=20-nan_rate=0.1,zero_w=True': (35, 6, '80b7f3a45758298a'),
    'hist-min_samples_leaf=20-int_w=True': (33, 6, '4a263b53c8185604'),
    'hist-min_impurity_decrease=0.005': (59, 6, 'e38b1fe18f6a6174'),
    'hist-min_impurity_decrease=0.005-nan_rate=0.1,zero_w=True':
        (81, 8, '2bf232f893190319'),
    'hist-min_impurity_decrease=0.005-int_w=True': (65, 7, '713d482d96bd602e'),
}


def test_expected_covers_every_case():
    assert sorted(EXPECTED) == sorted(case[0] for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_trees_are_those_of_the_replaced_loops(case):
    # Exact search (every criterion, depth-first and best-first, presorted or
    # not, random thresholds, NaN, zero and integer weights, multiway
    # categorical splits, sparse X) and histogram search: the same nodes in
    # the same order, with the same thresholds, values and impurities.
    assert fingerprint(grow_case(case)) == EXPECTED[case[0]]


def test_every_search_is_registered_with_every_hook():
    for cls in (TreeData, DenseTreeData, HistData):
        assert sorted(_HOOKS[cls]) == sorted(_HOOK_NAMES)


def test_register_splitter_refuses_missing_hooks():
    Partial = namedtuple("Partial", ["x"])
    with pytest.raises(ValueError, match="needs the hooks"):
        register_splitter(Partial, stats=None, search=None)
    assert Partial not in _HOOKS


def test_no_tree_kernel_takes_more_than_12_positional_arguments():
    # Issue 26: named workspaces and records instead of long argument lists.
    too_long = []
    for path in Path(skml.tree.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and any(
                    "njit" in ast.unparse(d) for d in node.decorator_list):
                if len(node.args.args) > 12:
                    too_long.append(f"{path.name}:{node.name}")
    assert too_long == []
