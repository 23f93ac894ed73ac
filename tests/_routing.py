"""Shared by the metadata-routing tests of the ensembles (bagging, voting,
stacking): a log that recording members and their clones write into."""


class Log(list):
    """Shared by an estimator and its clones (``clone`` deep-copies parameters)."""

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self
