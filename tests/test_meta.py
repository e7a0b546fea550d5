"""Tests of the DerSimonian-Laird random-effects meta-analysis (closed-form cases)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ensel.meta import random_effects


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
