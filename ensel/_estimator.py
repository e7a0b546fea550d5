"""The scikit-learn estimator protocol of the selectors and the aggregators.

The selectors of :mod:`ensel.select` are feature selectors (the features are the models, the
columns of ``X``) and the aggregators of :mod:`ensel.aggregate` are binary classifiers, so
they work inside scikit-learn's ``Pipeline``, ``GridSearchCV``, ``cross_val_score`` and
``clone``::

    >>> from sklearn.model_selection import GridSearchCV
    >>> from sklearn.pipeline import Pipeline
    >>> from ensel.aggregate import MAPAggregator
    >>> from ensel.copula import sample
    >>> from ensel.select import GreedyMI
    >>> X, y, _ = sample([-0.84, -0.81, -0.67, -0.5], [[1, .9, 0, 0], [.9, 1, 0, 0],
    ...                  [0, 0, 1, 0], [0, 0, 0, 1]], 2000, random_state=0)
    >>> pipe = Pipeline([("select", GreedyMI()), ("map", MAPAggregator())])
    >>> search = GridSearchCV(pipe, {"select__k": [1, 3]}, cv=3).fit(X, y)
    >>> search.best_params_
    {'select__k': 3}

The protocol is implemented here rather than inherited from ``sklearn.base.BaseEstimator``:
importing scikit-learn's base classes costs about 0.5 s (it loads ``scipy.stats``), which
every book page and every ``ensel`` command would pay, and scikit-learn is not a dependency
of the core install. scikit-learn reads an estimator's tags through ``__sklearn_tags__``;
that method imports scikit-learn, and only scikit-learn calls it.

Conventions followed (those of ``BaseEstimator``): every constructor argument is stored
unchanged under its own name and validated in ``fit``; fitted attributes end in ``_``;
``get_params(deep=True)`` lists the constructor arguments (and those of nested estimators as
``name__param``); ``set_params`` sets them and returns the estimator.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from ensel._errors import UsageError, check_is_fitted

__all__ = ["AggregatorMixin", "EstimatorMixin", "SelectorMixin"]


class EstimatorMixin:
    """``get_params``, ``set_params`` and a ``repr`` from the constructor's signature."""

    @classmethod
    def _get_param_names(cls) -> list[str]:
        """Names of the constructor arguments, in signature order."""
        init = cls.__init__
        if init is object.__init__:
            return []
        params = inspect.signature(init).parameters.values()
        bad = [p.name for p in params if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        if bad:
            raise TypeError(f"{cls.__name__}.__init__ must name its arguments; got *{bad[0]}")
        return [p.name for p in params if p.name != "self"]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Constructor arguments of this estimator (scikit-learn convention).

        Parameters
        ----------
        deep : bool, default=True
            Also list the arguments of nested estimators as ``<name>__<argument>``.

        Returns
        -------
        dict
            Argument name -> value.

        Examples
        --------
        >>> from ensel.select import GreedyMI
        >>> GreedyMI(k=2).get_params()
        {'k': 2, 'alpha': 1.0}
        """
        out: dict[str, Any] = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{name}__{key}", val) for key, val in value.get_params().items())
            out[name] = value
        return out

    def set_params(self, **params: Any) -> Any:
        """Set constructor arguments (``<name>__<argument>`` for nested estimators).

        Parameters
        ----------
        **params
            Argument name -> new value. Nothing is validated here: ``fit`` validates.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            For a name that is not a constructor argument.

        Examples
        --------
        >>> from ensel.select import GreedyMI
        >>> GreedyMI().set_params(k=5)
        GreedyMI(k=5, alpha=1.0)
        """
        valid = self.get_params(deep=True)
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            name, delim, sub = key.partition("__")
            if name not in valid:
                raise UsageError(
                    f"{key!r} of {type(self).__name__}.set_params must be one of "
                    f"{self._get_param_names()}; got {key!r}"
                )
            if delim:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
                valid[name] = value
        for name, sub_params in nested.items():
            valid[name].set_params(**sub_params)
        return self

    def __repr__(self) -> str:
        params = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._get_param_names())
        return f"{type(self).__name__}({params})"

    def _base_tags(self) -> Any:
        from sklearn.utils import InputTags, Tags, TargetTags

        # answers are the integers -1, 0, +1: no NaN, no sparse matrices, 2-D only
        return Tags(estimator_type=None, target_tags=TargetTags(required=True),
                    transformer_tags=None, regressor_tags=None, classifier_tags=None,
                    input_tags=InputTags(allow_nan=False, sparse=False, two_d_array=True))


class SelectorMixin(EstimatorMixin):
    """A feature selector whose features are models: ``get_support`` from ``selected_``.

    The class using it sets ``selected_`` (column indices in pick order) and
    ``n_features_in_`` in ``fit`` and keeps the selected columns in pick order in
    ``transform``; :meth:`get_feature_names_out` follows the same order.
    """

    selected_: list[int]
    n_features_in_: int

    def get_support(self, indices: bool = False) -> np.ndarray:
        """Which models (columns of ``X``) were selected.

        Parameters
        ----------
        indices : bool, default=False
            Return the sorted column indices instead of a boolean mask (scikit-learn's
            convention; ``selected_`` has them in pick order).

        Returns
        -------
        numpy.ndarray
            Boolean mask of shape ``(n_features_in_,)`` or the indices of its ``True`` entries.

        Examples
        --------
        >>> import numpy as np
        >>> from ensel.select import TopK
        >>> y = np.array([1, -1, 1, -1])
        >>> X = np.array([[1, 1, 1], [-1, 1, 1], [1, -1, 1], [-1, -1, -1]])
        >>> sel = TopK(k=2).fit(X, y)
        >>> sel.get_support().tolist(), sel.get_support(indices=True).tolist()
        ([True, False, True], [0, 2])
        """
        check_is_fitted(self, "selected_")
        mask = np.zeros(int(self.n_features_in_), dtype=np.bool_)
        mask[list(self.selected_)] = True
        return np.flatnonzero(mask) if indices else mask

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Names of the selected columns, in pick order (the columns of ``transform``).

        Parameters
        ----------
        input_features : array-like of str, optional
            Names of the input columns; default: ``feature_names_in_`` when ``fit`` saw a
            DataFrame, else ``x0, x1, ...``.

        Returns
        -------
        numpy.ndarray of str objects
        """
        support = self.get_support()
        if input_features is None:
            input_features = getattr(self, "feature_names_in_",
                                     [f"x{j}" for j in range(support.size)])
        names = np.asarray(input_features, dtype=object)
        if names.shape != (support.size,):
            raise UsageError(
                f"input_features of {type(self).__name__}.get_feature_names_out must hold "
                f"{support.size} names; got {names.size}"
            )
        return names[list(self.selected_)]

    def __sklearn_tags__(self) -> Any:
        from sklearn.utils import TransformerTags

        tags = self._base_tags()
        tags.transformer_tags = TransformerTags(preserves_dtype=[])
        return tags


class AggregatorMixin(EstimatorMixin):
    """A binary classifier over the answers of the selected models: ``score``, tags.

    The class using it sets ``classes_`` (``[-1, +1]``) and ``n_models_`` in ``fit``.
    """

    _estimator_type = "classifier"

    @property
    def n_features_in_(self) -> int:
        """Number of models seen in ``fit`` (scikit-learn's name for ``n_models_``)."""
        check_is_fitted(self, "n_models_")
        return int(self.__dict__["n_models_"])

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy of :meth:`predict` on ``X`` against the labels ``y``.

        Parameters
        ----------
        X : array-like of shape (n_items, n_models_)
            Answers in ``{-1, 0, +1}``.
        y : array-like of shape (n_items,)
            Labels in ``{-1, +1}``.
        sample_weight : array-like of shape (n_items,), optional
            Weights of the items.

        Returns
        -------
        float
            The (weighted) fraction of items predicted right; ``1 - score`` is the paper's
            test error.

        Examples
        --------
        >>> import numpy as np
        >>> from ensel.aggregate import MAPAggregator
        >>> X = np.array([[1, 1], [1, -1], [-1, -1], [1, -1]])
        >>> y = np.array([1, 1, -1, -1])
        >>> MAPAggregator().fit(X, y).score(X, y)
        0.75
        """
        from ensel._validation import check_X_y

        Xa, ya = check_X_y(X, y)
        pred = self.predict(Xa)  # type: ignore[attr-defined]
        return float(np.average(pred == ya, weights=sample_weight))

    def __sklearn_tags__(self) -> Any:
        from sklearn.utils import ClassifierTags

        tags = self._base_tags()
        tags.estimator_type = "classifier"
        tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags
