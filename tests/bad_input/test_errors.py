"""One error family (``EnselError``: data, usage, config) and one fitted check.

Every estimator used before ``fit`` raises ``NotFittedError``, which is scikit-learn's
``NotFittedError`` (so ``except`` clauses and scikit-learn's own checks catch it), a
``ValueError`` and an ``AttributeError``, with one message naming the class.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError as SkNotFittedError

from ensel import _errors as E
from ensel import _validation as V
from ensel.aggregate import AGGREGATORS
from ensel.copula import GaussianCopula
from ensel.select import SELECTORS

X = np.array([[1, -1, 1], [1, 1, -1], [-1, -1, 1], [-1, 1, -1]])


def test_the_family() -> None:
    from ensel._io import UsageError
    from ensel.collect.config import ConfigError
    from ensel.collect.queries import DatasetFileError
    from ensel.data import DataError, MissingFileError

    assert DataError is E.DataError and UsageError is E.UsageError
    assert ConfigError is E.ConfigError
    for cls in (E.DataError, E.UsageError, E.ConfigError, E.NotFittedError,
                V.InvalidParameterError, MissingFileError, DatasetFileError):
        assert issubclass(cls, E.EnselError) and issubclass(cls, ValueError), cls
    assert issubclass(V.InvalidParameterError, TypeError)
    assert issubclass(E.NotFittedError, AttributeError)


#: Exceptions that are control flow, not errors: they must stay outside ``Exception`` (so
#: that no ``except Exception`` swallows them) and therefore outside the family.
_CONTROL_FLOW = {"ensel._io._Interrupted"}  # SIGINT/SIGTERM: a SystemExit with 130 / 143


def _exception_classes() -> dict[str, type[BaseException]]:
    """Every exception class defined in the ``ensel`` package (all modules imported)."""
    import ensel

    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(ensel.__path__, "ensel."):
        if info.name.endswith(".__main__"):  # runs its command line when imported
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if inspect.isclass(obj) and issubclass(obj, BaseException) \
                    and obj.__module__ == module.__name__:
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


def test_every_exception_is_in_the_family() -> None:
    found = _exception_classes()
    # the walk does see the classes that used to be outside the family
    assert {"ensel.costs.PriceError", "ensel.collect.store.StoreError",
            "ensel._io.NotebookRunError", "ensel.book.results.ResultsDamagedError",
            "ensel.book.claims.CheckFailed", "ensel._errors.DataUnavailableError",
            "ensel.collect.collector.EndpointRefused"} <= set(found)
    outside = sorted(name for name, cls in found.items()
                     if not issubclass(cls, E.EnselError) and name not in _CONTROL_FLOW)
    assert outside == []
    for name in _CONTROL_FLOW:
        assert not issubclass(found[name], Exception), name
    # each keeps its builtin base, so existing except clauses still catch it
    from ensel.book.claims import CheckFailed
    from ensel.collect.store import StoreError
    from ensel.costs import PriceError

    assert issubclass(StoreError, RuntimeError) and issubclass(E.DataUnavailableError,
                                                               RuntimeError)
    assert issubclass(CheckFailed, AssertionError) and issubclass(PriceError, ValueError)


def _unfitted_calls():
    for name, cls in sorted(SELECTORS.items()):
        for method in ("transform", "get_support", "get_feature_names_out"):
            yield f"{name}.{method}", cls, method, (X,) if method == "transform" else ()
    for name, cls in sorted(AGGREGATORS.items()):
        for method in ("predict", "predict_proba"):
            if hasattr(cls, method):
                yield f"{name}.{method}", cls, method, (X,)
    yield "copula.sample", GaussianCopula, "sample", (10,)


CALLS = list(_unfitted_calls())


@pytest.mark.parametrize(("cls", "method", "args"), [c[1:] for c in CALLS],
                         ids=[c[0] for c in CALLS])
def test_unfitted_estimators_raise_not_fitted(cls, method, args) -> None:
    est = cls()
    with pytest.raises(SkNotFittedError) as info:
        getattr(est, method)(*args)
    assert isinstance(info.value, E.NotFittedError)
    assert isinstance(info.value, ValueError) and isinstance(info.value, AttributeError)
    msg = str(info.value)
    assert msg.startswith(f"this {cls.__name__} is not fitted yet; call fit("), msg
    assert "\n" not in msg


def test_n_features_in_of_an_unfitted_aggregator_is_absent() -> None:
    for cls in AGGREGATORS.values():
        assert not hasattr(cls(), "n_features_in_")


@pytest.mark.parametrize("name", ["LogisticStacking", "BackoffMAP", "ScoreMI"])
def test_the_scalable_estimators_declare_their_constraints(name) -> None:
    cls = {**{c.__name__: c for c in SELECTORS.values()},
           **{c.__name__: c for c in AGGREGATORS.values()}}[name]
    declared = cls.__dict__["_parameter_constraints"]
    assert set(declared) == set(cls._get_param_names())


def test_every_registered_estimator_declares_every_parameter() -> None:
    for cls in [*SELECTORS.values(), *AGGREGATORS.values()]:
        declared = V._class_declaration(cls)
        assert set(declared) == set(cls._get_param_names()), cls.__name__


BUILTIN_RAISE_LIMIT = 60


def _builtin_raises() -> list[str]:
    """``file:line Name`` of each ``raise`` of a bare built-in exception in ``ensel/``.

    ``ensel/_validation.py`` and ``ensel/_errors.py`` define the family and are left out.
    """
    import ast
    import builtins
    from pathlib import Path

    builtin = {name for name, obj in vars(builtins).items()
               if isinstance(obj, type) and issubclass(obj, BaseException)}
    root = Path(__file__).resolve().parents[2]
    found = []
    for path in sorted((root / "ensel").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel in {"ensel/_validation.py", "ensel/_errors.py"}:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=rel)):
            if isinstance(node, ast.Raise) and node.exc is not None:
                exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if isinstance(exc, ast.Name) and exc.id in builtin:
                    found.append(f"{rel}:{node.lineno} {exc.id}")
    return found


def test_the_counter_sees_a_bare_builtin_raise() -> None:
    # the count below is not vacuous: the library does still raise a few bare built-ins
    raises = _builtin_raises()
    assert any(r.endswith(" TypeError") for r in raises), raises
    assert not any("ensel/_errors.py" in r or "ensel/_validation.py" in r for r in raises)


def test_bare_builtin_raises_stay_few() -> None:
    """Errors raised on purpose come from the family; the bare built-ins cannot creep back."""
    raises = _builtin_raises()
    assert len(raises) < BUILTIN_RAISE_LIMIT, (
        f"{len(raises)} raises of a bare built-in exception (limit {BUILTIN_RAISE_LIMIT}); "
        "raise DataError, UsageError or ConfigError from ensel._errors instead:\n"
        + "\n".join(raises))
