"""Tests of ensel.info: closed forms, the paper's smoothed estimator, exact-table identities."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ensel.info import (
    DecompositionTerms,
    conditional_mutual_information_table,
    decomposition_terms,
    decomposition_terms_exact,
    entropy,
    entropy_from_counts,
    entropy_table,
    error_indicator_table,
    mutual_information_table,
    pattern_codes,
    smoothed_conditional_mutual_information,
    smoothed_entropy,
    smoothed_mutual_information,
)

L2 = math.log2


# ---------------------------------------------------------------------------
# Entropy
# ---------------------------------------------------------------------------

def test_fair_coin_has_one_bit():
    assert entropy([0.5, 0.5]) == 1.0
    assert isinstance(entropy([0.5, 0.5]), float)


def test_entropy_closed_forms():
    assert entropy([1.0, 0.0]) == 0.0  # 0 log 0 = 0
    assert entropy(np.full((2, 2), 0.25)) == pytest.approx(2.0, abs=1e-15)
    assert entropy([0.5, 0.5], base=math.e) == pytest.approx(math.log(2))
    p = 0.1
    assert entropy([p, 1 - p]) == pytest.approx(-p * L2(p) - (1 - p) * L2(1 - p))


@pytest.mark.parametrize(
    ("p", "kw", "match"),
    [
        ([0.5, 0.6], {}, "p of entropy must be a probability table that sums to 1"),
        ([-0.5, 1.5], {}, r"p of entropy must be a table of non-negative probabilities; got -0.5"
                          r" at position \(0,\)"),
        ([0.5, np.nan], {}, "p of entropy must be a table of finite probabilities; got nan"),
        ([], {}, "empty"),
        ([0.5, 0.5], {"base": 1}, "base of entropy must be a positive number other than 1; got 1"),
    ],
)
def test_entropy_errors(p, kw, match):
    with pytest.raises(ValueError, match=match):
        entropy(p, **kw)


def test_entropy_from_counts_plugin_and_smoothed():
    assert entropy_from_counts([5, 5]) == pytest.approx(1.0)
    assert entropy_from_counts([3, 0, 1]) == pytest.approx(entropy([0.75, 0.0, 0.25]))
    # add-one on 4 cells, 2 listed: P = (3+1)/8, (1+1)/8, 1/8, 1/8
    expected = entropy([4 / 8, 2 / 8, 1 / 8, 1 / 8])
    assert entropy_from_counts([3, 1], alpha=1.0, size=4) == pytest.approx(expected)
    # empty cells are summed in closed form: a huge alphabet equals the explicit sum
    K = 2.0**40
    q = 1 / (4 + K)
    closed = -(4 * q) * L2(4 * q) - (K - 1) * q * L2(q)
    assert entropy_from_counts([3], alpha=1.0, size=K) == pytest.approx(closed, rel=1e-12)
    with pytest.raises(ValueError, match=r"size of entropy_from_counts must be at least the"
                                         r" number of counted cells \(3\)"):
        entropy_from_counts([1, 2, 3], size=2)
    with pytest.raises(ValueError, match="non-negative"):
        entropy_from_counts([1, -2])


def test_smoothed_entropy_matches_counts():
    a = np.array([0, 0, 1, 2, 2, 2])
    assert smoothed_entropy(a, size=5) == pytest.approx(
        entropy_from_counts([2, 1, 3, 0, 0], alpha=1.0))


# ---------------------------------------------------------------------------
# The paper's smoothed MI estimator
# ---------------------------------------------------------------------------

def _smoothed_mi_by_hand(a, b, Ka, Kb, alpha=1.0):
    """The algorithm written out literally, cell by cell."""
    N = len(a)
    pa = [(sum(1 for v in a if v == i) + alpha) / (N + alpha * Ka) for i in range(Ka)]
    pb = [(sum(1 for v in b if v == j) + alpha) / (N + alpha * Kb) for j in range(Kb)]
    pab = [
        (sum(1 for u, v in zip(a, b, strict=True) if (u, v) == (i, j)) + alpha)
        / (N + alpha * Ka * Kb)
        for i in range(Ka) for j in range(Kb)
    ]

    def h(ps):
        return -sum(p * L2(p) for p in ps)

    return max(h(pa) + h(pb) - h(pab), 0.0)


def test_smoothed_mi_identical_binary_variables_by_hand():
    # N=4, counts a: (2, 2) -> 3/6 each; joint (2, 0, 0, 2) -> 3/8, 1/8, 1/8, 3/8
    value = smoothed_mutual_information([0, 0, 1, 1], [0, 0, 1, 1], size_a=2, size_b=2)
    h_joint = -2 * (3 / 8) * L2(3 / 8) - 2 * (1 / 8) * L2(1 / 8)
    assert value == pytest.approx(2.0 - h_joint, abs=1e-15)
    assert value == pytest.approx(0.18872187554086706)
    # add-one shrinks it: the plug-in MI of two identical fair bits is 1 bit
    assert value < 1.0


def test_smoothed_mi_independent_counts_is_exactly_zero():
    # every joint cell has count 1 -> uniform smoothed joint, uniform marginals
    assert smoothed_mutual_information([0, 0, 1, 1], [0, 1, 0, 1], size_a=2, size_b=2) == 0.0


def test_smoothed_mi_small_table_by_hand():
    a = [0, 0, 0, 1, 1, 2, 2, 2, 2, 0]
    b = [0, 1, 1, 1, 0, 1, 1, 1, 0, 0]
    for alpha in (0.5, 1.0, 2.0):
        expected = _smoothed_mi_by_hand(a, b, 3, 2, alpha)
        got = smoothed_mutual_information(a, b, size_a=3, size_b=2, alpha=alpha)
        assert got == pytest.approx(expected, abs=1e-12)


def test_declared_alphabet_size_matters():
    a, b = [0, 0, 1, 1, 1], [0, 0, 1, 1, 0]
    v2 = smoothed_mutual_information(a, b, size_a=2, size_b=2)
    v3 = smoothed_mutual_information(a, b, size_a=2, size_b=3)
    assert v2 == pytest.approx(_smoothed_mi_by_hand(a, b, 2, 2))
    assert v3 == pytest.approx(_smoothed_mi_by_hand(a, b, 2, 3))
    assert v2 != pytest.approx(v3)


def test_smoothed_mi_large_alphabet_uses_closed_form_consistently():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 2, 50)
    b = rng.integers(0, 40, 50) * 1000  # sparse codes in a 70_000-symbol alphabet
    fast = smoothed_mutual_information(a, b, size_a=2, size_b=70_000)
    # explicit dense computation over all 140_000 joint cells
    N, al = 50, 1.0
    ca = np.bincount(a, minlength=2) + al
    cb = np.bincount(b, minlength=70_000) + al
    cab = np.bincount(a * 70_000 + b, minlength=140_000) + al
    pa, pb, pab = ca / (N + 2 * al), cb / (N + 70_000 * al), cab / (N + 140_000 * al)
    dense = max(-(pa * np.log2(pa)).sum() - (pb * np.log2(pb)).sum()
                + (pab * np.log2(pab)).sum(), 0.0)
    assert fast == pytest.approx(dense, abs=1e-10)
    huge = smoothed_mutual_information(a, b, size_a=2, size_b=2**50)
    assert 0.0 <= huge < fast + 1e-9  # more smoothing mass -> no spurious information


@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3)), min_size=1, max_size=40),
       st.sampled_from([0.5, 1.0, 3.0]))
@settings(deadline=None, max_examples=40)
def test_smoothed_mi_matches_literal_algorithm(pairs, alpha):
    a = [u for u, _ in pairs]
    b = [v for _, v in pairs]
    got = smoothed_mutual_information(a, b, size_a=3, size_b=4, alpha=alpha)
    assert got == pytest.approx(_smoothed_mi_by_hand(a, b, 3, 4, alpha), abs=1e-12)
    assert got >= 0.0
    assert got == pytest.approx(
        smoothed_mutual_information(b, a, size_a=4, size_b=3, alpha=alpha), abs=1e-12)


@pytest.mark.parametrize(
    ("args", "kw", "match"),
    [
        (([0, 1], [0, 1, 1]), {}, "same length"),
        (([[0, 1]], [0, 1]), {}, "1-dimensional"),
        (([0.5, 1], [0, 1]), {}, "integer codes"),
        ((["x", "y"], [0, 1]), {}, "integer codes"),
        (([0, 2], [0, 1]), {}, r"a of smoothed_mutual_information must be codes in \[0, 2\)"
                               r" \(size_a=2\); got code 2 at position 1"),
        (([0, 1], [-1, 1]), {}, "b of smoothed_mutual_information must be codes in .*; "
         "got code -1"),
        (([0, 1], [0, 1]), {"size_a": 0},
         r"size_a of smoothed_mutual_information must be an int in \[1, inf\); got 0"),
        (([0, 1], [0, 1]), {"size_b": 2.0}, "size_b of smoothed_mutual_information must be an int"),
        (([0, 1], [0, 1]), {"alpha": 0.0},
         r"alpha of smoothed_mutual_information must be a real number in \(0, inf\)"),
        (([], []), {}, "empty"),
    ],
)
def test_smoothed_mi_errors(args, kw, match):
    kwargs = {"size_a": 2, "size_b": 2, **kw}
    with pytest.raises(ValueError, match=match):
        smoothed_mutual_information(*args, **kwargs)


def test_smoothed_cmi_is_the_chain_rule_of_the_estimator():
    rng = np.random.default_rng(0)
    a, b, c = rng.integers(0, 2, 200), rng.integers(0, 3, 200), rng.integers(0, 4, 200)
    got = smoothed_conditional_mutual_information(a, b, c, size_a=2, size_b=3, size_c=4)
    bc = c * 3 + b
    expected = (smoothed_mutual_information(a, bc, size_a=2, size_b=12)
                - smoothed_mutual_information(a, c, size_a=2, size_b=4))
    assert got == pytest.approx(expected, abs=1e-14)
    with pytest.raises(ValueError, match="of the same length as a"):
        smoothed_conditional_mutual_information(a, b, c[:5], size_a=2, size_b=3, size_c=4)


# ---------------------------------------------------------------------------
# Pattern codes
# ---------------------------------------------------------------------------

def test_pattern_codes_follow_the_paper_index():
    X = np.array([[-1, -1, -1], [1, -1, -1], [-1, 1, 1], [1, 1, 1]])
    codes, size = pattern_codes(X)
    # idx - 1 = sum_j (x_j + 1)/2 * 2^(j-1), first column least significant
    assert codes.tolist() == [0, 1, 6, 7]
    assert size == 8
    codes, size = pattern_codes(X, [2, 0])
    assert codes.tolist() == [0, 2, 1, 3] and size == 4
    codes, size = pattern_codes(X, [])
    assert codes.tolist() == [0, 0, 0, 0] and size == 1


def test_pattern_codes_base_three_with_abstentions():
    X = np.array([[0, 1], [1, 0], [-1, -1]])
    codes, size = pattern_codes(X)
    assert size == 9
    assert codes.tolist() == [2 + 3 * 1, 1 + 3 * 2, 0]
    # base 3 on clean data keeps the binary digits
    assert pattern_codes([[1, -1]], base=3)[0].tolist() == [1]
    with pytest.raises(ValueError, match="base of pattern_codes must be 3 or None, since column"
                                         " 1 of X contains an abstention"):
        pattern_codes(X, [1], base=2)
    with pytest.raises(ValueError, match="base of pattern_codes must be one of 2, 3 or None"):
        pattern_codes(X, base=4)


def test_pattern_codes_errors():
    X = np.ones((3, 4))
    with pytest.raises(ValueError, match=r"must be column indices in \[0, "):
        pattern_codes(X, [0, 4])
    with pytest.raises(ValueError, match="more than once"):
        pattern_codes(X, [1, 1])
    with pytest.raises(ValueError, match="at most 2\\*\\*62 patterns"):
        pattern_codes(np.ones((2, 63)))
    with pytest.raises(ValueError, match="value 5"):
        pattern_codes([[1, 5]])


# ---------------------------------------------------------------------------
# Exact quantities on probability tables
# ---------------------------------------------------------------------------

def test_independent_table_has_exactly_zero_mi():
    p = np.multiply.outer(np.array([0.25, 0.75]), np.array([0.5, 0.125, 0.375]))
    assert mutual_information_table(p, 0, 1) == 0.0
    assert conditional_mutual_information_table(
        np.multiply.outer(p, [0.5, 0.5]), 0, 1, 2) == 0.0


def test_table_closed_forms():
    copy = np.array([[0.5, 0.0], [0.0, 0.5]])  # X = Y: one bit
    assert mutual_information_table(copy, 0, 1) == pytest.approx(1.0)
    assert entropy_table(copy, 0) == pytest.approx(1.0)
    assert entropy_table(copy) == pytest.approx(1.0)
    assert entropy_table(copy, []) == 0.0
    # XOR: pairwise independent, one bit of conditional information
    xor = np.zeros((2, 2, 2))
    for a in (0, 1):
        for b in (0, 1):
            xor[a, b, a ^ b] = 0.25
    assert mutual_information_table(xor, 0, 2) == 0.0
    assert conditional_mutual_information_table(xor, 0, 2, 1) == pytest.approx(1.0)
    assert mutual_information_table(xor, 2, [0, 1]) == pytest.approx(1.0)


def test_table_errors():
    p = np.full((2, 2), 0.25)
    with pytest.raises(ValueError, match="axes_b of mutual_information_table must be axes"
                                         " disjoint from axes_a; got axis 0 in both"):
        mutual_information_table(p, 0, [0, 1])
    with pytest.raises(ValueError, match="the table has 2 axes"):
        entropy_table(p, 2)
    with pytest.raises(ValueError, match="must be a probability table that sums to 1"):
        mutual_information_table(p * 2, 0, 1)


def _table(draw_weights, shape):
    w = np.asarray(draw_weights, dtype=float).reshape(shape) + 1e-3
    return w / w.sum()


table_shapes = st.lists(st.integers(2, 3), min_size=3, max_size=4).map(tuple)


@st.composite
def joint_tables(draw, shapes=table_shapes):
    shape = draw(shapes)
    size = int(np.prod(shape))
    weights = draw(st.lists(st.floats(0, 1), min_size=size, max_size=size))
    zero_some = draw(st.booleans())
    p = _table(weights, shape)
    if zero_some:  # exercise 0 log 0 = 0
        p = np.where(p < np.quantile(p, 0.3), 0.0, p)
        p = p / p.sum()
    return p


@given(joint_tables())
@settings(deadline=None, max_examples=50)
def test_exact_information_identities(p):
    a, b, c = 0, 1, 2
    i_ab = mutual_information_table(p, a, b)
    assert i_ab >= 0.0
    assert i_ab == pytest.approx(mutual_information_table(p, b, a), abs=1e-12)
    assert i_ab == pytest.approx(
        entropy_table(p, a) + entropy_table(p, b) - entropy_table(p, [a, b]), abs=1e-10)
    # chain rule: I(A; B, C) = I(A; C) + I(A; B | C)
    cmi = conditional_mutual_information_table(p, a, b, c)
    assert cmi >= 0.0
    assert mutual_information_table(p, a, [b, c]) == pytest.approx(
        mutual_information_table(p, a, c) + cmi, abs=1e-10)
    assert cmi == pytest.approx(conditional_mutual_information_table(p, b, a, c), abs=1e-12)
    # conditioning on nothing is plain MI; MI is at most each entropy
    assert conditional_mutual_information_table(p, a, b, []) == pytest.approx(i_ab, abs=1e-14)
    assert i_ab <= min(entropy_table(p, a), entropy_table(p, b)) + 1e-12


# ---------------------------------------------------------------------------
# Theorem 4.3
# ---------------------------------------------------------------------------

@st.composite
def model_laws(draw):
    m = draw(st.integers(2, 4))
    size = 2 ** (m + 1)
    weights = draw(st.lists(st.floats(0, 1), min_size=size, max_size=size))
    p = _table(weights, (2,) * (m + 1))
    j = draw(st.integers(0, m - 1))
    others = [i for i in range(m) if i != j]
    S = draw(st.lists(st.sampled_from(others), unique=True, max_size=len(others)))
    return p, j, S


@given(model_laws())
@settings(deadline=None, max_examples=60)
def test_theorem_4_3_identity_on_random_joint_laws(law):
    p, j, S = law
    t = decomposition_terms_exact(p, j, S)
    assert isinstance(t, DecompositionTerms)
    rhs = t.relevance - t.redundancy + t.error_correlation + t.correction
    assert t.delta == pytest.approx(rhs, abs=1e-10)
    assert t.four_term == pytest.approx(rhs, abs=1e-15)
    # the delta is the conditional MI on the table itself
    assert t.delta == pytest.approx(
        conditional_mutual_information_table(p, 0, 1 + j, [1 + s for s in S]), abs=1e-12)
    # Proposition: -I(E_j; Y) <= Lambda <= H(Y) - I(E_j; Y)
    pe = error_indicator_table(p)
    i_ey = mutual_information_table(pe, 1 + j, 0)
    assert -i_ey - 1e-10 <= t.correction <= entropy_table(p, 0) - i_ey + 1e-10


def test_error_table_is_an_involution_and_label_invariance_kills_lambda():
    rng = np.random.default_rng(1)
    p = rng.dirichlet(np.ones(16)).reshape(2, 2, 2, 2)
    assert np.array_equal(error_indicator_table(error_indicator_table(p)), p)
    # E independent of Y (Corollary): build (Y, E) as a product, map it to (Y, X)
    p_e = rng.dirichlet(np.ones(8)).reshape(2, 2, 2)
    p_ye = np.multiply.outer(np.array([0.5, 0.5]), p_e)
    p_yx = error_indicator_table(p_ye)
    for j, S in [(0, [1]), (2, [0, 1]), (1, [])]:
        t = decomposition_terms_exact(p_yx, j, S)
        assert t.correction == pytest.approx(0.0, abs=1e-12)
        assert t.delta == pytest.approx(t.three_term, abs=1e-10)


def test_error_indicator_from_x_and_y():
    # Y=-1 (index 0): X=-1 correct; Y=+1 (index 1): X=+1 correct
    p = np.array([[0.4, 0.1], [0.2, 0.3]])  # axes (Y, X_1)
    pe = error_indicator_table(p)
    assert pe[0, 0] == 0.4 and pe[0, 1] == 0.1  # Y=-1: E=0 <-> X=-1
    assert pe[1, 0] == 0.3 and pe[1, 1] == 0.2  # Y=+1: E=0 <-> X=+1
    with pytest.raises(ValueError, match=r"shape \(2, 2, \.\.\., 2\)"):
        error_indicator_table(np.full((2, 3), 1 / 6))


def test_decomposition_errors():
    p = np.full((2, 2, 2), 1 / 8)
    with pytest.raises(ValueError, match=r"j of decomposition_terms_exact must be a model not in"
                                         r" S=\(0,\)"):
        decomposition_terms_exact(p, 0, [0])
    with pytest.raises(ValueError, match=r"must be column indices in \[0, "):
        decomposition_terms_exact(p, 2, [])


def _sample_from_law(p, n, rng):
    flat = rng.choice(p.size, size=n, p=p.ravel())
    idx = np.array(np.unravel_index(flat, p.shape)).T  # (n, m + 1) of 0/1
    pm = 2 * idx - 1
    return pm[:, 1:], pm[:, 0]


def test_empirical_terms_approach_exact_terms():
    rng = np.random.default_rng(7)
    p = rng.dirichlet(np.full(16, 2.0)).reshape(2, 2, 2, 2)
    X, y = _sample_from_law(p, 100_000, rng)
    exact = decomposition_terms_exact(p, 2, [0, 1])
    est = decomposition_terms(X, y, 2, [0, 1])
    for field in ("relevance", "redundancy", "error_correlation", "correction", "delta"):
        assert getattr(est, field) == pytest.approx(getattr(exact, field), abs=5e-3), field
    # each estimate is the smoothed estimator on the right codes
    yc, xj = (y + 1) // 2, (X[:, 2] + 1) // 2
    assert est.relevance == smoothed_mutual_information(yc, xj, size_a=2, size_b=2)


def test_empirical_terms_with_abstentions_use_ternary_alphabet():
    X = np.array([[1, 0], [1, 1], [-1, -1], [-1, 1], [1, -1], [-1, 0]])
    y = np.array([1, 1, -1, -1, 1, 1])
    est = decomposition_terms(X, y, 1, [0])
    xj = np.array([2, 1, 0, 1, 0, 2])
    assert est.relevance == pytest.approx(
        smoothed_mutual_information((y + 1) // 2, xj, size_a=2, size_b=3))


def test_pair_relabelling_for_alphabets_beyond_int64(monkeypatch):
    import ensel.info as info

    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, 300)
    b = (a + rng.integers(0, 2, 300)) % 4
    direct = smoothed_mutual_information(a, b, size_a=300, size_b=300, alpha=1e-6)
    assert direct > 0.5
    monkeypatch.setattr(info, "MAX_PATTERN_SIZE", 5)  # force the relabelling branch
    assert smoothed_mutual_information(a, b, size_a=300, size_b=300, alpha=1e-6) == (
        pytest.approx(direct, abs=1e-12))


def test_conditional_mi_table_survives_tiny_conditioning_masses() -> None:
    # I(Y; X | D) = 1 bit when X = Y in every stratum, however small a stratum's mass:
    # products of tiny masses underflow, so the estimator must work with sums of logs
    p = np.zeros((2, 2, 2))  # axes Y, X, D
    p[0, 0, 0] = p[1, 1, 0] = 0.5 * (1 - 1e-200)
    p[0, 0, 1] = p[1, 1, 1] = 0.5e-200
    assert conditional_mutual_information_table(p, 0, 1, 2) == pytest.approx(1.0, abs=1e-12)
