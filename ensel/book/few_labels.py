"""Page support of "Beyond the paper: a handful of labels" (``notebooks/few_labels.py``).

The library chooses (:func:`ensel.fewlabels.choose_with_labels`) and ranks the items to
label (:func:`ensel.fewlabels.label_next`); this module is the page's experiment around
them. On each data set and seeded repeat ``r``:

1. the items are split by their ids (:func:`ensel.experiment.split_indices`, condition the
   data set's name, split ``r``): a *labelling pool* of at most ``pool_items`` items whose
   gold is hidden, and a *held-out* part, the rest, with its full gold, on which every arm
   is scored;
2. gold is revealed for ``N`` pool items (``N`` in :data:`GRID`), in three orders:
   ``random`` (a seeded hash of the item ids), ``decisive`` (the first
   :data:`FIRST_RANDOM` labels at random, as ``label_next`` needs one label, then
   ``label_next(strategy="decisive")`` in batches of at most ``max_batch``, each batch
   asked with the labels revealed so far) and ``disagreement`` (``label_next``'s
   label-free order: most divided models first);
3. at each ``N`` the arms: the few-label choice (``choose_with_labels`` on the pool with
   those ``N`` labels; its stated error and interval), the best single model by accuracy on
   the same ``N`` labels (at ``N = 0``: by agreement with the plurality vote), and
   Dawid-Skene over all models anchored by the same ``N`` labels (label-free at ``N = 0``);
   once per repeat: the full-label choice (every pool item's gold) and the plurality vote of
   all models (no labels).

Every held-out error counts a tie among ``t`` options as ``1 - 1/t`` of an error
(:func:`ensel.aggregate.heldout_error`). Row order never matters: items and models are
sorted by name, and splits and label orders follow the item ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["GRID", "STRATEGIES", "FIRST_RANDOM", "Source", "page_sources", "run_source",
           "run_all", "curve_table", "reach_table", "versus_random", "calibration_table",
           "plot_curves"]

#: Numbers of revealed gold labels.
GRID = (0, 10, 20, 50, 100, 200)
#: The label orders, in the page's order.
STRATEGIES = ("random", "decisive", "disagreement")
#: Labels revealed at random before ``decisive`` takes over (it needs at least one).
FIRST_RANDOM = 10
#: Display names of the arms (the ``arm`` column of :func:`run_source`).
ARMS = {"few": "few-label choice", "full": "full-label choice",
        "single": "best single (same N)", "ds": "Dawid-Skene (same N)",
        "vote": "plurality vote (no labels)"}


@dataclass(frozen=True)
class Source:
    """One data set of the page: answers (an OptionMatrix, or binary answers as a DataFrame
    items x models) and the full gold (codes, or ``+1``/``-1``)."""

    name: str
    answers: Any
    gold: np.ndarray
    kind: str  # "real" or "seeded"

    @property
    def binary(self) -> bool:
        return isinstance(self.answers, pd.DataFrame)

    @property
    def items(self) -> list[Any]:
        return list(self.answers.index if self.binary else self.answers.items)

    @property
    def models(self) -> list[Any]:
        return list(self.answers.columns if self.binary else self.answers.models)

    def codes(self) -> tuple[np.ndarray, np.ndarray]:
        """Answers and gold as option codes (binary: ``1`` for ``+1``, ``0`` for ``-1``,
        ``-1`` = abstained), the input of the multi-class baselines."""
        if self.binary:
            X = self.answers.to_numpy()
            return (np.where(X == 0, -1, (X > 0).astype(np.int64)),
                    (self.gold > 0).astype(np.int64))
        return np.asarray(self.answers.A, dtype=np.int64), self.gold.astype(np.int64)

    def part(self, rows: np.ndarray, gold: np.ndarray | None = None) -> tuple[Any, Any]:
        """``(answers, gold)`` of ``rows`` in the view ``ensel.fewlabels`` reads; ``gold``
        (aligned with ``rows``, gaps ``-1``/``0``) replaces the full gold when given."""
        from ensel.data import OptionMatrix

        g = self.gold[rows] if gold is None else gold
        if self.binary:
            return self.answers.iloc[rows], np.asarray(g)
        om = self.answers
        return OptionMatrix(om.A[rows], np.asarray(g, dtype=np.int16),
                            [om.options[i] for i in rows], [om.items[i] for i in rows],
                            list(om.models), om.condition), None


def _option_source(name: str, om: Any, kind: str) -> Source:
    return Source(name, om, np.asarray(om.gold, dtype=np.int64), kind)


def page_sources(real_sources: Sequence[str] | None, *, pool_models: int, pool_items: int,
                 seed: int = 0) -> tuple[list[Source], list[str]]:
    """The real sources available here (``None``: every real source of the book; the
    multi-class ones read natively, :func:`ensel.data.answer_matrix`, LLMBar binary, its
    ``original-order`` condition) and two seeded pools of ``pool_models`` models and
    ``pool_items`` items: a binary family pool (:func:`ensel.pools.family_pool`) and a
    four-option one (:func:`ensel.pools.multiclass_pool`, wrong answers shared with
    probability 0.3); and the real sources missing here."""
    from ensel.book.large_pools import available
    from ensel.book.profiles import names
    from ensel.data import OptionMatrix, answer_matrix, to_wide
    from ensel.datasets import load
    from ensel.pools import family_pool, multiclass_pool

    have, missing = available(names("real") if real_sources is None else real_sources)
    out = []
    for name in have:
        if name == "llmbar":
            X, y = to_wide(load(name), "original-order", validate=False, sort=True)
            out.append(Source(name, X, y.to_numpy().astype(np.int64), "real"))
        else:
            om = answer_matrix(load(name, view="native"), validate=False, sort=True)
            out.append(_option_source(name, om, "real"))
    fam = family_pool(pool_models, pool_items, family_size=5, random_state=seed)
    ids = pd.Index([f"q{i:05d}" for i in range(pool_items)], name="item")
    cols = pd.Index([f"m{j:02d}" for j in range(pool_models)], name="model")
    out.append(Source(f"binary pool of {pool_models}",
                      pd.DataFrame(fam.X, index=ids, columns=cols), fam.y.astype(np.int64),
                      "seeded"))
    mc = multiclass_pool(pool_models, pool_items, n_options=4, share=0.3, family_size=5,
                         random_state=seed + 1)
    om = OptionMatrix(mc.A.astype(np.int16), mc.y.astype(np.int16),
                      [("A", "B", "C", "D")] * pool_items, list(ids), list(cols))
    out.append(_option_source(f"4-option pool of {pool_models}", om, "seeded"))
    return out, missing


def _hashed_order(ids: Sequence[Any], seed: int, repeat: int) -> np.ndarray:
    """A seeded random order of ``ids`` that depends on the ids, not on their positions."""
    keys = np.array([f"{seed}/{repeat}/{i}" for i in ids], dtype=object)
    return np.argsort(pd.util.hash_array(keys, categorize=False), kind="stable")


def _split(src: Source, repeat: int, pool_items: int, seed: int) -> tuple[np.ndarray,
                                                                          np.ndarray]:
    """Labelling pool and held-out rows of one repeat (the pool: at most ``pool_items``
    items and at most 60 % of them)."""
    from ensel.experiment import split_indices

    items = src.items
    n = len(items)
    n_pool = min(pool_items, int(round(0.6 * n)))
    return split_indices(n, condition=src.name, split=repeat, seed=seed,
                         test_fraction=1.0 - n_pool / n, item_ids=items)


def _hidden(src: Source, pool: np.ndarray, labelled: np.ndarray) -> np.ndarray:
    """The pool's gold with only the positions ``labelled`` (into ``pool``) revealed."""
    g = np.full(pool.size, 0 if src.binary else -1, dtype=np.int64)
    g[labelled] = src.gold[pool[labelled]]
    return g


