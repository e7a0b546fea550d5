"""Exact computations behind the paper's theorems, one module per result.

Everything here is computed from a *known* probability model (no data, no sampling), except
the seeded simulations named as such.

==========================================  ================================================
module                                      result
==========================================  ================================================
:mod:`ensel.theory.joint`                   exact laws of ``(Y, X_S)``, MAP rule, ``I(Y; X_S)``
:mod:`ensel.theory.channels`                Theorem 4.1, Lemma A.3 (BSC degradation);
                                            class-dependent errors (Remark 4.2)
:mod:`ensel.theory.decomposition`           Theorem 4.3 (relevance, redundancy, error
                                            correlation, label dependence)
:mod:`ensel.theory.saturation`              Theorem 4.4 (error floor; exact finite-``m`` error)
:mod:`ensel.theory.difficulty`              Theorem D.1 (latent difficulty, submodularity)
:mod:`ensel.theory.weighted_vote`           Theorem E.1 (log-odds weighted vote)
==========================================  ================================================

Every public name is re-exported here, so ``from ensel.theory import ensemble_error`` works.
"""

from __future__ import annotations

from ensel.theory.channels import (
    asymmetric_joint_law,
    asymmetric_regret_study,
    asymmetric_top_k_regret,
    binary_entropy,
    bsc_capacity,
    bsc_degradation_delta,
    flip_rate_table,
    sample_degradation_chain,
    subset_table,
    top_k_dominance,
)
from ensel.theory.decomposition import (
    decomposition_table,
    greedy_path_exact,
    search_mrmr_disagreement,
)
from ensel.theory.difficulty import (
    DifficultyDecomposition,
    DiminishingReturnsViolation,
    LatentDifficultyModel,
    diminishing_returns_violation,
    exhaustive_maximize,
    greedy_maximize,
    is_monotone,
    is_submodular,
    monotonicity_violation,
    random_latent_difficulty_model,
    set_function_table,
    submodularity_violation,
)
from ensel.theory.joint import (
    TIE_RTOL,
    copula_joint_law,
    error_pattern_law,
    independent_joint_law,
    joint_law_from_error_laws,
    label_dependent_copula_joint_law,
    map_decisions,
    map_error,
    mutual_information_xy,
    product_error_law,
    random_correlation,
    random_joint_law,
    subset_joint,
)
from ensel.theory.saturation import (
    CountLawComparison,
    CountLawInfo,
    compare_count_law,
    ensemble_error,
    error_count_distribution,
    saturation_floor,
    saturation_floor_array,
)
from ensel.theory.weighted_vote import (
    WeightedVoteComparison,
    affine_vote_decisions,
    compare_weighted_vote_with_map,
    independent_map_rule,
    log_odds_weights,
    weighted_vote_decisions,
    weighted_vote_matches_map,
)

__all__ = [
    "CountLawComparison",
    "CountLawInfo",
    "DifficultyDecomposition",
    "DiminishingReturnsViolation",
    "LatentDifficultyModel",
    "TIE_RTOL",
    "WeightedVoteComparison",
    "affine_vote_decisions",
    "asymmetric_joint_law",
    "asymmetric_regret_study",
    "asymmetric_top_k_regret",
    "binary_entropy",
    "bsc_capacity",
    "bsc_degradation_delta",
    "compare_count_law",
    "compare_weighted_vote_with_map",
    "copula_joint_law",
    "decomposition_table",
    "diminishing_returns_violation",
    "ensemble_error",
    "error_count_distribution",
    "error_pattern_law",
    "exhaustive_maximize",
    "flip_rate_table",
    "greedy_maximize",
    "greedy_path_exact",
    "independent_joint_law",
    "independent_map_rule",
    "is_monotone",
    "is_submodular",
    "joint_law_from_error_laws",
    "label_dependent_copula_joint_law",
    "log_odds_weights",
    "map_decisions",
    "map_error",
    "monotonicity_violation",
    "mutual_information_xy",
    "product_error_law",
    "random_correlation",
    "random_joint_law",
    "random_latent_difficulty_model",
    "sample_degradation_chain",
    "saturation_floor",
    "saturation_floor_array",
    "search_mrmr_disagreement",
    "set_function_table",
    "submodularity_violation",
    "subset_joint",
    "subset_table",
    "top_k_dominance",
    "weighted_vote_decisions",
    "weighted_vote_matches_map",
]
