"""The one error family of ``ensel`` and the one fitted check of its estimators.

Every error ``ensel`` raises on purpose is an :class:`EnselError`, a ``ValueError``, of one
of three kinds:

* :class:`DataError`: an input file, table or record that cannot be read (the message names
  the file, line, row, column or record);
* :class:`UsageError`: an argument or parameter outside what is accepted (the message names
  the parameter and what was expected); :class:`ensel._validation.InvalidParameterError` is
  one, and also a ``TypeError``;
* :class:`ConfigError`: a configuration file or key that cannot be used (the message names
  the file and the key).

The command line prints the message of any of them as one line and exits with code 2, as it
does for :class:`DataUnavailableError` (a pinned data file that the mirror, the cache and the
network cannot provide; raised by :mod:`ensel.datasets._fetch`, defined here so that the
command line catches it without importing the datasets package).

Every other exception class of the package is an :class:`EnselError` too, keeping the builtin
base it had (``StoreError``, ``DataUnavailableError`` and others are also ``RuntimeError``,
``CheckFailed`` an ``AssertionError``), so ``except EnselError`` catches all of them and the
old ``except`` clauses keep working.

:class:`NotFittedError` is raised by :func:`check_is_fitted` when an estimator is used before
``fit``. It is a ``ValueError`` and an ``AttributeError`` (as scikit-learn's is); when
scikit-learn is installed, the raised error is also an instance of
``sklearn.exceptions.NotFittedError``, so scikit-learn's own ``except`` clauses and checks
catch it. scikit-learn is imported only when such an error is raised.

Examples
--------
>>> from ensel.select import GreedyMI
>>> GreedyMI().get_support()
Traceback (most recent call last):
...
ensel._errors.NotFittedError: this GreedyMI is not fitted yet; call fit(X, y) first
>>> issubclass(DataError, EnselError) and issubclass(EnselError, ValueError)
True
"""

from __future__ import annotations

import importlib.util
from typing import Any

__all__ = ["ConfigError", "DataError", "DataUnavailableError", "EnselError", "NotFittedError",
           "NotFoundError", "UsageError", "check_is_fitted"]


class EnselError(ValueError):
    """Base of every error ``ensel`` raises on purpose (a ``ValueError``)."""


class DataError(EnselError):
    """Bad input data: the message names the file, the line/row or column and the problem.

    The one exception of every reader (:func:`ensel.data.read_responses`,
    :func:`ensel.data.validate_responses`, :mod:`ensel.datasets.importers`); the command line
    prints its message as one line and exits with code 2. A missing file and a folder given
    as a file raise the subclasses ``MissingFileError`` (also a :class:`FileNotFoundError`)
    and ``DirectoryGivenError`` (also an :class:`IsADirectoryError`) of :mod:`ensel.data`.

    Examples
    --------
    >>> issubclass(DataError, ValueError)
    True
    """


class UsageError(EnselError):
    """Bad arguments or parameters: reported as one line, exit code 2."""


class ConfigError(EnselError):
    """A configuration that cannot be used (the message names the file and the key)."""


class NotFoundError(EnselError, KeyError):
    """A name or entry that is not there (a ``ValueError`` and a ``KeyError``, so code that
    catches ``KeyError`` keeps working); its message is shown as written, not quoted.

    Examples
    --------
    >>> str(NotFoundError("no run named 'x'"))
    "no run named 'x'"
    >>> issubclass(NotFoundError, KeyError) and issubclass(NotFoundError, ValueError)
    True
    """

    __str__ = EnselError.__str__  # KeyError would quote the message


class DataUnavailableError(EnselError, RuntimeError):
    """A pinned data file could not be read from the mirror, the cache or the network."""


class NotFittedError(EnselError, AttributeError):
    """An estimator used before ``fit`` (a ``ValueError`` and an ``AttributeError``).

    Instances raised by :func:`check_is_fitted` are also instances of scikit-learn's
    ``NotFittedError`` when scikit-learn is installed.
    """


_SKLEARN_NOT_FITTED: list[type[NotFittedError]] = []


def _not_fitted_class() -> type[NotFittedError]:
    """:class:`NotFittedError`, joined with scikit-learn's when that is installed."""
    if not _SKLEARN_NOT_FITTED:
        cls: type[NotFittedError] = NotFittedError
        if importlib.util.find_spec("sklearn") is not None:
            from sklearn.exceptions import NotFittedError as SkNotFittedError

            cls = type("NotFittedError", (NotFittedError, SkNotFittedError),
                       {"__module__": __name__, "__doc__": NotFittedError.__doc__})
        _SKLEARN_NOT_FITTED.append(cls)
    return _SKLEARN_NOT_FITTED[0]


def check_is_fitted(estimator: Any, attribute: str, *, call: str = "fit(X, y)") -> None:
    """Raise :class:`NotFittedError` unless ``fit`` has set ``attribute`` on ``estimator``.

    The one fitted check of every selector and aggregator.

    Parameters
    ----------
    estimator : object
        The estimator about to be used.
    attribute : str
        A fitted attribute (ending in ``_``) that ``fit`` sets.
    call : str, default="fit(X, y)"
        How to fit it, as the message shows it.

    Raises
    ------
    NotFittedError
        ``this <Class> is not fitted yet; call <call> first``.
    """
    if attribute not in vars(estimator):
        raise _not_fitted_class()(
            f"this {type(estimator).__name__} is not fitted yet; call {call} first")
