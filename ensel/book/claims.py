"""The paper's claims as data, and the verdicts of checking them (book layer).

* :data:`CLAIMS` -- the experiments section's claims, each with its place in the paper and a
  rule that runs on the paper's own numbers (:func:`evidence_from_paper`) and on ours
  (:func:`evidence_from_results`); :func:`verdicts` runs them, :func:`verdict_table`,
  :func:`effects_table` and :func:`claims_markdown` render them. Nothing is typed in: every
  number shown comes from a table or a results file.
* :func:`grade` -- the explicit thresholds of a graded verdict (modelling checks).
* :class:`PageChecks` -- a page's numerical checks as data (statement, paper reference,
  computed value, bound, holds?), rendered out of sight as "Checks on this page: N, all
  passed"; a failing check raises :class:`CheckFailed`, which fails the build.

How sure a verdict is
---------------------
Every claim is about differences of test errors (or of selected models' accuracies) between
two arms evaluated on the same (condition, split). A rule computes, for each difference the
claim is about, the mean over all evaluations and a 95 % interval, and gives one of three
outcomes (:mod:`ensel.stats`):

* **holds** -- every interval the claim needs excludes zero in the claimed direction;
* **contradicted** -- at least one excludes zero in the opposite direction;
* **within noise** -- otherwise: the point estimates may agree with the claim, but the
  evaluation cannot tell.

On our results the intervals are Nadeau & Bengio's corrected resampled t over the
evaluations (:func:`ensel.stats.paired_interval`): the random 80/20 splits overlap, and the
naive interval would be too narrow. With half-sample replicates
(:func:`ensel.experiment.half_sample_errors`, ``replicates=``) the variance is the larger of
the corrected one and the one measured on disjoint halves of the items. On the paper's own
tables only each arm's mean and std over its 30 evaluations are printed, so the same rule
needs two stated assumptions
(:data:`PAPER_ASSUMPTIONS`): the two arms' per-evaluation errors are uncorrelated (the
paired differences' std is ``sqrt(std_a^2 + std_b^2)``; pairing would usually narrow it), and
one arm's errors at different ``k`` are perfectly correlated (for averages over ``k``).
Claims that two arms are *as good* ("comparable", "within 0.01", "within noise margins")
all use one rule: Schuirmann's two one-sided tests (:func:`ensel.stats.equivalence`) with
a margin relative to the dataset's error level (:data:`EQUIVALENCE`, an
:class:`EquivalenceMargin`: a fraction of the single most accurate model's test error, never
below a floor), giving *equivalent*, *not shown equivalent* or *different*. (Earlier
versions called such a claim true when an interval contained zero, which noisy data always
achieve, used the paper's own tolerance of each sentence, or one absolute margin of 0.01 for
every dataset, which on IMDB, whose errors are about 0.035, made almost any two arms
"equivalent".)

Claims about a *best* ``k`` (each arm at its best budget: G1, G3, G5, MED2, MMLU2) choose it
nested, as the book's nested best subset does: in each evaluation, the ``k`` with the
smallest error on the inner split of the training part (:func:`ensel.experiment.evaluate`
with ``inner=True``; ties to the smallest ``k``), then compare the test errors at the ``k``
each evaluation chose (:class:`Chosen`). Choosing it on the mean curve of the test errors
would pick the luckiest budget on the very items it is scored on, a bias in favour of
"holds". On the paper's tables, which print only means, the mean curve is all there is.

What counts
-----------
Every (claim, dataset) gets a class (:func:`verdicts`, column ``class``): **testable** (the
data can contradict it: counted), **by construction** (true because of how the data were
made, e.g. Top-k and Term 1 pick the same models on stand-ins whose models' channels differ
only in their error: shown, not counted, with the reason; it follows what the table checked
holds by construction, which a stand-in records in ``attrs`` for the variant loaded,
:func:`ensel.datasets.standins.by_construction`), **duplicate** (the same finding on the
same data as an earlier claim, detected by comparing the findings themselves: merged into
the first), **control** (a check of the book's own beside a paper claim, e.g. G3 without the MAP
table's 2^k cells: shown, not counted) and **artefact** (a claim whose control does not hold
on the same data: G3 where its W-MV control does not hold is a finding about the plug-in
MAP table, not about the number of models: shown with the reason, not counted).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ensel._errors import EnselError, NotFoundError, UsageError
from ensel.book.tables import LABELS, column_label, format_number, paper_summary
from ensel.datasets import standins
from ensel.experiment import INNER_COLUMN, selected_models
from ensel.stats import (
    CONTRADICTED,
    DIFFERENT,
    EQUIVALENT,
    HOLDS,
    NOT_SHOWN_EQUIVALENT,
    WITHIN_NOISE,
    PairedInterval,
    equivalence,
    half_width,
    paired_interval,
    verdict,
)

__all__ = [
    "CheckFailed",
    "NotComputable",
    "PageCheck",
    "PageChecks",
    "check_copula_pairs",
    "COPULA_QUERIES_PER_MODEL",
    "VERDICT_MARKS",
    "SHORT_MARKS",
    "NO_PAPER_TABLE",
    "PAPER_EVALUATIONS",
    "PAPER_ASSUMPTIONS",
    "EquivalenceMargin",
    "EQUIVALENCE",
    "EQUIVALENCE_ABSOLUTE",
    "MARGIN_SENSITIVITY",
    "Chosen",
    "TESTABLE",
    "BY_CONSTRUCTION",
    "DUPLICATE",
    "CONTROL",
    "ARTEFACT",
    "CLASS_MARKS",
    "TALLY",
    "tally_outcome",
    "verdict_table",
    "effects_table",
    "claims_markdown",
    "Evidence",
    "Finding",
    "Claim",
    "CLAIMS",
    "evidence_from_results",
    "evidence_from_paper",
    "verdicts",
    "mark_duplicates",
    "mark_artefacts",
    "selected_sets",
    "grade",
]

#: The paper's tables are mean ± std over 3 temperatures x 2 runs x 5 random 80/20 splits.
PAPER_EVALUATIONS = 30
_PAPER_TEST_FRACTION = 0.2
#: What judging the paper's own mean ± std needs (stated on the report page).
PAPER_ASSUMPTIONS = (
    "each table cell is a mean ± std over 30 evaluations (3 temperatures × 2 runs × 5 random "
    "80/20 splits of the same items), so Nadeau & Bengio's correction applies as on our "
    "results; the two arms' per-evaluation errors are uncorrelated (the std of their "
    "difference is √(std_a² + std_b²); the paper does not print the pairing, which would "
    "usually narrow the interval); an arm's errors at different k are perfectly correlated "
    "(for averages over k); the selections tables print no spread, so claims on them are "
    "compared as exact numbers")


@dataclass(frozen=True)
class EquivalenceMargin:
    """The margin of every "as good as" claim on one body of evidence.

    Two arms are as good when their test errors differ by less than ``fraction`` of the
    test error of the single most accurate model on the same data (Top-k at ``k = 1`` with
    MAP, mean over the evaluations; on the paper's tables the paper's own), and never less
    than ``floor`` (below it the difference is smaller than the test part can resolve);
    ``absolute`` replaces the rule by one margin for every dataset (the rule of earlier
    versions, kept for the sensitivity table of the report).

    >>> print(EquivalenceMargin(0.05, 0.002).describe())
    5 % of the single most accurate model's test error, at least 0.002
    >>> print(EquivalenceMargin(absolute=0.01).describe())
    0.01 on every dataset
    """

    fraction: float = 0.05
    floor: float = 0.002
    absolute: float | None = None

    def describe(self) -> str:
        if self.absolute is not None:
            return f"{self.absolute:g} on every dataset"
        return (f"{100 * self.fraction:g} % of the single most accurate model's test error, "
                f"at least {self.floor:g}")

    def label(self) -> str:
        """A column or row label: ``"5 %, ≥ 0.002"`` or ``"0.01 absolute"``."""
        if self.absolute is not None:
            return f"{self.absolute:g} absolute"
        return f"{100 * self.fraction:g} %, ≥ {self.floor:g}"

    def margin(self, ev: Evidence) -> float:
        """The margin on ``ev``."""
        if self.absolute is not None:
            return float(self.absolute)
        return max(float(self.floor), float(self.fraction) * ev.single_error())


#: The equivalence margin of every "as good as" claim (stated on every page that uses it):
#: 5 % of the dataset's single most accurate model's test error, at least 0.002. A reader
#: choosing between two arms notices a relative change in error, not an absolute one: on
#: MEDMCQA (errors about 0.17) it is about 0.009, close to the paper's "within 0.01"; on
#: IMDB (about 0.035) the floor, 0.002.
EQUIVALENCE = EquivalenceMargin(fraction=0.05, floor=0.002)
#: The one absolute margin of earlier versions (for the sensitivity table only).
EQUIVALENCE_ABSOLUTE = EquivalenceMargin(absolute=0.01)
#: The margins of the report's sensitivity table: the old absolute one, then relative ones
#: around the book's.
MARGIN_SENSITIVITY: tuple[EquivalenceMargin, ...] = (
    EQUIVALENCE_ABSOLUTE, EquivalenceMargin(0.025, 0.002), EQUIVALENCE,
    EquivalenceMargin(0.10, 0.002), EquivalenceMargin(0.20, 0.002))

#: Classes of a (claim, dataset) row: only ``TESTABLE`` rows are counted.
TESTABLE = "testable"
BY_CONSTRUCTION = "by construction"
DUPLICATE = "duplicate"
CONTROL = "control"
ARTEFACT = "artefact of the plug-in table"

#: How each outcome enters a tally of holds / within noise / contradicted (equivalence
#: claims: shown equivalent counts as holding, a difference beyond the noise as
#: contradicting).
TALLY: dict[str, str] = {HOLDS: HOLDS, WITHIN_NOISE: WITHIN_NOISE, CONTRADICTED: CONTRADICTED,
                         EQUIVALENT: HOLDS, NOT_SHOWN_EQUIVALENT: WITHIN_NOISE,
                         DIFFERENT: CONTRADICTED}


def tally_outcome(v: str) -> str | None:
    """The tally group of a verdict (``None`` for "no results" and the like)."""
    return TALLY.get(str(v))


class NotComputable(NotFoundError):
    """The evidence lacks what a claim needs (an arm, a budget, the selection data): the
    claim is reported as "not computable (<message>)" instead of a verdict. A
    :class:`~ensel._errors.NotFoundError`, so also a ``KeyError``."""


@dataclass(frozen=True)
class Chosen:
    """A budget each evaluation chooses for one arm without looking at its test part: among
    ``ks``, the ``k`` with the smallest error on the inner split of the training part
    (column ``inner_error`` of :func:`ensel.experiment.evaluate` with ``inner=True``; ties
    to the smallest ``k``), the nested choice the book's best subset makes too. On the
    paper's tables (means only) it is the ``k`` of ``ks`` with the smallest mean."""

    ks: tuple[int, ...]


