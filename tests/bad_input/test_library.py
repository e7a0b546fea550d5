"""Bad input to the library: one clear error naming the parameter and the function.

Every case asserts the exception type and that the message has the one format of
``ensel._validation``: ``<param> of <function> must be <constraint>; got <value>``, or the
correct, documented result. The last tests check that every public callable of the library
modules declares its parameters through ``validate_params`` (so a new one cannot skip it).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re

import numpy as np
import pytest

from ensel import _validation as V
from ensel import aggregate, copula, diagnostics, info, select, stats, theory
from ensel import experiment as ex

X = np.array([[1, -1, 1], [-1, 1, 1], [1, 1, -1], [-1, -1, -1], [1, -1, -1], [-1, 1, 1]])
Y = np.array([1, -1, 1, -1, 1, -1])


def raises(exc, func, *args, param: str, where: str, expect: str = "", **kwargs) -> str:
    """Call ``func``; assert ``exc`` with ``<param> of <where> must ...; got ...``."""
    with pytest.raises(exc) as info_:
        func(*args, **kwargs)
    msg = str(info_.value)
    assert "\n" not in msg, msg
    assert msg.startswith(f"{param} of {where} must be "), msg
    assert "; got " in msg, msg
    assert expect in msg, (expect, msg)
    return msg


CASES = [
    # (id, exception, callable, args, kwargs, param, function, fragment)
    ("k=0", ValueError, select.greedy_mi, (X, Y, 0), {}, "k", "greedy_mi", "[1, inf); got 0"),
    ("k>m", ValueError, select.top_k, (X, Y, 4), {}, "k", "top_k",
     "got 4, which exceeds the number of models m=3"),
    ("bool k", TypeError, select.mrmr, (X, Y, True), {}, "k", "mrmr", "got True"),
    ("float k", TypeError, select.relevance, (X, Y, 1.5), {}, "k", "relevance", "got 1.5"),
    ("string k in a selector", ValueError, lambda: select.GreedyMI(k="2").fit(X, Y), (), {},
     "k", "GreedyMI", "got '2'"),
    ("alpha<=0", ValueError, select.greedy_mi, (X, Y, 1), {"alpha": 0}, "alpha", "greedy_mi",
     "(0, inf); got 0"),
    ("MAP alpha<0", ValueError, lambda: aggregate.MAPAggregator(alpha=-1).fit(X, Y), (), {},
     "alpha", "MAPAggregator", "[0, inf); got -1"),
    ("MAP alpha NaN", ValueError, lambda: aggregate.MAPAggregator(alpha=np.nan).fit(X, Y),
     (), {}, "alpha", "MAPAggregator", "got nan"),
    ("unknown aggregator", ValueError, aggregate.make_aggregator, ("vote",), {}, "name",
     "make_aggregator", "one of 'map', 'mv', 'wmv'"),
    ("seed of a float", TypeError, lambda: aggregate.MajorityVote(random_state=1.5).fit(X),
     (), {}, "random_state", "MajorityVote", "got 1.5"),
    ("WMV eps out of range", ValueError,
     lambda: aggregate.WeightedMajorityVote(eps=0.7).fit(X, Y), (), {}, "eps",
     "WeightedMajorityVote", "(0, 0.5) or None; got 0.7"),
    ("predict on other models", ValueError,
     lambda: aggregate.MAPAggregator().fit(X, Y).predict(X[:, :2]), (), {}, "X",
     "MAPAggregator.predict", "got 2 columns"),
    ("transform on other models", ValueError,
     lambda: select.TopK(2).fit(X, Y).transform(X[:, :2]), (), {}, "X", "TopK.transform",
     "got 2 models"),
    ("unknown exhaustive objective", ValueError, select.exhaustive_search, (X, Y, 2),
     {"objective": "accuracy"}, "objective", "exhaustive_search", "got 'accuracy'"),
    ("too many subsets", ValueError, select.exhaustive_search, (X, Y, 2),
     {"max_subsets": 2}, "max_subsets", "exhaustive_search", "C(3, 2) = 3"),
    ("MI alphabet too small", ValueError, info.smoothed_mutual_information, ([0, 2], [0, 1]),
     {"size_a": 2, "size_b": 2}, "a", "smoothed_mutual_information", "code 2 at position 1"),
    ("MI size bool", TypeError, info.smoothed_mutual_information, ([0, 1], [0, 1]),
     {"size_a": True, "size_b": 2}, "size_a", "smoothed_mutual_information", "got True"),
    ("pattern base 4", ValueError, info.pattern_codes, (X,), {"base": 4}, "base",
     "pattern_codes", "one of 2, 3 or None; got 4"),
    ("repeated column", ValueError, info.pattern_codes, (X, [0, 0]), {}, "columns",
     "pattern_codes", "column 0 more than once"),
    ("entropy of a non-law", ValueError, info.entropy, ([0.5, 0.6],), {}, "p", "entropy",
     "sums to 1"),
    ("negative rho", ValueError, copula.sample_equicorrelated, ([0.7, 0.8], -0.1, 2, 10),
     {}, "rho", "sample_equicorrelated", "[0, 1]; got -0.1"),
    ("copula eps", ValueError, lambda: copula.GaussianCopula(eps=0.5).fit(np.eye(3, dtype=int)),
     (), {}, "eps", "GaussianCopula", "(0, 0.5); got 0.5"),
    ("copula not PSD", ValueError, copula.sample_errors,
     ([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]], 5), {}, "Sigma", "sample_errors",
     "positive semi-definite"),
    ("tetrachoric lengths", ValueError, copula.tetrachoric, ([0, 1, 1], [0, 1]), {}, "e_j",
     "tetrachoric", "got 2 items"),
    ("interval of one value", ValueError, stats.paired_interval, ([0.1],),
     {"n_train": 8, "n_test": 2}, "differences", "paired_interval", "got 1"),
    ("confidence 1", ValueError, stats.paired_interval, ([0.1, 0.2],),
     {"n_train": 8, "n_test": 2, "confidence": 1.0}, "confidence", "paired_interval",
     "(0, 1); got 1.0"),
    ("unknown direction", ValueError, stats.verdict, (-1.0, 1.0, "down"), {}, "direction",
     "verdict", "got 'down'"),
    ("saturation alpha", ValueError, theory.saturation_floor, (0.4, 0.3), {}, "alpha",
     "saturation_floor", "(0.5, 1)"),
    ("ensemble of 0 models", ValueError, theory.ensemble_error, (0.7, 0.3, 0), {}, "m",
     "ensemble_error", "got 0"),
    ("unknown rule", ValueError, theory.ensemble_error, (0.7, 0.3, 3), {"rule": "median"},
     "rule", "ensemble_error", "got 'median'"),
    ("difficulty prior", ValueError, theory.LatentDifficultyModel, ([0.5, 0.6], [[0.1], [0.2]]),
     {}, "difficulty_prior", "LatentDifficultyModel", "summing to 1"),
    ("decomposition order repeats", ValueError, diagnostics.decomposition_path, (X, Y, [0, 0]),
     {}, "order", "decomposition_path", "distinct"),
    ("unknown estimator", ValueError, diagnostics.decomposition_path, (X, Y, [0]),
     {"estimator": "exact"}, "estimator", "decomposition_path", "got 'exact'"),
    ("label table confidence", ValueError, diagnostics.label_error_table, (X, Y),
     {"confidence": 95}, "confidence", "label_error_table", "got 95"),
    ("exhaustive over 16 models", ValueError, ex.exhaustive_errors,
     (np.ones((4, 16), dtype=np.int8), np.array([1, -1, 1, -1]),
      np.ones((2, 16), dtype=np.int8), np.array([1, -1]), [1]), {}, "X_train",
     "exhaustive_errors", "exhaustive search over m=16 models"),
]


@pytest.mark.parametrize(("exc", "func", "args", "kwargs", "param", "where", "expect"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_library_bad_input(exc, func, args, kwargs, param, where, expect) -> None:
    raises(exc, func, *args, param=param, where=where, expect=expect, **kwargs)


def test_errors_of_the_data_name_the_position() -> None:
    """Content errors of X and y (read by the one encoding rule) name the value and where."""
    y_nan = Y.astype(float)
    y_nan[2] = np.nan
    with pytest.raises(ValueError, match=r"^y is missing \(blank, NaN or None\) at position "
                                         r"\(2,\)"):
        select.greedy_mi(X, y_nan, 1)
    with pytest.raises(ValueError, match=r"^y has 5 labels but X has 6 rows$"):
        select.greedy_mi(X, Y[:5], 1)
    with pytest.raises(ValueError, match=r"^X of greedy_mi must be 2-dimensional .*; "
                                         r"got shape \(6,\)$"):
        select.greedy_mi(X[:, 0], Y, 1)
    with pytest.raises(ValueError, match=r"^y of mrmr must be labels of both classes .*; "
                                         r"got only the label \+1$"):
        select.mrmr(X, np.ones(6), 1)  # one class: the information selectors refuse it


def test_correct_results_of_odd_but_valid_input() -> None:
    # NaN in X is an abstention (the one encoding rule), exactly like 0
    Xn = X.astype(float)
    Xn[1, 2] = np.nan
    X0 = X.copy()
    X0[1, 2] = 0
    assert select.greedy_mi(Xn, Y, 2) == select.greedy_mi(X0, Y, 2)
    # a model that never errs (a constant error column): its correlation is not identifiable
    # and is documented as 0, its threshold is the clamped rate
    E = np.column_stack([np.zeros(8, dtype=int), [0, 1, 0, 1, 1, 0, 0, 1]])
    assert copula.tetrachoric(E[:, 0], E[:, 1]) == 0.0
    tau, Sigma = copula.fit_gaussian_copula(E)
    assert Sigma[0, 1] == 0.0 and tau[0] < -4.0
    # top-k accepts one-class labels (accuracy is defined)
    assert select.top_k(X, np.ones(6), 1) == [0]


# --------------------------------------------------------------------------- the registry
LIBRARY_MODULES = ["ensel.info", "ensel.select", "ensel.aggregate", "ensel.copula",
                   "ensel.stats", "ensel.diagnostics", "ensel.theory.channels",
                   "ensel.theory.decomposition", "ensel.theory.difficulty",
                   "ensel.theory.joint", "ensel.theory.saturation",
                   "ensel.theory.weighted_vote", "ensel.budget", "ensel.cascade",
                   "ensel.frontier"]
#: The scikit-learn protocol (install's territory), not input to validate.
# the scikit-learn protocol of ensel._estimator (not computations of the library)
_PROTOCOL = {"get_params", "set_params", "get_support", "get_feature_names_out", "score"}


def _public_callables():
    for name in LIBRARY_MODULES:
        mod = importlib.import_module(name)
        for attr in mod.__all__:
            obj = getattr(mod, attr)
            if callable(obj) and getattr(obj, "__module__", None) == name:
                yield f"{name}.{attr}", obj


def _params(func) -> list[str]:
    return [p for p in inspect.signature(func).parameters if p not in ("self", "cls")]


@pytest.mark.parametrize(("qualname", "obj"), list(_public_callables()),
                         ids=[q for q, _ in _public_callables()])
def test_every_public_callable_declares_its_parameters(qualname, obj) -> None:
    if inspect.isclass(obj):
        if dataclasses.is_dataclass(obj):
            return  # a result container
        methods = {n: m for n, m in inspect.getmembers(obj) if not n.startswith("_")
                   and n not in _PROTOCOL and (inspect.isfunction(m) or inspect.ismethod(m))}
        assert methods or "__ensel_validated__" in vars(obj.__init__), qualname
        for name, method in methods.items():
            assert hasattr(method, "__ensel_validated__"), f"{qualname}.{name}"
        # the constructor's parameters: declared on the class or on __init__ itself
        declared = set(getattr(obj, "_parameter_constraints", {}))
        if hasattr(obj.__init__, "__ensel_validated__"):
            declared |= set(V.VALIDATED[obj.__init__.__ensel_validated__])
        missing = set(_params(obj.__init__)) - declared
        assert not missing, (qualname, missing)
        return
    assert hasattr(obj, "__ensel_validated__"), f"{qualname} is not declared"
    assert set(V.VALIDATED[obj.__ensel_validated__]) >= set(_params(obj)), qualname


def test_a_new_function_cannot_skip_a_parameter() -> None:
    with pytest.raises(TypeError, match=r"undeclared parameters \['b'\]"):
        @V.validate_params({"a": ["array-like"]})
        def f(a, b):  # pragma: no cover - never called
            return a


def test_the_one_format_and_the_exception_type() -> None:
    @V.validate_params({"k": [V.Interval(int, 1, 5)], "how": [V.StrOptions(["a", "b"]), None]})
    def pick(k, how=None):
        return k

    assert pick(3) == 3 and pick(np.int64(2), how="a") == 2
    with pytest.raises(V.InvalidParameterError) as e:
        pick(6)
    assert isinstance(e.value, ValueError) and isinstance(e.value, TypeError)
    assert str(e.value) == "k of pick must be an int in [1, 5]; got 6"
    with pytest.raises(ValueError, match=re.escape("how of pick must be one of 'a', 'b' or None; "
                                                   "got 'c'")):
        pick(1, how="c")
    big = np.zeros((100, 100))
    with pytest.raises(ValueError, match=r"got ndarray of shape \(100, 100\)$"):
        pick(big)
