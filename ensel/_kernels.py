"""The one smoothed-entropy kernel, the one answer-digit coder and the one keyed hash of ``ensel``.

Everything in the package that computes the paper's smoothed entropy (Algorithm "Smoothed
Mutual Information Estimation": add-``alpha`` counts, bits) or codes answers into pattern
digits goes through this module: :mod:`ensel.info` (the public estimators and
:func:`~ensel.info.pattern_codes`), :mod:`ensel.select` (the vectorised greedy selectors),
:mod:`ensel.aggregate` (MAP's pattern codes, through ``pattern_codes``),
:mod:`ensel.experiment`'s exhaustive scans and :mod:`ensel.diagnostics`.

*The coder.* An answer ``-1 / +1 / 0 (abstained)`` is the digit ``0 / 1 / 2``
(:func:`answer_digits`); a label ``-1 / +1`` is the bit ``0 / 1`` (:func:`label_bits`). A
pattern without abstentions therefore has the same digits in base 2 and base 3.

*The kernel.* With ``N`` samples, pseudo-count ``alpha`` and an alphabet of ``K`` cells, a
cell holding ``c`` samples has the smoothed probability ``q = (c + alpha) / (N + alpha K)``
and contributes ``phi(c) = -q log2 q`` (:func:`q_log2_q` and :func:`empty_cells` are the only
places a logarithm of a smoothed probability is taken; sums of ``q log2 q`` are negated once,
which is exact). The entropy is the sum over the cells; the ``n_0`` cells no
sample falls into contribute ``n_0 * phi(0)`` in closed form (:func:`empty_cells`), so an
alphabet of ``2**60`` answer patterns costs no more than the cells that are seen.

The same sum is reduced in the four shapes the callers need; each is exactly this kernel,
only the order in which cells are visited differs (the reference-loop tests pin them):

* :func:`entropy_rows` -- per row of listed counts plus the closed-form empty cells (the
  public estimators, MI of the selectors' patterns);
* :func:`dense_entropy_rows` -- every one of the ``K`` cells listed (the exhaustive lattice,
  whose count tables are dense);
* :func:`grouped_entropy` -- the seen cells of many tables at once, summed per table with
  one ``bincount`` (the exhaustive scans over large alphabets);
* :class:`CountTable` -- ``phi`` tabulated once per count value ``0..N`` and read by index
  (Greedy MI's candidates, where counts are integers and the logarithms dominate).

*The keyed hash.* :func:`splitmix64` (SplitMix64's finaliser of ``keys ^ salt``) is the one
64-bit mixer: :mod:`ensel.experiment` orders items by it (seeded splits) and
:func:`row_coins` chains it over a row's answers (majority vote's per-row tie coin).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "CountTable",
    "answer_digits",
    "code_groups",
    "dense_entropy_rows",
    "empty_cells",
    "entropy_rows",
    "group_sums",
    "grouped_entropy",
    "label_bits",
    "q_log2_q",
    "row_coins",
    "splitmix64",
]

# --------------------------------------------------------------------------- the coder
def answer_digits(X: Any, dtype: Any = np.int64) -> np.ndarray:
    """Pattern digits of answers: ``-1 -> 0``, ``+1 -> 1``, ``0 (abstained) -> 2``.

    Examples
    --------
    >>> answer_digits(np.array([[-1, 1, 0]], dtype=np.int8)).tolist()
    [[0, 1, 2]]
    """
    x = np.asarray(X)
    if x.dtype == np.int8:  # validated answers (check_X): int8 arithmetic, no look-up
        d = (x + np.int8(1)) >> 1  # -1 -> 0, 0 -> 0, +1 -> 1
        zero = x == 0
        if zero.any():
            d[zero] = 2
    else:
        d = np.where(x == 0, 2, (x.astype(np.int64) + 1) // 2)
    return d if d.dtype == dtype else d.astype(dtype)


def label_bits(y: Any) -> np.ndarray:
    """Label bits: ``-1 -> 0``, ``+1 -> 1`` (``int64``).

    Examples
    --------
    >>> label_bits(np.array([-1, 1], dtype=np.int8)).tolist()
    [0, 1]
    """
    return (np.asarray(y).astype(np.int64) + 1) // 2


def code_groups(codes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Group rows by their code in ``[0, size)``: one row of each distinct code and each
    row's group, the groups numbered in increasing code order, as
    ``np.unique(codes, return_index=True, return_inverse=True)[1:]`` numbers them (the row
    kept for a group may differ: any row of a group has its code). Without sorting when the
    alphabet is small (``O(n + size)``), else by ``np.unique``.

    Examples
    --------
    >>> codes = np.array([5, 2, 5, 0])
    >>> rows, group = code_groups(codes, 8)
    >>> group.tolist(), codes[rows].tolist()
    ([2, 1, 2, 0], [0, 2, 5])
    """
    codes = np.asarray(codes)
    n = codes.size
    if size <= 4 * n + 1024:
        seen = np.zeros(size, dtype=bool)
        seen[codes] = True
        number = np.cumsum(seen) - 1
        group = number[codes]
        n_groups = int(number[-1]) + 1 if size else 0
    else:
        _, group = np.unique(codes, return_inverse=True)
        group = group.ravel()
        n_groups = int(group.max()) + 1 if n else 0
    rows = np.empty(n_groups, dtype=np.int64)
    rows[group] = np.arange(n)
    return rows, group


