"""The paper's evaluation protocol (Section 6) as one function, plus its summaries.

:func:`evaluate` runs, for every condition (temperature x run) of a tidy responses table,
``n_splits`` random 80/20 splits. On each split the selection statistics and the
aggregators are fitted on the 80 % part and the error is measured on the 20 % part.
The result is a tidy table with one row per
``(condition, split, selector, aggregator, k)``.

Design choices (documented here because the paper leaves them implicit):

* **Seeds.** The split of ``(condition, split)`` is drawn from
  ``numpy.random.SeedSequence([seed, crc32(condition), split])``: it depends neither on the
  order of the conditions in the table nor on which other conditions are present.
* **Nested selections.** Each selector runs once per ``(condition, split)`` with the largest
  requested budget; the ensemble of size ``k`` is the first ``k`` picks. This is exact for
  every selector shipped here (Top-k and Term 1 are rankings, mRMR and Greedy MI are greedy).
* **Every combination is computed.** All selectors are evaluated under every aggregator.
  The paper reports MV and W-MV only for the three baselines and keeps Greedy MI under MAP in
  those tables; :mod:`ensel.book.tables` reproduces that layout from the full results.
* **Exhaustive search** (``exhaustive=True``) adds three rows evaluated with MAP on the
  same splits: ``"exhaustive"`` is the subset with the smallest *test* MAP error at each
  ``k``, a **lower bound** on what any selector could achieve on that split (it looks at the
  test part, so it is biased low: the minimum of thousands of noisy errors);
  ``"exhaustive_nested"`` is the **nested** best subset, chosen by its MAP error on a
  held-out quarter of the training part (an inner split of the same kind, seed ``seed + 1``)
  and then scored on the test part, what a search over subsets can really deliver;
  ``"exhaustive_mi"`` is the subset with the largest smoothed training ``I(Y; X_S)``. All
  are computed for all ``2^m - 1`` subsets at once by marginalising pattern-count tables
  down the subset lattice.

Why one module of this size: the exhaustive subset scan (a lattice of count tables, about a
third of the file) is evaluated on the same splits inside the one held-out loop.
"""

from __future__ import annotations

import itertools
import os
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np
import pandas as pd

from ensel import _kernels as kernels
from ensel._errors import DataError, UsageError
from ensel._picks import nested_path
from ensel._validation import (
    NO_OPTION,
    Interval,
    Shown,
    check_int,
    check_k,
    check_options,
    check_options_X_y,
    check_real,
    check_X,
    check_X_y,
    constraint_error,
    validate_params,
)
from ensel.aggregate import SPECS as AGGREGATOR_SPECS
from ensel.protocol import N_HALVINGS, PAPER_PROTOCOL, Protocol
from ensel.select import MULTICLASS_SPECS as MULTICLASS_SELECTOR_SPECS
from ensel.select import SELECTORS, SelectorSpec, paper_selectors
from ensel.select import SPECS as SELECTOR_SPECS

__all__ = [
    "PAPER_SELECTORS",
    "PAPER_AGGREGATORS",
    "EXHAUSTIVE_SELECTORS",
    "RESULT_COLUMNS",
    "INNER_COLUMN",
    "evaluate",
    "prepare_table",
    "condition_arrays",
    "ConditionData",
    "condition_data",
    "one_se_k",
    "heldout_errors",
    "half_sample_errors",
    "half_sample_means",
    "halvings",
    "half_splits",
    "N_HALVINGS",
    "split_indices",
    "exhaustive_errors",
    "exhaustive_feasible",
    "summarise",
    "paired_differences",
    "selection_table",
    "DiverseExample",
    "diverse_vs_topk_example",
    "selected_models",
    "validate_results",
]

#: The paper's four selectors and three aggregators, the defaults of :func:`evaluate`. Any
#: name of :data:`ensel.select.SELECTORS` / :data:`ensel.aggregate.AGGREGATORS` is accepted.
#: Both read the registries' specs (``in_paper``).
PAPER_SELECTORS: tuple[str, ...] = paper_selectors()
PAPER_AGGREGATORS: tuple[str, ...] = tuple(
    name for name, spec in AGGREGATOR_SPECS.items() if spec.in_paper)
#: Selectors added by ``exhaustive=True`` (always aggregated with MAP).
EXHAUSTIVE_SELECTORS: dict[str, str] = {
    "exhaustive": "Exhaustive optimum on the test part (a bound, not a selector)",
    "exhaustive_mi": "Exhaustive max training I(Y; X_S)",
    "exhaustive_nested": "Exhaustive best subset chosen on the training part (nested)",
}
#: The contract's columns (extra columns follow them).
RESULT_COLUMNS = ["condition", "split", "selector", "aggregator", "k", "error"]
_EXTRA_COLUMNS = ["selected", "selected_accuracy", "n_test"]
#: The column ``inner=True`` adds: each arm's error on the inner split of the training part.
INNER_COLUMN = "inner_error"
#: Separator used in the ``selected`` column (model names in pick order).
SEP = "|"
#: Largest number of cells (over all subsets of one size, 4 count tables) the exhaustive
#: search may hold in memory at once: m <= 15 models without abstentions.
_EXHAUSTIVE_MAX_CELLS = 2**25
#: Beyond the lattice's memory limit, subsets are scanned in chunks (one matrix product for the
#: pattern codes of many subsets, one bincount for their tables) up to this many models.
_EXHAUSTIVE_MAX_MODELS = 15
#: The prefix scan (:func:`_exhaustive_prefix`) keeps one group id per (subset, distinct
#: answer row) of a level, twice: used when that is at most this many ids (128 MB each),
#: otherwise the chunked scan. Each chunk of its subsets holds at most this many cells: 2**19
#: keeps a chunk's arrays (4 MB of int64) small enough to be reused by the allocator; with
#: 2**22 the scan spent about as much system time in page faults as user time computing.
_PREFIX_MAX_GROUP_IDS = 2**25
_PREFIX_CHUNK_CELLS = 2**19
#: The row weights of all the parts of one prefix scan (:func:`_prefix_scan`, one copy per
#: subset of a chunk) hold at most this many values (64 MB), whatever the number of splits.
_PREFIX_WEIGHT_CELLS = 2**23


# --------------------------------------------------------------------------- helpers
def _seed_sequence(seed: int, condition: Any, split: int) -> np.random.SeedSequence:
    """Stable per-(condition, split) seed: independent of the order of the conditions."""
    key = zlib.crc32(str(condition).encode("utf-8"))
    return np.random.SeedSequence([int(seed), key, int(split)])


def _item_keys(item_ids: Any, n_items: int) -> np.ndarray:
    """One 64-bit key per item from the text of its id (row numbers when ``None``)."""
    if item_ids is None:
        ids = np.arange(int(n_items)).astype(str)
    else:
        ids = np.asarray(item_ids).astype(str)
        if ids.shape != (int(n_items),):
            raise constraint_error("item_ids", f"{n_items} item ids (one per row)",
                                   f"{ids.size} ids")
    return pd.util.hash_array(ids.astype(object), categorize=False).astype(np.uint64)


def _split_from_keys(keys: np.ndarray, *, condition: Any, split: int, seed: int,
                     test_fraction: float) -> tuple[np.ndarray, np.ndarray]:
    n_items = len(keys)
    n_test = int(round(test_fraction * n_items))
    if n_test < 1 or n_test >= n_items:
        raise UsageError(
            f"test_fraction={test_fraction} leaves {n_test} test and {n_items - n_test} training "
            f"items out of {n_items}; both parts need at least one item"
        )
    salt = int(_seed_sequence(seed, condition, split).generate_state(1, dtype=np.uint64)[0])
    order = np.argsort(kernels.splitmix64(keys, salt), kind="stable")
    test = np.zeros(n_items, dtype=bool)
    test[order[:n_test]] = True
    return np.flatnonzero(~test), np.flatnonzero(test)