def _paths(src: Source, pool: np.ndarray, *, grid: Sequence[int], repeat: int, k: Any,
           n_draws: int, max_batch: int, seed: int) -> dict[str, np.ndarray]:
    """Per strategy, the pool positions in the order their gold is revealed (``max(grid)``
    of them)."""
    from ensel.fewlabels import label_next

    top = max(grid)
    items = src.items
    ids = [items[j] for j in pool]
    where = {name: i for i, name in enumerate(ids)}
    rand = _hashed_order(ids, seed, repeat)[:top]
    ans, _ = src.part(pool, _hidden(src, pool, np.array([], dtype=np.int64)))
    first = label_next(ans, _hidden(src, pool, np.array([], dtype=np.int64)), top,
                       strategy="disagreement", seed=seed)
    out = {"random": rand,
           "disagreement": np.array([where[i] for i in first["item"]], dtype=np.int64)}
    got = list(rand[:min(FIRST_RANDOM, top)])
    stops = sorted({n for n in grid if n > len(got)})
    for stop in stops:
        while len(got) < stop:
            n = min(max_batch, stop - len(got))
            part, y = src.part(pool, _hidden(src, pool, np.asarray(got)))
            nxt = label_next(part, y, n, k=k, strategy="decisive", n_draws=n_draws,
                             seed=seed + repeat)
            got += [where[i] for i in nxt["item"]]
    out["decisive"] = np.asarray(got, dtype=np.int64)
    return out


