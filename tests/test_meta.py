"""Tests of the DerSimonian-Laird random-effects meta-analysis (closed-form cases), its
modified HKSJ interval (scale factor floored at 1) and the coverage simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtri

from ensel.meta import METHOD, coverage_table, random_effects, simulate_coverage


def test_heterogeneous_sources_by_hand():
    # w = 100 each, fixed mean 0.5, Q = 50 on 1 df, C = 200 - 20000/200 = 100,
    # tau2 = (50 - 1) / 100 = 0.49, w* = 1 / 0.5 = 2 each: se = 1/sqrt(4) = 0.5
    r = random_effects([0.0, 1.0], [0.1, 0.1])
    assert r.estimate == pytest.approx(0.5) and r.tau2 == pytest.approx(0.49)
    assert r.se == pytest.approx(0.5) and r.q == pytest.approx(50.0)
    assert r.i2 == pytest.approx(0.98) and r.k == 2
    assert r.q_p_value == pytest.approx(math.erfc(math.sqrt(50 / 2)))  # chi2 on 1 df
    z = 1.959963984540054
    assert (r.z_low, r.z_high) == pytest.approx((0.5 - z * 0.5, 0.5 + z * 0.5))
    assert r.weights == pytest.approx((0.5, 0.5))
    # HKSJ: q_HK = sum w* (x - mu)^2 / (k - 1) = 2 * 0.25 * 2 / 1 = 1, so hk_se = se = 0.5,
    # with t_1(0.975) = tan(0.475 pi) = 12.7062...
    t1 = math.tan(0.475 * math.pi)
    assert r.hk_se == pytest.approx(0.5)
    assert (r.low, r.high) == pytest.approx((0.5 - t1 * 0.5, 0.5 + t1 * 0.5))
    assert math.isnan(r.pi_low) and math.isnan(r.pi_high)  # needs three sources
    assert r.fragile


def test_kacker_2004_matches_metafor():
    # Kacker (2004), Metrologia 41: nine laboratories; R metafor
    # rma(y, v, method="DL", test="knha") as printed in statsmodels' results_meta.py
    y = [61.0, 61.4, 62.21, 62.3, 62.34, 62.6, 62.7, 62.84, 65.9]
    v = [0.2025, 1.2100, 0.0900, 0.2025, 0.3844, 0.5625, 0.0676, 0.0225, 1.8225]
    r = random_effects(y, np.sqrt(v))
    assert r.estimate == pytest.approx(62.3901386044504, rel=1e-12)
    assert r.tau2 == pytest.approx(0.288049246973751, rel=1e-10)
    assert r.q == pytest.approx(24.801897741835, rel=1e-10)
    assert 100 * r.i2 == pytest.approx(67.744403741711, rel=1e-10)
    assert r.se == pytest.approx(0.245749668040304, rel=1e-10)  # test="z"
    assert (r.z_low, r.z_high) == pytest.approx((61.9084781058787, 62.8717991030221),
                                                rel=1e-12)
    assert r.hk_se == pytest.approx(0.29477605699879, rel=1e-10)  # test="knha"
    assert (r.low, r.high) == pytest.approx((61.710383798052, 63.0698934108488), rel=1e-12)
    # q_HK = (0.2948 / 0.2457)^2 > 1 here: the floor leaves metafor's interval unchanged
    assert r.q_hk == pytest.approx((0.29477605699879 / 0.245749668040304) ** 2, rel=1e-9)
    assert r.q_hk > 1
    assert not r.fragile and r.k == 9


def test_prediction_interval_by_hand():
    # three sources, tau2 from the closed form; PI = mu +- t_{k-2} sqrt(tau2 + se^2) and
    # t_1(0.975) = tan(0.475 pi)
    x, s = np.array([-0.3, 0.0, 0.2]), np.array([0.05, 0.05, 0.05])
    r = random_effects(x, s)
    w = 1 / s**2
    fixed = np.sum(w * x) / w.sum()
    q = np.sum(w * (x - fixed) ** 2)
    tau2 = (q - 2) / (w.sum() - np.sum(w**2) / w.sum())
    assert r.tau2 == pytest.approx(tau2)
    se = math.sqrt(1 / np.sum(1 / (s**2 + tau2)))
    half = math.tan(0.475 * math.pi) * math.sqrt(tau2 + se**2)
    assert (r.pi_low, r.pi_high) == pytest.approx((r.estimate - half, r.estimate + half))
    assert r.pi_low < r.low < r.high < r.pi_high


def test_homogeneous_sources_give_the_fixed_effect_answer():
    r = random_effects([0.1, 0.3, 0.2], [0.1, 0.2, 0.1])
    w = np.array([100.0, 25.0, 100.0])
    fixed = float(np.sum(w * [0.1, 0.3, 0.2]) / w.sum())
    q = float(np.sum(w * (np.array([0.1, 0.3, 0.2]) - fixed) ** 2))
    assert q < 2  # below its degrees of freedom: no between-source variance
    assert r.tau2 == 0.0 and r.i2 == 0.0
    assert r.estimate == pytest.approx(fixed) and r.se == pytest.approx(1 / math.sqrt(w.sum()))


def test_one_source_is_returned_unchanged():
    r = random_effects([-0.02], [0.01])
    assert r.estimate == -0.02 and r.se == pytest.approx(0.01) and r.tau2 == 0.0
    assert r.q_p_value == 1.0 and r.weights == (1.0,)
    assert (r.low, r.high) == (r.z_low, r.z_high)  # nothing to rescale with one source


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(-1, 1), st.floats(0.001, 0.5)), min_size=1, max_size=6),
       st.randoms(use_true_random=False))
def test_order_does_not_matter_and_estimate_lies_within_the_sources(pairs, rnd):
    x, s = map(list, zip(*pairs, strict=True))
    r = random_effects(x, s)
    idx = list(range(len(x)))
    rnd.shuffle(idx)
    r2 = random_effects([x[i] for i in idx], [s[i] for i in idx])
    assert r2.estimate == pytest.approx(r.estimate, abs=1e-12)
    assert r2.tau2 == pytest.approx(r.tau2, abs=1e-12)
    assert min(x) - 1e-12 <= r.estimate <= max(x) + 1e-12
    assert r.low <= r.estimate <= r.high and 0 <= r.i2 <= 1 and sum(r.weights) == \
        pytest.approx(1.0)


def test_floor_keeps_the_interval_at_t_times_the_dl_se_when_sources_agree_closely():
    # x = (0.18, 0.22, 0.20), se = 0.1 each: Q = 100 * (0.02^2 + 0.02^2) = 0.08 < 2, so
    # tau2 = 0, w* = w, mu = 0.2, se(mu) = 0.1 / sqrt(3); q_HK = 0.08 / 2 = 0.04: the
    # unfloored interval would be sqrt(0.04) = 0.2 times t_2 * se(mu), five times narrower
    # than the fixed-effect interval 0.2 +- 1.96 * 0.1 / sqrt(3)
    r = random_effects([0.18, 0.22, 0.20], [0.1, 0.1, 0.1])
    se = 0.1 / math.sqrt(3)
    t2 = 4.302652729749464  # Student's t on 2 df, 0.975
    z = 1.959963984540054
    assert r.q_hk == pytest.approx(0.04) and r.tau2 == 0.0 and r.se == pytest.approx(se)
    assert r.hk_se == pytest.approx(se)  # floored: sqrt(max(1, 0.04)) * se
    assert (r.low, r.high) == pytest.approx((0.2 - t2 * se, 0.2 + t2 * se))
    assert (r.fe_estimate, r.fe_low, r.fe_high) == pytest.approx((0.2, 0.2 - z * se,
                                                                  0.2 + z * se))
    assert r.high - r.low >= r.z_high - r.z_low  # never narrower than the DL interval
    assert r.method == METHOD == "DerSimonian-Laird, HKSJ (q floored at 1)"


def test_floor_changes_nothing_when_q_is_at_least_one():
    # two sources far apart: q_HK = 1 exactly (see test_heterogeneous_sources_by_hand) and
    # three that scatter beyond their noise: q_HK > 1, hk_se = sqrt(q_HK) * se unchanged
    r = random_effects([0.0, 1.0], [0.1, 0.1])
    assert r.q_hk == pytest.approx(1.0) and r.hk_se == pytest.approx(r.se)
    x, s = np.array([0.0, 0.1, 0.5]), np.array([0.01, 0.05, 0.1])
    r = random_effects(x, s)
    w = 1 / (s**2 + r.tau2)
    q_hk = float(np.sum(w * (x - r.estimate) ** 2) / 2)
    assert q_hk > 1 and r.q_hk == pytest.approx(q_hk)
    assert r.hk_se == pytest.approx(math.sqrt(q_hk) * r.se)
    t2 = 4.302652729749464
    assert (r.low, r.high) == pytest.approx((r.estimate - t2 * r.hk_se,
                                             r.estimate + t2 * r.hk_se))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(-1, 1), st.floats(0.001, 0.5)), min_size=1, max_size=7),
       st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99]))
def test_pooled_interval_never_narrower_than_the_fixed_effect_interval(pairs, confidence):
    x, s = map(np.array, zip(*pairs, strict=True))
    r = random_effects(x, s, confidence=confidence)
    z = float(ndtri(0.5 + confidence / 2))
    w = 1 / s**2
    fe_half = z / math.sqrt(float(w.sum()))
    assert r.fe_estimate == pytest.approx(float(np.sum(w * x) / w.sum()), abs=1e-12)
    assert (r.fe_high - r.fe_low) / 2 == pytest.approx(fe_half, rel=1e-9)
    assert r.high - r.low >= 2 * fe_half * (1 - 1e-9)
    assert r.high - r.low >= (r.z_high - r.z_low) * (1 - 1e-9)
    assert r.hk_se >= r.se * (1 - 1e-12)


def test_simulated_coverage_is_seeded_and_the_floor_only_adds_coverage():
    a = simulate_coverage(3, tau=0.004, n_rep=3000, seed=7)
    assert a == simulate_coverage(3, tau=0.004, n_rep=3000, seed=7)
    assert a != simulate_coverage(3, tau=0.004, n_rep=3000, seed=8)
    assert (a["n_sources"], a["n_rep"], a["tau"]) == (3, 3000, 0.004)
    for k in (3, 5):
        for tau in (0.0, 0.004, 0.011):
            c = simulate_coverage(k, tau=tau, n_rep=3000, seed=1)
            assert c["hksj_floored"] >= c["hksj"] and c["width_ratio"] >= 1
            assert 0 < c["share_q_below_1"] < 1
    # homogeneous sources: the unfloored HKSJ and the fixed-effect interval are exact
    # (95 % within Monte Carlo noise, se about 0.004); the floored one is conservative
    h = simulate_coverage(3, tau=0.0, n_rep=3000, seed=2)
    assert h["hksj"] == pytest.approx(0.95, abs=0.015)
    assert h["fixed"] == pytest.approx(0.95, abs=0.015)
    assert h["hksj_floored"] > 0.99
    # heterogeneous sources of unequal precision: the unfloored interval and the normal one
    # undercover; the floored one is back near 95 %
    g = simulate_coverage(3, tau=0.0038, n_rep=3000, seed=3)
    assert g["hksj"] < 0.9 and g["dl_normal"] < 0.85
    assert g["hksj_floored"] >= 0.93


def test_simulated_coverage_matches_random_effects_one_replicate_at_a_time():
    # the vectorised simulation must pool exactly as random_effects does: rebuild its draws
    rng = np.random.default_rng(5)
    se = np.geomspace(0.002, 0.02, 4)
    x = 0.01 * rng.standard_normal((50, 4)) + se * rng.standard_normal((50, 4))
    covered = [r.low <= 0 <= r.high for r in (random_effects(row, se) for row in x)]
    c = simulate_coverage(4, se_range=(0.002, 0.02), tau=0.01, n_rep=50, seed=5)
    assert c["hksj_floored"] == pytest.approx(np.mean(covered))


@pytest.mark.parametrize("kwargs, match", [
    ({"n_sources": 1}, r"n_sources of simulate_coverage must be an int in \[2, inf\); got 1"),
    ({"n_sources": 3, "tau": -0.1}, r"tau of simulate_coverage must be a real number in "
                                     r"\[0, inf\)"),
    ({"n_sources": 3, "se_range": (0.01, 0.001)}, r"se_range\[1\] of simulate_coverage must "
                                                   r"be a real number in \[0.01, inf\)"),
    ({"n_sources": 3, "se_range": 0.01}, "se_range of simulate_coverage must be a pair"),
    ({"n_sources": 3, "n_rep": 0}, "n_rep of simulate_coverage must be an int"),
    ({"n_sources": 3, "confidence": 1.0}, "confidence of simulate_coverage must be a real"),
])
def test_simulate_coverage_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        simulate_coverage(**kwargs)


@pytest.mark.parametrize("args, kwargs, match", [
    (([], []), {}, "estimates and se of random_effects must be non-empty and equally long; "
                   "got 0 and 0"),
    (([0.1, 0.2], [0.1]), {}, "must be non-empty and equally long; got 2 and 1"),
    (([0.1], [0.0]), {}, r"se of random_effects must be positive; got \[0.0\]"),
    (([float("nan")], [0.1]), {}, "must be finite numbers"),
    (([0.1], [0.1]), {"confidence": 1.5}, r"confidence of random_effects must be in \(0, 1\); "
                                          "got 1.5"),
])
def test_bad_input(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        random_effects(*args, **kwargs)


def test_coverage_table_runs_the_four_spreads_at_each_number_of_sources():
    t = coverage_table((0.002, 0.008), n_sources=(3, 4), n_rep=400, seed=3)
    assert list(t.index.get_level_values("sources")) == [3] * 4 + [4] * 4
    assert t["tau"].tolist() == pytest.approx([0.0, 0.004, 0.008, 0.024] * 2)
    row = t.loc[(4, "τ = the noisiest source's se")]
    direct = simulate_coverage(4, se_range=(0.002, 0.008), tau=0.008, n_rep=400, seed=3)
    assert row["hksj_floored"] == direct["hksj_floored"] and row["hksj"] == direct["hksj"]
    with pytest.raises(ValueError, match=r"se_range\[0\] of simulate_coverage must be a real "
                                         r"number in \(0, inf\)"):
        coverage_table((0.0, 0.01))
    with pytest.raises(ValueError, match="se_range of coverage_table must be a pair"):
        coverage_table(0.01)
