"""The one smoothed-entropy kernel and the one answer-digit coder (ensel._kernels).

The paper's Algorithm "Smoothed Mutual Information Estimation" written as a plain Python loop
over every cell pins the arithmetic: where the library visits the same cells in the same order
(every cell seen, fewer than 8 per entropy, so numpy sums them one after the other) the result
is equal bit for bit; elsewhere only the order of the additions differs (1e-12).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ensel import _kernels as kernels
from ensel import experiment as ex
from ensel.info import pattern_codes, smoothed_entropy, smoothed_mutual_information
from ensel.select import GreedyMI, Relevance

PACKAGE = Path(kernels.__file__).parent


def literal_entropy(codes, K, alpha):
    """H of add-alpha counts over K cells: one term per cell, in code order (Python loop)."""
    N = len(codes)
    counts = [0] * K
    for c in codes:
        counts[c] += 1
    h = 0.0
    for c in counts:
        q = (c + alpha) / (N + alpha * K)
        h += float(-q * np.log2(q))
    return h


def literal_mi(a, b, Ka, Kb, alpha):
    """The paper's algorithm literally: max(H(A) + H(B) - H(A, B), 0)."""
    joint = [x * Kb + z for x, z in zip(a, b, strict=True)]
    return max(literal_entropy(a, Ka, alpha) + literal_entropy(b, Kb, alpha)
               - literal_entropy(joint, Ka * Kb, alpha), 0.0)


# --------------------------------------------------------------------------- the coder
def test_the_one_coder() -> None:
    x = np.array([[-1, 0, 1], [1, 1, -1]], dtype=np.int8)
    for arr in (x, x.astype(np.int64), x.astype(float)):
        d = kernels.answer_digits(arr)
        assert d.dtype == np.int64 and d.tolist() == [[0, 2, 1], [1, 1, 0]]
    assert kernels.answer_digits(x, np.int8).dtype == np.int8
    assert kernels.answer_digits(x[:, [0, 2]]).tolist() == [[0, 1], [1, 0]]  # no abstention
    assert kernels.label_bits(np.array([-1, 1, 1], dtype=np.int8)).tolist() == [0, 1, 1]
    codes, size = pattern_codes(x, base=3)
    assert size == 27 and codes.tolist() == [0 + 2 * 3 + 1 * 9, 1 + 1 * 3 + 0 * 9]


def test_no_module_keeps_its_own_coder_or_kernel() -> None:
    """The smoothed-entropy logarithm and the digit map live in ensel/_kernels.py only."""
    for name in ("select/_greedy.py", "select/_engine.py", "select/_base.py",
                 "select/_exhaustive.py", "select/__init__.py", "experiment.py",
                 "aggregate/_paper.py", "aggregate/__init__.py", "diagnostics.py"):
        src = (PACKAGE / name).read_text()
        assert "np.log2" not in src, name
        assert not re.search(r"== 0, 2", src), name
        assert not re.search(r"\+ 1\) // 2\b(?!\s*,\s*1)", src.replace("(n + 1) // 2", "")), name
    info = (PACKAGE / "info.py").read_text()
    assert "== 0, 2" not in info and "_smoothed_entropy_bits" not in info


# --------------------------------------------------------------------------- the kernel
def _all_cells_seen(draw_a, draw_b, Ka, Kb):
    a = list(range(Ka)) * Kb + draw_a
    b = [z for z in range(Kb) for _ in range(Ka)] + draw_b
    return a, b


@settings(deadline=None, max_examples=60)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 2)), max_size=60),
       st.sampled_from([0.5, 1.0, 2.0]))
def test_smoothed_mi_is_the_literal_loop_bit_for_bit(pairs, alpha) -> None:
    # 2 x 3 alphabets, every joint cell seen: the same cells in the same order, exactly
    a, b = _all_cells_seen([u for u, _ in pairs], [v for _, v in pairs], 2, 3)
    got = smoothed_mutual_information(a, b, size_a=2, size_b=3, alpha=alpha)
    assert got == literal_mi(a, b, 2, 3, alpha)
    assert smoothed_entropy(b, size=3, alpha=alpha) == literal_entropy(b, 3, alpha)


@settings(deadline=None, max_examples=40)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 9)), min_size=1, max_size=80),
       st.sampled_from([0.5, 1.0]))
def test_smoothed_mi_is_the_literal_loop_with_empty_cells(pairs, alpha) -> None:
    # empty cells in closed form, more than 8 cells: the sum is regrouped, equal to 1e-12
    a, b = [u for u, _ in pairs], [v for _, v in pairs]
    got = smoothed_mutual_information(a, b, size_a=3, size_b=10, alpha=alpha)
    assert got == pytest.approx(literal_mi(a, b, 3, 10, alpha), abs=1e-12)


