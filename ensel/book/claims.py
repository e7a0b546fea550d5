"""The paper's claims as data, and the verdicts of checking them (book layer).

* :data:`CLAIMS` -- the experiments section's claims, each with its place in the paper and a
  check that runs on the paper's own numbers (:func:`evidence_from_paper`) and on ours
  (:func:`evidence_from_results`); :func:`verdicts` runs them, :func:`verdict_table` and
  :func:`claims_markdown` render them. Nothing is typed in: every number shown comes from a
  table or a results file.
* :func:`grade` -- the explicit thresholds of a graded verdict (modelling checks).
* :class:`PageChecks` -- a page's numerical checks as data (statement, paper reference,
  computed value, bound, holds?), rendered out of sight as "Checks on this page: N, all
  passed"; a failing check raises :class:`CheckFailed`, which fails the build.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ensel.book.tables import LABELS, column_label, format_number, paper_summary
from ensel.experiment import selected_models

__all__ = [
    "CheckFailed",
    "PageCheck",
    "PageChecks",
    "VERDICT_MARKS",
    "NO_PAPER_TABLE",
    "verdict_table",
    "claims_markdown",
    "Evidence",
    "Claim",
    "CLAIMS",
    "evidence_from_results",
    "evidence_from_paper",
    "verdicts",
    "selected_sets",
    "grade",
]

@dataclass
class Evidence:
    """What a claim is checked against: a summary (``selector, aggregator, k, mean, std``) and,
    optionally, the mean accuracy of each selector's first-``k`` set
    (``selector, k, set_accuracy``)."""

    summary: pd.DataFrame
    set_accuracy: pd.DataFrame | None = None

    @property
    def m(self) -> int:
        return int(self.summary["k"].max())

    def curve(self, sel: str, agg: str) -> pd.DataFrame:
        c = self.summary[(self.summary["selector"] == sel) & (self.summary["aggregator"] == agg)]
        if c.empty:
            raise KeyError(f"no results for {sel}/{agg}")
        return c.set_index("k")[["mean", "std"]].sort_index()


def evidence_from_results(results: pd.DataFrame) -> Evidence:
    """Evidence from :func:`ensel.experiment.evaluate` output (summary over all evaluations;
    set accuracy = mean training accuracy of the first ``k`` picks, averaged)."""
    from ensel.experiment import summarise

    s = summarise(results)
    acc = None
    if "selected_accuracy" in results.columns:
        sub = results[results["aggregator"] == "map"]
        acc = (sub.groupby(["selector", "k"])["selected_accuracy"].mean()
               .rename("set_accuracy").reset_index())
    return Evidence(summary=s, set_accuracy=acc)


def evidence_from_paper(dataset: str) -> Evidence:
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
    return Evidence(summary=paper_summary(dataset), set_accuracy=acc)


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


Check = Callable[[Evidence], tuple[str, bool]]


def lower(a: tuple[str, str], b: tuple[str, str], ks: Sequence[int] | str) -> Check:
    """Mean error of ``a`` below ``b`` at every ``k`` in ``ks``."""
    def check(ev: Evidence) -> tuple[str, bool]:
        ca, cb = ev.curve(*a), ev.curve(*b)
        kk = [k for k in _ks(ks, ev.m) if k in ca.index and k in cb.index]
        d = [float(ca.loc[k, "mean"] - cb.loc[k, "mean"]) for k in kk]
        txt = (f"{column_label(*a)} − {column_label(*b)} at k={kk[0]}..{kk[-1]}: "
               + ", ".join(_d(x) for x in d))
        return txt, bool(kk) and all(x < 0 for x in d)
    return check


def lower_than_all(a: tuple[str, str], bs: Sequence[tuple[str, str]],
                   ks: Sequence[int] | str) -> Check:
    """Mean error of ``a`` below every ``b`` at every ``k`` in ``ks``."""
    def check(ev: Evidence) -> tuple[str, bool]:
        ca = ev.curve(*a)
        kk = [k for k in _ks(ks, ev.m) if k in ca.index]
        parts, ok = [], bool(kk)
        for b in bs:
            cb = ev.curve(*b)
            d = [float(ca.loc[k, "mean"] - cb.loc[k, "mean"]) for k in kk if k in cb.index]
            ok = ok and bool(d) and all(x < 0 for x in d)
            parts.append(f"vs {column_label(*b)} worst {_d(max(d))}" if d else "")
        return f"{column_label(*a)}, k={kk[0]}..{kk[-1]}: " + "; ".join(parts), ok
    return check


def lower_on_average(a: tuple[str, str], b: tuple[str, str], ks: Sequence[int] | str) -> Check:
    """Mean over ``ks`` of the error difference ``a - b`` is negative."""
    def check(ev: Evidence) -> tuple[str, bool]:
        ca, cb = ev.curve(*a), ev.curve(*b)
        kk = [k for k in _ks(ks, ev.m) if k in ca.index and k in cb.index]
        d = float(np.mean([ca.loc[k, "mean"] - cb.loc[k, "mean"] for k in kk]))
        return (f"mean over k={kk[0]}..{kk[-1]} of {column_label(*a)} − {column_label(*b)}: "
                f"{_d(d)}"), d < 0
    return check


def best_lower(a: tuple[str, str], b: tuple[str, str]) -> Check:
    """The best (over ``k``) mean error of ``a`` is below the best of ``b``."""
    def check(ev: Evidence) -> tuple[str, bool]:
        ca, cb = ev.curve(*a)["mean"], ev.curve(*b)["mean"]
        ka, kb = int(ca.idxmin()), int(cb.idxmin())
        fa, fb = _f(ca[ka]), _f(cb[kb])
        if fa == fb and ca[ka] != cb[kb]:  # show the digit that decides
            fa, fb = f"{ca[ka]:.4f}", f"{cb[kb]:.4f}"
        return (f"best {LABELS.get(a[0], a[0])} {fa} (k={ka}) vs best "
                f"{LABELS.get(b[0], b[0])} {fb} (k={kb})"), bool(ca[ka] < cb[kb])
    return check


def argmin_in(a: tuple[str, str], ks: Sequence[int]) -> Check:
    """The ``k`` with the smallest mean error of ``a`` lies in ``ks``."""
    def check(ev: Evidence) -> tuple[str, bool]:
        ca = ev.curve(*a)["mean"]
        kmin = int(ca.idxmin())
        return f"{column_label(*a)} is lowest at k={kmin} ({_f(ca[kmin])})", kmin in set(ks)
    return check


def close(a: tuple[str, str], b: tuple[str, str], ks: Sequence[int] | str, tol: float) -> Check:
    """``|mean_a - mean_b| <= tol`` at every ``k`` in ``ks``."""
    def check(ev: Evidence) -> tuple[str, bool]:
        ca, cb = ev.curve(*a), ev.curve(*b)
        kk = [k for k in _ks(ks, ev.m) if k in ca.index and k in cb.index]
        d = np.array([ca.loc[k, "mean"] - cb.loc[k, "mean"] for k in kk], dtype=float)
        kw = kk[int(np.argmax(np.abs(d)))]
        return (f"max |{column_label(*a)} − {column_label(*b)}| over k={kk[0]}..{kk[-1]}: "
                f"{np.abs(d).max():.4f} (k={kw}; tolerance {tol})"), bool(np.abs(d).max() <= tol)
    return check


def within_noise(bs: Sequence[tuple[str, str]], a: tuple[str, str],
                 ks: Sequence[int] | str, min_fraction: float = 1.0) -> Check:
    """``|mean_b - mean_a|`` is at most the larger of the two standard deviations for at least
    ``min_fraction`` of the (b, k) comparisons ("often": 0.5, "largely": 0.8)."""
    def check(ev: Evidence) -> tuple[str, bool]:
        ca = ev.curve(*a)
        inside, total, worst, where = 0, 0, 0.0, ""
        for b in bs:
            cb = ev.curve(*b)
            for k in _ks(ks, ev.m):
                if k in ca.index and k in cb.index:
                    d = abs(float(cb.loc[k, "mean"] - ca.loc[k, "mean"]))
                    sd = max(float(ca.loc[k, "std"]), float(cb.loc[k, "std"]))
                    total += 1
                    inside += int(d <= sd)
                    ratio = d / sd if sd > 0 else (0.0 if d == 0 else np.inf)
                    if ratio > worst:
                        worst = ratio
                        where = f"{column_label(*b)} at k={k}: |Δ|={d:.4f}, std={sd:.4f}"
        frac = inside / total if total else 0.0
        return (f"{inside}/{total} differences within one std (need {min_fraction:.0%}); "
                f"largest |Δ|/std = {worst:.2f} ({where or 'all equal'})"), (
                    total > 0 and frac >= min_fraction)
    return check


def full_set_worse(a: tuple[str, str]) -> Check:
    """Using all ``m`` models gives a higher mean error than the best ``k``."""
    def check(ev: Evidence) -> tuple[str, bool]:
        ca = ev.curve(*a)["mean"]
        kmin = int(ca.idxmin())
        m = int(ca.index.max())
        return (f"{column_label(*a)}: k={m} {_f(ca[m])} vs best {_f(ca[kmin])} (k={kmin})",
                bool(ca[m] > ca[kmin]))
    return check


def set_more_accurate(a: str, b: str, ks: Sequence[int]) -> Check:
    """Mean accuracy of ``a``'s first-``k`` set above ``b``'s at every ``k`` in ``ks``."""
    def check(ev: Evidence) -> tuple[str, bool]:
        if ev.set_accuracy is None:
            return "no selection data", False
        t = ev.set_accuracy.set_index(["selector", "k"])["set_accuracy"]
        kk = [k for k in ks if (a, k) in t.index and (b, k) in t.index]
        if not kk:
            return "no selection data", False
        parts = [f"k={k}: {100 * t[(a, k)]:.1f}% vs {100 * t[(b, k)]:.1f}%" for k in kk]
        return (f"mean accuracy of the {LABELS[a]} vs {LABELS[b]} set: " + "; ".join(parts),
                all(t[(a, k)] > t[(b, k)] for k in kk))
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
        ``Evidence -> (numbers, holds)``; run on the paper's tables and on our results.
    short : str
        A few words for compact verdict tables (default: ``text``).
    """

    id: str
    dataset: str
    location: str
    text: str
    check: Check
    short: str = ""


