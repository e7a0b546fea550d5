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
    assert (r.low, r.high) == pytest.approx((0.5 - z * 0.5, 0.5 + z * 0.5))
    assert r.weights == pytest.approx((0.5, 0.5))


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
