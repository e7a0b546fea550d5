"""Page support for the experiments page (one run per dataset) and the reproduction report.

The pages call the library (``ensel.datasets``, ``ensel.experiment``) in their visible cells;
this module holds what only a page needs: the figures and tables of the protocol's results,
the choices a page makes per dataset, and the page's checks (:class:`~ensel.book.claims.
PageChecks`). Nothing in the library imports it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ensel._errors import UsageError
from ensel.book import figures, profiles, tables
from ensel.book.claims import PageChecks
from ensel.protocol import PAPER_PROTOCOL, Protocol

__all__ = [
    "STANDINS",
    "REAL",
    "report_sources",
    "load_options",
    "copula_fits",
    "copula_fit_table",
    "copula_figure",
    "aggregator_figure",
    "exhaustive_note",
    "selection_setup",
    "oracle_gaps",
    "paper_differences",
    "show_diverse_example",
    "check_pool",
    "check_protocol",
    "TIE_SPREAD_FACTOR",
    "TIE_MIN_EVALUATIONS",
    "TIE_KS",
    "tie_rule_errors",
    "tie_rule_sentence",
    "tie_rule_table",
    "check_tie_rule",
    "page_verdicts",
    "margin_text",
    "margins_text",
    "artefact_sentence",
    "check_claim_rules",
    "margin_sensitivity",
    "save_conclusions",
    "splits_for",
    "verdict_counts",
    "verdict_sentence",
    "headline_sentence",
    "BUDGET_ALPHA",
    "budget_verdicts",
    "budget_sentence",
    "single_model_sentence",
    "claims_skipped_note",
    "best_errors",
    "report_comparison",
    "first_picks",
    "pick_agreement",
    "beyond_table",
    "copula_side_by_side",
    "pooled_sentence",
    "gather_verdicts",
    "findings_table",
    "FIGURE_STAMPS",
    "SYNTHETIC_STAMP",
    "stamp_synthetic",
    "mark_synthetic_figures",
]

#: The paper-calibrated stand-ins (the datasets with a paper table to compare with).
STANDINS = tuple(profiles.names("stand-in"))
#: The sources of real published LLM answers.
REAL = tuple(profiles.names("real"))


def load_options(dataset: Any, n_items: int | None) -> dict[str, Any]:
    """Loader options of an experiments run: ``n_items`` only for the stand-ins."""
    return {"n_items": n_items} if (dataset in STANDINS and n_items is not None) else {}


# ----------------------------------------------------------------------- copula validation
def copula_fits(df: pd.DataFrame, *, seed: int) -> dict[str, Any]:
    """:func:`ensel.copula.copula_diagnostics` per condition (seed ``seed + i`` for the
    ``i``-th condition), fitted to all queries of that condition."""
    from ensel.copula import copula_diagnostics, errors_from
    from ensel.data import to_wide

    out = {}
    for i, cond in enumerate(str(c) for c in df["condition"].unique()):
        Xw, yw = to_wide(df, cond, validate=False)
        E = pd.DataFrame(errors_from(Xw.to_numpy(), yw.to_numpy()), columns=Xw.columns)
        out[cond] = copula_diagnostics(E, random_state=seed + i)
    return out


def copula_fit_table(fits: Mapping[str, Any]) -> pd.DataFrame:
    """Per condition: largest pairwise gap of the fitted model and of its sample to the
    data, and the total variation of the number of simultaneous errors."""
    from ensel.diagnostics import total_variation

    rows = []
    for cond, diag in fits.items():
        pairs = diag.pairs
        rows.append({"condition": cond,
                     "max |model − empirical| pair": float(
                         (pairs["model"] - pairs["empirical"]).abs().max()),
                     "max |sample − empirical| pair": float(
                         (pairs["sampled"] - pairs["empirical"]).abs().max()),
                     "total variation, #errors": total_variation(
                         diag.simultaneous["empirical"], diag.simultaneous["copula"])})
    return pd.DataFrame(rows).set_index("condition")


def copula_figure(fits: Mapping[str, Any]) -> Figure:
    """Paper Figure 4 (and the appendix copula figures): one row per condition."""
    fig, axes = plt.subplots(len(fits), 2, figsize=(9, 3.1 * len(fits)), squeeze=False)
    for i, (cond, diag) in enumerate(fits.items()):
        figures.copula_validation(diag.pairs, diag.simultaneous, axes=axes[i])
        axes[i][0].set_title(f"{cond}: pairwise joint errors", fontsize=9)
        axes[i][1].set_title(f"{cond}: simultaneous errors", fontsize=9)
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- results
def aggregator_figure(summary: pd.DataFrame, summary_c: pd.DataFrame, agg: str,
                      label: str) -> Figure:
    """Baselines with aggregator ``agg``, Greedy MI with MAP: one panel per condition when
    there are several (the paper's appendix figures), else one panel."""
    sel = {s: agg for s in ("topk", "relevance", "mrmr")} | {"greedy_mi": "map"}
    name = tables.AGGREGATOR_NAMES[agg]
    if summary_c["condition"].nunique() > 1:
        return figures.error_vs_k_panels(
            summary_c, panel="condition", selectors=sel,
            suptitle=f"{label}: baselines with {name}, Greedy MI with MAP")
    return figures.error_vs_k(summary, selectors=sel,
                              title=f"{label}: baselines with {name}, Greedy MI with MAP")


def exhaustive_note(requested: bool, done: bool, n_models: int, abstain: bool) -> str:
    """One sentence on the exhaustive scan of this run."""
    if done:
        return f"The exhaustive scan ran over all {2 ** n_models - 1:,} subsets."
    if not requested:
        return "The exhaustive scan is switched off for this run."
    return (f"The exhaustive scan is skipped: {n_models} models"
            + (" with abstentions (base-3 patterns)" if abstain else "")
            + " exceed its limit (15 models).")


def selection_setup(dataset: Any, conditions: Sequence[str], n_models: int
                    ) -> tuple[str, list[int]]:
    """Condition and budgets of the selection table (the paper's Tables 1 and 2 use temp 0.7,
    run 1 for MEDMCQA and temp 0.7, run 2 for MMLU)."""
    prof = profiles.profile(dataset)
    cond = str(prof.get("selection_condition", conditions[0]))
    if cond not in conditions:
        cond = conditions[0]
    return cond, list(range(1, min(int(prof.get("selection_k", 5)), n_models) + 1))


def oracle_gaps(summary: pd.DataFrame) -> pd.DataFrame | None:
    """Mean test error with MAP per ``k``: the nested best subset (chosen on the training
    part, scored on the test part), the test-split minimum (a bound: chosen on the test
    part itself), Greedy MI, Top-k, the max-MI subset, and their excess over the nested
    choice (``None`` when the exhaustive scan did not run)."""
    piv = summary[summary["aggregator"] == "map"].pivot(index="k", columns="selector",
                                                         values="mean")
    if "exhaustive" not in piv.columns:
        return None
    ref = piv["exhaustive_nested"] if "exhaustive_nested" in piv.columns else piv["exhaustive"]
    out = pd.DataFrame({
        "best subset, nested": ref,
        "test-split minimum (bound)": piv["exhaustive"],
        "Greedy MI": piv["greedy_mi"], "Top-k": piv["topk"],
        "max-MI subset": piv["exhaustive_mi"],
        "excess Greedy MI": piv["greedy_mi"] - ref,
        "excess Top-k": piv["topk"] - ref,
        "excess max-MI": piv["exhaustive_mi"] - ref,
    })
    if "exhaustive_nested" not in piv.columns:  # results saved before the nested choice
        out = out.drop(columns="best subset, nested")
    return out


def paper_differences(comparisons: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Mean ``|ours − paper|`` per selector (rows) and table (columns)."""
    mad = pd.DataFrame({kind: c.groupby("selector")["diff"].apply(lambda d: d.abs().mean())
                        for kind, c in comparisons.items()})
    mad = mad.rename(index=tables.LABELS, columns={
        name: f"{label} table" for name, label in tables.AGGREGATOR_NAMES.items()})
    mad.index.name = "selector"
    return mad


def show_diverse_example(ex: Any, k: int) -> None:
    """Display the Figure-2-style example (two tables), or say why there is none."""
    from IPython.display import HTML, Markdown, display

    if ex is None:
        display(Markdown(f"No such query at k = {k}: both ensembles agree on every test "
                         "query of this split."))
        return

    # accuracy on the training part of the split, which the selectors see (not the accuracy
    # on all queries of the pool table): named so, one formatter for both
    def pct(x: float) -> str:
        return tables.format_number(100 * x, 1) + "%"

    def show(t: pd.DataFrame) -> HTML:
        t = t.assign(accuracy=[pct(a) for a in t["accuracy"]],
                     answer=t["answer"].map({1: "True", -1: "False", 0: "—"}),
                     correct=t["correct"].map({True: "✓", False: "✗"}))
        return HTML(tables.to_html(t.rename(columns={"accuracy": "training accuracy"}),
                                   index=False))

    def said(p: int) -> str:
        return "True" if p == 1 else "False"

    display(Markdown(
        f"Query `{ex.item}` (condition `{ex.condition}`), ground truth **{said(ex.label)}**; "
        f"{ex.n_candidates} of {ex.n_test} test queries have Greedy MI right and "
        f"Top-{k} wrong."))
    display(Markdown(f"**(a) Greedy MI ensemble** (MAP answer: {said(ex.greedy_prediction)}),"
                     f" average training accuracy {pct(ex.greedy['accuracy'].mean())}"))
    display(show(ex.greedy))
    display(Markdown(f"**(b) Top-{k} ensemble** (MAP answer: {said(ex.topk_prediction)}), "
                     f"average training accuracy {pct(ex.topk['accuracy'].mean())}"))
    display(show(ex.topk))


def best_errors(summary: pd.DataFrame, selector: str, aggregator: str = "map"
                ) -> tuple[float, int]:
    """Smallest mean error of one curve and the ``k`` where it is reached."""
    c = summary[(summary["selector"] == selector) & (summary["aggregator"] == aggregator)]
    c = c.set_index("k")["mean"]
    return float(c.min()), int(c.idxmin())


# ------------------------------------------------------------------------------- checks
def check_pool(checks: PageChecks, pool_cmp: pd.DataFrame | None, dataset: Any,
               n_items: int | None) -> None:
    """The stand-in's pool stays close to the paper's accuracies (3 points, plus three
    binomial standard errors when fewer queries are sampled)."""
    if pool_cmp is None:
        return
    ref = str(profiles.profile(dataset).get("paper_table", ""))
    checks.add("every model of the paper's pool table is in ours",
               pool_cmp["ours_accuracy"].notna().all(), value=len(pool_cmp), ref=ref)
    tol = 0.03 if n_items is None else 0.03 + 3 * float(np.sqrt(0.25 / n_items))
    # strict bound, as the page has always asserted it
    checks.add("stand-in accuracy within tolerance of the paper's",
               float(pool_cmp["diff_accuracy"].abs().max()) < tol,
               value=float(pool_cmp["diff_accuracy"].abs().max()), bound=f"< {tol:.4g}",
               ref=ref)


def check_protocol(checks: PageChecks, results: pd.DataFrame, summary: pd.DataFrame, *,
                   dataset: Any, k_max: int, n_conditions: int, n_splits: int) -> None:
    """The protocol's bookkeeping on this run: every curve has every evaluation, the
    stand-ins have the paper's 3 temperatures x 2 runs, the budget reaches the full pool."""
    n_eval = n_conditions * n_splits
    checks.equal("evaluations behind every (selector, aggregator, k)",
                 sorted(set(summary["n"].tolist())), [n_eval], ref="Sec. 6 protocol")
    if dataset in STANDINS:
        checks.add("6 conditions (3 temperatures × 2 runs); 30 evaluations with 5 splits",
                   n_conditions == 6 and (n_splits != 5 or n_eval == 30), value=n_eval,
                   bound="= 6 × splits", ref="Sec. 6 protocol")
    checks.equal("largest budget k (the number of models, or the largest k asked for)",
                 int(results["k"].max()), k_max)


#: The tie rule's check: with ties counted as half an error, the spread over evaluations of
#: Top-k (MV) at k = 2 is at most this many times the larger spread of k = 1 and k = 3.
TIE_SPREAD_FACTOR = 2.0

#: Fewest evaluations for that check: a spread of fewer values is too noisy to compare (the
#: relative standard error of a standard deviation of n values is about 1/sqrt(2(n - 1))).
TIE_MIN_EVALUATIONS = 10

#: The budgets of the tie-rule comparison (k = 2 is the one with ties on every disagreement).
TIE_KS = (1, 2, 3)


def tie_rule_errors(df: Any, *, protocol: Protocol = PAPER_PROTOCOL,
                    ks: Sequence[int] = TIE_KS) -> pd.DataFrame:
    """Top-k (MV) on the protocol's splits under the two tie rules, per evaluation.

    On the splits of :func:`ensel.experiment.evaluate` with the same ``protocol`` (same
    condition, split, seed and item ids), Top-k's first ``k`` picks on the training part
    voted by majority vote fitted with the evaluation's tie seed: ``coin`` is the error of
    ``predict`` (the old rule, one seeded coin per answer pattern, so every tie of a split
    goes one way), ``half`` the error of :func:`ensel.aggregate.heldout_error` (a tie counts
    half), which the results hold. Columns ``condition, split, k, coin, half, ties``
    (``ties``: share of tied test items).
    """
    from ensel.aggregate import heldout_error, make_aggregator
    from ensel.experiment import _mv_seed, _nested_picks, condition_data, split_indices

    data = df if isinstance(df, list) else condition_data(df)
    rows = []
    seed = protocol.seed
    for d in data:
        for s in range(protocol.n_splits):
            tr, te = split_indices(len(d.y), condition=d.condition, split=s, seed=seed,
                                   test_fraction=protocol.test_fraction, item_ids=d.items)
            Xtr, ytr, Xte, yte = d.X[tr], d.y[tr], d.X[te], d.y[te]
            picks = _nested_picks("topk", Xtr, ytr, [int(k) for k in ks])
            for k, cols in picks.items():
                mv = make_aggregator("mv", random_state=_mv_seed(seed, d.condition, s))
                mv.fit(Xtr[:, cols], ytr)
                rows.append((d.condition, s, k,
                             float(np.mean(mv.predict(Xte[:, cols]) != yte)),
                             heldout_error(mv, Xte[:, cols], yte),
                             float(np.mean(mv._ties(Xte[:, cols])))))
    return pd.DataFrame(rows, columns=["condition", "split", "k", "coin", "half", "ties"])


def tie_rule_table(per_eval: pd.DataFrame) -> pd.DataFrame:
    """Mean and spread (std over evaluations) of :func:`tie_rule_errors` per ``k``."""
    g = per_eval.groupby("k")
    return pd.DataFrame({
        "coin mean": g["coin"].mean(), "coin spread": g["coin"].std(ddof=1),
        "half mean": g["half"].mean(), "half spread": g["half"].std(ddof=1),
        "tied share": g["ties"].mean(), "n": g.size()})


def tie_rule_sentence(tab: pd.DataFrame) -> str:
    """The sentence before :func:`tie_rule_table`'s table: the tied share and the spreads at
    k = 2 against k = 1 and 3, or what the pool lacks for that comparison.

    >>> tab = pd.DataFrame({"coin spread": [0.01, 0.03, 0.01], "half spread": [0.01, 0.01, 0.012],
    ...                     "tied share": [0.0, 0.2, 0.05]}, index=[1, 2, 3])
    >>> tie_rule_sentence(tab)[:63]
    'On this run a share 0.2000 of the test items is tied at k = 2; '
    >>> tie_rule_sentence(tab.loc[[1, 2]])[-41:]
    'the pool has no k = 3 to compare it with:'
    """
    if 2 not in tab.index:
        return ("With a single model there is no tie between two votes to show; the table "
                "gives what the pool has:")
    text = (f"On this run a share {float(tab.loc[2, 'tied share']):.4f} of the test items is "
            f"tied at k = 2; the spread over evaluations of Top-k (MV) at k = 2 is "
            f"{float(tab.loc[2, 'coin spread']):.4f} with the coin and "
            f"{float(tab.loc[2, 'half spread']):.4f} with ties counted half")
    if {1, 3} <= set(tab.index):
        return (text + f", against {float(tab.loc[1, 'half spread']):.4f} and "
                f"{float(tab.loc[3, 'half spread']):.4f} at k = 1 and 3:")
    return text + "; the pool has no k = 3 to compare it with:"


def check_tie_rule(checks: PageChecks, per_eval: pd.DataFrame, results: pd.DataFrame) -> None:
    """The half-error column is what the results hold for Top-k (MV), evaluation by
    evaluation, and with it the spread at k = 2 is at most :data:`TIE_SPREAD_FACTOR` times
    the larger spread at k = 1 and 3."""
    got = results[(results["selector"] == "topk") & (results["aggregator"] == "mv")
                  & results["k"].isin(per_eval["k"].unique())]
    both = per_eval.merge(got[["condition", "split", "k", "error"]],
                          on=["condition", "split", "k"], how="left", validate="one_to_one")
    checks.add("Top-k (MV) with ties counted half is the saved results' error, evaluation by "
               "evaluation", bool(both["error"].notna().all()
                                  and np.array_equal(both["error"], both["half"])),
               value=len(both))
    tab = tie_rule_table(per_eval)
    statement = ("Top-k (MV), ties counted half: spread over evaluations at k = 2 comparable "
                 f"to k = 1 and 3 (at most {TIE_SPREAD_FACTOR:g}× the larger)")
    if not {1, 2, 3} <= set(tab.index) or int(tab["n"].min()) < TIE_MIN_EVALUATIONS:
        checks.not_applicable(statement, f"needs k = 1, 2, 3 and {TIE_MIN_EVALUATIONS} "
                              f"evaluations (has {int(tab['n'].min())})")
        return
    sd = tab["half spread"]
    bound = TIE_SPREAD_FACTOR * max(float(sd[1]), float(sd[3]))
    checks.add(statement, float(sd[2]) <= bound, value=float(sd[2]), bound=f"<= {bound:.4f}")


def splits_for(dataset: Any, n_conditions: int, n_splits: int | None, *,
               protocol: Protocol = PAPER_PROTOCOL) -> tuple[int, str]:
    """How many random splits per condition, and one sentence saying why.

    Given ``n_splits`` wins. The stand-ins keep the paper's protocol (``protocol``: 5 splits
    of each of its 6 conditions); any other data gets the smallest number of splits whose
    interval is within 20 % of the narrowest one any number of splits of the same items can give
    (:func:`ensel.stats.choose_n_splits`; the width does not shrink to zero because the
    splits overlap).
    """
    from ensel.stats import choose_n_splits, half_width

    if n_splits is not None:
        return int(n_splits), f"{int(n_splits)} splits per condition, as the parameters ask"
    test, paper = protocol.test_fraction, protocol.n_splits
    c = choose_n_splits(1.0, n_train=1 - test, n_test=test, n_conditions=int(n_conditions),
                        near_floor=1.2, min_splits=5, max_splits=50)
    if str(dataset) in STANDINS:
        n = paper * int(n_conditions)
        ratio = half_width(1.0, n, test / (1 - test)) / c.floor
        return paper, (f"{paper} splits per condition, the paper's protocol: {n} evaluations "
                       f"give an interval {ratio:.2f} times the narrowest any number of "
                       "splits can give")
    return c.n_splits, (f"{c.n_splits} splits per condition: the smallest number whose 95 % "
                        "interval is within 20 % of the narrowest any number of random splits "
                        "of these items can give (the splits overlap, so more would not help)")


def verdict_counts(v: pd.DataFrame, column: str = "verdict") -> pd.DataFrame:
    """Per dataset: how many *testable* claims hold, are within noise, are contradicted
    (equivalence claims enter as :data:`ensel.book.claims.TALLY` says), how many the point
    estimates alone would call satisfied (``point``), and how many rows are shown but not
    counted (``not counted``: duplicates, true by construction, the book's controls)."""
    from ensel.book.claims import TALLY, TESTABLE
    from ensel.stats import VERDICTS

    point_col = "holds" if column == "verdict" else "paper_holds"
    have = v[v[column].isin(list(TALLY))]
    cls = have["class"] if "class" in have else pd.Series(TESTABLE, index=have.index)
    counted = have[cls == TESTABLE]
    counts = (counted.assign(_t=counted[column].map(TALLY)).groupby("dataset")["_t"]
              .value_counts().unstack(fill_value=0)
              .reindex(columns=list(VERDICTS), fill_value=0))
    counts = counts.reindex(pd.unique(have["dataset"]), fill_value=0)
    points = counted.groupby("dataset")[point_col].apply(lambda x: int(x.astype(bool).sum()))
    counts["point"] = [int(points.get(d, 0)) for d in counts.index]
    counts["claims"] = counts[list(VERDICTS)].sum(axis=1)
    counts["not counted"] = (have[cls != TESTABLE].groupby("dataset").size()
                             .reindex(counts.index, fill_value=0))
    order = [d for d in pd.unique(v["dataset"]) if d in counts.index]
    out = counts.loc[order].astype(int)
    out.columns.name = None
    return out


def margin_sensitivity(v: pd.DataFrame, results: Mapping[str, pd.DataFrame | None],
                       replicates: Mapping[str, pd.DataFrame | None] | None = None,
                       rules: Sequence[Any] | None = None) -> pd.DataFrame:
    """The tallies of the testable claims under each equivalence margin rule of ``rules``
    (default :data:`ensel.book.claims.MARGIN_SENSITIVITY`: the old absolute margin, then
    relative ones): the equivalence claims of ``v`` (the saved verdicts) re-checked on the
    saved ``results`` with each rule, every other row and every class as saved (neither
    depends on the margin).

    Returns one row per rule (index: its label) with the margin on each dataset that has an
    equivalence claim, how many testable equivalence claims are equivalent / not shown
    equivalent / different, and the counts of :func:`verdict_counts` summed over the
    stand-ins and over the real sources (``stand-ins holds`` ..., ``real holds`` ...).
    ``attrs["book"]`` is the label of the book's rule."""
    from ensel.book.claims import (
        CLAIMS,
        EQUIVALENCE,
        MARGIN_SENSITIVITY,
        TESTABLE,
        evidence_from_results,
        verdicts,
    )
    from ensel.stats import DIFFERENT, EQUIVALENT, NOT_SHOWN_EQUIVALENT, VERDICTS

    eq_kinds = [EQUIVALENT, NOT_SHOWN_EQUIVALENT, DIFFERENT]
    eq = v[v["verdict"].isin(eq_kinds)]
    ids = set(eq["id"])
    have = {d: r for d, r in results.items()
            if r is not None and d in set(eq["dataset"])}
    reps = {d: (replicates or {}).get(d) for d in have}
    out = []
    for rule in (rules or MARGIN_SENSITIVITY):
        w = verdicts(have, claims=[c for c in CLAIMS if c.id in ids], replicates=reps,
                     equivalence=rule).set_index(["id", "dataset"])
        merged = v.copy()
        key = list(zip(merged["id"], merged["dataset"], strict=True))
        again = [k in w.index for k in key]
        merged.loc[again, "verdict"] = [w.loc[k, "verdict"] for k, a in zip(key, again,
                                                                            strict=True) if a]
        merged.loc[again, "holds"] = [w.loc[k, "holds"] for k, a in zip(key, again,
                                                                        strict=True) if a]
        row: dict[str, Any] = {
            f"margin, {tables.dataset_label(d)}": evidence_from_results(
                r, equivalence=rule).margin() for d, r in have.items()}
        t = merged[merged["verdict"].isin(eq_kinds) & (merged["class"] == TESTABLE)]
        row.update({k: int((t["verdict"] == k).sum()) for k in eq_kinds})
        counts = verdict_counts(merged)
        for part, names in (("stand-ins", [d for d in counts.index if d in STANDINS]),
                            ("real", [d for d in counts.index if d not in STANDINS])):
            tot = counts.loc[names].sum() if names else pd.Series(0, index=counts.columns)
            row.update({f"{part} {k}": int(tot[k]) for k in (*VERDICTS, "claims")})
        out.append(pd.Series(row, name=rule.label()))
    table = pd.DataFrame(out)
    counted = [c for c in table.columns if not c.startswith("margin")]
    table[counted] = table[counted].astype(int)
    table.index.name = "margin"
    table.attrs["book"] = EQUIVALENCE.label()
    return table


def _outcomes(row: pd.Series) -> str:
    verb = "holds" if row["holds"] == 1 else "hold"
    skipped = int(row.get("not counted", 0))
    return (f"{row['holds']} of {row['claims']} testable claims {verb} beyond the noise, "
            f"{row['within noise']} {'is' if row['within noise'] == 1 else 'are'} within noise "
            f"and {'none is' if row['contradicted'] == 0 else row['contradicted']}"
            f"{'' if row['contradicted'] == 0 else (' is' if row['contradicted'] == 1 else ' are')}"
            " contradicted"
            + (f" ({skipped} more shown but not counted: duplicates, true by construction, "
               "the book's controls or artefacts of the plug-in table)" if skipped else ""))


def verdict_sentence(v: pd.DataFrame, counts: pd.DataFrame,
                     per_budget: Mapping[str, pd.DataFrame] | None = None) -> str:
    """The reproduction report's result in a few honest sentences, from its counts and, when
    given, the per-budget verdicts of Greedy MI against Top-k
    (:func:`budget_verdicts`): a budget where one selector is better beyond the noise is
    named even when the claims average it away."""
    out = []
    pb = dict(per_budget or {})
    stand = counts.loc[[d for d in counts.index if d in STANDINS]]
    if not stand.empty:
        tot = stand.sum()
        out.append(f"On the paper-calibrated stand-ins, {_outcomes(tot)}.")
    for d in [d for d in counts.index if d not in STANDINS]:
        out.append(f"On {tables.dataset_label(d)} (real answers), "
                   f"{_outcomes(counts.loc[d])}.")
    per_k = [budget_sentence(d, t) for d, t in pb.items() if t is not None and len(t)]
    per_k = [x for x in per_k if x]
    if per_k:
        out.append("Budget by budget (Greedy MI − Top-k with MAP, Holm over the budgets): "
                   + "; ".join(per_k) + ".")
    return " ".join(out)


def headline_sentence(counts: pd.DataFrame,
                      per_budget: Mapping[str, pd.DataFrame | None] | None = None) -> str:
    """Two short sentences for the front page: the testable claims on the stand-ins and on
    the real sources, and every budget where one selector is better after Holm."""
    def tally(row: pd.Series, what: str) -> str:
        c = int(row["contradicted"])
        return (f"{what} {int(row['holds'])} of {int(row['claims'])} testable claims hold "
                f"beyond the noise and {'none' if c == 0 else c} "
                f"{'is' if c <= 1 else 'are'} contradicted")

    stand = [d for d in counts.index if d in STANDINS]
    real = [d for d in counts.index if d not in STANDINS]
    parts = []
    if stand:
        parts.append(tally(counts.loc[stand].sum(), "on the paper-calibrated stand-ins"))
    if real:
        parts.append(tally(counts.loc[real].sum(), f"on the {len(real)} real source"
                           + ("s" if len(real) > 1 else "")))
    out = (parts[0][0].upper() + "; ".join(parts)[1:] + ".") if parts else ""
    found = []
    for d, t in (per_budget or {}).items():
        if t is None or not len(t):
            continue
        for who in ("Top-k better", "Greedy MI better"):
            ks = t.loc[t["verdict"] == who, "k"]
            if len(ks):
                found.append(f"{who.replace(' better', '')} beats "
                             f"{'Greedy MI' if who.startswith('Top') else 'Top-k'} on "
                             f"{tables.dataset_label(d)} at k = {_ks_text(ks)}")
    if found:
        out += (" Budget by budget (MAP, Holm over the budgets), "
                + "; ".join(found) + ", although no averaged claim shows it.")
    return out


#: Family-wise level of the per-budget verdicts.
BUDGET_ALPHA = 0.05


def budget_verdicts(paired: pd.DataFrame, alpha: float = BUDGET_ALPHA) -> pd.DataFrame:
    """Per budget ``k``: the paired difference Greedy MI − Top-k (a saved ``paired`` table,
    :func:`ensel.experiment.paired_differences`), its verdict by its own 95 % interval
    (``unadjusted``) and by Holm-adjusted p-values over the budgets
    (:func:`ensel.stats.holm`, column ``p_holm``, verdict ``verdict``): ``"Greedy MI
    better"`` / ``"Top-k better"`` when the adjusted p-value is below ``alpha``, else
    ``"within noise"``. A budget where both selectors always pick the same models (no
    spread: standard error 0) is no test: it is within noise and not in the family."""
    from ensel.stats import holm

    t = paired.sort_values("k").reset_index(drop=True)
    p = t["p_value"].to_numpy(dtype=float)
    se = t["se"].to_numpy(dtype=float) if "se" in t else np.full(len(t), np.nan)
    ok = np.isfinite(p) & ~(se == 0)
    adj = np.full(len(t), np.nan)
    if ok.any():
        adj[ok] = holm(p[ok])
    better = np.where(t["mean_diff"] < 0, "Greedy MI better", "Top-k better")
    out = t[["k", "mean_diff", "ci_low", "ci_high", "p_value"]].assign(
        unadjusted=np.where(ok & ((t["ci_low"] > 0) | (t["ci_high"] < 0)), better,
                            "within noise"),
        p_holm=adj, verdict=np.where(np.isfinite(adj) & (adj < alpha), better, "within noise"))
    out.attrs["n_tests"] = int(ok.sum())
    return out


def _ks_text(ks: Any) -> str:
    ks = [int(k) for k in ks]
    return ", ".join(map(str, ks)) if ks else "none"


def budget_sentence(dataset: str, table: pd.DataFrame) -> str:
    """One clause per dataset: at which budgets either selector is better beyond the noise,
    by each budget's own 95 % interval and after Holm over the budgets, with the clearest
    difference; ``""`` when neither is better at any budget by either rule."""
    parts = []
    n = table.attrs.get("n_tests", len(table))
    for who in ("Top-k better", "Greedy MI better"):
        raw = table[table["unadjusted"] == who]
        if raw.empty:
            continue
        r = raw.loc[raw["mean_diff"].abs().idxmax()]
        name = who.replace(" better", "")
        held = table.loc[table["verdict"] == who, "k"]
        fn = tables.format_number
        parts.append(f"{name} is better at k = {_ks_text(raw['k'])} by each budget's own "
                     f"95 % interval (k = {int(r['k'])}: {fn(r['mean_diff'], 4, signed=True)} "
                     f"[{fn(r['ci_low'], 4, signed=True)}, {fn(r['ci_high'], 4, signed=True)}"
                     f"]), {'at k = ' + _ks_text(held) if len(held) else 'at none'} after "
                     f"Holm over the {n} budgets where the selectors differ")
    if not parts:
        return ""
    return f"on {tables.dataset_label(dataset)}, " + "; ".join(parts)


def single_model_sentence(v: pd.DataFrame) -> str:
    """One sentence: does the best ensemble beat the single most accurate model (claim G5),
    and how sure is that."""
    row = v[v["id"] == "G5"] if "id" in v else v
    if row.empty or row["verdict"].iloc[0] not in ("holds", "within noise", "contradicted"):
        return ("The comparison with the single most accurate model was not made on this run "
                "(it needs k = 1 and larger budgets).")
    r = row.iloc[0]
    half = (r["effect_high"] - r["effect_low"]) / 2
    what = {"holds": "the ensemble is better beyond the noise",
            "within noise": "the data cannot tell the ensemble from the single best model",
            "contradicted": "the single best model is better: use it alone"}[r["verdict"]]
    return (f"Against the single most accurate model, the best Greedy MI ensemble changes the "
            f"test error by {r['effect']:+.4f} ± {half:.4f} (95 % interval): {what}.")


def save_conclusions(dataset: Any, verdicts_df: pd.DataFrame, diffs: pd.DataFrame,
                     copula_fit: pd.DataFrame) -> None:
    """Save what an experiments run concluded beside its results (kinds ``verdicts``,
    ``paired`` with its standard error per k from
    :func:`ensel.experiment.paired_differences`, ``copula``), for the reproduction report."""
    from ensel.book.results import save_results

    save_results(verdicts_df.reset_index(drop=True), dataset, kind="verdicts")
    save_results(diffs.reset_index(drop=True), dataset, kind="paired")
    save_results(copula_fit.reset_index(), dataset, kind="copula")


def page_verdicts(results: pd.DataFrame, dataset: Any, ks: Any,
                  replicates: pd.DataFrame | None = None, *,
                  data: pd.DataFrame | None = None) -> pd.DataFrame:
    """The claims checked on this dataset; none when the run evaluated only some budgets
    (the claims are about budgets up to the full pool). ``data``: the table the results
    come from; what it holds by construction (``attrs["by_construction"]``, set by the
    stand-ins for the variant actually loaded) decides which claims are not counted."""
    from ensel.book.claims import verdicts
    from ensel.datasets.standins import BY_CONSTRUCTION_ATTR as ATTR

    if ks is not None:
        return pd.DataFrame(columns=["id", "dataset", "verdict"])
    built = (None if data is None or ATTR not in data.attrs
             else {dataset: tuple(data.attrs[ATTR])})
    v = verdicts({dataset: results}, replicates={dataset: replicates}, by_construction=built)
    return not_applicable(v[v["dataset"] == dataset], results)


def _margin(results: pd.DataFrame) -> tuple[float, float, str] | None:
    """The equivalence margin on these results, the error it is relative to, and
    ``" (the floor)"`` when the floor decides (``None`` without Top-k at k = 1)."""
    from ensel.book.claims import NotComputable, evidence_from_results

    ev = evidence_from_results(results)
    try:
        single, margin = ev.single_error(), ev.margin()
    except NotComputable:
        return None
    return margin, single, " (the floor)" if margin == ev.equivalence.floor else ""


def margin_text(results: pd.DataFrame) -> str:
    """The equivalence margin on these results, with the error it is relative to
    (:data:`ensel.book.claims.EQUIVALENCE`)."""
    m = _margin(results)
    if m is None:
        return "not computed on this run (it needs Top-k at k = 1)"
    return (f"{m[0]:.4f}{m[2]} here, where the single most accurate model's test error "
            f"is {m[1]:.4f}")


def margins_text(results: Mapping[str, pd.DataFrame | None]) -> str:
    """The equivalence margin on every dataset with results, in one clause."""
    parts = [f"{tables.dataset_label(d)} {m[0]:.4f}{m[2]}" for d, r in results.items()
             if r is not None and (m := _margin(r)) is not None]
    return "; ".join(parts) or "no dataset has results"


def artefact_sentence(v: pd.DataFrame) -> str:
    """Where G3 is classed an artefact of the plug-in table in this build, with both
    findings side by side."""
    from ensel.book.claims import ARTEFACT

    rows = v[v["class"] == ARTEFACT]
    if rows.empty:
        return "in this build no row is classed so"
    ctl = v.set_index(["id", "dataset"])
    parts = []
    for r in rows.itertuples():
        c = ctl.loc[("G3-WMV", r.dataset)] if ("G3-WMV", r.dataset) in ctl.index else None
        other = ("" if c is None else f", where G3-WMV finds {c['ours']} ({c['verdict']})")
        parts.append(f"on {tables.dataset_label(r.dataset)}, {r.id} finds {r.ours}{other}")
    return "in this build: " + "; ".join(parts)


def check_claim_rules(checks: PageChecks, v: pd.DataFrame, results: pd.DataFrame) -> None:
    """The page's checks of how the claims were judged, each true by logic whatever the
    data: G3 is counted exactly where its control G3-WMV holds; an arm at the best ``k``
    chosen nested is never better, in mean test error, than each evaluation's own best
    ``k`` on the test part (a bound: it looks at the test part); every equivalence claim
    uses the margin of :data:`ensel.book.claims.EQUIVALENCE` on this data."""
    from ensel.book.claims import (
        ARTEFACT,
        CLAIMS,
        TESTABLE,
        Chosen,
        NotComputable,
        evidence_from_results,
    )
    from ensel.stats import HOLDS

    if v.empty:
        return
    by = v.set_index("id")
    for ctl in (c for c in CLAIMS if c.control and c.control in by.index
                and c.id in by.index):
        target = by.loc[ctl.control]
        if target["class"] in (TESTABLE, ARTEFACT):
            checks.add(f"{ctl.control} is counted exactly where its control {ctl.id} holds",
                       (target["class"] == TESTABLE) == (by.loc[ctl.id, "verdict"] == HOLDS),
                       value=f"{ctl.control} {target['class']}; {ctl.id} "
                             f"{by.loc[ctl.id, 'verdict']}")
    ev = evidence_from_results(results)
    arm = ("greedy_mi", "map")
    try:
        ks = tuple(int(k) for k in ev.curve(*arm).index)
        nested = ev.contrast([(1.0, arm, Chosen(ks), "error")]).mean
    except NotComputable:
        return
    errs = results[(results["selector"] == arm[0]) & (results["aggregator"] == arm[1])]
    bound = float(errs.groupby(["condition", "split"])["error"].min().mean())
    checks.at_least("Greedy MI (MAP) at its nested best k: mean test error minus the mean of "
                    "each evaluation's smallest test error over k (a bound)",
                    nested - bound, -1e-12)
    eq = v[v["ours"].str.contains(" within ±", regex=False)]
    if len(eq):
        want = f"within ±{ev.margin():.4f},"
        checks.add("every equivalence claim uses the relative margin on this data",
                   eq["ours"].str.contains(want, regex=False).all(), value=want[7:-1])


#: Verdict of a claim that needs a larger pool than the data has (``ensel evaluate`` on a
#: 2- or 3-model table): not a failure of the run.
NOT_APPLICABLE = "not applicable"


def not_applicable(v: pd.DataFrame, results: pd.DataFrame | None) -> pd.DataFrame:
    """Claims without evidence in results that cover every budget ``1..m`` need more models
    than the data has: their verdict becomes ``"not applicable"`` (was ``"no results"``)."""
    if results is None or v.empty or "verdict" not in v:
        return v
    missing = v["verdict"] == "no results"
    if not missing.any():
        return v
    m = int(results["k"].max())
    out = v.copy()
    out.loc[missing, "verdict"] = NOT_APPLICABLE
    out.loc[missing, "ours"] = f"not applicable: needs more than the {m} models of the data"
    return out


def claims_skipped_note(ks: Any) -> str:
    return ("Claims not checked: they are about budgets up to the full pool, and this run "
            f"evaluated k in {ks} only.")


# ------------------------------------------------------------------- reproduction report
def report_sources() -> list[str]:
    """The datasets the reproduction report covers: every declared dataset
    (:data:`ensel.datasets.DATASETS`, in declaration order) that the experiments page runs on.

    Examples
    --------
    >>> report_sources()[:3]  # the paper's stand-ins come first, then the real datasets
    ['medmcqa', 'mmlu', 'imdb']
    """
    from ensel.datasets import DATASETS

    return [name for name, spec in DATASETS.items() if "experiments" in spec.pages]


def report_comparison(summaries: Mapping[str, pd.DataFrame], datasets: Sequence[str]
                      ) -> pd.DataFrame:
    """Paper vs ours for every cell of the paper's three results tables of each dataset."""
    parts = []
    for d in datasets:
        for kind in ("map", "mv", "wmv"):
            c = tables.compare_results(summaries[d], d, kind)
            c.insert(0, "table", kind)
            c.insert(0, "dataset", d)
            parts.append(c)
    return pd.concat(parts, ignore_index=True)


def first_picks(dataset: str, results: pd.DataFrame) -> str:
    """Markdown: the most frequent first pick of each selector."""
    sel = results[(results["aggregator"] == "map") & (results["k"] == 1)]
    firsts = sel.groupby("selector")["selected"].agg(lambda s: s.value_counts().index[0])
    return (f"**{tables.dataset_label(dataset)}** — most frequent first pick per selector: "
            + ", ".join(f"{tables.LABELS.get(s, s)}: {m}" for s, m in firsts.items()))


def pick_agreement(results: pd.DataFrame, paper_sel: pd.DataFrame) -> pd.DataFrame:
    """The k-th model added: the paper's table against our most frequent pick."""
    from ensel.experiment import selected_models

    kmax = int(paper_sel["k"].max())
    rows = []
    for sel in ("greedy_mi", "mrmr"):
        for k in range(1, kmax + 1):
            part = results[(results["selector"] == sel) & (results["aggregator"] == "map")
                           & (results["k"] == k)]
            kth = part["selected"].map(lambda s: selected_models(s)[-1])
            top = kth.value_counts()
            paper_model = paper_sel[(paper_sel["method"] == sel)
                                    & (paper_sel["k"] == k)]["model"].iloc[0]
            rows.append({"selector": tables.LABELS[sel], "k": k, "paper pick": paper_model,
                         "our most frequent pick": top.index[0],
                         "share of evaluations": f"{top.iloc[0]}/{len(part)}",
                         "paper pick chosen in":
                             f"{int((kth == paper_model).sum())}/{len(part)}"})
    out = pd.DataFrame(rows).set_index(["selector", "k"])
    out.attrs["n_evaluations"] = len(part)
    return out


def beyond_table(results: Mapping[str, pd.DataFrame | None],
                 summaries: Mapping[str, pd.DataFrame],
                 replicates: Mapping[str, pd.DataFrame | None] | None = None) -> pd.DataFrame:
    """Per dataset: budgets where Greedy MI or Top-k is better beyond the noise (the same 95 %
    paired interval as the claims: overlapping splits and, when given, half-sample replicates
    accounted for), mean paired difference, and the mean excess over the exhaustive oracle."""
    from ensel.experiment import paired_differences

    rows, gaps = [], {}
    reps = dict(replicates or {})
    for d, r in results.items():
        if r is None:
            continue
        pdiff = paired_differences(r, "greedy_mi", "topk", "map", n_boot=0,
                                   replicates=reps.get(d))
        s = summaries[d]
        piv = s[s["aggregator"] == "map"].pivot(index="k", columns="selector", values="mean")
        row = {"dataset": tables.dataset_label(d), "budgets": len(pdiff),
               "Greedy MI better beyond noise": int((pdiff["ci_high"] < 0).sum()),
               "Top-k better beyond noise": int((pdiff["ci_low"] > 0).sum()),
               "mean paired diff": float(pdiff["mean_diff"].mean())}
        if "exhaustive" in piv.columns:
            if "exhaustive_nested" in piv.columns:
                row["excess over nested best subset, Greedy MI"] = float(
                    (piv["greedy_mi"] - piv["exhaustive_nested"]).mean())
                row["excess over nested best subset, Top-k"] = float(
                    (piv["topk"] - piv["exhaustive_nested"]).mean())
            row["excess over the bound, Greedy MI"] = float(
                (piv["greedy_mi"] - piv["exhaustive"]).mean())
            gaps[d] = float((piv["greedy_mi"] - piv["exhaustive"]).min())
        rows.append(row)
    out = pd.DataFrame(rows).set_index("dataset")
    out.attrs["min_oracle_gap"] = gaps  # Greedy MI minus oracle, smallest over k
    return out


def copula_side_by_side(copula: Mapping[str, pd.DataFrame | None]) -> pd.DataFrame:
    """The copula's fit on every real source (worst over conditions): the pairwise joint
    errors (matched by construction) and the distribution of simultaneous errors (not
    targeted by the fit, the real test)."""
    rows = []
    for d, c in copula.items():
        if c is None:
            continue
        rows.append({"dataset": tables.dataset_label(d), "conditions": len(c),
                     "max |model − empirical| pair": float(
                         c["max |model − empirical| pair"].max()),
                     "total variation, #errors (worst condition)": float(
                         c["total variation, #errors"].max())})
    return pd.DataFrame(rows).set_index("dataset")


def pooled_sentence(pooled: pd.DataFrame, ids: Sequence[str] = ("G2", "G5", "G3")) -> str:
    """The pooled result over the real sources in one sentence: for each claim of ``ids``
    (default: Greedy MI against Top-k over k = 3..7, the best ensemble against the best single
    model, all models against the best subset) the random-effects estimate, its 95 % HKSJ
    interval (scale factor floored at 1, :func:`ensel.meta.random_effects`), its verdict,
    the prediction interval for a new source and I²; and, with fewer
    than :data:`ensel.meta.FRAGILE_BELOW` sources, that the pooling is fragile."""
    from ensel.meta import FRAGILE_BELOW

    p = pooled[(pooled["dataset"] == "pooled")].set_index("id")
    p = p.loc[[i for i in ids if i in p.index]]
    if p.empty:
        return ("fewer than two real sources have results in this build, so nothing is "
                "pooled.")
    n = int(p["n_sources"].max())
    what = {"G2": "Greedy MI minus Top-k (test error, mean over k = 3..7)",
            "G5": "the best Greedy MI ensemble minus the best single model",
            "G3": "the best subset minus all models (Greedy MI, MAP)"}

    def pi(r: pd.Series) -> str:
        if pd.isna(r.get("pi_low")):
            return ""
        return f", a new source anywhere in [{r['pi_low']:+.4f}, {r['pi_high']:+.4f}]"

    parts = [f"{what.get(str(i), str(r['short']))} is {r['effect']:+.4f} "
             f"[{r['effect_low']:+.4f}, {r['effect_high']:+.4f}] ({r['verdict']}, "
             f"I² = {100 * r['i2']:.0f} %{pi(r)})" for i, r in p.iterrows()]
    fragile = (f" With {n} sources (fewer than {FRAGILE_BELOW}) the between-source variance "
               "is barely estimable, so these pooled intervals are fragile." if
               n < FRAGILE_BELOW else "")
    return (f"pooled over {n} real sources (random effects, Hartung-Knapp-Sidik-Jonkman "
            "95 % intervals with the scale factor floored at 1), " + ", ".join(parts[:-1])
            + (" and " if len(parts) > 1 else "") + parts[-1] + "." + fragile)


def gather_verdicts(saved: Mapping[str, pd.DataFrame | None]) -> pd.DataFrame:
    """The verdicts the experiments runs saved (kind ``verdicts``), in one table ordered by
    claim (as in :data:`ensel.book.claims.CLAIMS`) then by dataset (as given)."""
    from ensel.book.claims import CLAIMS

    parts = [v for v in saved.values() if v is not None and len(v)]
    if not parts:
        return pd.DataFrame(columns=["id", "dataset", "verdict", "effect", "paper_effect"])
    v = pd.concat(parts, ignore_index=True)
    claim_order = {c.id: i for i, c in enumerate(CLAIMS)}
    data_order = {d: i for i, d in enumerate(saved)}
    return (v.assign(_c=v["id"].map(claim_order), _d=v["dataset"].map(data_order))
            .sort_values(["_c", "_d"], kind="stable").drop(columns=["_c", "_d"])
            .reset_index(drop=True))


# ------------------------------------------------------------------ the findings table
def _cell(mark: str, effect: float, low: float, high: float, href: str | None,
          note: str = "") -> str:
    """One verdict with its interval, linked to the page that computed it."""
    from ensel.book.tables import format_number as fn

    txt = mark
    if pd.notna(effect):
        txt += (f" {fn(effect, 4, signed=True)} [{fn(low, 4, signed=True)}, "
                f"{fn(high, 4, signed=True)}]")
    if href:
        txt = f'<a href="{href}">{txt}</a>'
    if note:
        txt += f'<br><span style="font-size: 0.85em; color: #555">{note}</span>'
    return txt


def findings_table(v: pd.DataFrame, pooled: pd.DataFrame | None,
                   per_budget: Mapping[str, pd.DataFrame | None], *,
                   link: Any = None) -> pd.DataFrame:
    """The book's findings at a glance (front page and report), HTML cells.

    Rows: the paper's general claims (``G*``, with the book's control beside G3), every
    testable claim counted, and Greedy MI against Top-k budget by budget (Holm). Columns:
    the stand-ins (one line each), each real source, and the pooled estimate over the real
    sources. Each cell is a verdict mark with the effect and its 95 % interval, linked by
    ``link(dataset)`` (a URL or ``None``) to the page that computed it; rows that are not
    counted say why.
    """
    from ensel.book.claims import CLAIMS, SHORT_MARKS, TESTABLE

    def href(d: str) -> str | None:
        return None if link is None else link(d)

    datasets = list(pd.unique(v["dataset"]))
    stand = [d for d in datasets if d in STANDINS]
    real = [d for d in datasets if d not in STANDINS]
    cols = (["stand-ins"] if stand else []) + [tables.dataset_label(d) for d in real] + (
        ["pooled (real)"] if len(real) >= 2 else [])
    pooled_rows = (pooled[pooled["dataset"] == "pooled"].set_index("id")
                   if pooled is not None and len(pooled) else pd.DataFrame())
    rows: dict[str, dict[str, str]] = {}
    for c in [c for c in CLAIMS if c.dataset == "all"]:
        sub = v[v["id"] == c.id].set_index("dataset")
        if sub.empty:
            continue
        row: dict[str, str] = {}

        def one(d: str, prefix: str = "", sub: pd.DataFrame = sub) -> str:
            r = sub.loc[d]
            mark = SHORT_MARKS.get(r["verdict"], str(r["verdict"]))
            note = "" if r.get("class", TESTABLE) == TESTABLE else str(r["class"])
            return prefix + _cell(mark, r["effect"], r["effect_low"], r["effect_high"],
                                  href(d), note)

        if stand:
            row["stand-ins"] = "<br>".join(one(d, f"{tables.dataset_label(d)}: ")
                                           for d in stand if d in sub.index)
        for d in real:
            row[tables.dataset_label(d)] = one(d) if d in sub.index else "–"
        if "pooled (real)" in cols:
            if c.id in pooled_rows.index:
                p = pooled_rows.loc[c.id]
                note = (f"prediction [{p['pi_low']:+.3f}, {p['pi_high']:+.3f}]"
                        if pd.notna(p.get("pi_low")) else "")
                row["pooled (real)"] = _cell(SHORT_MARKS.get(p["verdict"], p["verdict"]),
                                             p["effect"], p["effect_low"], p["effect_high"],
                                             href("pooled"), note)
            else:
                row["pooled (real)"] = "–"
        label = f"{c.id}: {c.short or c.text}"
        if c.control:
            label += " (the book's control, not counted)"
        rows[label] = row

    counts = verdict_counts(v)
    row = {}
    for d in datasets:
        if d not in counts.index:
            continue
        r = counts.loc[d]
        txt = (f"{r['holds']} ✓ · {r['within noise']} ≈ · {r['contradicted']} ✗ "
               f"of {r['claims']}")
        if href(d):
            txt = f'<a href="{href(d)}">{txt}</a>'
        if d in STANDINS:
            row["stand-ins"] = (row.get("stand-ins", "") + ("<br>" if "stand-ins" in row
                                                            else "")
                                + f"{tables.dataset_label(d)}: {txt}")
        else:
            row[tables.dataset_label(d)] = txt
    rows["every testable claim (✓ holds or equivalent, ≈ cannot tell, ✗ contradicted)"] = row

    row = {}
    for d in datasets:
        t = per_budget.get(d)
        if t is None or not len(t):
            continue
        parts = [f"{who.replace(' better', '')} better at k = "
                 f"{_ks_text(t.loc[t['verdict'] == who, 'k'])}"
                 for who in ("Top-k better", "Greedy MI better")
                 if (t["verdict"] == who).any()]
        txt = "; ".join(parts) or "no budget beyond noise"
        txt += f" (Holm over {t.attrs.get('n_tests', len(t))})"
        if href(d):
            txt = f'<a href="{href(d)}">{txt}</a>'
        key = "stand-ins" if d in STANDINS else tables.dataset_label(d)
        if key == "stand-ins":
            txt = f"{tables.dataset_label(d)}: {txt}"
            row[key] = row[key] + "<br>" + txt if key in row else txt
        else:
            row[key] = txt
    rows["Greedy MI − Top-k (MAP) budget by budget"] = row
    out = pd.DataFrame.from_dict(rows, orient="index").reindex(columns=cols).fillna("–")
    out.index.name = "finding"
    return out


# ------------------------------------------------------------ synthetic figures, stamped
#: What a figure that does not plot real answers says inside its image, by kind (the rule
#: is in ARCHITECTURE.md, "Figures that are not real data"): ``stand-in`` (drawn from the
#: paper-calibrated stand-ins), ``simulated`` (estimated from sampled answers: Monte Carlo,
#: seeded pools), ``partly`` (panels of real data beside simulated or stand-in ones) and
#: ``exact`` (computed exactly from probability laws, no sampling, even when the laws'
#: parameters are drawn with a seed). A figure of real answers carries none.
FIGURE_STAMPS: dict[str, str] = {
    "stand-in": "synthetic (stand-in)",
    "simulated": "synthetic (simulated)",
    "partly": "partly synthetic (simulated or stand-in panels)",
    "exact": "exact computation (no sampling)",
}
#: The stamp every figure of synthetic (stand-in) data carries inside the image.
SYNTHETIC_STAMP = FIGURE_STAMPS["stand-in"]
_STAMP_COLORS = {"exact": "#1f4e79"}
_current = {"kind": "stand-in"}


def stamp_synthetic(fig: Figure) -> None:
    """Write the current stamp (:data:`FIGURE_STAMPS`, chosen by
    :func:`mark_synthetic_figures`) into the bottom-right corner of ``fig`` (a matplotlib
    figure hook: :func:`mark_synthetic_figures` registers it for every new figure)."""
    kind = _current["kind"]
    fig.text(0.995, 0.005, FIGURE_STAMPS[kind], ha="right", va="bottom", fontsize=8,
             color=_STAMP_COLORS.get(kind, "#b42318"), alpha=0.85, fontweight="bold",
             gid=figures.STAMP_GID)


def mark_synthetic_figures(on: bool | str = True) -> None:
    """From now on, every figure pyplot creates carries the stamp of kind ``on`` (a key of
    :data:`FIGURE_STAMPS`; ``True`` means ``"stand-in"``), or none (``False``): the one
    place where a page's figures are labelled, through matplotlib's ``figure.hooks``. A page
    whose figures are of different kinds calls it again before each change."""
    hook = f"{__name__}:stamp_synthetic"
    hooks = [h for h in plt.rcParams["figure.hooks"] if h != hook]
    if on is False:
        plt.rcParams["figure.hooks"] = hooks
        return
    kind = "stand-in" if on is True else str(on)
    if kind not in FIGURE_STAMPS:
        raise UsageError(f"unknown figure stamp {on!r}; expected one of {list(FIGURE_STAMPS)}")
    _current["kind"] = kind
    plt.rcParams["figure.hooks"] = [*hooks, hook]