G, T, R, M = ("greedy_mi", "map"), ("topk", "map"), ("relevance", "map"), ("mrmr", "map")


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
          short="using all models is worse than the best subset"),
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
          "Sec. 6.1 'Understanding the selection behavior', Table tab:medmcqa_selections",
          "Greedy MI keeps high accuracy while mRMR's aggressive diversity-seeking includes weak "
          "models: Greedy MI's set is more accurate at k = 3..5.",
          set_more_accurate("greedy_mi", "mrmr", [3, 4, 5]),
          short="Greedy MI's picks more accurate than mRMR's (k = 3..5)"),
    Claim("MED5", "medmcqa", "Sec. 6.1 'Performance saturation'",
          "Performance approaches a non-zero floor and degrades when using all 12 models.",
          full_set_worse(G),
          short="all 12 models worse than the best subset"),
    Claim("MED6", "medmcqa",
          "Appendix MEDMCQA, 'Alternative Aggregation Rules'; Table tab:medmcqa_mv_vs_map",
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
          close(("topk", "wmv"), T, "all", 0.01),
          short="Top-k with W-MV within 0.01 of Top-k with MAP"),
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
          close(T, R, "all", 0.002),
          short="Top-k and Term 1 within 0.002 at every k"),
    Claim("MMLU4", "mmlu", "Sec. 6.2 'Results'",
          "For larger k all methods degrade (all about 0.171 at k = 13).", full_set_worse(G),
          short="all 13 models worse than the best subset"),
    Claim("MMLU5", "mmlu", "Sec. 6.2, Table tab:mmlu_selections",
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
          "(MAP) at k = 10, 11 (within 0.005).", close(("topk", "wmv"), G, [10, 11], 0.005),
          short="Top-k (W-MV) within 0.005 of Greedy MI at k = 10, 11"),
    # --- IMDB ---
    Claim("IMDB1", "imdb", "Sec. 6.3",
          "Greedy MI still consistently outperforms the baselines in the mid-budget range "
          "(k = 4..8).", lower_than_all(G, [T, R, M], range(4, 9)),
          short="Greedy MI below all baselines at every k = 4..8"),
    Claim("IMDB2", "imdb", "Appendix IMDB, 'Experiments Across Temperatures and Runs'",
          "Improvements from selection are modest and often within noise margins "
          "(|Greedy MI − Top-k| at most one standard deviation for at least half of the k).",
          within_noise([T], G, "all", 0.5),
          short="Greedy MI − Top-k within one std for half of the k"),
    Claim("IMDB3", "imdb", "Appendix IMDB, 'Experiments with Alternative Aggregation Rules'",
          "Under MV and W-MV all methods perform comparably: the curves largely overlap and "
          "differences fall within the variance bands (at least 80% of the comparisons with "
          "Greedy MI within one std).", within_noise(_bl("mv") + _bl("wmv"), G, "all", 0.8),
          short="under MV / W-MV, 80% of differences within one std"),
]


