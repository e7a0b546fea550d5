"""scikit-learn's own estimator checks over every registered selector and aggregator
(the binary ones and those of multiple-choice answers).

``check_estimator`` runs every check of an estimator; one test per estimator. The checks that
run must pass; those that cannot apply to answer matrices are declared in
``expected_failed_checks`` with the reason, and each must still fail: one that starts passing
fails the test, so that its declaration is removed. Most of them feed real-valued ``X``
(``np.random.randn``), which ensel refuses by design: answers are -1, 0, +1
(``ensel._validation``), and refusing 0.37 is the contract, not a bug. The data parts of those
checks are re-done on valid answers in ``tests/test_estimators.py``. (Run through pytest's
parametrization, the 380 expected failures cost about 0.65 s each in traceback formatting;
here an expected failure's exception is only recorded.)
"""

from __future__ import annotations

import traceback

import pytest
from sklearn.utils.estimator_checks import check_estimator, estimator_checks_generator

from ensel.aggregate import AGGREGATORS, MULTICLASS_AGGREGATORS, MajorityVote, WeightedPluralityVote
from ensel.aggregate._dawid_skene import _EM
from ensel.select import SELECTORS

# scikit-learn is not a dependency of the core install, so the estimators follow its API
# without inheriting from sklearn.base.BaseEstimator; the checks warn about that each time.
pytestmark = pytest.mark.filterwarnings("ignore:Estimator .* does not inherit from")

_REAL_X = ("feeds real-valued X (random normal); answers are -1/0/+1 and any other value is "
           "refused by design, naming it (ensel._validation.as_pm1); re-done on answers in "
           "tests/test_estimators.py")
_MESSAGE = ("ensel refuses this input with its own one-line message (parameter, value, what "
            "was expected), which does not contain the phrase this check looks for")

EXPECTED_FAILURES: dict[str, str] = {
    **dict.fromkeys([
        "check_classifier_data_not_an_array", "check_classifiers_classes",
        "check_classifiers_train", "check_decision_proba_consistency", "check_dict_unchanged",
        "check_dont_overwrite_parameters", "check_dtype_object", "check_estimators_dtypes",
        "check_estimators_fit_returns_self", "check_estimators_overwrite_params",
        "check_estimators_pickle", "check_f_contiguous_array_estimator",
        "check_fit2d_predict1d", "check_fit_check_is_fitted", "check_fit_idempotent",
        "check_fit_score_takes_y", "check_methods_sample_order_invariance",
        "check_methods_subset_invariance", "check_n_features_in",
        "check_n_features_in_after_fitting", "check_non_transformer_estimators_n_iter",
        "check_pipeline_consistency", "check_readonly_memmap_input",
        "check_supervised_y_2d", "check_transformer_data_not_an_array",
        "check_transformer_general", "check_positive_only_tag_during_fit",
    ], _REAL_X),
    **dict.fromkeys([
        "check_complex_data", "check_estimators_empty_data_messages", "check_fit2d_1feature",
        "check_fit2d_1sample", "check_estimators_nan_inf", "check_requires_y_none",
        "check_classifiers_regression_target",
    ], _MESSAGE),
    "check_classifier_not_supporting_multiclass": (
        "binary by design (the paper's Y in {-1, +1}, multi_class tag False); a third class "
        "is refused naming the value, not with the phrase the check looks for"),
    "check_classifiers_one_label": (
        "the aggregators count patterns per label, so one-class y is refused naming the label "
        "(require_both_classes) rather than fitted"),
}


def _estimators() -> list[object]:
    out: list[object] = [cls(k=1) for cls in SELECTORS.values()]
    out += [cls(random_state=0) if cls is MajorityVote else cls()
            for cls in AGGREGATORS.values()]
    out += [cls() for cls in MULTICLASS_AGGREGATORS.values()]
    return out


#: Checks that only LogisticStacking (which has n_iter_ and both decision_function and
#: predict_proba) runs on real X; for the others they pass vacuously.
_STACKING_ONLY = ("check_non_transformer_estimators_n_iter", "check_decision_proba_consistency")


#: Checks the multiple-choice aggregators pass: their classes are any labels (the data of
#: check_classifier_data_not_an_array are integer-valued), and they are multi-class.
_MULTICLASS_PASS = ("check_classifier_data_not_an_array",
                    "check_classifier_not_supporting_multiclass")


def _expected(estimator: object) -> dict[str, str]:
    if type(estimator).__name__ == "LogisticStacking":
        return EXPECTED_FAILURES
    if type(estimator) in MULTICLASS_AGGREGATORS.values():
        runs_on_real_x = {  # the checks that need n_iter_, or decision_function + proba
            "check_non_transformer_estimators_n_iter": isinstance(estimator, _EM),
            "check_decision_proba_consistency": isinstance(estimator, WeightedPluralityVote)}
        return {k: v for k, v in EXPECTED_FAILURES.items()
                if k not in _MULTICLASS_PASS and runs_on_real_x.get(k, True)}
    return {k: v for k, v in EXPECTED_FAILURES.items() if k not in _STACKING_ONLY}


@pytest.mark.parametrize("estimator", _estimators(), ids=lambda e: type(e).__name__)
def test_sklearn_compatible_estimator(estimator) -> None:
    expected = _expected(estimator)
    results = check_estimator(estimator, expected_failed_checks=expected, on_fail=None,
                              on_skip=None)
    failed = [f"{r['check_name']}: " + "".join(traceback.format_exception(r["exception"]))
              for r in results if r["status"] == "failed"]
    assert failed == [], "\n".join(failed)
    passing = [r["check_name"] for r in results
               if r["status"] == "passed" and r["expected_to_fail"]]
    assert passing == [], f"declared as expected failures but they pass now: {passing}"


def test_every_declared_failure_is_a_check_that_runs() -> None:
    """A check renamed or dropped by a new scikit-learn leaves no stale declaration."""
    names = {getattr(check, "func", check).__name__
             for est in _estimators()
             for _, check in estimator_checks_generator(est, mark=None)}
    assert set(EXPECTED_FAILURES) - names == set()