def _baselines(src: Source, pool: np.ndarray, test: np.ndarray, labelled: np.ndarray,
               seed: int) -> dict[str, float]:
    """Held-out errors of the best single model by the revealed labels and of Dawid-Skene
    anchored by them (``labelled``: positions into ``pool``)."""
    from ensel.aggregate import DawidSkene, PluralityVote, heldout_error

    A, g = src.codes()
    Ap, At, gt = A[pool], A[test], g[test]
    if labelled.size:
        right = (Ap[labelled] == g[pool][labelled, None]).sum(axis=0)
    else:  # no gold: agreement with the plurality vote of every model
        vote = PluralityVote().fit(Ap).predict(Ap)
        right = (Ap == vote[:, None]).sum(axis=0)
    j = int(np.argmax(right))  # ties: the first model by name
    single = PluralityVote().fit(Ap[:, [j]], None)
    y = np.full(pool.size, -1, dtype=np.int64)
    y[labelled] = g[pool][labelled]
    ds = DawidSkene(random_state=seed).fit(Ap, y if labelled.size else None)
    return {"single": heldout_error(single, At[:, [j]], gt), "ds": heldout_error(ds, At, gt)}


def _few(src: Source, pool: np.ndarray, test: np.ndarray, labelled: np.ndarray, *, k: Any,
         n_draws: int, seed: int) -> dict[str, Any]:
    """The few-label choice with the labels ``labelled``: its held-out error and what it
    states about itself."""
    from ensel.fewlabels import choose_with_labels

    ans, y = src.part(pool, _hidden(src, pool, labelled))
    c = choose_with_labels(ans, y, k=k, n_draws=n_draws, seed=seed)
    held, gold = src.part(test)
    return {"error": c.heldout_error(held, gold), "stated": c.error, "low": c.interval[0],
            "high": c.interval[1], "decided": c.decided, "k": c.k,
            "labels_needed": np.nan if c.labels_needed is None else c.labels_needed}


def run_source(src: Source, *, grid: Sequence[int] = GRID, n_repeats: int = 5,
               pool_items: int = 2000, k: Any = "auto", n_draws: int = 200,
               max_batch: int = 50, seed: int = 0) -> pd.DataFrame:
    """The page's experiment on one data set (see the module text): one row per (repeat,
    strategy, N, arm) with the held-out ``error``; the few-label rows add the choice's
    ``stated`` error, its interval ``low``-``high``, ``decided``, ``k`` and
    ``labels_needed``. The full-label choice and the plurality vote get one row per repeat
    (strategy ``"-"``, N the pool size and 0)."""
    from ensel.aggregate import PluralityVote, heldout_error

    A, g = src.codes()
    rows: list[dict[str, Any]] = []
    for r in range(n_repeats):
        pool, test = _split(src, r, pool_items, seed)
        grid_r = [n for n in grid if n < pool.size]
        s = seed + r
        full = _few(src, pool, test, np.arange(pool.size), k=k, n_draws=n_draws, seed=s)
        vote = heldout_error(PluralityVote().fit(A[pool]), A[test], g[test])
        base = {"repeat": r, "n_pool": pool.size, "n_test": test.size}
        rows += [base | {"strategy": "-", "n_labels": pool.size, "arm": "full"} | full,
                 base | {"strategy": "-", "n_labels": 0, "arm": "vote", "error": vote}]
        paths = _paths(src, pool, grid=grid_r, repeat=r, k=k, n_draws=n_draws,
                       max_batch=max_batch, seed=seed)
        done: dict[tuple[int, ...], list[dict[str, Any]]] = {}
        for strategy in STRATEGIES:
            for n in grid_r:
                lab = np.sort(paths[strategy][:n])
                key = tuple(lab.tolist())
                if key not in done:  # the same labels (N = 0; decisive's first ones)
                    arms = {a: {"error": e} for a, e in
                            _baselines(src, pool, test, lab, s).items()}
                    if n:
                        arms["few"] = _few(src, pool, test, lab, k=k, n_draws=n_draws,
                                           seed=s)
                    done[key] = [{"arm": a} | v for a, v in arms.items()]
                rows += [base | {"strategy": strategy, "n_labels": n} | v for v in done[key]]
    out = pd.DataFrame(rows)
    out.insert(0, "data", src.name)
    return out


def run_all(sources: Sequence[Source], **options: Any) -> pd.DataFrame:
    """:func:`run_source` on every source, one table."""
    return pd.concat([run_source(s, **options) for s in sources], ignore_index=True)