def _run(claim: Claim, ev: Evidence | None) -> tuple[str, bool | None]:
    if ev is None:
        return "—", None
    try:
        return claim.check(ev)
    except KeyError as exc:
        return f"not computable ({exc.args[0]})", None


def verdicts(results_by_dataset: Mapping[str, pd.DataFrame | None], *,
             claims: Sequence[Claim] = CLAIMS) -> pd.DataFrame:
    """Check every claim on the paper's numbers and on our results.

    Parameters
    ----------
    results_by_dataset : mapping
        ``{dataset: evaluate() output or None}``; ``None`` (or a missing key) means "no results
        for this dataset". Claims of a paper dataset are checked on that dataset; general claims
        (``dataset="all"``) on every dataset given.
    claims : sequence of Claim, default=CLAIMS

    Returns
    -------
    pandas.DataFrame
        One row per (claim, dataset checked): ``id, dataset, location, claim, paper,
        paper_holds, ours, holds, verdict, short``. ``paper`` is ``"—"`` (and ``paper_holds``
        ``None``) for datasets the paper does not have (MMLU-Pro, user data); ``verdict`` is
        ``"holds"``, ``"does not hold"`` or ``"no results"``; ``short`` is the claim in a few
        words. :func:`verdict_table` renders it compactly.
    """
    from ensel.datasets.paper_tables import DATASETS as PAPER_DATASETS

    ours = {d: (None if r is None else evidence_from_results(r))
            for d, r in results_by_dataset.items()}
    paper = {d: evidence_from_paper(d) for d in PAPER_DATASETS}
    rows = []
    for claim in claims:
        targets = list(results_by_dataset) if claim.dataset == "all" else [claim.dataset]
        for d in targets:
            p_txt, p_ok = _run(claim, paper.get(d))
            o_txt, o_ok = _run(claim, ours.get(d))
            verdict = ("no results" if o_ok is None else "holds" if o_ok else "does not hold")
            rows.append((claim.id, d, claim.location, claim.text, p_txt, p_ok, o_txt, o_ok,
                         verdict, claim.short or claim.text))
    return pd.DataFrame(rows, columns=["id", "dataset", "location", "claim", "paper",
                                       "paper_holds", "ours", "holds", "verdict", "short"])