def split_indices(n_items: int, *, condition: Any, split: int, seed: int = 0,
                  test_fraction: float = PAPER_PROTOCOL.test_fraction,
                  item_ids: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Train and test row indices of one split, exactly as :func:`evaluate` draws them.

    Which items fall in the test part depends on the items' ids, the condition, the split
    number and the seed, never on the rows' positions: every item gets the key
    ``SplitMix64(hash(item id text) ^ salt)`` with the salt drawn from
    ``SeedSequence([seed, crc32(condition), split])``, and the test part is the
    ``round(test_fraction * n_items)`` items with the smallest keys.

    Parameters
    ----------
    n_items : int
        Number of items (rows of the condition's answer matrix).
    condition : hashable
        Condition name (enters the seed through a CRC32 of its string form).
    split : int
        Split number (0-based).
    seed : int, default=0
        Base seed of the experiment.
    test_fraction : float, default=0.2
        Fraction of items in the test part; the test part has
        ``round(test_fraction * n_items)`` items.
    item_ids : array-like of shape (n_items,), optional
        The rows' item ids (compared as text); default: the row numbers ``0..n_items-1``.

    Returns
    -------
    train, test : numpy.ndarray
        Sorted, disjoint index arrays covering ``range(n_items)``.

    Examples
    --------
    >>> tr, te = split_indices(10, condition="a", split=0, item_ids=list("abcdefghij"))
    >>> len(tr), len(te)
    (8, 2)
    >>> tr2, te2 = split_indices(10, condition="a", split=0, item_ids=list("jihgfedcba"))
    >>> sorted("abcdefghij"[i] for i in te) == sorted("jihgfedcba"[i] for i in te2)
    True
    """
    check_real(test_fraction, "test_fraction", low=0, high=1, low_open=True, high_open=True)
    return _split_from_keys(_item_keys(item_ids, n_items), condition=condition, split=split,
                            seed=seed, test_fraction=test_fraction)


def _protocol_splits(keys: np.ndarray, *, condition: Any, n_splits: int, seed: int,
                     test_fraction: float, inner: bool
                     ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """``(train, test, inner train, inner held-out)`` of each split of one condition, the
    inner split (positions within ``train``; empty unless ``inner``) drawn from the
    training items with seed ``seed + 1``: fitted on the rest, scored on it, never looking
    at the test part (the nested choices read it)."""
    out = []
    none = np.zeros(0, dtype=np.int64)
    for split in range(int(n_splits)):
        tr, te = _split_from_keys(keys, condition=condition, split=split, seed=seed,
                                  test_fraction=test_fraction)
        itr, iva = (_split_from_keys(keys[tr], condition=condition, split=split,
                                     seed=seed + 1, test_fraction=test_fraction)
                    if inner else (none, none))
        out.append((tr, te, itr, iva))
    return out


def _mv_seed(seed: int, condition: Any, split: int) -> int:
    ss = _seed_sequence(seed, condition, split).spawn(1)[0]
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def prepare_table(df: pd.DataFrame, *, validate: bool = True,
                  gaps: bool = False) -> tuple[pd.DataFrame, list[Any]]:
    """Validate the tidy table once; return it with its conditions (sorted by their text, so
    that nothing depends on the order of the rows). ``validate=False`` trusts a table that
    :func:`ensel.data.validate_responses` (or a reader of :mod:`ensel.datasets`) returned;
    ``gaps`` accepts a binary table whose gold has gaps (else refused,
    :func:`ensel.data.require_gold`)."""
    from ensel.data import conditions, require_gold, validate_responses

    if not isinstance(df, pd.DataFrame):
        raise UsageError(f"df must be a pandas DataFrame (tidy responses); got {type(df).__name__}")
    if validate:
        df = validate_responses(df)
    if not gaps:
        require_gold(df, "the held-out protocol")
    return df, sorted(conditions(df), key=str)


def condition_arrays(df: pd.DataFrame, condition: Any, *, gaps: bool = False
                     ) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
    """``(X, y, model names, item ids)`` of one condition of a table checked by
    :func:`prepare_table` (``X`` and ``y`` as ``int8``; ``gaps``: ``y`` is ``0`` where an
    item has no gold).

    The order is canonical: items sorted by the text of their ids, models by their names, so
    that selection ties (lowest column) and the protocol's output never depend on the order
    of the table's rows.
    """
    from ensel.data import to_wide

    Xw, yw = to_wide(df, condition, validate=False, gaps=gaps)
    if gaps and (yw.to_numpy() == 0).any():  # gold with gaps (label 0), checked by the reader
        X, y = check_X(Xw), yw.to_numpy(dtype=np.int8)
    else:
        X, y = check_X_y(Xw, yw)
    items = np.asarray(Xw.index).astype(str)
    models = np.asarray([str(c) for c in Xw.columns])
    ri = np.argsort(items, kind="stable")
    ci = np.argsort(models, kind="stable")
    if not (np.all(ri[1:] > ri[:-1]) and np.all(ci[1:] > ci[:-1])):
        X, y = np.ascontiguousarray(X[np.ix_(ri, ci)]), y[ri]
    return X, y, [str(v) for v in models[ci]], np.asarray(Xw.index)[ri]


def _check_ks(ks: Any, m: int, condition: Any) -> list[int]:
    if ks is None:
        return list(range(1, m + 1))
    if isinstance(ks, (int, np.integer)):
        ks = [ks]
    out = sorted({check_k(k, m, name=f"ks entry (condition {condition!r})") for k in ks})
    if not out:
        raise UsageError("ks must contain at least one budget")
    return out


# --------------------------------------------------------------------------- exhaustive
@dataclass(frozen=True)
class _Level:
    combos: np.ndarray          # (n_subsets, k) model indices, lexicographic
    parent_rows: np.ndarray     # row of the parent subset (one more model) in level k+1
    removed: np.ndarray         # position (= index) of the model the parent has in addition


@lru_cache(maxsize=8)
def _lattice(m: int) -> tuple[_Level, ...]:
    """Subsets of range(m) by size, each linked to the parent that adds its smallest missing
    index j (j is then the parent's j-th smallest element, so its digit position is j)."""
    levels: list[_Level] = [None] * (m + 1)  # type: ignore[list-item]
    rows_above: dict[int, int] = {}
    for k in range(m, 0, -1):
        combos = np.array(list(itertools.combinations(range(m), k)), dtype=np.int64).reshape(-1, k)
        masks = (np.int64(1) << combos).sum(axis=1)
        parent = np.zeros(len(combos), dtype=np.int64)
        removed = np.zeros(len(combos), dtype=np.int64)
        if k < m:
            for r, (mask, combo) in enumerate(zip(masks.tolist(), combos, strict=True)):
                present = np.zeros(m, dtype=bool)
                present[combo] = True
                j = int(np.argmin(present))
                removed[r] = j
                parent[r] = rows_above[mask | (1 << j)]
        levels[k] = _Level(combos, parent, removed)
        rows_above = {int(mask): r for r, mask in enumerate(masks.tolist())}
    return tuple(levels)


def _exhaustive_cells(m: int, base: int) -> int:
    return max(comb(m, k) * base ** (k + (1 if k < m else 0)) * 4 for k in range(1, m + 1))


@validate_params({"m": [Interval(int, 0, None)], "abstentions": ["boolean"]})
def exhaustive_feasible(m: int, *, abstentions: bool = False) -> bool:
    """Whether :func:`exhaustive_errors` accepts ``m`` models (``m <= 15``; with abstentions,
    ``m > 11`` uses the slower chunked scan instead of the subset lattice)."""
    del abstentions  # both scans accept up to _EXHAUSTIVE_MAX_MODELS models
    return 1 <= int(m) <= _EXHAUSTIVE_MAX_MODELS


def _smoothed_mi_rows(pos: np.ndarray, neg: np.ndarray, n: int, h_y: float,
                      alpha: float) -> np.ndarray:
    """Smoothed I(Y; X_S) in bits for count tables ``pos``/``neg`` of shape (n_subsets, K)."""
    h_a = kernels.dense_entropy_rows(pos + neg, n, alpha)
    h_j = kernels.dense_entropy_rows(np.concatenate([pos, neg], axis=1), n, alpha)
    return np.maximum(h_a + h_y - h_j, 0.0)


def _unique_rows(D: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct answer rows with their numbers of ``y = +1`` and ``y = -1`` items."""
    rows, inv = np.unique(D, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    pos = np.bincount(inv, weights=(y == 1), minlength=len(rows))
    neg = np.bincount(inv, weights=(y != 1), minlength=len(rows))
    return rows, pos, neg


class _SmoothedMI:
    """Smoothed ``I(Y; X_S)`` of many subsets of one size from their *seen* cells only: the
    ``K = base**k`` answer cells that no training item falls into contribute in closed form."""

    def __init__(self, n_tr: int, K: int, h_y: float, alpha: float) -> None:
        self.n_tr, self.K, self.h_y, self.alpha = n_tr, K, h_y, alpha

    def __call__(self, pos: np.ndarray, neg: np.ndarray, sub: np.ndarray,
                 c: int) -> np.ndarray:
        """MI of ``c`` subsets; ``pos``/``neg`` count the seen cells, ``sub`` their subset."""
        n, K, alpha = self.n_tr, self.K, self.alpha
        h_a = kernels.grouped_entropy(pos + neg, sub, c, K, n, alpha)
        h_j = kernels.grouped_entropy((pos, neg), sub, c, 2 * K, n, alpha)
        return np.maximum(h_a + self.h_y - h_j, 0.0)


def _map_wrong(d_tr: np.ndarray, pos_te: np.ndarray, neg_te: np.ndarray) -> np.ndarray:
    """Test errors of the MAP rule per pattern cell from the sign ``d_tr`` of the training
    counts ``C+ - C-``: ``neg_te`` where it predicts ``+1``, ``pos_te`` where ``-1``, and half
    of both on a tie (``d_tr == 0``), the error rule of :func:`ensel.aggregate.half_tie_error`
    on counts."""
    return np.where(d_tr > 0, neg_te, np.where(d_tr < 0, pos_te, 0.5 * (pos_te + neg_te)))


def _exhaustive_chunked(dtr: np.ndarray, ytr: np.ndarray, dte: np.ndarray, yte: np.ndarray,
                        ks: Sequence[int], base: int, h_y: float, alpha: float
                        ) -> dict[int, dict[str, np.ndarray]]:
    """Same output as the lattice scan, subset by subset in chunks (for large alphabets).

    Works on the distinct answer rows (weighted by their label counts), so the cost scales
    with the number of distinct patterns, not of items.
    """
    m = dtr.shape[1]
    rtr, ptr, ntr = _unique_rows(dtr, ytr)
    rte, pte, nte = _unique_rows(dte, yte)
    Ftr, Fte = rtr.astype(np.float64), rte.astype(np.float64)
    n_tr, n_te = len(ytr), len(yte)
    out: dict[int, dict[str, np.ndarray]] = {}
    for k in sorted(set(int(k) for k in ks)):
        combos = np.array(list(itertools.combinations(range(m), k)), dtype=np.int64)
        K = base**k
        chunk = int(max(1, min(2**23 // max(len(rtr), 1), len(combos))))
        err = np.empty(len(combos))
        mi = np.empty(len(combos))
        smoothed_mi = _SmoothedMI(n_tr, K, h_y, alpha)
        for start in range(0, len(combos), chunk):
            cc = combos[start:start + chunk]
            c = len(cc)
            W = np.zeros((m, c))
            W[cc, np.arange(c)[:, None]] = base ** np.arange(k, dtype=np.float64)
            off = (np.arange(c, dtype=np.int64) * K)[None, :]
            codes_tr = (np.rint(Ftr @ W).astype(np.int64) + off).ravel()
            codes_te = (np.rint(Fte @ W).astype(np.int64) + off).ravel()
            if c * K <= 8 * codes_tr.size:  # small alphabet: dense tables
                dpos = np.bincount(codes_tr, weights=np.repeat(ptr, c), minlength=c * K)
                dneg = np.bincount(codes_tr, weights=np.repeat(ntr, c), minlength=c * K)
                d_tr = np.sign(dpos - dneg)[codes_te].reshape(-1, c)
                cells = np.flatnonzero(dpos + dneg)
                pos, neg = dpos[cells], dneg[cells]
            else:  # large alphabet: only the (subset, pattern) cells seen in training
                cells, inv = np.unique(codes_tr, return_inverse=True)
                pos = np.bincount(inv, weights=np.repeat(ptr, c), minlength=len(cells))
                neg = np.bincount(inv, weights=np.repeat(ntr, c), minlength=len(cells))
                at = np.minimum(np.searchsorted(cells, codes_te), len(cells) - 1)
                seen = cells[at] == codes_te
                d_tr = np.where(seen, np.sign(pos[at] - neg[at]), 0.0).reshape(-1, c)
            wrong = _map_wrong(d_tr, pte[:, None], nte[:, None]).sum(axis=0)
            err[start:start + c] = wrong / n_te
            # smoothed MI: seen cells explicitly, unseen cells in closed form
            sub = (cells // K).astype(np.int64)
            mi[start:start + c] = smoothed_mi(pos, neg, sub, c)
        out[k] = {"combos": combos, "error": err, "mi": mi}
    return out


@dataclass(frozen=True)
class _ScanPart:
    """One (fit, eval) pair of items of a prefix scan over shared distinct answer rows: the
    rows its fit items fall on with their numbers of ``y = +1`` and ``y = -1`` items, the
    same for its eval items, the item counts, ``H(Y)`` of the fit labels, and whether the
    training MI is wanted."""

    fit_rows: np.ndarray
    fit_pos: np.ndarray
    fit_neg: np.ndarray
    eval_rows: np.ndarray
    eval_pos: np.ndarray
    eval_neg: np.ndarray
    n_fit: int
    n_eval: int
    h_y: float
    mi: bool = True


def _scan_parts(digits: np.ndarray, y: np.ndarray,
                parts: Sequence[tuple[np.ndarray, np.ndarray, float, bool]]
                ) -> tuple[np.ndarray, list[_ScanPart]]:
    """The distinct rows of ``digits`` (items x models) as ``(models, rows)`` and each of
    ``parts`` (``fit item indices, eval item indices, H(Y), MI wanted``) as a
    :class:`_ScanPart` on them."""
    rows, inv = np.unique(digits, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    n_rows = len(rows)
    out = []
    for fit, ev, h_y, mi in parts:
        counted: list[np.ndarray] = []
        for idx in (fit, ev):
            pos = np.bincount(inv[idx], weights=(y[idx] == 1), minlength=n_rows)
            neg = np.bincount(inv[idx], weights=(y[idx] != 1), minlength=n_rows)
            on = np.flatnonzero(pos + neg)
            counted += [on, pos[on], neg[on]]
        out.append(_ScanPart(counted[0], counted[1], counted[2], counted[3], counted[4],
                             counted[5], n_fit=len(fit), n_eval=len(ev), h_y=h_y, mi=mi))
    return np.ascontiguousarray(rows.T, dtype=np.int64), out


def _exhaustive_prefix(dtr: np.ndarray, ytr: np.ndarray, dte: np.ndarray, yte: np.ndarray,
                       ks: Sequence[int], base: int, h_y: float, alpha: float
                       ) -> dict[int, dict[str, np.ndarray]]:
    """Same output as :func:`_exhaustive_chunked`, bit for bit, by growing subsets one model
    at a time (:func:`_prefix_scan` of one part; for large alphabets with few distinct
    answer rows)."""
    n_tr = len(ytr)
    D, parts = _scan_parts(np.concatenate([dtr, dte]), np.concatenate([ytr, yte]),
                           [(np.arange(n_tr), np.arange(n_tr, n_tr + len(yte)), h_y, True)])
    return _prefix_scan(D, parts, ks, base, alpha)[0]


def _prefix_scan(D: np.ndarray, parts: Sequence[_ScanPart], ks: Sequence[int], base: int,
                 alpha: float) -> list[dict[int, dict[str, np.ndarray]]]:
    """Held-out MAP error and training MI of every subset of each size in ``ks`` for each of
    ``parts`` (fit and eval items on the distinct answer rows ``D``, shape (models, rows)),
    sharing the grouping of the rows between the parts (all splits of one condition answer
    the same items, so they have the same rows).

    A subset of size ``k`` is its lexicographic prefix of size ``k - 1`` plus its largest
    model ``j``. Each distinct answer row carries its group id under the prefix (groups
    numbered in the order of their pattern codes); its group under the subset is ``(digit of
    j, group under the prefix)``, renumbered through one bincount per chunk of subsets. No
    sorting, and every step costs one pass over the rows instead of a matrix product and a
    sort. The largest model is the most significant digit of
    :func:`ensel.info.pattern_codes`, so the groups keep the order of the codes and the
    smoothed entropies add their cells in the same order as :func:`_exhaustive_chunked`
    (whose output each part's is, bit for bit: the counts are integers, and the cells a
    part's fit items fall into are visited in code order whatever other rows are there).
    A part without ``mi`` reports NaN for it.
    """
    m, n_rows = D.shape
    want = set(int(k) for k in ks)
    kmax = max(want) if want else 0
    gid = np.zeros((1, n_rows), dtype=np.int32)  # group of each row under the empty prefix
    n_groups = 1  # bound on the group ids of the prefixes
    index: dict[tuple[int, ...], int] = {(): 0}
    outs: list[dict[int, dict[str, np.ndarray]]] = [{} for _ in parts]
    weight_rows = sum(len(p.fit_rows) * (2 if p.mi else 1) for p in parts)  # per subset
    for k in range(1, kmax + 1):
        combos = np.array(list(itertools.combinations(range(m), k)), dtype=np.int64)
        prefix = np.array([index[tuple(c[:-1])] for c in combos.tolist()], dtype=np.int64)
        n_sub = len(combos)
        span = base * n_groups  # group ids of one subset before renumbering
        Dg = D * n_groups  # the new model's digit is the most significant
        chunk = int(max(1, min(n_sub, _PREFIX_CHUNK_CELLS // max(span, n_rows),
                               _PREFIX_WEIGHT_CELLS // max(weight_rows, 1))))
        K = base**k
        mis = [_SmoothedMI(p.n_fit, K, p.h_y, alpha) for p in parts]
        err = [np.empty(n_sub) for _ in parts]
        mi = [np.full(n_sub, np.nan) for _ in parts]
        new_gid = np.empty((n_sub, n_rows), dtype=np.int32) if k < kmax else None
        new_groups = 1
        # row weights of a chunk: C+ - C- decides; C+ and C- apart only for the MI
        weights = [(np.tile(p.fit_pos, chunk), np.tile(p.fit_neg, chunk)) if p.mi
                   else (np.tile(p.fit_pos - p.fit_neg, chunk), None) for p in parts]
        for start in range(0, n_sub, chunk):
            stop = min(n_sub, start + chunk)
            c = stop - start
            raw = Dg[combos[start:stop, -1]]  # (c, rows) int64
            raw += gid[prefix[start:stop]]
            raw += (np.arange(c, dtype=np.int64) * span)[:, None]
            present = np.zeros(c * span, dtype=bool)
            present[raw.ravel()] = True
            ids = np.cumsum(present, dtype=np.int64)
            n_cells = int(ids[-1])
            ids -= 1
            cell = ids[raw]  # (c, rows): cell ids, ascending in (subset, pattern code)
            # first cell of each subset: one before the cells of the subsets below it
            first = np.zeros(c, dtype=np.int64)
            first[1:] = ids[np.arange(1, c, dtype=np.int64) * span - 1] + 1
            sizes = np.diff(np.append(first, n_cells))  # cells of each subset
            if new_gid is not None:  # ids from 0 in every subset
                np.subtract(cell, first[:, None], out=new_gid[start:stop], casting="unsafe")
                new_groups = max(new_groups, int(sizes.max()))
            owner = np.repeat(np.arange(c, dtype=np.int64), sizes)
            for p, part in enumerate(parts):
                wpos, wneg = weights[p]
                ctr = np.take(cell, part.fit_rows, axis=1).reshape(-1)
                dpos = np.bincount(ctr, weights=wpos[:ctr.size], minlength=n_cells)
                dneg = (np.bincount(ctr, weights=wneg[:ctr.size], minlength=n_cells)
                        if wneg is not None else np.zeros(n_cells))
                # the MAP rule's sign per eval row (an unseen pattern: 0, a tie); its wrong
                # items, _map_wrong summed: (C+ + C- - sign * (C+ - C-)) / 2 over the rows
                # (integers and halves: exact in any order)
                d_tr = np.sign(dpos - dneg)[np.take(cell, part.eval_rows, axis=1)]
                wrong = 0.5 * (part.n_eval - d_tr @ (part.eval_pos - part.eval_neg))
                err[p][start:stop] = wrong / part.n_eval
                if part.mi:  # seen cells explicitly (in code order), unseen in closed form
                    cells = np.flatnonzero(dpos + dneg)
                    mi[p][start:stop] = mis[p](dpos[cells], dneg[cells], owner[cells], c)
        if k in want:
            for p in range(len(parts)):
                outs[p][k] = {"combos": combos, "error": err[p], "mi": mi[p]}
        if new_gid is not None:
            gid, n_groups = new_gid, new_groups
            index = {tuple(cmb): i for i, cmb in enumerate(combos.tolist())}
    return outs


def _label_entropy(y: np.ndarray, alpha: float) -> float:
    """Smoothed ``H(Y)`` in bits of labels in ``{-1, +1}``."""
    n, n_pos = len(y), int((y == 1).sum())
    return float(kernels.dense_entropy_rows(np.array([[n_pos, n - n_pos]], dtype=float),
                                            n, alpha)[0])


def _exhaustive_tables(X: np.ndarray, y: np.ndarray,
                       parts: Sequence[tuple[np.ndarray, np.ndarray, bool]],
                       ks: Sequence[int], *, alpha: float = 1.0
                       ) -> list[dict[int, dict[str, np.ndarray]]]:
    """``exhaustive_errors(X[fit], y[fit], X[ev], y[ev], ks)`` for each ``(fit, ev, mi)`` of
    ``parts`` (item indices), the same tables bit for bit (``mi=False``: the MI may be
    left out, NaN).

    When the alphabet of ``X`` calls for the prefix scan (abstentions and many models), all
    parts share one scan of ``X``'s distinct answer rows (:func:`_prefix_scan`): the splits
    of a condition, and the inner splits of their training parts, answer the same items, so
    growing the subsets' patterns is done once, not once per part. A part that wants MI and
    whose own answers have a smaller alphabet than ``X`` (no abstention) is scanned alone,
    as its MI counts the cells of its own alphabet.
    """
    m = X.shape[1]
    base = 3 if np.any(X == 0) else 2
    shared = (m <= _EXHAUSTIVE_MAX_MODELS and _exhaustive_cells(m, base) > _EXHAUSTIVE_MAX_CELLS
              and comb(m, m // 2) * len(X) <= _PREFIX_MAX_GROUP_IDS)
    together = [i for i, (fit, ev, mi) in enumerate(parts) if shared and not (
        mi and base == 3 and not (np.any(X[fit] == 0) or np.any(X[ev] == 0)))]
    out: list[dict[int, dict[str, np.ndarray]]] = [
        {} if i in together else _exhaustive_part(X[fit], y[fit], X[ev], y[ev], ks,
                                                  alpha=alpha, mi=mi)
        for i, (fit, ev, mi) in enumerate(parts)]
    if together:
        D, scan = _scan_parts(kernels.answer_digits(X), y, [
            (parts[i][0], parts[i][1], _label_entropy(y[parts[i][0]], alpha), parts[i][2])
            for i in together])
        for i, tab in zip(together, _prefix_scan(D, scan, ks, base, alpha), strict=True):
            out[i] = tab
    return out


def _exhaustive_part(X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray,
                     y_test: np.ndarray, ks: Sequence[int], *, alpha: float, mi: bool
                     ) -> dict[int, dict[str, np.ndarray]]:
    """:func:`exhaustive_errors` of one part, its MI left out (NaN) when ``mi`` is False and
    the subset lattice applies (the other scans compute it anyway)."""
    m = X_train.shape[1]
    base = 3 if (np.any(X_train == 0) or np.any(X_test == 0)) else 2
    if mi or _exhaustive_cells(m, base) > _EXHAUSTIVE_MAX_CELLS:
        return exhaustive_errors(X_train, y_train, X_test, y_test, ks, alpha=alpha)
    return _exhaustive_lattice(kernels.answer_digits(X_train), y_train,
                               kernels.answer_digits(X_test), y_test, ks, base,
                               _label_entropy(y_train, alpha), alpha, mi=False)


@validate_params({"X_train": ["array-like"], "y_train": ["array-like"],
                  "X_test": ["array-like"], "y_test": ["array-like"], "ks": ["iterable"],
                  "alpha": [Interval(float, 0, None, closed="neither")]})
def exhaustive_errors(X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray,
                      y_test: np.ndarray, ks: Sequence[int], *, alpha: float = 1.0
                      ) -> dict[int, dict[str, np.ndarray]]:
    """Held-out MAP error and training smoothed MI of **every** subset of each size in ``ks``.

    The MAP rule is the paper's Algorithm MAP (add-one counts per answer pattern); the
    smoothing cancels in the comparison, so the decision is the sign of ``C+ - C-``, and a
    tie ``C+ = C-`` (an unseen pattern included) counts as half an error, as in every
    evaluation (:func:`ensel.aggregate.heldout_error`). Patterns use the
    alphabet ``{-1, +1}`` (base 2) or, when any answer is an abstention ``0``, ``{-1, +1, 0}``
    (base 3), as :func:`ensel.info.pattern_codes`. The count tables of all ``C(m, k)`` subsets are
    obtained by summing one axis out of a parent's table (``2 * 3^m`` additions in all); when
    those tables would not fit in memory (base 3 and m > 11) the subsets are scanned in chunks
    instead (pattern codes of many subsets from one matrix product, tables from one bincount).

    Parameters
    ----------
    X_train, y_train, X_test, y_test : numpy.ndarray
        Answers (``int8`` in {-1, 0, +1}) and labels (in {-1, +1}) of the two parts.
    ks : sequence of int
        Subset sizes to report.
    alpha : float, default=1.0
        Laplace smoothing of the training mutual information ``I(Y; X_S)`` (Algorithm
        "Smoothed Mutual Information Estimation", bits).

    Returns
    -------
    dict
        ``{k: {"combos": (C(m,k), k) int array, "error": (C(m,k),) held-out MAP errors,
        "mi": (C(m,k),) training MI in bits}}``.
    """
    m = X_train.shape[1]
    base = 3 if (np.any(X_train == 0) or np.any(X_test == 0)) else 2
    if m > _EXHAUSTIVE_MAX_MODELS:
        raise constraint_error(
            "X_train", f"of at most {_EXHAUSTIVE_MAX_MODELS} models (exhaustive search over "
            f"m={m} models means {2**m - 1:,} subsets per split)", Shown(f"{m} models"),
            func="exhaustive_errors")
    h_y = _label_entropy(y_train, alpha)
    if _exhaustive_cells(m, base) > _EXHAUSTIVE_MAX_CELLS:
        n_rows = len(X_train) + len(X_test)  # bounds the distinct answer rows
        scan = (_exhaustive_prefix if comb(m, m // 2) * n_rows <= _PREFIX_MAX_GROUP_IDS
                else _exhaustive_chunked)
        return scan(kernels.answer_digits(X_train), y_train, kernels.answer_digits(X_test),
                    y_test, ks, base,
                    h_y, alpha)
    return _exhaustive_lattice(kernels.answer_digits(X_train), y_train,
                               kernels.answer_digits(X_test), y_test, ks, base, h_y, alpha)


def _exhaustive_lattice(dtr: np.ndarray, ytr: np.ndarray, dte: np.ndarray, yte: np.ndarray,
                        ks: Sequence[int], base: int, h_y: float, alpha: float, *,
                        mi: bool = True) -> dict[int, dict[str, np.ndarray]]:
    """:func:`exhaustive_errors`' subset lattice on answer digits (``mi=False``: the MI is
    left out, NaN).

    A subset's table is its parent's with one digit axis summed out. The lattice carries
    the training counts ``C+`` and ``C-`` (the MI needs both; only ``C+ - C-`` when the MI
    is left out) and the test difference ``T+ - T-``: the MAP errors of a subset are
    ``(n_test - sum(sign(C+ - C-) * (T+ - T-))) / 2`` (:func:`_map_wrong` summed over the
    cells, in integers: the same floats), so the sums are linear in what is carried.
    """
    m = dtr.shape[1]
    want = set(int(k) for k in ks)
    weights = base ** np.arange(m, dtype=np.int64)
    size = base**m
    ctr, cte = dtr @ weights, dte @ weights
    pos, neg = ytr == 1, ytr == -1

    # every sum is a count of at most n items: int32 halves the memory the sums stream
    # through, and the floats made from them are the same
    dtype = np.int32 if len(ytr) + len(yte) < 2**31 else np.int64

    def counts(codes: np.ndarray) -> np.ndarray:
        return np.bincount(codes, minlength=size).astype(dtype)

    d_te = counts(cte[yte == 1]) - counts(cte[yte == -1])
    train = ([counts(ctr[pos]), counts(ctr[neg])] if mi
             else [counts(ctr[pos]) - counts(ctr[neg])])
    table = np.stack([*train, d_te])[None, :, :]  # (1 subset, tables, base^m patterns)
    n_tab = table.shape[1]
    levels = _lattice(m)
    n_tr, n_te = len(ytr), len(yte)
    out: dict[int, dict[str, np.ndarray]] = {}
    for k in range(m, 0, -1):
        if k < m:
            lev = levels[k]
            new = np.empty((len(lev.combos), n_tab, base**k), dtype=dtype)
            for p in np.unique(lev.removed):
                rows = np.flatnonzero(lev.removed == p)
                par = table[lev.parent_rows[rows]]
                par = par.reshape(len(rows), n_tab, base ** (k - p), base, base**p)
                # the digit axis summed as `base` slices (integer counts: exact), much faster
                # than a reduction over a short strided axis
                acc = par[:, :, :, 0, :] + par[:, :, :, 1, :]
                for v in range(2, base):
                    acc += par[:, :, :, v, :]
                new[rows] = acc.reshape(len(rows), n_tab, base**k)
            table = new
        if k in want:
            d_tr = table[:, 0, :] - table[:, 1, :] if mi else table[:, 0, :]
            agree = np.einsum("ij,ij->i", np.sign(d_tr), table[:, -1, :])
            out[k] = {"combos": levels[k].combos, "error": 0.5 * (n_te - agree) / n_te,
                      "mi": (_smoothed_mi_rows(table[:, 0, :], table[:, 1, :], n_tr, h_y,
                                               alpha) if mi
                             else np.full(len(table), np.nan))}
        if not any(kk < k for kk in want):
            break
    return out


# --------------------------------------------------------------------------- held-out loop
def _jobs(n_jobs: int | None) -> int:
    """Threads for ``n_jobs`` (``None``: 1; ``-1``: one per core), as in scikit-learn."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0 \
            or n_jobs < -1:
        raise constraint_error("n_jobs", "a positive int, -1 (one per core) or None", n_jobs)
    return (os.cpu_count() or 1) if n_jobs == -1 else int(n_jobs)


def _map_in_order(func: Callable[[Any], Any], tasks: Sequence[Any], n_jobs: int) -> list[Any]:
    """``[func(t) for t in tasks]``, on up to ``n_jobs`` threads when there are several
    tasks. The results come back in the order of ``tasks`` and each task draws only on its
    own seeds, so the output is the same for every ``n_jobs``; numpy and scipy release the
    GIL in the array work that dominates a task."""
    if n_jobs <= 1 or len(tasks) <= 1:
        return [func(t) for t in tasks]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(min(n_jobs, len(tasks)), thread_name_prefix="ensel") as pool:
        return list(pool.map(func, tasks))


def _check_protocol(protocol: Any) -> Protocol:
    """``protocol`` if it is an :class:`ensel.protocol.Protocol` (else a clear error)."""
    if not isinstance(protocol, Protocol):
        raise constraint_error("protocol", "an ensel.protocol.Protocol",
                               Shown(type(protocol).__name__))
    return protocol


def _option_heldout_error(model: Any, A: np.ndarray, gold: np.ndarray,
                          n_options: np.ndarray | None = None) -> float:
    """:func:`ensel.aggregate.heldout_error` of a multiple-choice aggregator on option codes
    that may hold options it never saw at fit (its ``classes_``): such an answer counts as no
    answer (the model has no parameters for it) and such a gold option as an error (the model
    never predicts it); items without gold are not scored. ``n_options``: each item's option
    count (an ``OptionMatrix``'s): no item is predicted an option it does not have, and a
    tie counts ``1 - 1/t`` over the item's own options.

    Examples
    --------
    >>> from ensel.aggregate import PluralityVote
    >>> pv = PluralityVote().fit(np.array([[0, 0], [1, 1]]))
    >>> _option_heldout_error(pv, np.array([[0, 2], [1, 1], [0, 0]]), np.array([0, 2, -1]))
    0.5
    """
    A = np.where(np.isin(A, model.classes_), A, NO_OPTION)
    known = np.isin(gold, model.classes_)
    err = np.where(gold == NO_OPTION, np.nan, 1.0)
    if known.any():  # the per-item errors heldout_error averages
        err[known] = model.tie_error(A[known], gold[known], n_options=None if n_options is None
                                     else n_options[known])
    return float(np.nanmean(err))


def _nested_picks(selector: str, X: np.ndarray, y: np.ndarray, ks: Sequence[int], *,
                  specs: dict[str, SelectorSpec] = SELECTOR_SPECS) -> dict[int, list[int]]:
    """The picks of ``selector`` (a name of the registry ``specs``) at every budget of ``ks``.

    A nested selector (:attr:`ensel.select.SelectorSpec.nested`) is fitted once at the
    largest budget and its first ``k`` picks are its size-``k`` choice; any other is fitted
    once per budget, so it is never evaluated on a prefix that is not its choice.
    """
    spec = specs[selector]
    if spec.nested:
        def fit(budget: int) -> list[int]:
            return [int(j) for j in spec.estimator(budget).fit(X, y).selected_]

        registry = {id(SELECTOR_SPECS): "binary",
                    id(MULTICLASS_SELECTOR_SPECS): "options"}.get(id(specs))
        # one fit per distinct training part, shared across calls and pages (ensel._picks),
        # keyed by the estimator's class too: a name registered anew is another selector
        est = spec.estimator
        who = f"{selector}:{getattr(est, '__module__', '')}.{getattr(est, '__qualname__', est)}"
        path = (fit(ks[-1]) if registry is None
                else nested_path(registry, who, X, y, int(ks[-1]), fit))
        return {k: path[:k] for k in ks}
    return {k: [int(j) for j in spec.estimator(k).fit(X, y).selected_] for k in ks}


def _evaluation_inputs(X: Any, y: Any, selectors: Sequence[str] | None,
                       aggregators: Sequence[str] | None, names: Sequence[str] | None,
                       item_ids: Any, *, exhaustive: bool, inner: bool, label_free: bool
                       ) -> tuple[Any, ...]:
    """:func:`heldout_errors`' inputs checked: whether ``X`` holds options (an
    ``OptionMatrix``), the selector registry, the selectors and aggregators, the answers,
    labels and which items have gold, and the default model names and item ids."""
    from ensel.aggregate import MULTICLASS_SPECS as MULTICLASS_AGGREGATOR_SPECS
    from ensel.data import OptionMatrix

    for flag, value in (("inner", inner), ("label_free", label_free)):
        if not isinstance(value, (bool, np.bool_)):
            raise constraint_error(flag, "a bool", value)
    options = isinstance(X, OptionMatrix)  # the one switch: binary answers or option codes
    sel_specs = MULTICLASS_SELECTOR_SPECS if options else SELECTOR_SPECS
    agg_specs = MULTICLASS_AGGREGATOR_SPECS if options else AGGREGATOR_SPECS
    selectors = check_options(
        (tuple(sel_specs) if options else PAPER_SELECTORS) if selectors is None else selectors,
        "selectors", list(sel_specs))
    aggregators = check_options(
        (tuple(agg_specs) if options else PAPER_AGGREGATORS) if aggregators is None
        else aggregators, "aggregators", list(agg_specs))
    if label_free:
        needs = [a for a in aggregators if not agg_specs[a].label_free]
        if needs:
            raise constraint_error(
                "aggregators", "label-free aggregators with label_free=True (fitted without "
                f"gold): {[a for a in agg_specs if agg_specs[a].label_free]}",
                Shown(f"{needs[0]!r}, which is fitted on gold"))
    if options:
        if y is not None:
            raise constraint_error("y", "None for an OptionMatrix (its gold is the labels)",
                                   Shown(f"a {type(y).__name__}"))
        if exhaustive:
            raise constraint_error("exhaustive", "False for an OptionMatrix (the exhaustive "
                                   "search counts binary answer patterns)", True)
        Xa, gold, _ = check_options_X_y(X.A, X.gold, require_y=True)
        assert gold is not None
        ya = gold
        has_gold = ya != NO_OPTION
        names = X.models if names is None else names
        item_ids = X.items if item_ids is None else item_ids
    else:
        if y is None:
            raise constraint_error("y", "labels in {-1, +1} (only an OptionMatrix carries its "
                                   "own gold)", None)
        Xa, ya = check_X_y(X, y, require_both_classes=True)
        has_gold = np.ones(len(ya), dtype=bool)
    return (options, sel_specs, selectors, aggregators, Xa, ya, has_gold, names, item_ids)


def _exhaustive_rows(tabs: dict[int, dict[str, np.ndarray]],
                     in_tabs: dict[int, dict[str, np.ndarray]], kk: list[int],
                     names: list[str], acc: np.ndarray, *, split: int, n_te: int,
                     inner: bool) -> list[tuple[Any, ...]]:
    """:func:`heldout_errors`' rows of the exhaustive subsets of one split from its tables
    (``tabs``: fitted on the training part, scored on the test part; ``in_tabs``: on the
    inner split of the training part): the oracle, the largest-MI subset and the nested
    choice, the subset with the smallest MAP error on the inner split."""
    rows: list[tuple[Any, ...]] = []
    for k in kk:
        t = tabs[k]
        nested = {tuple(c): i for i, c in enumerate(t["combos"].tolist())}[
            tuple(in_tabs[k]["combos"][int(np.argmin(in_tabs[k]["error"]))].tolist())]
        for name, r in (("exhaustive", int(np.argmin(t["error"]))),
                        ("exhaustive_mi", int(np.argmax(t["mi"]))),
                        ("exhaustive_nested", nested)):
            cols = [int(j) for j in t["combos"][r]]
            rows.append((split, name, "map", k, float(t["error"][r]),
                         SEP.join(names[j] for j in cols), float(acc[cols].mean()),
                         n_te) + ((float("nan"),) if inner else ()))
    return rows


#: The binary aggregators whose errors :func:`_prefix_errors` computes along a pick path.
_PREFIX_AGGREGATORS = ("map", "mv", "wmv")


def _prefix_errors(part: tuple[np.ndarray, ...], path: Sequence[int], lengths: Sequence[int],
                   aggregators: Sequence[str]) -> dict[tuple[str, int], float]:
    """The errors of MAP, majority vote and weighted vote on the first ``k`` models of
    ``path`` for every ``k`` of ``lengths``, in one pass along the path: exactly (bit for bit)
    what fitting each aggregator on those columns of ``part``'s training answers and scoring
    it with :func:`ensel.aggregate.heldout_error` on its test answers gives (the tests
    compare them).

    MAP's decision is the sign of ``C+ - C-`` of the row's answer pattern (a tie, an unseen
    pattern included, counts half): the patterns of the first ``k`` models are the groups
    of the first ``k - 1`` split by the ``k``-th model's answer digit
    (:func:`ensel._kernels.code_groups` on training and test rows together, so a test
    pattern no training row has is a group without counts). Majority vote's vote sum grows
    by one column per step. The weighted vote's log-odds weights are per column (each
    model's training accuracy), so the first ``k`` of one fit on the whole path are those of
    a fit on the first ``k`` models, and its score is the same product the aggregator
    computes.
    """
    from ensel.aggregate import make_aggregator

    Xf, yf, Xe, ye = part
    path = [int(j) for j in path][:max(lengths)]
    want = sorted(set(int(k) for k in lengths))
    # each aggregator's decision value per test item and budget: +1 where >= 0, a tie at 0
    values: dict[str, list[np.ndarray]] = {agg: [] for agg in aggregators}
    n_f = len(yf)
    # +1 per positive, -1 per negative training row: one weighted count of a group is its
    # C+ - C- (small integers, exact in float64)
    sign_f = np.where(yf == 1, 1.0, -1.0)
    digits = (kernels.answer_digits(np.concatenate([Xf[:, path], Xe[:, path]]))
              if "map" in aggregators else None)
    group = np.zeros(n_f + len(ye), dtype=np.int64)
    n_groups = 1
    votes = np.zeros(len(ye), dtype=np.int64)
    w = (make_aggregator("wmv").fit(Xf[:, path], yf).weights_ if "wmv" in aggregators
         else None)
    for i, j in enumerate(path):
        k = i + 1
        votes += Xe[:, j]
        if digits is not None:  # kernels.code_groups' numbering, without its rows
            codes = group * 3 + digits[:, i]
            seen = np.zeros(3 * n_groups, dtype=bool)
            seen[codes] = True
            number = np.cumsum(seen) - 1
            group = number[codes]
            n_groups = int(number[-1]) + 1
        if k not in want:
            continue
        if digits is not None:  # C+ - C- of each test item's pattern
            values["map"].append(np.bincount(group[:n_f], weights=sign_f,
                                             minlength=n_groups)[group[n_f:]])
        if "mv" in aggregators:
            values["mv"].append(votes.copy())
        if w is not None:
            values["wmv"].append(Xe[:, path[:k]].astype(np.float64) @ w[:k])
    out: dict[tuple[str, int], float] = {}
    for agg, cols in values.items():
        v = np.column_stack(cols)
        # ensel.aggregate.half_tie_error of each budget: a tie counts half (the sums of 0,
        # 1/2 and 1 are exact in any order, so the means are its numbers bit for bit)
        wrong = np.where(v == 0, 0.5, (np.where(v >= 0, 1, -1) != ye[:, None]).astype(float))
        out.update(zip([(agg, k) for k in want], wrong.mean(axis=0).tolist(), strict=True))
    return out


def _scored_arms(part: tuple[np.ndarray, ...], selectors: Sequence[str],
                 aggregators: Sequence[str], kk: list[int], sel_specs: Any, *,
                 random_state: int, label_free: bool, options: bool,
                 n_options: tuple[np.ndarray, np.ndarray] | None = None
                 ) -> dict[tuple[str, str, int], tuple[float, list[int]]]:
    """Every arm of :func:`heldout_errors` fitted on ``part``'s training answers and scored on
    its test answers (``X_fit, y_fit, X_eval, y_eval``): its error and picks per (selector,
    aggregator, k); ``n_options``: the option counts of the fit and eval items.

    The paper's aggregators (binary answers, fitted on gold) are scored along each
    selector's pick path at once (:func:`_prefix_errors`), and once per distinct path: two
    selectors that pick the same models in the same order share their scores. The others
    are fitted once per distinct set of columns (in pick order)."""
    from ensel.aggregate import heldout_error, make_aggregator

    Xf, yf, Xe, ye = part
    kf, ke = n_options if n_options is not None else (None, None)
    per_item = {} if kf is None else {"n_options": kf}
    fast = ([a for a in aggregators if a in _PREFIX_AGGREGATORS]
            if not options and not label_free and np.unique(yf).size == 2 else [])
    shared: dict[tuple[int, ...], dict[tuple[str, int], float]] = {}
    # an aggregator fitted on the same columns of the same part (two selectors choosing the
    # same models, every selector at k = m) gives the same error: one fit per columns
    fitted: dict[tuple[str, tuple[int, ...]], float] = {}
    out = {}
    for sel in selectors:
        picks = _nested_picks(sel, Xf, yf, kk, specs=sel_specs)
        path = tuple(picks[kk[-1]])
        prefixes = all(picks[k] == list(path[:k]) for k in kk)
        if fast and prefixes and path not in shared:
            shared[path] = _prefix_errors(part, path, kk, fast)
        for k in kk:
            cols = picks[k]
            for agg in aggregators:
                if agg in fast:
                    scores = (shared[path] if prefixes
                              else _prefix_errors(part, cols, [k], [agg]))
                    out[(sel, agg, k)] = (scores[(agg, k)], cols)
                    continue
                key = (agg, tuple(cols))
                if key not in fitted:
                    model = make_aggregator(agg, random_state=random_state).fit(
                        Xf[:, cols], None if label_free else yf, **per_item)
                    fitted[key] = (_option_heldout_error(model, Xe[:, cols], ye, ke)
                                   if options else heldout_error(model, Xe[:, cols], ye))
                out[(sel, agg, k)] = (fitted[key], cols)
    return out


def heldout_errors(X: Any, y: Any = None, *, ks: Iterable[int] | None = None,
                   protocol: Protocol = PAPER_PROTOCOL, condition: Any = "all",
                   selectors: Sequence[str] | None = None,
                   aggregators: Sequence[str] | None = None,
                   names: Sequence[str] | None = None,
                   exhaustive: bool = False, item_ids: Any = None,
                   n_jobs: int | None = None, inner: bool = False,
                   label_free: bool = False) -> pd.DataFrame:
    """Held-out errors of nested selections on seeded random splits: the one evaluation loop.

    On each of the protocol's ``n_splits`` splits (:func:`split_indices`, seeded by ``(seed,
    condition, split)``) every selector picks ``max(ks)`` models on the training part once;
    for each ``k`` its first ``k`` picks are aggregated by every aggregator fitted on the
    training part and scored on the test part (:func:`ensel.aggregate.heldout_error`: a tied
    prediction counts as half an error, so majority vote's tie coin, seeded by the same
    ``(seed, condition, split)``, never changes an error). :func:`evaluate` runs this per
    condition of a tidy table.

    **Multiple-choice answers.** An :class:`ensel.data.OptionMatrix` (from
    :func:`ensel.data.answer_matrix`) is evaluated natively: the type of ``X`` is the one
    switch, never its values (the codes ``{-1, 0, 1}`` are binary answers in an array and
    options in an ``OptionMatrix``). Its gold is ``y`` (pass ``y=None``), its models name the
    ``selected`` column and its items seed the splits (unless ``names``/``item_ids`` say
    otherwise); the selectors are :data:`ensel.select.MULTICLASS_SPECS` and the aggregators
    :data:`ensel.aggregate.MULTICLASS_SPECS`, the error of a tie among ``t`` options counts
    ``1 - 1/t`` (:func:`ensel.aggregate.heldout_error`). Each item keeps its own options
    (its ``n_options``, passed to every aggregator's fit and scoring): none is predicted an
    option it does not have, and its ties are among its own options. Items without gold
    are split with the others: the selectors leave them out, the aggregators fit on them (a
    label-free one uses them) and the error and ``n_test`` count only the test items with
    gold. An option
    seen in the test part but never in the training answers (or gold) an aggregator was fitted
    on counts as no answer, and a test gold it never saw as an error
    (:func:`_option_heldout_error`). The exhaustive search counts binary patterns and is
    refused here.

    Parameters
    ----------
    X : array-like of shape (n_items, n_models), or ensel.data.OptionMatrix
        Answers in ``{-1, 0, +1}``, or multiple-choice answers as option codes.
    y : array-like of shape (n_items,), optional
        Labels in ``{-1, +1}``; both classes must be present. ``None`` for an
        ``OptionMatrix`` (its ``gold``), required otherwise.
    ks : iterable of int, optional
        Budgets, each in ``[1, n_models]`` (default: all).
    protocol : ensel.protocol.Protocol, default=PAPER_PROTOCOL
        Its ``n_splits``, ``test_fraction`` and ``seed`` (5 random 80/20 splits, seed 0).
    condition : hashable, default="all"
        Enters the split seeds.
    selectors : sequence of str, optional
        Names of :data:`ensel.select.SELECTORS` (default :data:`PAPER_SELECTORS`), or of
        :data:`ensel.select.MULTICLASS_SELECTORS` for an ``OptionMatrix`` (default: all).
    aggregators : sequence of str, optional
        Names of :data:`ensel.aggregate.AGGREGATORS` (default :data:`PAPER_AGGREGATORS`), or
        of :data:`ensel.aggregate.MULTICLASS_AGGREGATORS` for an ``OptionMatrix`` (default:
        all).
    names : sequence of str, optional
        Model names for the ``selected`` column (default: column indices).
    exhaustive : bool, default=False
        Add the ``"exhaustive"`` (oracle) and ``"exhaustive_mi"`` subsets (MAP).
    item_ids : array-like of shape (n_items,), optional
        The rows' item ids: the splits depend on them, not on the rows' positions
        (:func:`split_indices`; default: the row numbers).
    n_jobs : int, optional
        Splits run on this many threads (``None``: 1, ``-1``: one per core); the output is
        the same whatever ``n_jobs``.
    inner : bool, default=False
        Add the column ``inner_error``: each (selector, aggregator, k)'s error when the
        whole procedure (the picks and the aggregator) is fitted on the inner training part
        of the split and scored on its inner held-out part (the inner split of the nested
        best subset, seed ``seed + 1``), never looking at the test part: what a nested
        choice of ``k`` reads (the book's claims choose each arm's best ``k`` on it).
    label_free : bool, default=False
        Fit the aggregators on the training answers without their gold (each must be
        label-free, e.g. Dawid-Skene: the ``label_free`` field of its
        :class:`ensel.aggregate.AggregatorSpec`); the selectors still pick on the training
        gold. The test gold scores them as always.

    Returns
    -------
    pandas.DataFrame
        Columns ``split, selector, aggregator, k, error, selected, selected_accuracy,
        n_test`` (``selected``: model names of the first ``k`` picks joined by ``"|"``),
        and ``inner_error`` with ``inner=True`` (NaN on the exhaustive rows).

    Examples
    --------
    >>> import numpy as np
    >>> from ensel.copula import sample_equicorrelated
    >>> X, y, _ = sample_equicorrelated(0.7, 0.3, 4, 2000, random_state=0)
    >>> from ensel.protocol import Protocol
    >>> errs = heldout_errors(X, y, ks=[1, 3], protocol=Protocol(n_splits=2),
    ...                       selectors=["topk", "greedy_mi"])
    >>> errs.shape
    (24, 8)
    """
    return _heldout_errors(X, y, ks=ks, protocol=protocol, condition=condition,
                           selectors=selectors, aggregators=aggregators, names=names,
                           exhaustive=exhaustive, item_ids=item_ids, n_jobs=n_jobs,
                           inner=inner, label_free=label_free)


def _heldout_errors(X: Any, y: Any, *, ks: Iterable[int] | None, protocol: Protocol,
                    condition: Any, selectors: Sequence[str] | None,
                    aggregators: Sequence[str] | None, names: Sequence[str] | None,
                    exhaustive: bool, item_ids: Any, n_jobs: int | None, inner: bool,
                    label_free: bool, keys: np.ndarray | None = None) -> pd.DataFrame:
    """:func:`heldout_errors`; ``keys``: the items' split keys (:func:`_item_keys` of
    ``item_ids``) when the caller has them (the halves of :func:`half_sample_errors`)."""
    pr = _check_protocol(protocol)  # a Protocol checked its numbers when made
    n_splits, test_fraction, seed = pr.n_splits, pr.test_fraction, pr.seed
    (options, sel_specs, selectors, aggregators, Xa, ya, has_gold, names,
     item_ids) = _evaluation_inputs(X, y, selectors, aggregators, names, item_ids,
                                    exhaustive=exhaustive, inner=inner, label_free=label_free)
    n, m = Xa.shape
    names = [str(j) for j in range(m)] if names is None else [str(v) for v in names]
    if len(names) != m:
        raise constraint_error("names", f"{m} model names (one per column)", len(names))
    kk = _check_ks(ks, m, condition)
    if exhaustive:  # fail before the expensive part if m is too large
        exhaustive_errors(Xa[:2], ya[:2], Xa[:1], ya[:1], [])
    jobs = _jobs(n_jobs)
    keys = _item_keys(item_ids, n) if keys is None else keys
    splits = _protocol_splits(keys, condition=condition, n_splits=n_splits,
                              seed=seed, test_fraction=test_fraction, inner=exhaustive or inner)
    # the exhaustive tables of every split and of its inner split, from one scan
    tables = (_exhaustive_tables(Xa, ya, [p for tr, te, itr, iva in splits
                                          for p in ((tr, te, True), (tr[itr], tr[iva], False))],
                                 kk) if exhaustive else [])
    n_opts = np.asarray(X.n_options) if options else None  # each item's own option count

    def one_split(split: int) -> list[tuple[Any, ...]]:
        rows: list[tuple[Any, ...]] = []
        tr, te, itr, iva = splits[split]
        Xtr, ytr, Xte, yte = Xa[tr], ya[tr], Xa[te], ya[te]
        g = has_gold[tr]  # the accuracy (and the error) read the items with gold
        mv_seed = _mv_seed(seed, condition, split)
        n_te = int(has_gold[te].sum())

        def scored(Xf: np.ndarray, yf: np.ndarray, Xe: np.ndarray, ye: np.ndarray,
                   fit_rows: np.ndarray, eval_rows: np.ndarray
                   ) -> dict[tuple[str, str, int], tuple[float, list[int]]]:
            return _scored_arms((Xf, yf, Xe, ye), selectors, aggregators, kk, sel_specs,
                                random_state=mv_seed, label_free=label_free, options=options,
                                n_options=None if n_opts is None else
                                (n_opts[fit_rows], n_opts[eval_rows]))

        on_inner = (scored(Xtr[itr], ytr[itr], Xtr[iva], ytr[iva], tr[itr], tr[iva])
                    if inner else {})
        arms = scored(Xtr, ytr, Xte, yte, tr, te)
        # training accuracies of the picked models only (of all with the exhaustive rows):
        # each is a count over the items with gold, the same number whichever columns are
        # computed with it
        used = (np.arange(m) if exhaustive
                else np.unique(np.array([j for _, cols in arms.values() for j in cols],
                                        dtype=np.int64)))
        acc = np.full(m, np.nan)
        acc[used] = (Xtr[np.ix_(np.flatnonzero(g), used)] == ytr[g, None]).mean(axis=0)
        for (sel, agg, k), (err, cols) in arms.items():
            rows.append((split, sel, agg, k, err, SEP.join(names[j] for j in cols),
                         float(acc[cols].mean()), n_te)
                        + ((on_inner[(sel, agg, k)][0],) if inner else ()))
        if exhaustive:
            rows += _exhaustive_rows(tables[2 * split], tables[2 * split + 1], kk, names, acc,
                                     split=split, n_te=n_te, inner=inner)
        return rows

    rows = [r for part in _map_in_order(one_split, range(n_splits), jobs) for r in part]
    return pd.DataFrame(rows, columns=["split", "selector", "aggregator", "k", "error",
                                       *_EXTRA_COLUMNS, *([INNER_COLUMN] if inner else [])])


# --------------------------------------------------------------------------- evaluate
@dataclass(frozen=True)
class ConditionData:
    """One condition of a tidy table as arrays, in the canonical order of
    :func:`condition_arrays` (items and models sorted by their text).

    A binary table gives ``X`` in ``{-1, 0, +1}`` and ``y`` in ``{-1, +1}``; a multi-class
    table (:func:`ensel.data.is_native`) gives the option codes of
    :func:`ensel.data.answer_matrix` (``X``: ``0..K_i-1``, ``-1`` = abstained; ``y``: the gold
    option, ``-1`` = no gold) and ``options``, each item's option labels (``None`` for a
    binary table). :meth:`ConditionData.inputs` is what :func:`heldout_errors` takes for either.
    """

    condition: str
    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    models: list[str] = field(repr=False)
    items: np.ndarray = field(repr=False)
    options: list[tuple[str, ...]] | None = field(default=None, repr=False)

    @property
    def native(self) -> bool:
        """Whether the answers are option codes (a multi-class table)."""
        return self.options is not None

    def answered(self) -> np.ndarray:
        """Which cells hold an answer (not an abstention), items x models."""
        return self.X >= 0 if self.native else self.X != 0

    def has_gold(self) -> np.ndarray:
        """Which items have a gold label (a binary table's gaps are label ``0``)."""
        return self.y >= 0 if self.native else self.y != 0

    def subset(self, rows: Any = None, cols: Sequence[int] | None = None) -> ConditionData:
        """These rows (items) and columns (models) only, in the given order."""
        r = slice(None) if rows is None else np.asarray(rows)
        X = self.X[r]
        if cols is not None:
            X = np.ascontiguousarray(X[:, list(cols)])
        items = np.asarray(self.items)[r]
        opts = None
        if self.options is not None:
            idx = np.arange(len(self.y))[r]
            opts = [self.options[i] for i in idx.tolist()]
        models = self.models if cols is None else [self.models[j] for j in cols]
        return ConditionData(self.condition, X, self.y[r], models, items, opts)

    def inputs(self, rows: Any = None) -> tuple[Any, Any]:
        """``(X, y)`` of :func:`heldout_errors` for these rows: the binary arrays, or an
        :class:`ensel.data.OptionMatrix` and ``None`` (its gold is its labels)."""
        d = self if rows is None else self.subset(rows)
        if d.options is None:
            return d.X, d.y
        from ensel.data import OptionMatrix

        return OptionMatrix(d.X, d.y, d.options, list(d.items), list(d.models),
                            d.condition), None


def condition_data(df: pd.DataFrame, conditions: Sequence[Any] | None = None, *,
                   validate: bool = True, gaps: bool = False) -> list[ConditionData]:
    """Validate a tidy table once and pivot each condition once (:func:`condition_arrays`);
    ``gaps``: a binary table whose gold has gaps is accepted (label ``0`` = no gold).

    :func:`evaluate` and :func:`half_sample_errors` accept the result in place of the table,
    so several protocol runs on one table share one validation and one pivot.

    Examples
    --------
    >>> from ensel.datasets import load
    >>> data = condition_data(load("medmcqa", n_items=200, cache=False))
    >>> [d.condition for d in data][:2], data[0].X.shape
    (['t0.01-r1', 't0.01-r2'], (200, 12))
    """
    df, conds = prepare_table(df, validate=validate, gaps=gaps)
    if conditions is not None:
        by_text = {str(c): c for c in conds}
        unknown = [c for c in conditions if str(c) not in by_text]
        if unknown:
            raise UsageError(f"condition {unknown[0]!r} not in the table; available: "
                             f"{[str(c) for c in conds]}")
        conds = sorted({by_text[str(c)] for c in conditions}, key=str)
    from ensel.data import is_native

    if is_native(df):  # option codes, in the same canonical order
        return [_native_condition(df, c) for c in conds]
    out = []
    for c in conds:
        X, y, names, ids = condition_arrays(df, c, gaps=gaps)
        out.append(ConditionData(str(c), X, y, names, ids))
    return out


def _native_condition(df: pd.DataFrame, condition: Any) -> ConditionData:
    """:func:`condition_data` of one condition of a multi-class table: the codes of
    :func:`ensel.data.answer_matrix`, items and models sorted by their text (as
    :func:`condition_arrays`), so nothing depends on the order of the rows."""
    from ensel.data import answer_matrix

    m = answer_matrix(df, condition, validate=False)
    items = np.asarray(m.items, dtype=object)
    ri = np.argsort(items.astype(str), kind="stable")
    models = [str(v) for v in m.models]
    ci = np.argsort(np.asarray(models), kind="stable")
    A = np.ascontiguousarray(m.A[np.ix_(ri, ci)])
    return ConditionData(str(condition), A, m.gold[ri], [models[j] for j in ci], items[ri],
                         [m.options[i] for i in ri.tolist()])


def _as_data(df: Any) -> tuple[list[ConditionData], dict[str, Any]]:
    """The conditions' arrays and the input's provenance (both independent of row order)."""
    if isinstance(df, pd.DataFrame):
        df, _ = prepare_table(df)
        prov = _provenance(df)
        return condition_data(df), prov
    data = list(df) if isinstance(df, (list, tuple)) else None
    if not data or not all(isinstance(d, ConditionData) for d in data):
        raise constraint_error("df", "a tidy pandas DataFrame or the list of condition_data()",
                               type(df).__name__)
    import hashlib

    h = hashlib.sha256()
    for d in data:
        h.update(str(d.condition).encode())
        h.update(np.ascontiguousarray(d.X).tobytes())
        h.update(np.ascontiguousarray(d.y).tobytes())
        h.update("\x00".join(d.models).encode())
        h.update("\x00".join(np.asarray(d.items).astype(str)).encode())
        if d.options is not None:  # a multi-class table: its option sets too
            h.update("\x00".join("|".join(o) for o in d.options).encode())
    return data, {"input_sha256": h.hexdigest(),
                  "n_rows": int(sum(d.X.shape[0] * d.X.shape[1] for d in data))}


def _default_arms(data: Sequence[ConditionData], selectors: Sequence[str] | None,
                  aggregators: Sequence[str] | None) -> tuple[Sequence[str], Sequence[str]]:
    """The selectors and aggregators of :func:`evaluate` (the paper's for binary answers,
    every K-ary one for option codes) where not given."""
    if data and data[0].native:
        from ensel.aggregate import MULTICLASS_SPECS

        return (tuple(MULTICLASS_SELECTOR_SPECS) if selectors is None else selectors,
                tuple(MULTICLASS_SPECS) if aggregators is None else aggregators)
    return (PAPER_SELECTORS if selectors is None else selectors,
            PAPER_AGGREGATORS if aggregators is None else aggregators)


def evaluate(df: pd.DataFrame | Sequence[ConditionData], *, ks: Iterable[int] | None = None,
             n_splits: int = PAPER_PROTOCOL.n_splits,
             test_fraction: float = PAPER_PROTOCOL.test_fraction,
             seed: int = PAPER_PROTOCOL.seed,
             selectors: Sequence[str] | None = None,
             aggregators: Sequence[str] | None = None,
             exhaustive: bool = False, n_jobs: int | None = None,
             protocol: Protocol | None = None, inner: bool = False) -> pd.DataFrame:
    """Run the paper's protocol on a tidy responses table.

    For each condition and each of ``n_splits`` random splits (seeded per condition and split,
    see :func:`split_indices`): every selector picks ``max(ks)`` models on the training part;
    for each ``k`` in ``ks`` the first ``k`` picks are aggregated by every aggregator fitted on
    the training part, and the error is measured on the test part.

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy responses (``item, model, condition, answer, label``), e.g. from
        :func:`ensel.datasets.load`, or its :func:`condition_data`. Conditions are
        evaluated in the order of their text and the output does not depend on the order of
        the table's rows.
    ks : iterable of int, optional
        Budgets; default ``1..m`` (per condition). Each must satisfy ``1 <= k <= m``.
    n_splits : int, default=5
        Random splits per condition.
    test_fraction : float, default=0.2
        Fraction of items held out, in ``(0, 1)``.
    seed : int, default=0
        Base seed (splits; a tie counts as half an error, so no tie coin enters).
    selectors : sequence of str, optional
        Names of :data:`ensel.select.SELECTORS` (default: the paper's four, ``topk,
        relevance, mrmr, greedy_mi``), or for a multi-class table of
        :data:`ensel.select.MULTICLASS_SELECTORS` (default: all of them).
    aggregators : sequence of str, optional
        Names of :data:`ensel.aggregate.AGGREGATORS` (default: the paper's ``map, mv,
        wmv``), or for a multi-class table of :data:`ensel.aggregate.MULTICLASS_AGGREGATORS`
        (default: all of them); every selector is evaluated under every aggregator.
    exhaustive : bool, default=False
        Add the ``"exhaustive"`` (oracle: smallest held-out MAP error) and ``"exhaustive_mi"``
        (largest training ``I(Y; X_S)``) subsets at each ``k``, both with MAP.
    n_jobs : int, optional
        Threads for the splits (:func:`heldout_errors`); the output is the same whatever
        ``n_jobs``.
    protocol : ensel.protocol.Protocol, optional
        The protocol, as every other function of the library takes it. ``n_splits``,
        ``test_fraction`` and ``seed`` are the public contract's spelling of the same three
        numbers (:data:`ensel.protocol.PAPER_PROTOCOL`'s defaults), converted here to a
        protocol; give one or the other, not both.
    inner : bool, default=False
        Add ``inner_error``, every arm's error on the inner split of each training part
        (:func:`heldout_errors`): the nested choice of each arm's best ``k``.

    **A multi-class table** (option labels, :func:`ensel.data.is_native`) is evaluated as
    it is, by :func:`heldout_errors` on each condition's
    :class:`ensel.data.OptionMatrix`: the K-ary selectors and aggregators, the same splits and
    columns; a tie among ``t`` options counts ``1 - 1/t`` of an error, and items without gold
    are split with the others but scored (``error``, ``n_test``) only where they have gold.
    A binary table's output is unchanged by this.

    Returns
    -------
    pandas.DataFrame
        Columns ``condition, split, selector, aggregator, k, error`` (the contract) then
        ``selected`` (model names in pick order joined by ``"|"``), ``selected_accuracy``
        (mean training accuracy of those models), ``n_test`` and, with ``inner=True``,
        ``inner_error``.

    Raises
    ------
    ValueError
        Bad ``ks`` (not integers, beyond ``m``), ``test_fraction`` outside ``(0, 1)``,
        ``n_splits < 1``, unknown selector or aggregator, exhaustive search on too many models.

    Examples
    --------
    >>> from ensel.datasets import load
    >>> df = load("medmcqa", n_items=400, cache=False)
    >>> res = evaluate(df, ks=[1, 3], n_splits=2)
    >>> sorted(res["selector"].unique())
    ['greedy_mi', 'mrmr', 'relevance', 'topk']
    >>> len(res)
    288
    """
    loose = {"n_splits": n_splits, "test_fraction": test_fraction, "seed": seed}
    if protocol is None:  # the contract's loose numbers, as a protocol
        protocol = Protocol(n_splits=check_int(n_splits, "n_splits", low=1),
                            test_fraction=check_real(test_fraction, "test_fraction", low=0,
                                                     high=1, low_open=True, high_open=True),
                            seed=check_int(seed, "seed", low=0))
    else:
        given = [k for k, v in loose.items() if v != getattr(PAPER_PROTOCOL, k)]
        if given:
            raise UsageError(f"evaluate: give protocol= or {', '.join(given)}, not both "
                             "(the protocol holds them)")
    pr = _check_protocol(protocol)
    n_splits, test_fraction, seed = pr.n_splits, pr.test_fraction, pr.seed
    ks_in = None if ks is None else list(ks) if not isinstance(ks, (int, np.integer)) else [ks]
    data, prov = _as_data(df)
    selectors, aggregators = _default_arms(data, selectors, aggregators)
    parts = []
    for d in data:
        part = heldout_errors(*d.inputs(), ks=_check_ks(ks_in, d.X.shape[1], d.condition),
                              protocol=pr, condition=d.condition, selectors=selectors,
                              aggregators=aggregators, names=d.models, exhaustive=exhaustive,
                              item_ids=d.items, n_jobs=n_jobs, inner=inner)
        parts.append(part.assign(condition=d.condition))
    out = pd.concat(parts, ignore_index=True)[RESULT_COLUMNS + _EXTRA_COLUMNS
                                              + ([INNER_COLUMN] if inner else [])]
    out["condition"] = out["condition"].astype(str)
    for col in ("split", "k", "n_test"):
        out[col] = out[col].astype("int64")
    for col in ("error", "selected_accuracy", *([INNER_COLUMN] if inner else [])):
        out[col] = out[col].astype("float64")
    for col in ("selector", "aggregator", "selected"):
        out[col] = out[col].astype(str)
    out.attrs["provenance"] = _provenance(None, base=prov, ks=ks_in, n_splits=n_splits,
                                          test_fraction=test_fraction, seed=int(seed),
                                          selectors=selectors, aggregators=aggregators,
                                          exhaustive=bool(exhaustive),
                                          **({"inner": True} if inner else {}))
    return out


#: Halvings of the items for the variance check of the intervals (see :mod:`ensel.stats`).
#: At least this many evaluations (conditions x splits) on each half of a halving.
_EVALS_PER_HALF = 4
_HALVING_KEY = 0x48414C46  # "HALF": keeps the halvings' seeds apart from the splits'


def _with_constants(parts: Sequence[pd.DataFrame], **columns: Sequence[Any]) -> pd.DataFrame:
    """``pd.concat([p.assign(**{c: v[i] for c, v in columns.items()}) for i, p in
    enumerate(parts)], ignore_index=True)``: each part's constant values as new columns,
    added once to the concatenated frame (an ``assign`` per part costs more than its rows)."""
    out = pd.concat(parts, ignore_index=True)
    sizes = [len(p) for p in parts]
    for name, values in columns.items():
        out[name] = pd.Series(np.repeat(np.asarray(values, dtype=object), sizes),
                              index=out.index).infer_objects()
    return out


def half_splits(n_conditions: int) -> int:
    """Random splits per condition on each half of a halving: enough for 4 evaluations per
    half (the default of :func:`half_sample_errors`)."""
    return -(-_EVALS_PER_HALF // int(n_conditions))


def halvings(item_ids: Sequence[Any], n_halvings: int, *,
             seed: int = 0) -> Iterator[list[np.ndarray]]:
    """Seeded halvings of the items: for each, one mask per condition of its items in half A.

    ``item_ids`` holds each condition's item ids (compared as strings). The items of all
    conditions are halved together, so the same item falls in the same half in every
    condition (the conditions answer the same items).
    """
    ids = [np.asarray(i).astype(str) for i in item_ids]
    items = np.unique(np.concatenate(ids)) if ids else np.array([], dtype=str)
    where = [np.searchsorted(items, i) for i in ids]  # each id's place among the items, once
    for h in range(int(n_halvings)):
        rng = np.random.default_rng(np.random.SeedSequence([int(seed), _HALVING_KEY, h]))
        in_a = np.zeros(items.size, dtype=bool)
        in_a[rng.permutation(items.size)[: items.size // 2]] = True
        yield [in_a[w] for w in where]  # np.isin(ids, the items in half A), without a sort


def half_sample_errors(df: pd.DataFrame | Sequence[ConditionData], *,
                       ks: Iterable[int] | None = None,
                       protocol: Protocol = PAPER_PROTOCOL,
                       selectors: Sequence[str] | None = None,
                       aggregators: Sequence[str] | None = None,
                       n_jobs: int | None = None, inner: bool = False) -> pd.DataFrame:
    """The protocol of :func:`evaluate` replicated on disjoint halves of the items.

    For each of the protocol's ``n_halvings`` seeded halvings (:func:`halvings`) the items are
    split into two halves ``"A"`` and ``"B"`` (the same item falls in the same half in every
    condition, as the conditions answer the same items), and :func:`heldout_errors` runs on each
    half of each condition with the protocol's ``splits_per_half`` random splits. The two halves
    are independent data sets: how much their results differ measures the data-set-to-data-set
    variance of the evaluation, which the corrected interval only assumes
    (:func:`ensel.stats.paired_interval`, ``halves=``; :func:`half_sample_means`).

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy responses, as for :func:`evaluate`.
    ks, selectors, aggregators, n_jobs, inner
        As for :func:`evaluate` (no exhaustive scan; the halves run on the threads).
    protocol : ensel.protocol.Protocol, default=PAPER_PROTOCOL
        Its ``n_halvings`` (``M``, at least 2: the interval then has ``M - 1`` degrees of
        freedom), ``splits_per_half`` (random splits per condition on each half; ``None``:
        enough for 4 evaluations per half, 4 with one condition, 1 with the stand-ins'
        six), ``test_fraction`` and ``seed``.

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`evaluate` plus ``halving`` (0-based) and ``half``
        (``"A"``/``"B"``).

    Examples
    --------
    >>> from ensel.datasets import load
    >>> df = load("medmcqa", n_items=400, cache=False)
    >>> from ensel.protocol import Protocol
    >>> reps = half_sample_errors(df, protocol=Protocol(n_halvings=2), ks=[1, 3],
    ...                           selectors=["topk"], aggregators=["map"])
    >>> reps.groupby(["halving", "half"]).size().tolist()  # 6 conditions x 1 split x 2 k
    [12, 12, 12, 12]
    """
    pr = _check_protocol(protocol)
    seed, splits_per_half, test_fraction = pr.seed, pr.splits_per_half, pr.test_fraction
    n_halvings = check_int(pr.n_halvings, "n_halvings", low=2)
    ks_in = None if ks is None else list(ks) if not isinstance(ks, (int, np.integer)) else [ks]
    data, prov = _as_data(df)
    per_half = (half_splits(len(data)) if splits_per_half is None
                else check_int(splits_per_half, "splits_per_half", low=1))
    selectors, aggregators = _default_arms(data, selectors, aggregators)
    arrays = [(d, _check_ks(ks_in, d.X.shape[1], d.condition)) for d in data]
    jobs = _jobs(n_jobs)
    # each condition's split keys once: every half reads its rows' (the halves' many calls
    # of heldout_errors would hash the same item ids again)
    keys = {id(d): _item_keys(d.items, len(d.items)) for d, _ in arrays}
    tasks = [(h, a, half, rows)
             for h, masks in enumerate(halvings([a[0].items for a in arrays], n_halvings,
                                                seed=seed))
             for a, mask in zip(arrays, masks, strict=True)
             for half, rows in (("A", mask), ("B", ~mask))]

    def one_half(task: tuple[Any, ...]) -> pd.DataFrame:
        h, (d, kk), half, rows = task
        return _heldout_errors(*d.inputs(rows), ks=kk,
                               protocol=pr.replace(n_splits=per_half),
                               condition=f"{d.condition}/halving{h}{half}",
                               selectors=selectors, aggregators=aggregators,
                               names=d.models, exhaustive=False, item_ids=d.items[rows],
                               n_jobs=None, inner=inner, label_free=False,
                               keys=keys[id(d)][rows])

    parts = _map_in_order(one_half, tasks, jobs)
    out = _with_constants(parts, condition=[str(t[1][0].condition) for t in tasks],
                          halving=[t[0] for t in tasks], half=[t[2] for t in tasks])
    out = out[["halving", "half", *RESULT_COLUMNS, *_EXTRA_COLUMNS,
               *([INNER_COLUMN] if inner else [])]]
    out.attrs["provenance"] = _provenance(None, base=prov, ks=ks_in, n_halvings=n_halvings,
                                          splits_per_half=per_half,
                                          test_fraction=test_fraction, seed=int(seed),
                                          selectors=selectors, aggregators=aggregators)
    return out


def half_sample_means(replicates: pd.DataFrame, values: str = "error") -> pd.DataFrame:
    """Mean of ``values`` on each half of each halving, per ``(selector, aggregator, k)``.

    Returns a table indexed by ``(halving, half)`` with one column per ``(selector,
    aggregator, k)``: a linear combination of its columns gives, per halving, the pair
    ``(a_m, b_m)`` that :func:`ensel.stats.paired_interval` takes as ``halves``.
    """
    need = {"halving", "half", "selector", "aggregator", "k", values}
    if not isinstance(replicates, pd.DataFrame) or not need <= set(replicates.columns):
        raise DataError(f"replicates must be the output of half_sample_errors() with "
                         f"columns {sorted(need)}")
    return replicates.pivot_table(index=["halving", "half"],
                                  columns=["selector", "aggregator", "k"],
                                  values=values, aggfunc="mean").sort_index()


def selected_models(selected: str) -> list[str]:
    """Split a ``selected`` cell of the results back into model names (pick order)."""
    return str(selected).split(SEP) if selected else []


# --------------------------------------------------------------------------- summaries
def validate_results(results: pd.DataFrame) -> None:
    if not isinstance(results, pd.DataFrame):
        raise UsageError(f"results must be a DataFrame from evaluate(); got {type(results)}")
    missing = [c for c in RESULT_COLUMNS if c not in results.columns]
    if missing:
        raise DataError(f"results lack columns {missing}; expected the output of evaluate()")


def summarise(results: pd.DataFrame, *, by: Sequence[str] = (), ddof: int = 1) -> pd.DataFrame:
    """Mean +- std of the test error over evaluations, per ``(selector, aggregator, k)``.

    Parameters
    ----------
    results : pandas.DataFrame
        Output of :func:`evaluate`.
    by : sequence of str, default=()
        Extra grouping columns, e.g. ``("condition",)`` for the per-condition panels.
    ddof : int, default=1
        Delta degrees of freedom of the standard deviation (1: sample std; the paper does not
        say which it used).

    Returns
    -------
    pandas.DataFrame
        Columns ``*by, selector, aggregator, k, mean, std, n``.
    """
    validate_results(results)
    keys = [*by, "selector", "aggregator", "k"]
    g = results.groupby(keys, sort=True)["error"]
    out = g.agg(mean="mean", n="size").reset_index()
    out["std"] = g.std(ddof=ddof).to_numpy()
    out["std"] = out["std"].fillna(0.0)
    return out[[*keys, "mean", "std", "n"]]


def paired_differences(results: pd.DataFrame, a: str = "greedy_mi", b: str = "topk",
                       aggregator: str = "map", *, aggregator_b: str | None = None,
                       k_b: int | None = None, confidence: float = 0.95, n_boot: int = 2000,
                       seed: int = 0, correct: bool = True,
                       test_fraction: float | None = None,
                       replicates: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per ``k``: error of ``a`` minus error of ``b`` paired on the same (condition, split).

    Negative differences mean ``a`` is better. The random splits overlap (two training
    parts share most items), so the evaluations are positively correlated and the naive
    t-interval ``t * s / sqrt(n)`` is too narrow. By default the interval and p-value use
    Nadeau & Bengio's corrected resampled t (:func:`ensel.stats.paired_interval`: variance
    ``(1/n + n_test/n_train) * s^2``), and ``verdict`` says ``"holds"`` (``a`` better beyond
    the noise), ``"within noise"`` or ``"contradicted"`` (``b`` better beyond the noise).
    The bootstrap interval resamples evaluations as if independent: it is naive too.

    Parameters
    ----------
    results : pandas.DataFrame
        Output of :func:`evaluate`.
    a, b : str
        Selector codes.
    aggregator : str, default="map"
        Aggregator of ``a`` (and of ``b`` unless ``aggregator_b`` is given).
    aggregator_b : str, optional
        Aggregator of ``b`` (e.g. compare Greedy MI with MAP to Top-k with W-MV).
    k_b : int, optional
        Compare ``a`` at every ``k`` with ``b`` at this one budget (e.g. ``b="topk", k_b=1``:
        the best single model on each split); default: ``b`` at the same ``k``.
    confidence : float, default=0.95
        Confidence level of the intervals, in (0, 1).
    n_boot : int, default=2000
        Bootstrap resamples (percentile interval of the mean difference); 0 disables it.
    seed : int, default=0
        Bootstrap seed.
    correct : bool, default=True
        Corrected (Nadeau & Bengio) interval and p-value; ``False`` gives the naive ones.
    test_fraction : float, optional
        Test share of each split, for the correction; default: the one recorded in
        ``results.attrs["provenance"]`` by :func:`evaluate`, else 0.2.
    replicates : pandas.DataFrame, optional
        Output of :func:`half_sample_errors` on the same data: the interval's variance is
        then the larger of the corrected one and the one measured on the halves.

    Returns
    -------
    pandas.DataFrame
        Columns ``k, mean_diff, std_diff, ci_low, ci_high, boot_low, boot_high, p_value, n,
        a_wins, b_wins, ties, verdict, interval, se`` (``interval``: which variance was used,
        ``"corrected"``, ``"halves"`` or ``"naive"``; ``se``: the standard error of the mean
        difference behind the interval, :attr:`ensel.stats.PairedInterval.se`).
    """
    from ensel.stats import paired_interval

    validate_results(results)
    if not 0.0 < float(confidence) < 1.0:
        raise UsageError(f"confidence must lie strictly between 0 and 1; got {confidence}")
    if test_fraction is None:
        prov = results.attrs.get("provenance", {})
        test_fraction = float(prov.get("test_fraction", 0.2)) if isinstance(prov, dict) else 0.2
    if not 0.0 < float(test_fraction) < 1.0:
        raise UsageError(f"test_fraction must lie strictly between 0 and 1; got {test_fraction}")
    agg_b = aggregator if aggregator_b is None else aggregator_b
    keys = ["condition", "split", "k"]

    def pick(sel: str, agg: str) -> pd.Series:
        part = results[(results["selector"] == sel) & (results["aggregator"] == agg)]
        if part.empty:
            raise UsageError(f"results have no rows for selector {sel!r} with aggregator {agg!r}")
        return part.set_index(keys)["error"]

    ea, eb = pick(a, aggregator), pick(b, agg_b)
    if k_b is None:
        joined = pd.concat({"a": ea, "b": eb}, axis=1, join="inner").reset_index()
    else:
        eb = eb.xs(int(k_b), level="k").rename("b")
        joined = ea.rename("a").reset_index().join(eb, on=["condition", "split"], how="inner")
        joined = joined.dropna(subset=["b"])
    if joined.empty:
        raise DataError(f"selectors {a!r} and {b!r} share no (condition, split, k) evaluation")
    halves = None if replicates is None else half_sample_means(replicates)
    rng = np.random.default_rng(seed)
    rows = []
    q = (1.0 - float(confidence)) / 2.0
    for k, grp in joined.groupby("k", sort=True):
        d = (grp["a"] - grp["b"]).to_numpy(dtype=float)
        n = len(d)
        mean = float(d.mean())
        how = "naive" if not correct else "corrected"
        if n > 1:
            hk = None
            kb = k if k_b is None else int(k_b)
            if halves is not None and (a, aggregator, k) in halves and (b, agg_b, kb) in halves:
                hk = (halves[(a, aggregator, k)] - halves[(b, agg_b, kb)]).unstack("half")
                hk = hk[["A", "B"]].to_numpy(dtype=float)
            r = paired_interval(d, n_train=1.0 - float(test_fraction),
                                n_test=float(test_fraction), confidence=float(confidence),
                                correct=correct, halves=hk)
            sd, lo, hi, pval, verdict, how = (r.sd, r.low, r.high, r.p_value(), r.verdict,
                                              r.method)
            se = float(r.se)
        else:
            sd, lo, hi, pval, se = 0.0, mean, mean, float("nan"), 0.0
            verdict = "within noise" if mean == 0 else ("holds" if mean < 0 else "contradicted")
        if n_boot > 0 and n > 1:
            boots = d[rng.integers(0, n, size=(int(n_boot), n))].mean(axis=1)
            blo, bhi = (float(v) for v in np.quantile(boots, [q, 1 - q]))
        else:
            blo = bhi = mean
        rows.append((int(k), mean, sd, lo, hi, blo, bhi, pval, n,
                     int((d < 0).sum()), int((d > 0).sum()), int((d == 0).sum()), verdict, how,
                     se))
    return pd.DataFrame(rows, columns=["k", "mean_diff", "std_diff", "ci_low", "ci_high",
                                       "boot_low", "boot_high", "p_value", "n", "a_wins",
                                       "b_wins", "ties", "verdict", "interval", "se"])


def one_se_k(errors: pd.DataFrame, *, test_fraction: float = PAPER_PROTOCOL.test_fraction
             ) -> tuple[int, pd.DataFrame]:
    """The smallest budget whose mean held-out error is within one standard error of the
    best (the one-standard-error rule), with the table it was read from.

    The standard error of each budget's mean error is Nadeau & Bengio's corrected one,
    ``sd * sqrt(1/J + n_test/n_train)`` over its ``J`` evaluations (the random splits
    overlap, so the naive ``sd / sqrt(J)`` is too small and would favour larger ensembles).

    Parameters
    ----------
    errors : pandas.DataFrame
        Columns ``k`` and ``error``, one row per evaluation (e.g. :func:`heldout_errors` of
        one selector and one aggregator, or :func:`evaluate` filtered to them).
    test_fraction : float, default=0.2
        Test share of each split (for the correction).

    Returns
    -------
    k : int
    table : pandas.DataFrame
        Columns ``k, mean, se, n`` (one row per budget).

    Examples
    --------
    >>> errs = pd.DataFrame({"k": [1, 1, 2, 2, 3, 3],
    ...                      "error": [0.20, 0.22, 0.19, 0.21, 0.15, 0.16]})
    >>> one_se_k(errs)[0]
    3
    >>> one_se_k(errs.assign(error=[0.20, 0.22, 0.19, 0.21, 0.20, 0.21]))[0]
    1
    """
    if not isinstance(errors, pd.DataFrame) or not {"k", "error"} <= set(errors.columns):
        raise constraint_error("errors", "a DataFrame with columns 'k' and 'error'",
                               type(errors).__name__)
    tf = check_real(test_fraction, "test_fraction", low=0, high=1, low_open=True,
                    high_open=True)
    g = errors.groupby("k", sort=True)["error"]
    table = g.agg(mean="mean", n="size").reset_index()
    sd = g.std(ddof=1).fillna(0.0).to_numpy()
    table["se"] = sd * np.sqrt(1.0 / table["n"].to_numpy() + tf / (1.0 - tf))
    best = int(np.argmin(table["mean"].to_numpy()))
    bar = float(table["mean"].iloc[best] + table["se"].iloc[best])
    k = int(table["k"][table["mean"] <= bar + 1e-12].min())
    return k, table[["k", "mean", "se", "n"]]


def selection_table(df: pd.DataFrame, *, condition: Any, ks: Iterable[int],
                    selectors: Sequence[str] = ("greedy_mi", "mrmr"), split: int | None = None,
                    seed: int = 0, test_fraction: float = PAPER_PROTOCOL.test_fraction
                    ) -> pd.DataFrame:
    """The models each selector adds at each ``k``, with their accuracies (paper Tables 1-2).

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy responses.
    condition : hashable
        Which condition (e.g. ``"t0.7-r1"``, the paper's choice for MEDMCQA).
    ks : iterable of int
        The budgets to show (picks are nested, so ``k`` shows the ``k``-th pick).
    selectors : sequence of str, default=("greedy_mi", "mrmr")
    split : int, optional
        ``None`` (default): selection statistics and accuracies from **all** items of the
        condition. An integer: from the training part of that split of :func:`evaluate`.
    seed, test_fraction
        As in :func:`evaluate` (used only when ``split`` is given).

    Returns
    -------
    pandas.DataFrame
        Columns ``k, selector, model, accuracy, rank`` (accuracy as a fraction; ``rank`` of the
        model by accuracy, 1 = best).
    """
    selectors = check_options(selectors, "selectors", list(PAPER_SELECTORS))
    df, conds = prepare_table(df)
    if condition not in conds:
        raise UsageError(f"condition {condition!r} not in the table; available: {conds}")
    X, y, names, ids = condition_arrays(df, condition)
    if split is not None:
        tr, _ = split_indices(len(y), condition=condition, split=int(split), seed=seed,
                              test_fraction=test_fraction, item_ids=ids)
        X, y = X[tr], y[tr]
    kk = _check_ks(ks, X.shape[1], condition)
    acc = (X == y[:, None]).mean(axis=0)
    order = np.argsort(-acc, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(1, len(order) + 1)
    rows = []
    for sel in selectors:
        picks = SELECTORS[sel](kk[-1]).fit(X, y).selected_
        for k in kk:
            j = int(picks[k - 1])
            rows.append((k, sel, names[j], float(acc[j]), int(rank[j])))
    return pd.DataFrame(rows, columns=["k", "selector", "model", "accuracy", "rank"])


@dataclass
class DiverseExample:
    """One test item where the Greedy-MI ensemble (MAP) is right and the Top-k one is wrong."""

    condition: str
    item: Any
    label: int
    k: int
    greedy: pd.DataFrame = field(repr=False)
    topk: pd.DataFrame = field(repr=False)
    greedy_prediction: int = 0
    topk_prediction: int = 0
    n_candidates: int = 0
    n_test: int = 0


def diverse_vs_topk_example(df: pd.DataFrame, k: int, *, condition: Any = None,
                            split: int = 0, seed: int = 0,
                            test_fraction: float = PAPER_PROTOCOL.test_fraction
                            ) -> DiverseExample | None:
    """Find a Figure-2-style item: the Greedy-MI ensemble answers right, Top-k wrong.

    Both ensembles of size ``k`` are selected and their MAP aggregators fitted on the training
    part of split ``split`` (as in :func:`evaluate`); the item is taken from the test part.
    Among the qualifying items the one where most Top-k models are wrong is shown (then most
    Greedy-MI models right, then the first item).

    Returns
    -------
    DiverseExample or None
        ``None`` when no test item qualifies (e.g. both selectors pick the same set).
        ``greedy`` and ``topk`` tables have columns ``model, accuracy, answer, correct``
        (accuracy on the training part).
    """
    from ensel.aggregate import MAPAggregator

    df, conds = prepare_table(df)
    if condition is None:
        condition = conds[0]
    if condition not in conds:
        raise UsageError(f"condition {condition!r} not in the table; available: {conds}")
    X, y, names, items = condition_arrays(df, condition)
    k = check_k(k, X.shape[1])
    tr, te = split_indices(len(y), condition=condition, split=split, seed=seed,
                           test_fraction=test_fraction, item_ids=items)
    acc = (X[tr] == y[tr][:, None]).mean(axis=0)
    sets = {s: [int(j) for j in SELECTORS[s](k).fit(X[tr], y[tr]).selected_]
            for s in ("greedy_mi", "topk")}
    preds = {s: np.asarray(MAPAggregator().fit(X[tr][:, c], y[tr]).predict(X[te][:, c]))
             for s, c in sets.items()}
    yte = y[te]
    ok = (preds["greedy_mi"] == yte) & (preds["topk"] != yte)
    cand = np.flatnonzero(ok)
    if cand.size == 0:
        return None
    Xte = X[te]
    top_wrong = (Xte[cand][:, sets["topk"]] != yte[cand, None]).sum(axis=1)
    greedy_right = (Xte[cand][:, sets["greedy_mi"]] == yte[cand, None]).sum(axis=1)
    best = cand[np.lexsort((cand, -greedy_right, -top_wrong))[0]]

    def table(cols: list[int]) -> pd.DataFrame:
        ans = Xte[best, cols]
        return pd.DataFrame({"model": [names[j] for j in cols], "accuracy": acc[cols],
                             "answer": ans.astype(int), "correct": ans == yte[best]})

    return DiverseExample(
        condition=str(condition), item=items[te][best], label=int(yte[best]), k=k,
        greedy=table(sets["greedy_mi"]), topk=table(sets["topk"]),
        greedy_prediction=int(preds["greedy_mi"][best]),
        topk_prediction=int(preds["topk"][best]), n_candidates=int(cand.size),
        n_test=int(len(te)))
def _provenance(df: pd.DataFrame | None, *, base: dict[str, Any] | None = None,
                **params: Any) -> dict[str, Any]:
    """What results are derived from: the input table's content hash (independent of the
    order of its rows) and the parameters."""
    import hashlib

    if df is not None:
        cols = [c for c in ("item", "model", "condition", "answer", "label") if c in df.columns]
        hashes = np.sort(pd.util.hash_pandas_object(df[cols], index=False).to_numpy())
        base = {"input_sha256": hashlib.sha256(hashes.tobytes()).hexdigest(),
                "n_rows": int(len(df))}
    return {**(base or {}),
            **{k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in params.items()}}

