"""Output feature names of the transformers whose outputs are the rows of ``components_``."""

from sklearn.base import ClassNamePrefixFeaturesOutMixin

__all__ = ["ComponentsFeaturesOutMixin"]


class ComponentsFeaturesOutMixin(ClassNamePrefixFeaturesOutMixin):
    """``get_feature_names_out`` giving ``<class name><k>`` for each row of ``components_``.

    For linear maps ``x -> components_ x`` (PCA, the learnt metrics of NCA and
    LMNN).
    """

    @property
    def _n_features_out(self):
        return self.components_.shape[0]