Arm = tuple[str, str]  # (selector, aggregator)
Term = tuple[float, Arm, "int | Chosen", str]  # (weight, arm, k, "error" | "accuracy")
#: The quantity of :attr:`Evidence.per_eval` that holds each arm's inner-split error.
_INNER = "inner"


@dataclass
class Evidence:
    """What a claim is checked against.

    ``summary`` has one row per ``(selector, aggregator, k)`` with ``mean`` and ``std``.
    ``per_eval`` (our results) has one row per evaluation (condition, split) and one column
    per ``(quantity, selector, aggregator, k)`` (quantity ``"error"`` or ``"accuracy"``, the
    mean training accuracy of the selected set). Without it (the paper's tables), intervals
    come from the printed stds under :data:`PAPER_ASSUMPTIONS`; ``set_accuracy`` then holds
    the selections table's accuracy of each selector's first ``k`` picks. ``halves`` (our
    results, optional) has one row per ``(halving, half)`` of the half-sample replicates and
    the same columns as ``per_eval``, one row per ``(halving, half, condition, split)``:
    the intervals then also check the variance on them. With ``inner=True`` results,
    ``per_eval`` (and ``halves``) also hold quantity ``"inner"``, each arm's error on the
    inner split of the training part, on which a :class:`Chosen` budget is chosen.
    ``equivalence`` is the margin rule of the "as good as" claims.
    """

    summary: pd.DataFrame
    set_accuracy: pd.DataFrame | None = None
    per_eval: pd.DataFrame | None = None
    halves: pd.DataFrame | None = None
    test_fraction: float = _PAPER_TEST_FRACTION
    n_evaluations: int = PAPER_EVALUATIONS
    equivalence: EquivalenceMargin = EQUIVALENCE
    _index: dict[tuple[str, str, int], tuple[float, float]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._index = {(str(r.selector), str(r.aggregator), int(r.k)): (float(r.mean),
                                                                         float(r.std))
                       for r in self.summary.itertuples()}

    @property
    def m(self) -> int:
        return int(self.summary["k"].max())

    def curve(self, sel: str, agg: str) -> pd.DataFrame:
        c = self.summary[(self.summary["selector"] == sel) & (self.summary["aggregator"] == agg)]
        if c.empty:
            raise NotComputable(f"no results for {sel}/{agg}")
        return c.set_index("k")[["mean", "std"]].sort_index()

    def single_error(self) -> float:
        """Mean test error of the single most accurate model (Top-k at ``k = 1``, MAP): the
        error level the equivalence margin is relative to."""
        c = self.curve("topk", "map")
        if 1 not in c.index:
            raise NotComputable("no results for topk/map at k=1 (the equivalence margin is "
                                "relative to it)")
        return float(c.loc[1, "mean"])

    def margin(self) -> float:
        """The equivalence margin on this evidence (:attr:`equivalence`)."""
        return self.equivalence.margin(self)

    def _choice(self, table: pd.DataFrame, arm: Arm, k: Chosen
                ) -> tuple[list[int], np.ndarray]:
        """The candidate budgets and, per row of ``table``, the index of the chosen one."""
        cand = [int(kk) for kk in k.ks if (_INNER, *arm, int(kk)) in table.columns]
        if not cand:
            raise NotComputable(f"no inner-split errors for {arm[0]}/{arm[1]} (evaluate with "
                                "inner=True): the best k is chosen on them")
        inner = table.loc[:, [(_INNER, *arm, kk) for kk in cand]].to_numpy(dtype=float)
        return cand, np.argmin(inner, axis=1)  # ties: the smallest k

    def chosen(self, arm: Arm, k: Chosen) -> np.ndarray | int:
        """The budget each evaluation chose (our results), or the one of the mean curve
        (the paper's tables)."""
        if self.per_eval is None:
            c = self.curve(*arm)["mean"]
            c = c[c.index.isin(list(k.ks))]
            if c.empty:
                raise NotComputable(f"no budget in {list(k.ks)} was evaluated")
            return int(c.idxmin())
        cand, idx = self._choice(self.per_eval, arm, k)
        return np.asarray(cand)[idx]

    def _values(self, table: pd.DataFrame, term: Term) -> np.ndarray:
        """One term's quantity in every row of ``table`` (a :class:`Chosen` budget read at
        the ``k`` each row chose)."""
        _, arm, k, q = term
        if isinstance(k, Chosen):
            cand, idx = self._choice(table, arm, k)
            cols = [(q, *arm, kk) for kk in cand]
            if any(c not in table.columns for c in cols):
                raise NotComputable(f"no results for {arm[0]}/{arm[1]} at k={cand}")
            vals = table.loc[:, cols].to_numpy(dtype=float)
            return vals[np.arange(len(vals)), idx]
        col = (q, *arm, int(k))
        if col not in table.columns:
            raise NotComputable(f"no results for {arm[0]}/{arm[1]} at k={int(k)}")
        return table[col].to_numpy(dtype=float)

    def contrast(self, terms: Sequence[Term], *, direction: str = "less") -> PairedInterval:
        """Mean and interval of ``sum(w * quantity(arm, k))`` over the evaluations."""
        if not terms:
            raise NotComputable("no budget of the claim was evaluated")
        ratio = self.test_fraction / (1.0 - self.test_fraction)
        if self.per_eval is not None:
            w = np.array([t[0] for t in terms], dtype=float)
            d = np.column_stack([self._values(self.per_eval, t) for t in terms]) @ w
            halves = None
            if self.halves is not None:
                try:
                    h = np.column_stack([self._values(self.halves, t) for t in terms]) @ w
                except NotComputable:
                    h = None  # the replicates lack an arm: the corrected variance alone
                if h is not None:  # mean per (halving, half), sorted: A then B
                    halves = (pd.Series(h, index=self.halves.index)
                              .groupby(level=["halving", "half"]).mean()
                              .to_numpy().reshape(-1, 2))
            return paired_interval(d, n_train=1.0 - self.test_fraction,
                                   n_test=self.test_fraction, direction=direction,
                                   halves=halves)
        return self._paper_contrast(terms, ratio, direction)

    def _paper_contrast(self, terms: Sequence[Term], ratio: float,
                        direction: str) -> PairedInterval:
        mean, by_arm = 0.0, {}
        for w, (sel, agg), k, q in terms:
            if isinstance(k, Chosen):
                k = self.chosen((sel, agg), k)
            if q == "accuracy":
                if self.set_accuracy is None:
                    raise NotComputable("no selection data")
                t = self.set_accuracy.set_index(["selector", "k"])["set_accuracy"]
                if (sel, int(k)) not in t.index:
                    raise NotComputable(f"no selection data for {sel} at k={k}")
                mu, sd = float(t[(sel, int(k))]), 0.0  # the selections table has no spread
            else:
                if (sel, agg, int(k)) not in self._index:
                    raise NotComputable(f"no results for {sel}/{agg} at k={k}")
                mu, sd = self._index[(sel, agg, int(k))]
            mean += w * mu
            by_arm[(q, sel, agg)] = by_arm.get((q, sel, agg), 0.0) + abs(w) * sd
        sd_d = float(np.sqrt(sum(v * v for v in by_arm.values())))
        n = int(self.n_evaluations)
        h = half_width(sd_d, n, ratio) if sd_d > 0 else 0.0
        return PairedInterval(mean, mean - h, mean + h, h, sd_d, n, n - 1, ratio, 0.95,
                              direction, verdict(mean - h, mean + h, direction),
                              se=sd_d * float(np.sqrt(1.0 / n + ratio)))


def _per(results: pd.DataFrame, keys: list[str], agg: str) -> pd.DataFrame:
    """One row per ``keys``, one column per (quantity, selector, aggregator, k)."""
    cols = ["selector", "aggregator", "k"]
    parts = {"error": results.pivot_table(index=keys, columns=cols, values="error",
                                          aggfunc=agg)}
    if INNER_COLUMN in results.columns:
        parts[_INNER] = results.pivot_table(index=keys, columns=cols, values=INNER_COLUMN,
                                            aggfunc=agg)
    if "selected_accuracy" in results.columns:
        sub = results[results["aggregator"] == "map"]
        parts["accuracy"] = sub.pivot_table(index=keys, columns=cols,
                                            values="selected_accuracy", aggfunc=agg)
    table = pd.concat(parts, axis=1)
    if table.isna().any().any():
        table = table.dropna(axis=1)  # an arm missing from some evaluation: unused
    return table.sort_index()


def evidence_from_results(results: pd.DataFrame,
                          replicates: pd.DataFrame | None = None, *,
                          equivalence: EquivalenceMargin = EQUIVALENCE) -> Evidence:
    """Evidence from :func:`ensel.experiment.evaluate` output: the summary over all
    evaluations, every evaluation's errors (and selected-set accuracies, MAP rows; and
    inner-split errors with ``inner=True``) for the intervals, and the mean selected-set
    accuracy of each selector's first ``k`` picks. ``replicates``
    (:func:`ensel.experiment.half_sample_errors` on the same data) adds the half-sample
    replicates that the intervals check their variance against. ``equivalence``: the margin
    rule of the "as good as" claims."""
    from ensel.experiment import summarise

    s = summarise(results)
    per_eval = _per(results, ["condition", "split"], "first")
    acc = None
    if "selected_accuracy" in results.columns:
        sub = results[results["aggregator"] == "map"]
        acc = (sub.groupby(["selector", "k"])["selected_accuracy"].mean()
               .rename("set_accuracy").reset_index())
    halves = None if replicates is None else _per(
        replicates, ["halving", "half", "condition", "split"], "first")
    prov = results.attrs.get("provenance", {}) if hasattr(results, "attrs") else {}
    frac = float(prov.get("test_fraction", _PAPER_TEST_FRACTION))
    return Evidence(summary=s, set_accuracy=acc, per_eval=per_eval, halves=halves,
                    test_fraction=frac, n_evaluations=len(per_eval), equivalence=equivalence)


def evidence_from_paper(dataset: str, *,
                        equivalence: EquivalenceMargin = EQUIVALENCE) -> Evidence:
    """Evidence from the paper's tables (set accuracy from its selections table: mean printed
    accuracy of the first ``k`` picks, one condition)."""
    from ensel.datasets.paper_tables import load_paper_table

    sel = load_paper_table("selections", dataset=dataset).rename(columns={"method": "selector"})
    rows = []
    for s, g in sel.groupby("selector"):
        g = g.sort_values("k")
        cum = g["accuracy"].expanding().mean().to_numpy()
        rows += [(s, int(k), float(a)) for k, a in zip(g["k"], cum, strict=True)]
    acc = pd.DataFrame(rows, columns=["selector", "k", "set_accuracy"]) if rows else None
    return Evidence(summary=paper_summary(dataset), set_accuracy=acc, equivalence=equivalence)


@dataclass(frozen=True)
class Finding:
    """What one rule found on one body of evidence.

    Attributes
    ----------
    text : str
        What is measured and the numbers (``"what: numbers"``).
    verdict : str
        ``"holds"``, ``"within noise"`` or ``"contradicted"``.
    point : bool
        Whether the point estimates (means, no interval) satisfy the claim: the verdict a
        two-valued check would give.
    effect : PairedInterval or None
        The claim's headline difference, oriented so that **negative supports the claim**
        (for the forest plot): the difference itself, or for a claim about every budget the
        least clear one (the part that decides the verdict); ``None`` for claims about
        equivalence or noise.
    """

    text: str
    verdict: str
    point: bool
    effect: PairedInterval | None = None


def _ks(ks: Sequence[int] | str, m: int) -> list[int]:
    if ks == "mid":  # the paper's "mid-budget" range, capped below the full pool
        return [k for k in range(3, 8) if k < m]
    if ks == "all":
        return list(range(1, m + 1))
    return [int(k) for k in ks if 1 <= int(k) <= m]


def _f(x: float) -> str:
    return f"{x:.4f}" if abs(x) < 0.05 else f"{x:.3f}"


def _d(x: float) -> str:
    return format_number(x, 4, signed=True)


def _pm(r: PairedInterval) -> str:
    """``-0.0040 ± 0.0031``: a mean with its interval half-width."""
    return f"{_d(r.mean)} ± {r.half_width:.4f}"


def _combine(outcomes: Sequence[str]) -> str:
    """Every part holds -> holds; any part contradicted -> contradicted; else within noise."""
    if not outcomes:
        raise NotComputable("no budget of the claim was evaluated")
    if all(o == HOLDS for o in outcomes):
        return HOLDS
    if any(o == CONTRADICTED for o in outcomes):
        return CONTRADICTED
    return WITHIN_NOISE


def _least_clear(parts: Sequence[PairedInterval]) -> PairedInterval:
    """The part that decides an "every part" verdict: a contradicted part if there is one,
    else the one whose interval reaches highest (the headline effect of such a claim)."""
    bad = [r for r in parts if r.verdict == CONTRADICTED]
    return max(bad or parts, key=lambda r: r.high)


def _diff(a: Arm, ka: int, b: Arm, kb: int, q: str = "error") -> list[Term]:
    return [(1.0, a, ka, q), (-1.0, b, kb, q)]


def _budgets(ev: Evidence, ks: Sequence[int] | str, *arms: Arm) -> list[int]:
    curves = [ev.curve(*a) for a in arms]
    kk = [k for k in _ks(ks, ev.m) if all(k in c.index for c in curves)]
    if not kk:
        raise NotComputable(f"no budget in {ks!r} was evaluated")
    return kk


def _kr(kk: Sequence[int]) -> str:
    return f"k={kk[0]}" if len(kk) == 1 else f"k={kk[0]}..{kk[-1]}"


Check = Callable[[Evidence], Finding]


def _avg(ev: Evidence, pairs: Sequence[tuple[Arm, int, Arm, int]],
         q: str = "error") -> PairedInterval:
    """Interval of the mean over ``pairs`` of ``quantity(a, ka) - quantity(b, kb)``."""
    n = len(pairs)
    return ev.contrast([(w / n, arm, k, q) for a, ka, b, kb in pairs
                        for w, arm, k, _ in _diff(a, ka, b, kb, q)])


def lower(a: Arm, b: Arm, ks: Sequence[int] | str) -> Check:
    """Error of ``a`` below ``b`` at every ``k`` in ``ks``."""
    def check(ev: Evidence) -> Finding:
        kk = _budgets(ev, ks, a, b)
        per_k = [ev.contrast(_diff(a, k, b, k)) for k in kk]
        txt = (f"{column_label(*a)} − {column_label(*b)} at {_kr(kk)}: "
               + ", ".join(_pm(r) for r in per_k))
        return Finding(txt, _combine([r.verdict for r in per_k]),
                       all(r.mean < 0 for r in per_k), _least_clear(per_k))
    return check


def lower_than_all(a: Arm, bs: Sequence[Arm], ks: Sequence[int] | str) -> Check:
    """Error of ``a`` below every ``b`` at every ``k`` in ``ks``."""
    def check(ev: Evidence) -> Finding:
        kk = _budgets(ev, ks, a, *bs)
        parts, every = [], []
        for b in bs:
            rs = [ev.contrast(_diff(a, k, b, k)) for k in kk]
            every += rs
            worst = _least_clear(rs)
            parts.append(f"vs {column_label(*b)} least clear k={kk[rs.index(worst)]} "
                         f"{_pm(worst)}")
        return Finding(f"{column_label(*a)}, {_kr(kk)}: " + "; ".join(parts),
                       _combine([r.verdict for r in every]), all(r.mean < 0 for r in every),
                       _least_clear(every))
    return check


def lower_on_average(a: Arm, b: Arm, ks: Sequence[int] | str) -> Check:
    """Mean over ``ks`` of the error difference ``a - b`` is negative."""
    def check(ev: Evidence) -> Finding:
        kk = _budgets(ev, ks, a, b)
        r = _avg(ev, [(a, k, b, k) for k in kk])
        return Finding(f"mean over {_kr(kk)} of {column_label(*a)} − {column_label(*b)}: "
                       f"{_pm(r)}", r.verdict, r.mean < 0, r)
    return check


def _best(ev: Evidence, arm: Arm, ks: Sequence[int]) -> tuple[Chosen, float, str]:
    """The arm's best budget among ``ks`` (:class:`Chosen`), the mean test error at the
    budgets chosen, and which they were (``k=5`` on the paper's tables; ``k=5 in 21/30``,
    the most frequent choice, on our results)."""
    choice = Chosen(tuple(int(k) for k in ks))
    k = ev.chosen(arm, choice)
    mean = ev.contrast([(1.0, arm, choice, "error")]).mean
    if isinstance(k, (int, np.integer)):
        return choice, mean, f"k={int(k)}"
    vals, counts = np.unique(k, return_counts=True)
    top = int(vals[np.argmax(counts)])
    return choice, mean, f"k={top} in {int(counts.max())}/{len(k)}"


def _two(x: float, y: float) -> tuple[str, str]:
    """Two errors to the digit that tells them apart."""
    fx, fy = _f(x), _f(y)
    if fx == fy and x != y:
        fx, fy = f"{x:.4f}", f"{y:.4f}"
    return fx, fy


def best_lower(a: Arm, b: Arm) -> Check:
    """The best (over ``k``) error of ``a`` is below the best of ``b``: each arm's best ``k``
    chosen nested in each evaluation (:class:`Chosen`), then compared evaluation by
    evaluation."""
    def check(ev: Evidence) -> Finding:
        ca, ka, ta = _best(ev, a, ev.curve(*a).index)
        cb, kb, tb = _best(ev, b, ev.curve(*b).index)
        r = ev.contrast(_diff(a, ca, b, cb))
        fa, fb = _two(ka, kb)
        return Finding(f"best {LABELS.get(a[0], a[0])} {fa} ({ta}) vs best "
                       f"{LABELS.get(b[0], b[0])} {fb} ({tb}): {_pm(r)}",
                       r.verdict, bool(r.mean < 0), r)
    return check


def argmin_in(a: Arm, ks: Sequence[int]) -> Check:
    """The ``k`` with the smallest error of ``a`` lies in ``ks``: the best ``k`` inside beats
    the best ``k`` outside (each chosen nested, :class:`Chosen`)."""
    def check(ev: Evidence) -> Finding:
        ca = ev.curve(*a)["mean"]
        inside = [int(k) for k in ca.index if k in set(ks)]
        outside = [int(k) for k in ca.index if k not in set(ks)]
        if not inside:
            raise NotComputable(f"no budget in {list(ks)} was evaluated")
        if not outside:
            return Finding(f"{column_label(*a)}: every budget lies in {list(ks)}", HOLDS, True)
        cin, _, tin = _best(ev, a, inside)
        cout, _, tout = _best(ev, a, outside)
        r = ev.contrast(_diff(a, cin, a, cout))
        return Finding(f"{column_label(*a)}: best inside {list(ks)} − best outside ({tin} − "
                       f"{tout}): {_pm(r)}", r.verdict, bool(r.mean < 0), r)
    return check


def _combine_equivalence(outcomes: Sequence[str], min_fraction: float) -> str:
    """At least ``min_fraction`` of the parts equivalent -> equivalent; so many different
    that the fraction cannot be reached -> different; else not shown equivalent."""
    n = len(outcomes)
    if not n:
        raise NotComputable("no budget of the claim was evaluated")
    if sum(o == EQUIVALENT for o in outcomes) >= min_fraction * n - 1e-12:
        return EQUIVALENT
    if sum(o == DIFFERENT for o in outcomes) > (1.0 - min_fraction) * n + 1e-12:
        return DIFFERENT
    return NOT_SHOWN_EQUIVALENT


def as_good(pairs: Sequence[tuple[Arm, Arm]], ks: Sequence[int] | str,
            min_fraction: float = 1.0, margin: float | None = None) -> Check:
    """An equivalence claim: ``error_a - error_b`` lies within ``±margin`` (default: the
    evidence's rule, :data:`EQUIVALENCE`, relative to its error level) for at least
    ``min_fraction`` of the (pair, k) differences, each judged by two one-sided tests at
    level 0.05 (its 90 % interval inside the margin). Outcomes *equivalent*, *not shown
    equivalent*, *different*."""
    def check(ev: Evidence) -> Finding:
        delta = ev.margin() if margin is None else float(margin)
        tests, labels = [], []
        for a, b in pairs:
            for k in _budgets(ev, ks, a, b):
                r = ev.contrast(_diff(a, k, b, k))
                tests.append(equivalence(r.mean, r.se, max(int(r.df), 1), delta))
                labels.append((a, b, k))
        outcome = _combine_equivalence([t.verdict for t in tests], min_fraction)
        n_eq = sum(t.verdict == EQUIVALENT for t in tests)
        n_diff = sum(t.verdict == DIFFERENT for t in tests)
        far = max(tests, key=lambda t: max(abs(t.low), abs(t.high)))
        a, b, k = labels[tests.index(far)]
        what = (f"{column_label(*a)} − {column_label(*b)}" if len(pairs) == 1 else
                f"{len(pairs)} differences")
        need = "" if min_fraction >= 1 else f" (need {min_fraction:.0%})"
        return Finding(f"{what} within ±{delta:.4f}, {_kr(sorted({x[2] for x in labels}))}: "
                       f"{n_eq}/{len(tests)} equivalent{need}, {n_diff} different; widest "
                       f"90 % interval {far.low:+.4f}..{far.high:+.4f} "
                       f"({column_label(*a)} − {column_label(*b)}, k={k})", outcome,
                       sum(abs(t.mean) < delta for t in tests) >= min_fraction * len(tests)
                       - 1e-12)
    return check


def beats_single(a: Arm, single: Arm = ("topk", "map")) -> Check:
    """``a``'s best ensemble (``k >= 2``, chosen nested in each evaluation,
    :class:`Chosen`) has a lower error than the single most accurate model (``single`` at
    ``k = 1``)."""
    def check(ev: Evidence) -> Finding:
        ca = ev.curve(*a)["mean"]
        cs = ev.curve(*single)["mean"]
        ens = [int(k) for k in ca.index if k >= 2]
        if not ens or 1 not in cs.index:
            raise NotComputable("needs k = 1 and at least one k >= 2")
        choice, mean, txt = _best(ev, a, ens)
        r = ev.contrast(_diff(a, choice, single, 1))
        fa, fs = _two(mean, float(cs[1]))
        return Finding(f"best {LABELS.get(a[0], a[0])} ensemble {fa} ({txt}) vs the "
                       f"best single model {fs}: {_pm(r)}", r.verdict, bool(r.mean < 0), r)
    return check


def full_set_worse(a: Arm) -> Check:
    """Using all ``m`` models gives a higher error than the best smaller ``k`` (chosen nested
    in each evaluation, :class:`Chosen`)."""
    def check(ev: Evidence) -> Finding:
        ca = ev.curve(*a)["mean"]
        m = int(ca.index.max())
        smaller = [int(k) for k in ca.index if k < m]
        if not smaller:
            raise NotComputable("only one budget was evaluated")
        choice, mean, txt = _best(ev, a, smaller)
        r = ev.contrast(_diff(a, choice, a, m))
        fm, fb = _two(float(ca[m]), mean)
        return Finding(f"{column_label(*a)}: k={m} {fm} vs best {fb} ({txt}); best − all: "
                       f"{_pm(r)}", r.verdict, bool(r.mean < 0), r)
    return check


def set_more_accurate(a: str, b: str, ks: Sequence[int]) -> Check:
    """Mean accuracy of ``a``'s first-``k`` set above ``b``'s at every ``k`` in ``ks``."""
    def check(ev: Evidence) -> Finding:
        if ev.set_accuracy is None:
            raise NotComputable("no selection data")
        t = ev.set_accuracy.set_index(["selector", "k"])["set_accuracy"]
        kk = [k for k in ks if (a, k) in t.index and (b, k) in t.index]
        if not kk:
            raise NotComputable("no selection data")
        A, B = (a, "map"), (b, "map")
        rs = [ev.contrast(_diff(B, k, A, k, "accuracy")) for k in kk]
        parts = [f"k={k}: {100 * t[(a, k)]:.1f}% vs {100 * t[(b, k)]:.1f}%" for k in kk]
        return Finding(f"mean accuracy of the {LABELS[a]} vs {LABELS[b]} set: "
                       + "; ".join(parts), _combine([r.verdict for r in rs]),
                       all(t[(a, k)] > t[(b, k)] for k in kk), _least_clear(rs))
    return check


@dataclass(frozen=True)
class Claim:
    """One claim of the paper's experiments section.

    Attributes
    ----------
    id : str
        Short identifier.
    dataset : str
        ``"medmcqa"``, ``"mmlu"``, ``"imdb"``, or ``"all"`` (a general claim, also checked on
        MMLU-Pro and the user's data).
    location : str
        Where the paper says it.
    text : str
        The claim, quoted or closely paraphrased.
    check : callable
        ``Evidence -> Finding``; run on the paper's tables and on our results.
    short : str
        A few words for compact verdict tables (default: ``text``).
    construction : mapping of str to str
        Properties a table can hold by construction (``"label-invariant"``,
        ``"relevance follows accuracy"``: :func:`ensel.datasets.standins.by_construction`)
        under which the claim is true whatever the data, each with the reason; on a table
        that holds one, the row is shown, not counted.
    note : str
        What a reader must know to weigh the verdict (an artefact behind it, say).
    control : str
        For a check of the book's own (not a claim of the paper): the id of the claim it
        controls. Shown beside it, never counted.
    artefact : str
        For a claim that has a control: why its verdict is an artefact where the control
        does not hold on the same data (the row is then classed :data:`ARTEFACT`: shown
        with this reason, not counted).
    """

    id: str
    dataset: str
    location: str
    text: str
    check: Check
    short: str = ""
    construction: Mapping[str, str] = field(default_factory=dict)
    note: str = ""
    control: str = ""
    artefact: str = ""


G, T, R, M = ("greedy_mi", "map"), ("topk", "map"), ("relevance", "map"), ("mrmr", "map")


#: Why the verdict of G3 (and of its duplicates) says little about model selection.
_G3_NOTE = (
    "possibly an artefact of the plug-in MAP rule: its table has 2ᵏ answer patterns, so at "
    "k = m most cells hold a handful of training queries and the rule fits noise; the "
    "control G3-WMV asks the same question of weighted majority vote, which has no such "
    "table")
#: Why G3 is not counted where its control does not hold.
_G3_ARTEFACT = (
    "with weighted majority vote, which has no table of 2ᵏ answer patterns, using all the "
    "models is not shown worse than the best subset, so what G3 finds here is the plug-in "
    "MAP table running out of training queries per cell at k = m, not a cost of using all "
    "the models; G3 counts only where its control holds too")

#: Why "Top-k and Term 1 agree" is no evidence on the stand-ins.
_RELEVANCE_FOLLOWS_ACCURACY = (
    "on these stand-ins every model's channel has one parameter, its error ε_j: the same "
    "error on both labels (label-invariant), or ε₊ = 3ε₋ for every model (the binary "
    "conversion of a 4-option question, class-asymmetric); within such a family, with "
    "balanced labels, I(Y; X_j) falls strictly as ε_j ≤ 1/2 grows, so Term 1 ranks the "
    "models exactly as accuracy does by construction: the two selectors can only differ by "
    "sampling noise")


def _bl(agg: str) -> list[tuple[str, str]]:
    return [("topk", agg), ("relevance", agg), ("mrmr", agg)]


#: The experiments section's claims (Section 6 and the experimental appendices), as data.
CLAIMS: list[Claim] = [
    # --- general (abstract, introduction, conclusion) ---
    Claim("G1", "all", "Abstract / Sec. 7 (Conclusion)",
          "Greedy MI outperforms the Top-k baseline under the same budget: its best error is "
          "lower than Top-k's best.", best_lower(G, T),
          short="Greedy MI's best error is below Top-k's best"),
    Claim("G2", "all", "Sec. 6.1-6.2 ('mid-budget range')",
          "Greedy MI (MAP) beats Top-k (MAP) on average over the practical budgets k = 3..7.",
          lower_on_average(G, T, "mid"),
          short="Greedy MI beats Top-k on average over k = 3..7"),
    Claim("G3", "all", "Sec. 6.1 'Performance saturation'",
          "Gains diminish for large k; using all m models is worse than the best subset "
          "(MAP over 2ᵏ answer patterns becomes noisy).", full_set_worse(G),
          short="using all models is worse than the best subset",
          note=_G3_NOTE, artefact=_G3_ARTEFACT),
    Claim("G3-WMV", "all", "the book's control for G3 (not in the paper)",
          "Without the MAP table's 2ᵏ cells: Greedy MI's picks combined by weighted majority "
          "vote are also worse with all m models than with the best subset.",
          full_set_worse(("greedy_mi", "wmv")),
          short="control: the same with W-MV (no 2ᵏ table)", control="G3"),
    Claim("G5", "all", "Sec. 6.1-6.3, Figures 5-6 (every error curve falls from k = 1)",
          "Ensembling pays: the best Greedy MI ensemble has a lower error than the single "
          "most accurate model.", beats_single(G),
          short="the best ensemble beats the best single model"),
    Claim("G4", "all", "Appendices MEDMCQA/MMLU, 'Alternative Aggregation Rules' (MV)",
          "Under majority vote, mRMR (Terms 1+2) is unstable at small budgets: worse than "
          "Top-k at k = 2 and 3.", lower(("topk", "mv"), ("mrmr", "mv"), [2, 3]),
          short="under MV, mRMR is worse than Top-k at k = 2, 3"),
    # --- MEDMCQA ---
    Claim("MED1", "medmcqa", "Sec. 6.1 'Results'",
          "Greedy MI outperforms Top-k; the improvement is most pronounced for k = 3 to 7.",
          lower(G, T, range(3, 8)),
          short="Greedy MI beats Top-k at every k = 3..7"),
    Claim("MED2", "medmcqa", "Sec. 6.1 'Results'",
          "Best performance of Greedy MI is 16.3% at k = 5, compared to 17.0% for Top-k.",
          best_lower(G, T),
          short="best Greedy MI below best Top-k (16.3% vs 17.0%)"),
    Claim("MED3", "medmcqa", "Sec. 6.1 'Why does mRMR struggle?'",
          "Terms 1+2 (mRMR) plateaus around 17.3% and is beaten by Greedy MI for k = 3..8.",
          lower(G, M, range(3, 9)),
          short="Greedy MI beats mRMR at every k = 3..8"),
    Claim("MED4", "medmcqa",
          "Sec. 6.1 'Understanding the selection behavior', Table 1",
          "Greedy MI keeps high accuracy while mRMR's aggressive diversity-seeking includes weak "
          "models: Greedy MI's set is more accurate at k = 3..5.",
          set_more_accurate("greedy_mi", "mrmr", [3, 4, 5]),
          short="Greedy MI's picks more accurate than mRMR's (k = 3..5)"),
    Claim("MED5", "medmcqa", "Sec. 6.1 'Performance saturation'",
          "Performance approaches a non-zero floor and degrades when using all 12 models.",
          full_set_worse(G),
          short="all 12 models worse than the best subset"),
    Claim("MED6", "medmcqa",
          "Appendix MEDMCQA, 'Alternative Aggregation Rules'; Table 5",
          "mRMR is highly unstable under MV (k=2: 0.264 vs 0.181 for Top-k); it stays worse "
          "than Top-k (MV) for k = 2..9.", lower(("topk", "mv"), ("mrmr", "mv"), range(2, 10)),
          short="under MV, mRMR worse than Top-k for k = 2..9"),
    Claim("MED7", "medmcqa", "Appendix MEDMCQA, 'Alternative Aggregation Rules' (MV)",
          "In the mid-budget regime (k = 3..7), Greedy MI (MAP) keeps the lowest error against "
          "all MV baselines.", lower_than_all(G, _bl("mv"), range(3, 8)),
          short="Greedy MI (MAP) below all MV baselines, k = 3..7"),
    Claim("MED8", "medmcqa", "Appendix MEDMCQA, 'Alternative Aggregation Rules' (W-MV)",
          "Under W-MV, Terms 1+2 remains substantially worse than Top-k in the mid-budget range "
          "(k=4: 0.204; k=6: 0.197).", lower(("topk", "wmv"), ("mrmr", "wmv"), range(4, 9)),
          short="under W-MV, mRMR worse than Top-k for k = 4..8"),
    Claim("MED9", "medmcqa", "Appendix MEDMCQA, 'Alternative Aggregation Rules' (W-MV)",
          "Top-k with W-MV performs comparably to Top-k with MAP (within 0.01 at every k).",
          as_good([(("topk", "wmv"), T)], "all"),
          short="Top-k with W-MV as good as Top-k with MAP"),
    Claim("MED10", "medmcqa", "Appendix MEDMCQA, 'Alternative Aggregation Rules' (W-MV)",
          "Greedy MI (MAP) remains most competitive for k = 3..7 against the W-MV baselines.",
          lower_than_all(G, _bl("wmv"), range(3, 8)),
          short="Greedy MI (MAP) below all W-MV baselines, k = 3..7"),
    # --- MMLU ---
    Claim("MMLU1", "mmlu", "Sec. 6.2 'Results'",
          "Greedy MI delivers its clearest gains in the mid-range k = 3..8 and consistently "
          "improves over Top-k there.", lower(G, T, range(3, 9)),
          short="Greedy MI beats Top-k at every k = 3..8"),
    Claim("MMLU2", "mmlu", "Sec. 6.2 'Results'",
          "Greedy MI reaches its best average performance around k = 4..6 (0.141 at k = 6).",
          argmin_in(G, [4, 5, 6]),
          short="Greedy MI is best at k = 4..6"),
    Claim("MMLU3", "mmlu", "Sec. 6.2 'Results'",
          "Top-k and Term 1 overlap almost everywhere (within 0.002 at every k).",
          as_good([(T, R)], "all"),
          short="Top-k and Term 1 as good at every k",
          construction={standins.RELEVANCE_FOLLOWS_ACCURACY: _RELEVANCE_FOLLOWS_ACCURACY}),
    Claim("MMLU4", "mmlu", "Sec. 6.2 'Results'",
          "For larger k all methods degrade (all about 0.171 at k = 13).", full_set_worse(G),
          short="all 13 models worse than the best subset"),
    Claim("MMLU5", "mmlu", "Sec. 6.2, Table 2",
          "Greedy MI's picks stay accurate while mRMR adds weaker models (k = 2..5).",
          set_more_accurate("greedy_mi", "mrmr", [2, 3, 4, 5]),
          short="Greedy MI's picks more accurate than mRMR's (k = 2..5)"),
    Claim("MMLU6", "mmlu", "Appendix MMLU, 'Experiments with Alternative Aggregation Rules' (MV)",
          "At small budgets mRMR is highly unstable under MV (k=2: 0.246 vs 0.156 Top-k; "
          "k=3: 0.219).", lower(("topk", "mv"), ("mrmr", "mv"), [2, 3]),
          short="under MV, mRMR worse than Top-k at k = 2, 3"),
    Claim("MMLU7", "mmlu", "Appendix MMLU, 'Experiments with Alternative Aggregation Rules' (MV)",
          "In the mid-budget regime Greedy MI (MAP) remains consistently lower than the MV "
          "baselines (k = 3..7).", lower_than_all(G, _bl("mv"), range(3, 8)),
          short="Greedy MI (MAP) below all MV baselines, k = 3..7"),
    Claim("MMLU8", "mmlu", "Appendix MMLU, 'Experiments with Alternative Aggregation Rules' (W-MV)",
          "Under W-MV, Terms 1+2 remains substantially worse in the mid-budget range "
          "(k=4: 0.174; k=6: 0.167).", lower(("topk", "wmv"), ("mrmr", "wmv"), range(4, 8)),
          short="under W-MV, mRMR worse than Top-k for k = 4..7"),
    Claim("MMLU9", "mmlu", "Appendix MMLU, 'Experiments with Alternative Aggregation Rules' (W-MV)",
          "At larger budgets W-MV narrows the gap: Top-k (W-MV) is comparable to Greedy MI "
          "(MAP) at k = 10, 11 (within 0.005).", as_good([(("topk", "wmv"), G)], [10, 11]),
          short="Top-k (W-MV) as good as Greedy MI at k = 10, 11"),
    # --- IMDB ---
    Claim("IMDB1", "imdb", "Sec. 6.3",
          "Greedy MI still consistently outperforms the baselines in the mid-budget range "
          "(k = 4..8).", lower_than_all(G, [T, R, M], range(4, 9)),
          short="Greedy MI below all baselines at every k = 4..8"),
    Claim("IMDB2", "imdb", "Appendix IMDB, 'Experiments Across Temperatures and Runs'",
          "Improvements from selection are modest and often within noise margins "
          "(Greedy MI and Top-k as good for at least half of the k).",
          as_good([(G, T)], "all", min_fraction=0.5),
          short="Greedy MI as good as Top-k for half of the k"),
    Claim("IMDB3", "imdb", "Appendix IMDB, 'Experiments with Alternative Aggregation Rules'",
          "Under MV and W-MV all methods perform comparably: the curves largely overlap and "
          "differences fall within the variance bands (every baseline with MV or W-MV as "
          "good as Greedy MI for at least 80% of the comparisons).",
          as_good([(b, G) for b in _bl("mv") + _bl("wmv")], "all", min_fraction=0.8),
          short="under MV / W-MV, 80% of baselines as good as Greedy MI"),
]


def _run(claim: Claim, ev: Evidence | None) -> Finding | None | str:
    if ev is None:
        return None
    try:
        return claim.check(ev)
    except KeyError as exc:
        return f"not computable ({exc.args[0]})"


_NAN = float("nan")


def _cols(f: Finding | None | str, prefix: str) -> dict[str, Any]:
    found = isinstance(f, Finding)
    e = f.effect if found else None
    return {f"{prefix}text": f.text if found else ("—" if f is None else f),
            f"{prefix}point": f.point if found else None,
            f"{prefix}verdict": f.verdict if found else None,
            f"{prefix}effect": _NAN if e is None else e.mean,
            f"{prefix}low": _NAN if e is None else e.low,
            f"{prefix}high": _NAN if e is None else e.high,
            f"{prefix}se": _NAN if e is None else e.se}


def verdicts(results_by_dataset: Mapping[str, pd.DataFrame | None], *,
             claims: Sequence[Claim] = CLAIMS,
             replicates: Mapping[str, pd.DataFrame | None] | None = None,
             by_construction: Mapping[str, Iterable[str]] | None = None,
             equivalence: EquivalenceMargin = EQUIVALENCE) -> pd.DataFrame:
    """Check every claim on the paper's numbers and on our results.

    Parameters
    ----------
    results_by_dataset : mapping
        ``{dataset: evaluate() output or None}``; ``None`` (or a missing key) means "no results
        for this dataset". Claims of a paper dataset are checked on that dataset; general claims
        (``dataset="all"``) on every dataset given.
    claims : sequence of Claim, default=CLAIMS
    replicates : mapping, optional
        ``{dataset: half_sample_errors() output}``: the intervals on that dataset then take
        the larger of the corrected variance and the one measured on the halves.
    by_construction : mapping, optional
        ``{dataset: properties}``: what the table each dataset's results come from holds
        by construction (``df.attrs["by_construction"]`` of a stand-in; see
        :func:`ensel.datasets.standins.by_construction`). A claim whose ``construction``
        names one of them is classed :data:`BY_CONSTRUCTION`. A dataset not given holds
        what its loader makes by default (a stand-in: its default variant; anything
        else: nothing).
    equivalence : EquivalenceMargin, default=EQUIVALENCE
        The margin rule of the "as good as" claims (on our results and on the paper's).

    Returns
    -------
    pandas.DataFrame
        One row per (claim, dataset checked): ``id, dataset, location, claim, short``; on our
        results ``ours`` (what is measured, with intervals), ``holds`` (the point estimates
        satisfy the claim), ``verdict`` (``"holds"``, ``"within noise"``, ``"contradicted"``
        or ``"no results"``) and the headline effect ``effect, effect_low, effect_high``
        (negative supports the claim; NaN for equivalence and noise claims) with its standard
        error ``effect_se`` (the interval's half-width over its t quantile); the same on the
        paper's numbers as ``paper, paper_holds, paper_verdict, paper_effect, paper_low,
        paper_high`` (``paper`` is ``"—"`` and the rest empty for datasets the paper does
        not have); ``class`` (:data:`TESTABLE`, :data:`BY_CONSTRUCTION`, :data:`DUPLICATE`,
        :data:`CONTROL` or :data:`ARTEFACT`; only testable rows count) and ``class_note``
        (why, or what to know about the verdict). :func:`verdict_table` renders it
        compactly.
    """
    from ensel.datasets.paper_tables import DATASETS as PAPER_DATASETS

    reps = dict(replicates or {})
    built = dict(by_construction or {})
    ours = {d: (None if r is None else evidence_from_results(r, reps.get(d),
                                                             equivalence=equivalence))
            for d, r in results_by_dataset.items()}
    paper = {d: evidence_from_paper(d, equivalence=equivalence) for d in PAPER_DATASETS}
    rows = []
    for claim in claims:
        targets = list(results_by_dataset) if claim.dataset == "all" else [claim.dataset]
        for d in targets:
            p = _cols(_run(claim, paper.get(d)), "p_")
            o = _cols(_run(claim, ours.get(d)), "o_")
            rows.append({
                "id": claim.id, "dataset": d, "location": claim.location, "claim": claim.text,
                "paper": p["p_text"], "paper_holds": p["p_point"],
                "paper_verdict": p["p_verdict"], "paper_effect": p["p_effect"],
                "paper_low": p["p_low"], "paper_high": p["p_high"],
                "ours": o["o_text"], "holds": o["o_point"],
                "verdict": "no results" if o["o_verdict"] is None else o["o_verdict"],
                "effect": o["o_effect"], "effect_low": o["o_low"], "effect_high": o["o_high"],
                "short": claim.short or claim.text, "effect_se": o["o_se"],
                **_classify(claim, d, built.get(d))})
    cols = ["id", "dataset", "location", "claim", "paper", "paper_holds", "paper_verdict",
            "paper_effect", "paper_low", "paper_high", "ours", "holds", "verdict", "effect",
            "effect_low", "effect_high", "short", "effect_se", "class", "class_note"]
    return mark_duplicates(mark_artefacts(pd.DataFrame(rows, columns=cols), claims))


def mark_artefacts(v: pd.DataFrame, claims: Sequence[Claim] = CLAIMS) -> pd.DataFrame:
    """Class as :data:`ARTEFACT` every testable row of a claim with an ``artefact`` reason
    whose control (the claim whose ``control`` names it) does not hold on the same dataset:
    within noise, contradicted or not computable there. Where the control was not checked
    at all (not among ``claims``) the row stays testable."""
    out = v.copy()
    by_id = {c.id: c for c in claims}
    for ctl in (c for c in claims if c.control and by_id.get(c.control)
                and by_id[c.control].artefact):
        rows = out[(out["id"] == ctl.control) & (out["class"] == TESTABLE)]
        for i, r in rows.iterrows():
            found = out.loc[(out["id"] == ctl.id) & (out["dataset"] == r["dataset"]),
                            "verdict"]
            if found.empty or TALLY.get(str(found.iloc[0])) == HOLDS:
                continue
            said = (f"is {found.iloc[0]}" if str(found.iloc[0]) in TALLY
                    else "could not be checked")
            out.loc[i, "class"] = ARTEFACT
            out.loc[i, "class_note"] = (f"its control {ctl.id} {said} here: "
                                        f"{by_id[ctl.control].artefact}")
    return out


def _classify(claim: Claim, dataset: str, properties: Iterable[str] | None
              ) -> dict[str, str]:
    """``class`` and ``class_note`` of one (claim, dataset) before duplicates are marked;
    ``properties``: what the dataset's table holds by construction (``None``: what its
    loader makes by default)."""
    if claim.control:
        return {"class": CONTROL,
                "class_note": f"the book's control for {claim.control}, not a paper claim"}
    if properties is None:
        properties = (standins.by_construction(dataset) if dataset in standins.NAMES
                      else ())
    for prop in properties:
        if prop in claim.construction:
            return {"class": BY_CONSTRUCTION, "class_note": claim.construction[prop]}
    return {"class": TESTABLE, "class_note": claim.note}


def mark_duplicates(v: pd.DataFrame) -> pd.DataFrame:
    """Mark every row whose findings are identical to an earlier row's on the same dataset
    (the same texts, hence the same numbers, on our results and on the paper's) as
    ``class="duplicate"`` of that row: the claims are then one claim said twice, and only
    the first is counted. Detected from the findings themselves, not from a list."""
    out = v.copy()
    first: dict[tuple[str, str, str], str] = {}
    for i, r in out.iterrows():
        evidence = (str(r["paper"]), str(r["ours"]))
        if all(t == "—" or t.startswith("not computable") for t in evidence):
            continue  # nothing found: nothing to compare
        key = (str(r["dataset"]), *evidence)
        if key in first and r["class"] != CONTROL:
            out.loc[i, "class"] = DUPLICATE
            out.loc[i, "class_note"] = f"duplicate of {first[key]}: the same finding"
        else:
            first.setdefault(key, str(r["id"]))
    return out


#: How a verdict is shown to a reader.
VERDICT_MARKS: dict[str, str] = {HOLDS: "✓ holds", WITHIN_NOISE: "≈ within noise",
                                  CONTRADICTED: "✗ contradicted", EQUIVALENT: "✓ equivalent",
                                  NOT_SHOWN_EQUIVALENT: "≈ not shown equivalent",
                                  DIFFERENT: "✗ different", "no results": "– no results"}
#: The one-character marks of :data:`VERDICT_MARKS` (compact tables).
SHORT_MARKS = {HOLDS: "✓", WITHIN_NOISE: "≈", CONTRADICTED: "✗", EQUIVALENT: "✓",
                NOT_SHOWN_EQUIVALENT: "≈", DIFFERENT: "✗"}
_VERDICT_COLORS = {HOLDS: "#1a7f37", WITHIN_NOISE: "#9a6700", CONTRADICTED: "#b42318",
                   EQUIVALENT: "#1a7f37", NOT_SHOWN_EQUIVALENT: "#9a6700",
                   DIFFERENT: "#b42318", "no results": "#666666"}
#: How a row that is not counted is marked beside its verdict.
CLASS_MARKS: dict[str, str] = {TESTABLE: "", BY_CONSTRUCTION: "not counted: true by construction",
                               DUPLICATE: "not counted: duplicate",
                               CONTROL: "not counted: the book's control",
                               ARTEFACT: "not counted: artefact of the plug-in table"}
NO_PAPER_TABLE = "n/a (no paper table)"


def _split_evidence(paper: str, ours: str) -> tuple[str, str, str]:
    """Common ``"what is measured: "`` prefix of the paper's and our evidence texts, and the
    two remainders (the prefix is empty when they do not share one)."""
    if ": " in ours:
        head, rest = ours.split(": ", 1)
        if paper.startswith(head + ": ") or paper in ("", "—"):
            p_rest = paper[len(head) + 2:] if paper.startswith(head + ": ") else paper
            return head, p_rest, rest
    return "", paper, ours


def _missing(x: Any) -> bool:
    return x is None or (isinstance(x, float) and np.isnan(x))


def verdict_table(verdicts_df: pd.DataFrame, dataset: str, *, html: bool = True
                  ) -> pd.DataFrame:
    """The verdicts of one dataset, compact enough for a book page.

    Columns ``claim`` (short text, plus what is measured in small print), ``paper`` (the rule
    on the paper's numbers with ✓ holds / ≈ within noise / ✗ contradicted, or ``"n/a (no
    paper table)"``), ``ours`` (mean ± 95 % half-width) and ``verdict``; index ``id``. With
    ``html=True`` the cells carry markup for :func:`to_html`; the full claim texts are in
    :func:`claims_markdown`.
    """
    import html as _html

    v = verdicts_df[verdicts_df["dataset"] == dataset].rename(columns={"class": "cls"})
    esc = _html.escape if html else (lambda t: t)
    rows = []
    for r in v.itertuples():
        measured, p_txt, o_txt = _split_evidence(str(r.paper), str(r.ours))
        claim_cell = esc(str(r.short))
        if measured:
            claim_cell += (f'<br><span style="font-size: 0.8em; color: #555">{esc(measured)}'
                           "</span>" if html else f" [{measured}]")
        if _missing(r.paper_verdict):
            paper_cell = NO_PAPER_TABLE if r.paper == "—" else esc(str(r.paper))
        else:
            paper_cell = esc(p_txt) + " " + SHORT_MARKS[str(r.paper_verdict)]
        mark = VERDICT_MARKS.get(r.verdict, str(r.verdict))
        cls = str(getattr(r, "cls", TESTABLE))
        note = str(getattr(r, "class_note", "") or "")
        if html:
            mark = (f'<span style="color: {_VERDICT_COLORS.get(r.verdict, "#000")}; '
                    f'white-space: nowrap; font-weight: bold">{mark}</span>')
        if cls != TESTABLE or note:
            head = CLASS_MARKS.get(cls, cls)
            text = f"{head}: {note}" if head and note else head or note
            mark += (f'<br><span style="font-size: 0.8em; color: #555">{esc(text)}</span>'
                     if html else f" [{text}]")
        rows.append((r.id, claim_cell, paper_cell, esc(o_txt), mark))
    return pd.DataFrame(rows, columns=["id", "claim", "paper", "ours", "verdict"]
                        ).set_index("id")


def effects_table(verdicts_df: pd.DataFrame) -> pd.DataFrame:
    """The headline effects with intervals, one row per (claim, dataset) that has one, ours
    and the paper's, oriented so that negative supports the claim (for the forest plot)."""
    v = verdicts_df[verdicts_df["effect"].notna() | verdicts_df["paper_effect"].notna()]
    return v[["id", "dataset", "short", "effect", "effect_low", "effect_high", "verdict",
              "paper_effect", "paper_low", "paper_high", "paper_verdict"]].reset_index(drop=True)


def claims_markdown(claims: Sequence[Claim] = CLAIMS, ids: Iterable[str] | None = None) -> str:
    """The full claim texts once, as a Markdown list: ``**id**`` (dataset; place in the
    paper): text."""
    keep = None if ids is None else set(ids)
    names = {"all": "all datasets", "medmcqa": "MEDMCQA", "mmlu": "MMLU", "imdb": "IMDB"}
    lines = [f"- **{c.id}** ({names.get(c.dataset, c.dataset)}; {c.location}): {c.text}"
             for c in claims if keep is None or c.id in keep]
    return "\n".join(lines)


def selected_sets(results: pd.DataFrame, selector: str, k: int) -> pd.Series:
    """How often each model set was chosen by ``selector`` at budget ``k`` (over evaluations)."""
    sub = results[(results["selector"] == selector) & (results["k"] == k)
                  & (results["aggregator"] == "map")]
    return sub["selected"].map(lambda s: ", ".join(sorted(selected_models(s)))).value_counts()


def grade(value: float, holds: float, partly: float) -> str:
    """Verdict of a "smaller is better" statistic against two explicit thresholds.

    Returns ``"holds"`` if ``value <= holds``, ``"partly"`` if ``value <= partly``, else
    ``"does not hold"``.
    """
    v = float(value)
    if np.isnan(v):
        raise UsageError("value is NaN; cannot grade it")
    if not holds <= partly:
        raise UsageError(f"thresholds must satisfy holds <= partly; got {holds} > {partly}")
    if v <= holds:
        return "holds"
    if v <= partly:
        return "partly"
    return "does not hold"


# ----------------------------------------------------------------------------- page checks
#: Queries per model below which an estimated tetrachoric matrix is too far from positive
#: semi-definite for its projection to keep the pairwise moments within 0.02: on seeded
#: family pools the largest pair gap is 0.000-0.006 at 10 queries per model (10 to 200
#: models), but 0.029 at 70 models x 200 queries and 0.051 at 1,000 x 300.
COPULA_QUERIES_PER_MODEL = 10


def check_copula_pairs(checks: PageChecks, gap: float, *, n_models: int, n_queries: int,
                       ref: str = "Algorithm 6") -> None:
    """The page check "pairwise joint errors matched (up to the PSD projection)": the
    largest gap ``< 0.02`` when there are at least :data:`COPULA_QUERIES_PER_MODEL` queries
    per model, else "not applicable" (the projection of a matrix estimated from few queries
    moves the pairs by more than 0.02 whatever the data).

    >>> checks = PageChecks("demo")
    >>> check_copula_pairs(checks, 0.004, n_models=10, n_queries=5000)
    >>> check_copula_pairs(checks, 0.05, n_models=1000, n_queries=300)
    >>> checks.summary()
    'Checks on this page: 1, all passed; 1 not applicable.'
    """
    statement = "pairwise joint errors matched (up to the PSD projection)"
    if n_queries >= COPULA_QUERIES_PER_MODEL * n_models:
        checks.add(statement, gap < 0.02, value=gap, bound="< 0.02", ref=ref)
    else:
        checks.not_applicable(
            statement, f"{n_queries:,} queries for {n_models:,} models (needs "
            f"{COPULA_QUERIES_PER_MODEL} per model); largest gap {gap:.3f}",
            bound="< 0.02", ref=ref)


class CheckFailed(EnselError, AssertionError):
    """At least one check of a page does not hold (the build fails on it)."""


@dataclass(frozen=True)
class PageCheck:
    """One numerical check of a page.

    Attributes
    ----------
    statement : str
        What is checked, in words ("P_e(1) = 1 - alpha for every curve").
    reference : str
        Where the paper states it ("Thm 4.4", "Eq. (10)"); ``""`` for a check of the book's own.
    value : str
        The computed value, formatted.
    bound : str
        The criterion the value meets ("< 1e-9", "> 0", "= the Top-k set").
    holds : bool
    applicable : bool, default=True
        ``False`` for a check the data cannot support (too few queries for the number of
        models, say): it is shown with its reason in ``value`` and is neither passed nor
        failed.
    """

    statement: str
    reference: str
    value: str
    bound: str
    holds: bool
    applicable: bool = True


def _fmt_value(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if v == 0 or 1e-3 <= abs(v) < 1e5:
            return f"{v:.4g}"
        return f"{v:.2e}"
    return str(value)


class PageChecks:
    """The checks of one page, collected as data and rendered as one compact table.

    A page creates one collector in a hidden cell, adds each check right after the
    computation it is about (in cells whose input is removed), and ends with
    :meth:`report`, which displays "Checks on this page: N, all passed" with the table
    folded beneath, and raises :class:`CheckFailed` naming every failing check.

    Examples
    --------
    >>> checks = PageChecks("demo")
    >>> checks.close("P_e(1) equals 1 - alpha", 0.3000000001, 0.3, tol=1e-9, ref="Thm 4.4")
    True
    >>> checks.at_most("gap to the floor", 0.002, 0.01)
    True
    >>> checks.summary()
    'Checks on this page: 2, all passed.'
    """

    def __init__(self, page: str) -> None:
        self.page = page
        self.checks: list[PageCheck] = []

    def __len__(self) -> int:
        return len(self.checks)

    def add(self, statement: str, holds: Any, *, value: Any = "", bound: str = "",
            ref: str = "") -> bool:
        """Record a check whose outcome the page computed itself; return ``holds``."""
        ok = bool(holds)
        self.checks.append(PageCheck(statement, ref, _fmt_value(value), bound, ok))
        return ok

    def not_applicable(self, statement: str, why: str, *, bound: str = "",
                       ref: str = "") -> None:
        """Record a check the data cannot support, with the reason (shown as "–", counted
        apart, never a failure).

        >>> checks = PageChecks("demo")
        >>> checks.not_applicable("pairs matched", "5 queries for 9 models", bound="< 0.02")
        >>> checks.summary()
        'Checks on this page: 0, all passed; 1 not applicable.'
        """
        self.checks.append(PageCheck(statement, ref, f"not applicable: {why}", bound,
                                     holds=True, applicable=False))

    def close(self, statement: str, value: Any, target: Any, *, tol: float,
              ref: str = "", strict: bool = False) -> bool:
        """``max |value - target| <= tol`` (``< tol`` when ``strict``; elementwise for arrays,
        the worst is shown)."""
        diff = float(np.max(np.abs(np.asarray(value, dtype=float)
                                   - np.asarray(target, dtype=float))))
        holds = diff < tol if strict else diff <= tol
        return self.add(statement, holds, value=f"|Δ| = {_fmt_value(diff)}",
                        bound=f"{'<' if strict else '≤'} {tol:g}", ref=ref)

    def at_most(self, statement: str, value: Any, limit: float, *, ref: str = "",
                strict: bool = False) -> bool:
        """``max(value) <= limit`` (``< limit`` when ``strict``)."""
        v = float(np.max(np.asarray(value, dtype=float)))
        holds = v < limit if strict else v <= limit
        return self.add(statement, holds, value=v, bound=f"{'<' if strict else '≤'} {limit:g}",
                        ref=ref)

    def at_least(self, statement: str, value: Any, limit: float, *, ref: str = "",
                 strict: bool = False) -> bool:
        """``min(value) >= limit`` (``> limit`` when ``strict``)."""
        v = float(np.min(np.asarray(value, dtype=float)))
        holds = v > limit if strict else v >= limit
        return self.add(statement, holds, value=v, bound=f"{'>' if strict else '≥'} {limit:g}",
                        ref=ref)

    def equal(self, statement: str, value: Any, expected: Any, *, ref: str = "") -> bool:
        """``value == expected`` (lists, tuples, strings, integers)."""
        return self.add(statement, value == expected, value=value, bound=f"= {expected}",
                        ref=ref)

    def table(self) -> pd.DataFrame:
        """The checks as a table (one row each)."""
        return pd.DataFrame(
            [("–" if not c.applicable else "✓" if c.holds else "✗", c.statement,
              c.reference, c.value, c.bound) for c in self.checks],
            columns=["", "check", "paper", "value", "criterion"])

    def _n_applicable(self) -> int:
        return sum(c.applicable for c in self.checks)

    def failures(self) -> list[PageCheck]:
        return [c for c in self.checks if not c.holds]

    def summary(self) -> str:
        """One sentence: how many checks and whether all passed."""
        bad = self.failures()
        if not self.checks:
            return "No checks on this page."
        n = self._n_applicable()
        na = len(self.checks) - n
        tail = f"; {na} not applicable." if na else "."
        if not bad:
            return f"Checks on this page: {n}, all passed{tail}"
        return f"Checks on this page: {n}, {len(bad)} FAILED{tail}"

    def html(self) -> str:
        """The summary with the table folded beneath it (a ``<details>`` element)."""
        rows = self.table().to_html(index=False, escape=True, border=0,
                                    classes="ensel-checks")
        return (f'<details class="ensel-checks"><summary>{self.summary()}</summary>'
                f"{rows}</details>")

    def report(self) -> None:
        """Display the summary and table; raise :class:`CheckFailed` if a check failed."""
        try:
            from IPython.display import HTML, display
        except ImportError:  # outside a notebook
            print(self.summary())
        else:
            display(HTML(self.html()))
        bad = self.failures()
        if bad:
            lines = "\n".join(f"  ✗ {c.statement} ({c.reference or 'book'}): {c.value}, "
                              f"expected {c.bound}" for c in bad)
            raise CheckFailed(f"{self.page}: {len(bad)} of {self._n_applicable()} checks failed:"
                              f"\n{lines}")