def test_the_four_reductions_are_one_kernel() -> None:
    rng = np.random.default_rng(0)
    N, alpha = 200, 1.0
    # rows of 6 cells, all seen: every reduction adds the same terms in the same order
    counts = rng.multinomial(N, np.full(6, 1 / 6), size=5).astype(float)
    K = np.full(5, 6.0)
    rows = kernels.entropy_rows(counts, K, N, alpha)
    assert np.array_equal(rows, kernels.dense_entropy_rows(counts, N, alpha))
    group = np.repeat(np.arange(5), 6)
    assert np.array_equal(rows, kernels.grouped_entropy(counts.ravel(), group, 5, 6, N, alpha))
    pairs = (counts[:, 0::2].ravel(), counts[:, 1::2].ravel())  # two cells per listed row
    paired = kernels.grouped_entropy(pairs, np.repeat(np.arange(5), 3), 5, 6, N, alpha)
    np.testing.assert_allclose(paired, rows, rtol=0, atol=1e-14)
    assert np.array_equal(rows, [literal_entropy(np.repeat(np.arange(6), c.astype(int)), 6,
                                                 alpha) for c in counts])
    # a huge alphabet: the unseen cells in closed form, the same in every reduction
    K = 2**40
    sparse = kernels.entropy_rows(counts, np.full(5, float(K)), N, alpha)
    grouped = kernels.grouped_entropy(counts.ravel(), group, 5, K, N, alpha)
    table = kernels.CountTable(N, alpha).rows(counts, np.full(5, float(K)))
    np.testing.assert_allclose(grouped, sparse, rtol=0, atol=1e-12)
    np.testing.assert_allclose(table, sparse, rtol=0, atol=1e-9)
    # one cell holding one item instead of an empty one: CountTable.step
    one = kernels.entropy_rows(np.array([[1.0]]), np.array([8.0]), N, alpha)[0]
    zero = kernels.entropy_rows(np.zeros((1, 1)), np.array([8.0]), N, alpha)[0]
    assert one - zero == pytest.approx(kernels.CountTable(N, alpha).step(8.0), abs=1e-15)


def test_selectors_and_scans_use_the_kernel_bit_for_bit() -> None:
    rng = np.random.default_rng(3)
    y = rng.choice(np.array([-1, 1], dtype=np.int8), size=300)
    X = np.where(rng.random((300, 5)) < [0.9, 0.8, 0.7, 0.65, 0.6], y[:, None], -y[:, None])
    X = X.astype(np.int8)
    yc = kernels.label_bits(y)
    # relevance I(Y; X_j): 2 x 2 tables, the literal loop exactly
    rel = Relevance(5).fit(X, y)
    for j, g in zip(rel.selected_, rel.gains_, strict=True):
        assert g == literal_mi(list(yc), list(kernels.answer_digits(X[:, j])), 2, 2, 1.0)
    # the first Greedy MI gain is the relevance of the same pick
    greedy = GreedyMI(3).fit(X, y)
    assert greedy.selected_[0] == rel.selected_[0]
    # the exhaustive lattice's I(Y; X_S) of single models: the same four cells, the joint
    # listed with Y = +1 first (so the loop codes Y = +1 as 0)
    out = ex.exhaustive_errors(X[:240], y[:240], X[240:], y[240:], [1])
    for r, (j,) in enumerate(out[1]["combos"]):
        lit = literal_mi(list(1 - yc[:240]), list(kernels.answer_digits(X[:240, j])), 2, 2, 1.0)
        assert out[1]["mi"][r] == pytest.approx(lit, abs=1e-15)


# --------------------------------------------------------------------------- the keyed hash
M64 = (1 << 64) - 1


def literal_splitmix64(z: int, salt: int) -> int:
    """SplitMix64's finaliser of ``z ^ salt`` on Python ints."""
    z ^= salt
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def literal_row_coin(row, seed: int) -> bool:
    """The coin of one row, written out: two bit planes (+1, -1), most significant bit first
    (``np.packbits``), zero-padded to whole 64-bit little-endian words, chained from ``seed``."""
    m = len(row)
    nb = (m + 7) // 8
    planes = bytearray(8 * ((2 * nb + 7) // 8))
    for j, v in enumerate(row):
        if v:
            planes[(0 if v > 0 else nb) + j // 8] |= 0x80 >> (j % 8)
    h = seed
    for w in range(len(planes) // 8):
        word = int.from_bytes(planes[8 * w:8 * w + 8], "little")
        h = literal_splitmix64(h ^ word, kernels._GAMMA)
    return bool(h >> 63)


@settings(deadline=None, max_examples=40)
@given(st.integers(1, 70).flatmap(lambda m: st.lists(
    st.lists(st.sampled_from([-1, 0, 1]), min_size=m, max_size=m), min_size=1, max_size=12)),
    st.integers(0, 2**64 - 1))
def test_row_coins_is_the_literal_chain(rows, seed) -> None:
    x = np.array(rows, dtype=np.int8)
    want = [literal_row_coin(r, seed) for r in rows]
    assert kernels.row_coins(x, seed).tolist() == want
    assert kernels.row_coins(x.astype(np.int64), seed).tolist() == want  # values, not bytes
    pick = np.arange(len(rows))[::-1]
    assert kernels.row_coins(x, seed, rows=pick).tolist() == want[::-1]
    z = np.array([seed], dtype=np.uint64)
    assert int(kernels.splitmix64(z, 12345)[0]) == literal_splitmix64(seed, 12345)


def test_no_module_keeps_its_own_mixer() -> None:
    """SplitMix64's multipliers appear in ensel/_kernels.py only."""
    holders = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                     if "BF58476D1CE4E5B9" in p.read_text(encoding="utf-8").upper())
    assert holders == ["_kernels.py"]


def test_row_coins_blocks_and_rows_do_not_change_a_coin(monkeypatch) -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(-1, 2, size=(1000, 9), dtype=np.int8)
    whole = kernels.row_coins(x, 99)
    monkeypatch.setattr(kernels, "_COIN_BLOCK_BYTES", 50)  # blocks of 5 rows
    np.testing.assert_array_equal(kernels.row_coins(x, 99), whole)
    idx = rng.permutation(1000)[:300]
    np.testing.assert_array_equal(kernels.row_coins(x, 99, rows=idx), whole[idx])
    # identical rows share a coin; distinct rows are near-independent fair coins
    np.testing.assert_array_equal(kernels.row_coins(np.vstack([x, x]), 99), np.tile(whole, 2))
    distinct = np.unique(x, axis=0)
    share = kernels.row_coins(distinct, 99).mean()
    assert abs(share - 0.5) < 4 * np.sqrt(0.25 / len(distinct))
