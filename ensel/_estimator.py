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

import functools
import inspect
from typing import Any

import numpy as np

from ensel._errors import UsageError, check_is_fitted

__all__ = ["AggregatorMixin", "EstimatorMixin", "SelectorMixin"]


#: Methods that read answers ``X`` after ``fit``: their ``X`` gets fit's column names and
#: fit's reading of ``0``/``1`` (see :meth:`EstimatorMixin._fitted_X`).
_READERS = ("predict", "predict_proba", "decision_function", "transform", "score")


def _reads_X_as_fitted(method: Any) -> Any:
    @functools.wraps(method)
    def _reader(self: Any, X: Any, *args: Any, **kwargs: Any) -> Any:
        check_is_fitted(self, self._fitted_attribute)  # before X is read: NotFittedError
        out = method(self, self._fitted_X(X, method.__name__), *args, **kwargs)
        if method.__name__ == "predict":
            return self._labels_of(out)
        if method.__name__ == "transform":
            return self._as_output(out)
        return out

    _reader.__ensel_reads_X__ = True  # type: ignore[attr-defined]
    return _reader


def _fits(method: Any) -> Any:
    @functools.wraps(method)
    def _fitter(self: Any, X: Any, y: Any = None, *args: Any, **kwargs: Any) -> Any:
        classes, y = _classes_of(y)
        out = method(self, X, y, *args, **kwargs)
        self._record_fit(X, classes)
        return out

    _fitter.__ensel_fits__ = True  # type: ignore[attr-defined]
    return _fitter


def _classes_of(y: Any) -> tuple[np.ndarray | None, Any]:
    """``(classes, y)``: any two labels (0/1, strings, booleans, ...) sorted as
    ``classes_`` and ``y`` re-encoded as -1 (``classes_[0]``) / +1 (``classes_[1]``); labels
    already in ``{-1, +1}``, one class, or anything else are passed through unchanged (the
    estimator's own checks report them)."""
    if y is None:
        return None, y
    raw = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if raw.ndim != 1 or raw.size == 0:
        return None, y
    try:
        classes = np.unique(raw)
    except TypeError:  # mixed types: the label check names them
        return None, y
    if classes.size != 2 or raw.dtype.kind == "f" and np.isnan(classes).any():
        return None, y
    if raw.dtype.kind in "iu" and set(classes.tolist()) == {-1, 1}:
        return None, y
    if raw.dtype.kind in "USO":  # text that spells a sign ('+1'/'-1', 'True'/'False') is read
        # by the one encoding rule, as the functions read it: sorted, '+1' < '-1' would flip it
        from ensel._validation import as_pm1

        try:
            signs = as_pm1(classes, name="y", allow_abstain=False)
        except (ValueError, TypeError):
            signs = None
        if signs is not None and sorted(signs.tolist()) == [-1, 1]:
            classes = classes[np.argsort(signs)]
    return classes, np.where(raw == classes[1], 1, -1).astype(np.int8)