def group_sums(groups: np.ndarray, n_groups: int, B: np.ndarray,
               indptr: np.ndarray | None = None) -> np.ndarray:
    """Per group, the sum of its items' rows of ``B``: ``M @ B`` for the one-hot ``M`` of
    shape ``(n_groups, n)``, ``M[groups[i], i] = 1`` (the counting pass of the selectors).

    ``B`` is a C-ordered ``(n, c)`` float array (0/1 indicators: the sums are exact counts).
    ``indptr``: the CSC column pointers of ``M`` when some items belong to no group (their
    columns are empty and ``groups`` lists only the others), else one item per column. The
    product is scipy's CSC kernel, called without building the matrix object (its format
    checks cost more than the product on the selectors' small tables); where that private
    entry point is missing, through ``scipy.sparse.csc_matrix``: the same kernel.

    Examples
    --------
    >>> B = np.array([[1, 0], [1, 1], [0, 1]], dtype=np.float32)
    >>> group_sums(np.array([1, 0, 1]), 2, B).tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    n, c = B.shape
    if indptr is None:
        indptr = np.arange(n + 1)
    ones = np.ones(groups.size, dtype=B.dtype)
    try:
        from scipy.sparse._sparsetools import csc_matvecs
    except ImportError:  # pragma: no cover - scipy moved its kernels
        import scipy.sparse as sp

        return np.asarray(sp.csc_matrix((ones, groups, indptr), shape=(n_groups, n)) @ B)
    out = np.zeros((n_groups, c), dtype=B.dtype)
    csc_matvecs(n_groups, n, c, indptr, groups, ones, np.ascontiguousarray(B).ravel(),
                out.ravel())
    return out


# --------------------------------------------------------------------------- the kernel
def q_log2_q(q: Any) -> Any:
    """``q log2 q = -phi`` of smoothed probabilities ``q > 0`` (the one logarithm)."""
    return q * np.log2(q)


def empty_cells(n_empty: Any, denom: Any, alpha: float) -> Any:
    """Closed-form contribution ``n_empty * phi(0)`` of cells no sample falls into
    (``phi(0) = -q0 log2 q0``, ``q0 = alpha / denom``; 0 when ``alpha = 0``)."""
    if alpha <= 0:
        return np.zeros_like(np.asarray(n_empty, dtype=float)) if np.ndim(n_empty) else 0.0
    q0 = alpha / denom
    return -n_empty * q0 * np.log2(q0)  # this grouping: (-n_empty * q0) * log2(q0)


def entropy_rows(counts: np.ndarray, K: np.ndarray, N: float, alpha: float) -> np.ndarray:
    """Row-wise smoothed entropy (bits) of listed counts, empty cells in closed form.

    ``counts`` has shape ``(r, c)``: the counts of some cells of each row (zeros allowed;
    they count as unlisted cells). ``K`` (shape ``(r,)``) is each row's alphabet size and
    ``N`` the number of samples (the same for every row).

    Examples
    --------
    >>> float(entropy_rows(np.array([[2.0, 2.0]]), np.array([2.0]), 4.0, 1.0)[0])
    1.0
    """
    counts = np.asarray(counts, dtype=float)
    K = np.asarray(K, dtype=float)
    denom = N + alpha * K  # (r,)
    nz = counts > 0
    q = np.where(nz, counts + alpha, 1.0) / denom[:, None]
    listed = -np.where(nz, q_log2_q(q), 0.0).sum(axis=1)
    return listed + empty_cells(K - nz.sum(axis=1), denom, alpha)


def dense_entropy_rows(counts: np.ndarray, N: float, alpha: float) -> np.ndarray:
    """Row-wise smoothed entropy (bits) of complete count tables of shape ``(r, K)``
    (``alpha > 0``: every cell is listed, none is empty)."""
    return -q_log2_q((counts + alpha) / (N + alpha * counts.shape[1])).sum(axis=1)


def grouped_entropy(counts: np.ndarray | Sequence[np.ndarray], group: np.ndarray,
                    n_groups: int, K: int, N: float, alpha: float) -> np.ndarray:
    """Smoothed entropy (bits) of ``n_groups`` tables over ``K`` cells each, from their seen
    cells only.

    ``counts`` is one array (a seen cell per entry) or a sequence of ``w`` equally long
    arrays (entry ``i`` of each lists one of the ``w`` cells that share a seen pattern, some
    possibly empty); entry ``i`` belongs to table ``group[i]``. The cells not listed are added
    in closed form.
    """
    arrays = [counts] if isinstance(counts, np.ndarray) else list(counts)
    denom = N + alpha * K
    terms = None
    for c in arrays:
        q = (c + alpha) / denom
        if alpha > 0:
            t = q_log2_q(q)
        else:  # q = 0 has phi = 0
            with np.errstate(divide="ignore", invalid="ignore"):
                t = np.where(q > 0, q_log2_q(np.where(q > 0, q, 1.0)), 0.0)
        terms = t if terms is None else terms + t
    listed = np.bincount(group, minlength=n_groups) * len(arrays)
    return (-np.bincount(group, weights=terms, minlength=n_groups)
            + empty_cells(K - listed, denom, alpha))


class CountTable:
    """``phi(c)`` tabulated for every integer count ``c = 0..N`` of ``N`` samples.

    A smoothed entropy of integer counts over ``K`` cells is
    ``H = K phi(0) + sum_cells (phi(c) - phi(0))``: the logarithms are taken once per count
    value instead of once per cell, and the (many) empty cells cost nothing.

    Examples
    --------
    >>> t = CountTable(4, 1.0)
    >>> float(t.rows(np.array([[2, 2]]), np.array([2.0]))[0])
    1.0
    """

    def __init__(self, N: int, alpha: float) -> None:
        self.n = int(N)
        self.N = float(N)
        self.alpha = alpha
        self._values = np.arange(self.n + 1, dtype=float)

    def table(self, K: float) -> tuple[np.ndarray, float]:
        """``(phi(c) - phi(0) for c = 0..N, K phi(0))`` over ``K`` cells."""
        q = (self._values + self.alpha) / (self.N + self.alpha * float(K))
        with np.errstate(divide="ignore", invalid="ignore"):
            phi = np.where(q > 0, -q_log2_q(np.where(q > 0, q, 1.0)), 0.0)
        return phi - phi[0], float(K) * float(phi[0])

    def step(self, K: Any) -> Any:
        """``phi(1) - phi(0)`` over ``K`` cells: what a cell holding one sample adds to the
        entropy over an empty cell (``K`` scalar or array)."""
        denom = self.N + self.alpha * K
        step = -q_log2_q((1.0 + self.alpha) / denom)
        if self.alpha > 0:
            step = step + q_log2_q(self.alpha / denom)
        return step

    def rows(self, counts: np.ndarray, K: np.ndarray) -> np.ndarray:
        """Row-wise entropy of integer ``counts`` (shape ``(r, c)``) over ``K[r]`` cells."""
        idx = counts.astype(np.intp)
        out = np.empty(counts.shape[0])
        for Kv in np.unique(K):
            rows = K == Kv
            table, zero = self.table(float(Kv))
            out[rows] = table[idx[rows]].sum(axis=1) + zero
        return out


# --------------------------------------------------------------------------- the keyed hash
def splitmix64(keys: Any, salt: int = 0) -> np.ndarray:
    """SplitMix64's finaliser of ``keys ^ salt``: a keyed hash, uniform over 64 bits.

    A bijection of ``uint64`` for every ``salt`` (so distinct keys never collide).

    Examples
    --------
    >>> splitmix64(np.array([0, 1], dtype=np.uint64), salt=1).tolist()
    [6238072747940578789, 0]
    """
    z = np.asarray(keys, dtype=np.uint64) ^ np.uint64(salt)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


#: SplitMix64's increment (the golden ratio in 64 bits): the salt of every step of
#: :func:`row_coins`.
_GAMMA = 0x9E3779B97F4A7C15

#: Bytes of answers packed per block of :func:`row_coins` (rows per block = this / models).
_COIN_BLOCK_BYTES = 1 << 22


def row_coins(X: Any, seed: int, rows: Any = None) -> np.ndarray:
    """A fair coin per row that depends only on ``seed`` and the row's answers (``bool``).

    Each row of answers in ``{-1, 0, +1}`` is packed into two bit planes (``+1`` and
    ``-1``; ``0`` is neither), read as little-endian 64-bit words ``w_1 .. w_W``, and hashed
    by the chain ``h_0 = seed``, ``h_i = splitmix64(h_{i-1} ^ w_i, GAMMA)`` (``GAMMA`` is
    SplitMix64's increment, so no state is a fixed point of an all-zero word); the coin is
    the top bit of ``h_W``. So:

    * a row's coin is a function of ``(seed, row)`` only: the same row gets the same coin
      alone or in any batch, in any position, and identical answer patterns get the same
      coin under one seed;
    * every step is a bijection of the state, so two different rows of one width never share
      ``h_W``, and over seeds a fixed row's ``h_W`` is a bijection of the seed: its top bit is
      a fair coin;
    * vectorised over rows (a Python loop over the ``W = ceil(2 ceil(m / 8) / 8)`` words
      only), in blocks of about 4 MB.

    Parameters
    ----------
    X : array-like of shape (n_rows, m)
        Answers in ``{-1, 0, +1}`` (any integer dtype; values, not bytes, are hashed).
    seed : int
        In ``[0, 2**64)``.
    rows : array-like of int, optional
        Hash only these rows of ``X``, in this order (default: all; saves copying them).

    Returns
    -------
    numpy.ndarray of shape (n_rows,) or (len(rows),), dtype bool

    Examples
    --------
    >>> X = np.array([[1, -1], [-1, 1], [1, -1]], dtype=np.int8)
    >>> c = row_coins(X, seed=7)
    >>> bool(c[0] == c[2]), c.dtype.name
    (True, 'bool')
    """
    x = np.asarray(X)
    m = x.shape[1]
    n = x.shape[0] if rows is None else len(rows)
    nb = (m + 7) // 8  # bytes of one bit plane
    n_words = (2 * nb + 7) // 8
    block = max(1, _COIN_BLOCK_BYTES // max(m, 1))
    out = np.empty(n, dtype=bool)
    for a in range(0, n, block):
        xb = x[a:a + block] if rows is None else x[np.asarray(rows[a:a + block])]
        buf = np.zeros((xb.shape[0], 8 * n_words), dtype=np.uint8)
        buf[:, :nb] = np.packbits(xb > 0, axis=1)
        buf[:, nb:2 * nb] = np.packbits(xb < 0, axis=1)
        words = buf.view("<u8")
        h = np.full(xb.shape[0], np.uint64(seed))
        for w in range(n_words):
            h = splitmix64(h ^ words[:, w], _GAMMA)
        out[a:a + block] = (h >> np.uint64(63)).astype(bool)
    return out