#: How a verdict is shown to a reader.
VERDICT_MARKS: dict[str, str] = {"holds": "✓ holds", "does not hold": "✗ does not hold",
                                  "no results": "– no results"}
_VERDICT_COLORS = {"holds": "#1a7f37", "does not hold": "#b42318", "no results": "#666666"}
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


def verdict_table(verdicts_df: pd.DataFrame, dataset: str, *, html: bool = True
                  ) -> pd.DataFrame:
    """The verdicts of one dataset, compact enough for a book page.

    Columns ``claim`` (short text, plus what is measured in small print), ``paper`` (the rule
    on the paper's numbers, ✓/✗, or ``"n/a (no paper table)"``), ``ours`` and ``verdict``
    (✓ holds / ✗ does not hold / – no results); index ``id``. With ``html=True`` the cells
    carry markup for :func:`to_html`; the full claim texts are in :func:`claims_markdown`.
    """
    import html as _html

    v = verdicts_df[verdicts_df["dataset"] == dataset]
    esc = _html.escape if html else (lambda t: t)
    rows = []
    for r in v.itertuples():
        short = r.short if "short" in v.columns else r.claim
        measured, p_txt, o_txt = _split_evidence(str(r.paper), str(r.ours))
        claim_cell = esc(str(short))
        if measured:
            claim_cell += (f'<br><span style="font-size: 0.8em; color: #555">{esc(measured)}'
                           "</span>" if html else f" [{measured}]")
        if r.paper_holds is None or (isinstance(r.paper_holds, float)
                                     and np.isnan(r.paper_holds)):
            paper_cell = NO_PAPER_TABLE
        else:
            paper_cell = esc(p_txt) + (" ✓" if bool(r.paper_holds) else " ✗")
        mark = VERDICT_MARKS.get(r.verdict, str(r.verdict))
        if html:
            mark = (f'<span style="color: {_VERDICT_COLORS.get(r.verdict, "#000")}; '
                    f'white-space: nowrap; font-weight: bold">{mark}</span>')
        rows.append((r.id, claim_cell, paper_cell, esc(o_txt), mark))
    return pd.DataFrame(rows, columns=["id", "claim", "paper", "ours", "verdict"]
                        ).set_index("id")


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
        raise ValueError("value is NaN; cannot grade it")
    if not holds <= partly:
        raise ValueError(f"thresholds must satisfy holds <= partly; got {holds} > {partly}")
    if v <= holds:
        return "holds"
    if v <= partly:
        return "partly"
    return "does not hold"