class EstimatorMixin:
    """``get_params``, ``set_params`` and a ``repr`` from the constructor's signature; the
    contracts of ``fit`` and of the methods that read ``X`` after it (column names, the
    reading of ``0``/``1`` answers, the labels of ``y``)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not getattr(cls, "_ensel_contracts", False):
            return
        if "fit" in cls.__dict__ and not getattr(cls.__dict__["fit"], "__ensel_fits__", False):
            cls.fit = _fits(cls.__dict__["fit"])  # type: ignore[attr-defined]
        for name in _READERS:
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "__ensel_reads_X__", False):
                setattr(cls, name, _reads_X_as_fitted(method))

    def _record_fit(self, X: Any, classes: np.ndarray | None) -> None:
        """After ``fit``: the column names, how ``0``/``1`` answers were read, the labels."""
        import pandas as pd

        from ensel._validation import as_pm1

        if isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in X.columns):
            self.feature_names_in_ = np.asarray(X.columns, dtype=object)
        else:  # scikit-learn's rule: names only when every column name is a string
            self.__dict__.pop("feature_names_in_", None)
        report: dict[str, str] = {}
        try:
            as_pm1(X, name="X", allow_abstain=True, report=report)
        except (ValueError, TypeError):
            report = {}
        self._zero_one_ = report.get("encoding", "").startswith("1/0")
        if classes is not None and hasattr(self, "classes_"):
            self.classes_ = classes

    def _fitted_X(self, X: Any, method: str) -> Any:
        """``X`` checked against fit's column names and read as fit read its answers: a batch
        of only ``0``/``1`` is True/False when fit's answers were, else ``0`` is abstained."""
        import pandas as pd

        names = getattr(self, "feature_names_in_", None)
        if names is not None and isinstance(X, pd.DataFrame):
            got = [str(c) for c in X.columns]
            if got != list(names):
                from ensel._errors import UsageError

                how = ("in another order" if sorted(got) == sorted(names)
                       else f"{got[:4]}{' ...' if len(got) > 4 else ''}")
                raise UsageError(
                    f"X of {type(self).__name__}.{method} must have the columns fit saw, in "
                    f"the same order ({list(names)[:4]}{' ...' if len(names) > 4 else ''}); "
                    f"got {how} (pass X[est.feature_names_in_])")
        if "_zero_one_" not in self.__dict__:
            return X
        values = X.to_numpy() if isinstance(X, pd.DataFrame) else X
        arr = np.asarray(values)
        if arr.dtype.kind not in "iub" or arr.ndim != 2 or arr.size == 0:
            return X
        # only 0/1 values (min and max: one fast pass each; np.isin is ~100x slower on int8)
        if arr.dtype.kind == "b" or arr.min() < 0 or arr.max() > 1:
            return X
        if self._zero_one_:  # fit read 1/0 as True/False: so does this batch
            read = np.where(arr == 1, 1, -1).astype(np.int8)
        else:
            read = arr.astype(np.int8)  # fit read 0 as abstained: so does this batch
        if isinstance(X, pd.DataFrame):  # the container does not depend on the values
            return pd.DataFrame(read, index=X.index, columns=X.columns)
        return read

    def _labels_of(self, pred: Any) -> Any:
        """``predict``'s -1/+1 as the labels of fit's ``y`` (``classes_``)."""
        classes = getattr(self, "classes_", None)
        if classes is None or (classes.dtype.kind in "iu" and list(classes) == [-1, 1]):
            return pred
        return classes[(np.asarray(pred) > 0).astype(np.intp)]

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
    _ensel_contracts = True
    _fitted_attribute = "selected_"

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

    def set_output(self, *, transform: str | None = None) -> Any:
        """The container of :meth:`transform`'s output (scikit-learn's ``set_output`` API).

        Parameters
        ----------
        transform : {"default", "pandas"}, optional
            ``"pandas"``: a DataFrame whose columns are :meth:`get_feature_names_out`;
            ``"default"``: a DataFrame for a DataFrame input, else a numpy array; ``None``:
            unchanged.

        Returns
        -------
        self

        Examples
        --------
        >>> import numpy as np
        >>> from ensel.select import TopK
        >>> X, y = np.array([[1, 1, -1], [-1, 1, -1], [1, -1, 1]]), np.array([1, -1, 1])
        >>> TopK(k=2).set_output(transform="pandas").fit(X, y).transform(X).columns.tolist()
        ['x0', 'x2']
        """
        if transform is not None:
            from ensel._validation import check_option

            check_option(transform, "transform", ("default", "pandas"))
            self._sklearn_output_config = {"transform": transform}
        return self

    def _as_output(self, out: Any) -> Any:
        config = getattr(self, "_sklearn_output_config", {})
        if config.get("transform") != "pandas":
            return out
        import pandas as pd

        names = self.get_feature_names_out()
        if isinstance(out, pd.DataFrame):  # keep the index; columns named as scikit-learn's
            return out.set_axis(names, axis=1)
        return pd.DataFrame(out, columns=names)

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
    _ensel_contracts = True
    _fitted_attribute = "n_models_"

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
            Labels among ``classes_`` (the two seen at fit).
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
        from ensel._validation import check_sample_weight, check_X_y

        if not np.array_equal(self._labels_of(np.array([-1, 1])), [-1, 1]):
            truth = np.asarray(y)  # fit's own labels (classes_)
            pred = self.predict(X)  # type: ignore[attr-defined]
            weights = check_sample_weight(sample_weight, len(pred), func="score")
            return float(np.average(pred == truth, weights=weights))
        Xa, ya = check_X_y(X, y)
        weights = check_sample_weight(sample_weight, Xa.shape[0], func="score")
        pred = self.predict(Xa)  # type: ignore[attr-defined]
        return float(np.average(pred == ya, weights=weights))

    def _ties(self, X: Any) -> np.ndarray:
        """The rows whose prediction is a tie, as a boolean mask of shape ``(n_items,)``.

        A tie is a row the rule cannot decide: a ``decision_function`` of exactly 0 (majority
        vote's vote sum, including all models abstaining; the weighted vote's and stacking's
        score), else a posterior ``P(Y = +1 | x)`` of exactly 1/2 (MAP, backoff). ``predict``
        still gives such a row a label (``+1``, or majority vote's coin); an evaluation counts
        it as half an error instead (:func:`ensel.aggregate.heldout_error`), the paper's random
        tie break in expectation.
        """
        if hasattr(self, "decision_function"):
            return np.asarray(self.decision_function(X)) == 0
        return np.asarray(self.predict_proba(X))[:, 1] == 0.5  # type: ignore[attr-defined]

    def _predict_ties(self, X: Any) -> tuple[Any, np.ndarray]:
        """``(self.predict(X), self._ties(X))``, what an evaluation reads
        (:func:`ensel.aggregate.heldout_error`); a rule whose prediction and ties come from
        one score computes that score once."""
        return self.predict(X), self._ties(X)  # type: ignore[attr-defined]

    def __sklearn_tags__(self) -> Any:
        from sklearn.utils import ClassifierTags

        tags = self._base_tags()
        tags.estimator_type = "classifier"
        tags.classifier_tags = ClassifierTags(multi_class=False)
        return tags