# ----------------------------------------------------------------------------- page checks
class CheckFailed(AssertionError):
    """At least one check of a page does not hold (the build fails on it)."""


@dataclass(frozen=True)
class PageCheck:
    """One numerical check of a page.

    Attributes
    ----------
    statement : str
        What is checked, in words ("P_e(1) = 1 - alpha for every curve").
    reference : str
        Where the paper states it ("Thm 4.3", "Eq. (9)"); ``""`` for a check of the book's own.
    value : str
        The computed value, formatted.
    bound : str
        The criterion the value meets ("< 1e-9", "> 0", "= the Top-k set").
    holds : bool
    """

    statement: str
    reference: str
    value: str
    bound: str
    holds: bool


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
    >>> checks.close("P_e(1) equals 1 - alpha", 0.3000000001, 0.3, tol=1e-9, ref="Thm 4.3")
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
            [("✓" if c.holds else "✗", c.statement, c.reference, c.value, c.bound)
             for c in self.checks],
            columns=["", "check", "paper", "value", "criterion"])

    def failures(self) -> list[PageCheck]:
        return [c for c in self.checks if not c.holds]

    def summary(self) -> str:
        """One sentence: how many checks and whether all passed."""
        bad = self.failures()
        if not self.checks:
            return "No checks on this page."
        if not bad:
            return f"Checks on this page: {len(self.checks)}, all passed."
        return f"Checks on this page: {len(self.checks)}, {len(bad)} FAILED."

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
            raise CheckFailed(f"{self.page}: {len(bad)} of {len(self.checks)} checks failed:"
                              f"\n{lines}")
