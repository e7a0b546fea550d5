"""Tests of ensel.book.tables and ensel.book.claims, and a smoke test of ensel.book.figures."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from ensel import experiment as ex
from ensel.book import claims, figures, tables
from ensel.copula import sample_equicorrelated
from ensel.data import to_long


def _summary(values: dict[tuple[str, str], list[float]], std: float = 0.01) -> pd.DataFrame:
    rows = []
    for (sel, agg), means in values.items():
        for k, m in enumerate(means, start=1):
            rows.append((sel, agg, k, m, std, 30))
    return pd.DataFrame(rows, columns=["selector", "aggregator", "k", "mean", "std", "n"])


_COLUMNS = ex.RESULT_COLUMNS + ["selected", "selected_accuracy", "n_test", ex.INNER_COLUMN]


def _results(errors: dict[tuple[str, str], list[float]], n_eval: int = 4) -> pd.DataFrame:
    """Hand-made results: the same error in every evaluation (+ tiny jitter per split); the
    inner split sees the same curve."""
    rows = []
    for (sel, agg), means in errors.items():
        for k, m in enumerate(means, start=1):
            for s in range(n_eval):
                rows.append(("c", s, sel, agg, k, m + 1e-4 * s, "a", 0.8, 100, m))
    return pd.DataFrame(rows, columns=_COLUMNS)


def test_bold_best_per_row() -> None:
    s = _summary({("topk", "map"): [0.17, 0.18, 0.20], ("greedy_mi", "map"): [0.17, 0.16, 0.20],
                  ("mrmr", "map"): [0.17, 0.16, 0.21]})
    t = tables.format_mean_std_table(s, [("topk", "map"), ("mrmr", "map"), ("greedy_mi", "map")],
                                     markup="markdown")
    assert t.loc[1, "Top-k (MAP)"] == "0.170 ± 0.010"  # all tie: no bold
    assert t.loc[2, "Greedy MI (MAP)"] == "**0.160 ± 0.010**"
    assert t.loc[2, "Terms 1+2 (MAP)"] == "**0.160 ± 0.010**"  # ties for best: both bold
    assert t.loc[2, "Top-k (MAP)"] == "0.180 ± 0.010"
    assert t.attrs["bold"].loc[3].tolist() == [True, False, True]
    # moved from the experiments page: a row where every column ties has no bold
    assert not t.attrs["bold"].all(axis=1).any()
    html = tables.to_html(tables.format_mean_std_table(
        s, [("topk", "map"), ("greedy_mi", "map")]), caption="x")
    assert "<b>0.160 ± 0.010</b>" in html and "&lt;b&gt;" not in html


def test_decimals_for_small_errors_and_bad_markup() -> None:
    s = _summary({("topk", "map"): [0.0354], ("greedy_mi", "map"): [0.0351]}, std=0.0043)
    t = tables.format_mean_std_table(s, [("topk", "map"), ("greedy_mi", "map")], markup="none")
    assert t.loc[1, "Greedy MI (MAP)"] == "0.0351 ± 0.0043"
    with pytest.raises(ValueError, match="unknown markup"):
        tables.format_mean_std_table(s, [("topk", "map")], markup="rtf")
    with pytest.raises(ValueError, match="no rows for"):
        tables.format_mean_std_table(s, [("mrmr", "mv")])


def test_table_layouts_match_paper() -> None:
    assert tables.table_layout("mv") == [("topk", "mv"), ("relevance", "mv"), ("mrmr", "mv"),
                                         ("greedy_mi", "map")]
    # the transcribed tables (the layout's source) and the registry agree on the paper's
    # selectors and aggregators
    from ensel.experiment import PAPER_AGGREGATORS, PAPER_SELECTORS

    assert [s for s, _ in tables.table_layout("map")] == list(PAPER_SELECTORS)
    assert {a for kind in PAPER_AGGREGATORS for _, a in tables.table_layout(kind)} == \
        set(PAPER_AGGREGATORS)
    paper = tables.paper_summary("medmcqa")
    t = tables.results_table(paper, "map", markup="markdown")
    # the paper bolds Greedy MI at k = 3..8 in its MEDMCQA MAP table
    for k in range(3, 9):
        assert t.loc[k, "Greedy MI (MAP)"].startswith("**")
    with pytest.raises(ValueError, match="unknown table kind"):
        tables.table_layout("x")


def test_compare_results_against_paper_itself() -> None:
    paper = tables.paper_summary("mmlu")
    c = tables.compare_results(paper, "mmlu", "wmv")
    assert len(c) == 4 * 13
    assert np.allclose(c["diff"], 0.0)


def test_claim_checks_on_hand_made_results() -> None:
    good = _results({("greedy_mi", "map"): [0.17, 0.17, 0.16, 0.15, 0.15, 0.16, 0.17, 0.18],
                     ("topk", "map"): [0.17, 0.17, 0.17, 0.17, 0.17, 0.17, 0.18, 0.18]})
    ev = claims.evidence_from_results(good)
    f = claims.lower(("greedy_mi", "map"), ("topk", "map"), range(3, 8))(ev)
    assert f.verdict == "holds" and f.point and "k=3..7" in f.text
    f = claims.lower(("greedy_mi", "map"), ("topk", "map"), range(1, 3))(ev)
    assert f.verdict == "within noise" and not f.point  # equal at k = 1, 2
    assert claims.best_lower(("greedy_mi", "map"), ("topk", "map"))(ev).verdict == "holds"
    assert claims.argmin_in(("greedy_mi", "map"), [4, 5])(ev).verdict == "holds"
    assert claims.argmin_in(("greedy_mi", "map"), [6])(ev).verdict == "contradicted"
    assert claims.full_set_worse(("greedy_mi", "map"))(ev).verdict == "holds"
    # equal at k = 1, 2 in every evaluation: equivalent within any margin
    assert claims.as_good([(("greedy_mi", "map"), ("topk", "map"))], [1, 2],
                          margin=0.001)(ev).verdict == "equivalent"
    bad = _results({("greedy_mi", "map"): [0.17, 0.18, 0.19, 0.2, 0.2, 0.2, 0.2, 0.2],
                    ("topk", "map"): [0.17] * 8})
    v = claims.verdicts({"x": good, "y": bad, "z": None},
                        claims=[c for c in claims.CLAIMS if c.id in ("G1", "G2")])
    got = v.set_index(["id", "dataset"])["verdict"]
    assert got[("G1", "x")] == "holds" and got[("G2", "x")] == "holds"
    # best errors tie at k = 1 (no evidence either way); k = 3..7 is worse throughout
    assert got[("G1", "y")] == "within noise" and got[("G2", "y")] == "contradicted"
    assert got[("G1", "z")] == "no results"
    assert (v["paper"] == "—").all()  # x, y, z are not paper datasets


def _noisy(delta: list[float], sd: float, seed: int, n_eval: int = 30,
           m: int = 8) -> pd.DataFrame:
    """Results of two arms over ``n_eval`` evaluations: Top-k's error 0.17 + noise,
    Greedy MI's error Top-k's + delta[k] + independent noise (sd each); the inner split's
    errors are an independent draw of the same kind (the nested choice of k reads them)."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(n_eval):
        base, inner = 0.17 + rng.normal(0, sd, (2, m))
        other = base + np.asarray(delta) + rng.normal(0, sd, m)
        other_inner = inner + np.asarray(delta) + rng.normal(0, sd, m)
        for k in range(1, m + 1):
            rows.append(("c", s, "topk", "map", k, base[k - 1], "a", 0.8, 100,
                         inner[k - 1]))
            rows.append(("c", s, "greedy_mi", "map", k, other[k - 1], "a", 0.8, 100,
                         other_inner[k - 1]))
    return pd.DataFrame(rows, columns=_COLUMNS)


G2 = next(c for c in claims.CLAIMS if c.id == "G2")


def test_three_outcomes_follow_the_truth() -> None:
    # identical arms: the G2 difference is noise; "within noise" in at least 95 % of seeds
    outcomes = [G2.check(claims.evidence_from_results(_noisy([0.0] * 8, 0.01, seed))).verdict
                for seed in range(60)]
    assert outcomes.count("within noise") >= 0.95 * 60, outcomes
    # a real advantage of 0.02 (two noise sds) holds; a real disadvantage is contradicted
    better = G2.check(claims.evidence_from_results(_noisy([-0.02] * 8, 0.01, 0)))
    assert better.verdict == "holds" and better.effect.high < 0
    worse = G2.check(claims.evidence_from_results(_noisy([0.02] * 8, 0.01, 0)))
    assert worse.verdict == "contradicted" and worse.effect.low > 0
    # the corrected interval: t_29 * sd * sqrt(1/30 + 0.25) (80/20 splits)
    r = better.effect
    assert r.half_width == pytest.approx(
        stats_t(29) * r.sd * np.sqrt(1 / 30 + 0.25), rel=1e-12)


def _halves(delta: list[float], spread: float, seed: int, M: int = 10) -> pd.DataFrame:
    """Half-sample replicates of the two arms of :func:`_noisy`: on each half the mean
    difference is delta + a shared per-halving offset of sd ``spread`` that differs between
    the halves (data-set-to-data-set variability the splits do not show)."""
    rng = np.random.default_rng([seed, 1])
    rows = []
    for h in range(M):
        for half in "AB":
            shift = rng.normal(0, spread)
            for k in range(1, len(delta) + 1):
                rows.append((h, half, "c", 0, "topk", "map", k, 0.17, "a", 0.8, 50, 0.17))
                rows.append((h, half, "c", 0, "greedy_mi", "map", k,
                             0.17 + delta[k - 1] + shift, "a", 0.8, 50, 0.17 + delta[k - 1]))
    return pd.DataFrame(rows, columns=["halving", "half", *_COLUMNS])


def test_replicates_that_disagree_widen_the_interval() -> None:
    res = _noisy([-0.02] * 8, 0.01, 0)
    alone = G2.check(claims.evidence_from_results(res))
    assert alone.verdict == "holds"
    # halves that agree with each other leave the corrected interval as it is
    calm = G2.check(claims.evidence_from_results(res, _halves([-0.02] * 8, 0.0, 0)))
    assert calm.effect.method == "corrected" and calm.verdict == "holds"
    assert calm.effect.half_width == alone.effect.half_width
    # halves whose results scatter by 0.03 show the data cannot tell: within noise
    wild = G2.check(claims.evidence_from_results(res, _halves([-0.02] * 8, 0.03, 0)))
    assert wild.effect.method == "halves" and wild.effect.df == 9
    assert wild.verdict == "within noise"
    assert wild.effect.mean == alone.effect.mean
    v = claims.verdicts({"x": res}, claims=[G2],
                        replicates={"x": _halves([-0.02] * 8, 0.03, 0)})
    assert list(v["verdict"]) == ["within noise"]


def stats_t(df: int) -> float:
    from scipy import stats
    return float(stats.t.ppf(0.975, df))


def test_point_estimate_inside_the_noise_is_not_a_finding() -> None:
    # a point advantage of 0.002 under noise sd 0.01 agrees with the claim in sign only
    f = G2.check(claims.evidence_from_results(_noisy([-0.002] * 8, 0.01, 3)))
    assert f.verdict == "within noise"
    assert f.effect.low < 0 < f.effect.high


def test_every_budget_claim_is_decided_by_its_least_clear_budget() -> None:
    lower = claims.lower(("greedy_mi", "map"), ("topk", "map"), range(3, 6))
    ev = claims.evidence_from_results(_noisy([0, 0, -0.03, -0.03, 0.0, 0, 0, 0], 0.005, 1))
    f = lower(ev)
    assert f.verdict == "within noise"  # k=5 has no advantage
    assert f.effect.low < 0 < f.effect.high  # the headline is that budget
    ev = claims.evidence_from_results(_noisy([0, 0, -0.03, -0.03, 0.03, 0, 0, 0], 0.005, 1))
    assert lower(ev).verdict == "contradicted" and lower(ev).effect.low > 0


def test_equivalence_claims() -> None:
    same = claims.as_good([(("greedy_mi", "map"), ("topk", "map"))], "all")
    # the margin is relative to the single best model's error (Top-k at k = 1: 0.17 here)
    ev = claims.evidence_from_results(_noisy([0.001] * 8, 0.001, 0))
    assert ev.margin() == pytest.approx(claims.EQUIVALENCE.fraction * ev.single_error())
    assert ev.single_error() == pytest.approx(0.17, abs=0.001)
    f = same(ev)
    assert f.verdict == "equivalent" and "8/8 equivalent" in f.text and f.effect is None
    assert same(claims.evidence_from_results(_noisy([0.05] * 8, 0.001, 0))).verdict \
        == "different"
    # too noisy to show equivalence: an interval containing 0 is no longer enough
    assert same(claims.evidence_from_results(_noisy([0.0] * 8, 0.02, 0))).verdict \
        == "not shown equivalent"
    # a real but small difference (0.004 < margin) is still equivalent
    assert same(claims.evidence_from_results(_noisy([0.004] * 8, 0.001, 0))).verdict \
        == "equivalent"
    half = claims.as_good([(("greedy_mi", "map"), ("topk", "map"))], "all", min_fraction=0.5)
    mixed = _noisy([0.0] * 4 + [0.05] * 4, 0.001, 0)
    assert half(claims.evidence_from_results(mixed)).verdict == "equivalent"
    assert same(claims.evidence_from_results(mixed)).verdict == "different"


def test_duplicates_are_detected_from_identical_findings() -> None:
    # on the paper's own numbers alone: the dataset claims that repeat a general claim
    # give the same finding and are marked, without any list of pairs
    v = claims.verdicts({"medmcqa": None, "mmlu": None, "imdb": None})
    dup = v[v["class"] == claims.DUPLICATE]
    pairs = {(r.id, r.class_note.split(":")[0].removeprefix("duplicate of "))
             for r in dup.itertuples()}
    assert pairs == {("MED2", "G1"), ("MED5", "G3"), ("MMLU4", "G3"), ("MMLU6", "G4")}
    # identical check functions on different claims are found the same way
    twin = claims.Claim("X1", "medmcqa", "here", "again", claims.CLAIMS[0].check)
    v2 = claims.verdicts({"medmcqa": _noisy([-0.02] * 12, 0.005, 0, m=12)},
                         claims=[claims.CLAIMS[0], twin])
    assert list(v2["class"]) == [claims.TESTABLE, claims.DUPLICATE]


def test_claim_classes() -> None:
    res = {"mmlu": _noisy([0.0] * 13, 0.005, 0, m=13), "mmlu_pro": _noisy([0.0] * 8, 0.01, 1)}
    v = claims.verdicts(res).set_index(["id", "dataset"])
    # a stand-in not given holds what its default variant holds: Term 1 ranks as accuracy
    assert v.loc[("MMLU3", "mmlu"), "class"] == claims.BY_CONSTRUCTION
    assert "ranks the models exactly as accuracy" in v.loc[("MMLU3", "mmlu"), "class_note"]
    # a table that holds nothing by construction leaves the claim testable
    free = claims.verdicts(res, by_construction={"mmlu": ()}).set_index(["id", "dataset"])
    assert free.loc[("MMLU3", "mmlu"), "class"] == claims.TESTABLE
    assert v.loc[("G3-WMV", "mmlu_pro"), "class"] == claims.CONTROL
    # without W-MV results the control cannot be checked: G3 is not counted, and says why
    assert v.loc[("G3", "mmlu_pro"), "class"] == claims.ARTEFACT
    assert "G3-WMV could not be checked" in v.loc[("G3", "mmlu_pro"), "class_note"]
    from ensel.book import protocol

    counts = protocol.verdict_counts(v.reset_index())
    # of the rows with a verdict on these two-arm results, G3 (its control unchecked) and
    # MMLU4 (the same finding as G3) are shown and not counted
    assert counts.loc["mmlu", "not counted"] == 2
    assert v.loc[("MMLU4", "mmlu"), "class"] == claims.DUPLICATE


def _with_wmv(res: pd.DataFrame, delta_full: float) -> pd.DataFrame:
    """``res`` plus Greedy MI with W-MV: its MAP errors, ``delta_full`` added at k = m."""
    g = res[(res["selector"] == "greedy_mi")].copy()
    g["aggregator"] = "wmv"
    full = g["k"] == g["k"].max()
    g.loc[full, "error"] += delta_full
    g.loc[full, ex.INNER_COLUMN] += delta_full
    return pd.concat([res, g], ignore_index=True)


def test_g3_counts_only_where_its_control_holds() -> None:
    """G3 (all models worse than the best subset) with MAP is classed an artefact of the
    plug-in table where the same question with W-MV does not hold, and counted where it
    does."""
    from ensel.book import protocol

    # MAP: all 8 models 0.03 worse than any subset, in every evaluation
    res = _noisy([0.0] * 7 + [0.03], 0.002, 0)
    keep = [c for c in claims.CLAIMS if c.id in ("G3", "G3-WMV")]
    both = claims.verdicts({"x": _with_wmv(res, 0.0)}, claims=keep).set_index("id")
    assert both.loc["G3-WMV", "verdict"] == "holds" and both.loc["G3", "verdict"] == "holds"
    assert both.loc["G3", "class"] == claims.TESTABLE
    # W-MV: all 8 models as good as any subset
    flat = claims.verdicts({"x": _with_wmv(res, -0.03)}, claims=keep).set_index("id")
    assert flat.loc["G3", "verdict"] == "holds" and flat.loc["G3-WMV", "verdict"] != "holds"
    assert flat.loc["G3", "class"] == claims.ARTEFACT
    assert "its control G3-WMV is within noise here" in flat.loc["G3", "class_note"]
    assert protocol.verdict_counts(flat.reset_index()).loc["x", "claims"] == 0
    # without the control among the claims checked, G3 stays testable
    alone = claims.verdicts({"x": res}, claims=keep[:1])
    assert list(alone["class"]) == [claims.TESTABLE]
    t = claims.verdict_table(flat.reset_index(), "x", html=False)
    assert "not counted: artefact of the plug-in table" in t.loc["G3", "verdict"]


def test_best_k_is_chosen_on_the_inner_split() -> None:
    """Each arm's best k is the one with the smallest inner-split error in each evaluation,
    not the minimum of the mean test curve: a test curve whose dip the inner split does not
    see is not chosen."""
    res = _noisy([0.0] * 8, 0.001, 0)
    g = res["selector"] == "greedy_mi"
    res.loc[g & (res["k"] == 4), "error"] -= 0.03  # a dip on the test part only
    res.loc[g & (res["k"] == 6), ex.INNER_COLUMN] -= 0.03  # the inner split prefers k = 6
    ev = claims.evidence_from_results(res)
    arm = ("greedy_mi", "map")
    assert set(ev.chosen(arm, claims.Chosen(tuple(range(1, 9))))) == {6}
    f = claims.best_lower(arm, ("topk", "map"))(ev)
    assert "(k=6 in 30/30)" in f.text and f.verdict == "within noise"
    # had the inner split seen the dip, it would hold
    res.loc[g & (res["k"] == 4), ex.INNER_COLUMN] -= 0.06
    f = claims.best_lower(arm, ("topk", "map"))(claims.evidence_from_results(res))
    assert "(k=4 in 30/30)" in f.text and f.verdict == "holds"
    # on the paper's tables (means only) the mean curve is all there is
    paper = claims.evidence_from_paper("medmcqa")
    c = paper.curve(*arm)["mean"]
    assert paper.chosen(arm, claims.Chosen(tuple(c.index))) == int(c.idxmin())
    # results without inner errors cannot choose: not computable, never a silent fallback
    with pytest.raises(claims.NotComputable, match="inner=True"):
        claims.best_lower(arm, ("topk", "map"))(
            claims.evidence_from_results(res.drop(columns=ex.INNER_COLUMN)))


def test_equivalence_margin_rule() -> None:
    ev = claims.evidence_from_results(_noisy([0.0] * 8, 0.001, 0))
    assert claims.EquivalenceMargin(absolute=0.01).margin(ev) == 0.01
    assert claims.EquivalenceMargin(0.1, 0.002).margin(ev) == pytest.approx(
        0.1 * ev.single_error())
    low = _noisy([0.0] * 8, 0.001, 0).assign(error=lambda d: d["error"] - 0.14)
    ev_low = claims.evidence_from_results(low)  # errors about 0.03: the floor
    assert ev_low.margin() == claims.EQUIVALENCE.floor
    assert claims.EQUIVALENCE in claims.MARGIN_SENSITIVITY
    assert claims.EQUIVALENCE_ABSOLUTE in claims.MARGIN_SENSITIVITY
    # a difference of 0.006 on errors of 0.03 is equivalent within 0.01, not within 5 %
    d = _noisy([0.006] * 8, 0.0005, 0).assign(error=lambda x: x["error"] - 0.14)
    same = claims.as_good([(("greedy_mi", "map"), ("topk", "map"))], "all")
    assert same(claims.evidence_from_results(
        d, equivalence=claims.EQUIVALENCE_ABSOLUTE)).verdict == "equivalent"
    assert same(claims.evidence_from_results(d)).verdict == "different"


@pytest.mark.parametrize("variant", ["class-asymmetric", "label-invariant", None])
def test_claim_class_follows_the_table_actually_loaded(variant: str | None) -> None:
    """The experiments page passes the table it ran on: a stand-in records what the variant
    loaded holds by construction, and MMLU3's class follows it (not a list of datasets):
    on either variant Term 1 ranks as accuracy by construction; on a table that records
    nothing (``None``: the same answers claiming no construction) the claim is testable."""
    from ensel.book import protocol
    from ensel.datasets import standins

    data = standins.generate("mmlu", n_items=20, variant=variant or "class-asymmetric")
    if variant is None:
        data.attrs[standins.BY_CONSTRUCTION_ATTR] = ()
    res = _noisy([0.0] * 13, 0.005, 0, m=13)
    v = protocol.page_verdicts(res, "mmlu", None, data=data).set_index("id")
    props = data.attrs.get(standins.BY_CONSTRUCTION_ATTR, ())
    assert (v.loc["MMLU3", "class"] == claims.BY_CONSTRUCTION) == (variant is not None)
    assert (standins.LABEL_INVARIANT in props) == (variant == "label-invariant")


def test_relevance_follows_accuracy_on_both_variants() -> None:
    """The premise of :data:`standins.RELEVANCE_FOLLOWS_ACCURACY`, exactly: within either
    variant's one-parameter family of channels, I(Y; X) falls strictly as the binary error
    grows up to 1/2 (the stand-ins' accuracies are clipped at 0.5)."""
    from ensel.datasets import standins
    from ensel.info import mutual_information_table
    from ensel.theory import asymmetric_joint_law

    eps = np.linspace(0.001, 0.5, 400)
    for name in ("mmlu", "imdb"):
        pos, neg = standins.class_error_rates(name, eps)
        mi = [mutual_information_table(asymmetric_joint_law([p], [q]), 0, 1)
              for p, q in zip(pos, neg, strict=True)]
        assert np.all(np.diff(mi) < 0), name


def test_restricted_budgets_give_no_results_not_an_error() -> None:
    res = _noisy([0.0] * 8, 0.01, 0)
    only = res[res["k"] <= 2]
    v = claims.verdicts({"x": only})
    assert set(v["verdict"]) <= {"no results", "holds", "within noise", "contradicted"}
    assert (v.loc[v["id"] == "G2", "verdict"] == "no results").all()
    assert "not computable" in v.loc[v["id"] == "G2", "ours"].iloc[0]
    ev = claims.evidence_from_results(only)
    with pytest.raises(claims.NotComputable, match=r"^no results for nope/map$"):
        ev.curve("nope", "map")


def test_paper_rule_from_its_mean_and_std() -> None:
    # MEDMCQA, Greedy MI vs Top-k with MAP at k = 3: the paper prints mean ± std over 30
    # evaluations; with uncorrelated arms the difference's std is sqrt(sa^2 + sb^2)
    from ensel.book.tables import paper_summary

    p = paper_summary("medmcqa").set_index(["selector", "aggregator", "k"])
    ga, ta = p.loc[("greedy_mi", "map", 3)], p.loc[("topk", "map", 3)]
    ev = claims.evidence_from_paper("medmcqa")
    r = ev.contrast([(1.0, ("greedy_mi", "map"), 3, "error"), (-1.0, ("topk", "map"), 3,
                                                                "error")])
    sd = np.hypot(ga["std"], ta["std"])
    assert r.mean == pytest.approx(ga["mean"] - ta["mean"])
    assert r.half_width == pytest.approx(stats_t(29) * sd * np.sqrt(1 / 30 + 0.25))
    v = claims.verdicts({})
    assert set(v["paper_verdict"]) <= set(claims.TALLY)
    # the paper never contradicts itself
    assert (v["paper_verdict"].map(claims.TALLY) != "contradicted").all()


def test_paper_claims_hold_on_paper_numbers() -> None:
    v = claims.verdicts({})
    assert len(v) == sum(c.dataset != "all" for c in claims.CLAIMS)
    # every directional claim; an equivalence claim's point estimates depend on the margin
    equiv = v["paper_verdict"].isin(["equivalent", "not shown equivalent", "different"])
    bad = v[~equiv & ~v["paper_holds"].astype(bool)]
    assert bad.empty, bad[["id", "paper"]]
    assert claims.verdicts({}, equivalence=claims.EQUIVALENCE_ABSOLUTE)["paper_holds"].all()
    assert (v["verdict"] == "no results").all()


def test_pool_table_and_plots() -> None:
    frames = []
    for i, c in enumerate(("a", "b")):
        X, y, _ = sample_equicorrelated([0.6, 0.7, 0.8, 0.9], 0.4, 4, 3000, random_state=i)
        frames.append(to_long(X, y, condition=c, models=["w", "x", "y", "z"]))
    df = pd.concat(frames, ignore_index=True)
    pool = tables.pool_statistics(df)
    # moved from the experiments page: accuracies are probabilities, Sigma has unit diagonal
    assert np.all((pool.accuracy >= 0) & (pool.accuracy <= 1))
    assert np.allclose(np.diagonal(pool.sigma, axis1=1, axis2=2), 1.0)
    t = tables.model_pool_table(pool)
    assert t["model"].tolist() == ["z", "y", "x", "w"]
    assert t["accuracy"].iloc[0] == pytest.approx(0.9, abs=0.02)
    assert pool.avg_rho == pytest.approx(0.4, abs=0.08)
    assert t["tau"].iloc[0] == pytest.approx(-1.2816, abs=0.08)
    f = tables.format_model_pool_table(t)
    assert f["Model"].iloc[-1] == "Average" and "±" in f["Accuracy"].iloc[0]
    res = ex.evaluate(df, n_splits=2, aggregators=("map", "mv"))
    s, sc = ex.summarise(res), ex.summarise(res, by=("condition",))
    figs = [figures.error_vs_k(s), figures.error_vs_k_panels(sc, panel="condition"),
            figures.error_vs_k_panels(s, panel="aggregator"),
            figures.correlation_heatmap(pool.mean_sigma, pool.models),
            figures.paired_differences_plot(ex.paired_differences(res))]
    from ensel.copula import copula_diagnostics, errors_from
    from ensel.data import to_wide
    Xw, yw = to_wide(df, "a")
    d = copula_diagnostics(errors_from(Xw.to_numpy(), yw.to_numpy()), random_state=0)
    figs.append(figures.copula_validation(d.pairs, d.simultaneous))
    assert all(isinstance(f, matplotlib.figure.Figure) for f in figs)
    with pytest.raises(ValueError, match="no column 'condition'"):
        figures.error_vs_k_panels(s, panel="condition")
    import matplotlib.pyplot as plt
    plt.close("all")


def test_format_number_is_readable() -> None:
    assert tables.format_number(-0.00001, 3) == "0.000"  # no "-0.000"
    assert tables.format_number(-0.0123, 3) == "−0.012"
    assert tables.format_number(0.0123, 3, signed=True) == "+0.012"
    assert tables.format_number(float("nan")) == "n/a"
    assert tables.format_number(None, missing="—") == "—"
    f = tables.format_numbers(pd.DataFrame({"a": [1, 2], "b": [-1e-9, 0.5]}), 2, signed=["b"])
    assert f["a"].tolist() == [1, 2] and f["b"].tolist() == ["0.00", "+0.50"]


def test_comparison_table_is_compact_and_consistent() -> None:
    paper = tables.paper_summary("medmcqa")
    ours = paper.assign(mean=paper["mean"] + 0.002)
    c = tables.compare_results(ours, "medmcqa", "mv")
    t = tables.comparison_table(c)
    assert t.columns.nlevels == 2
    assert list(t.columns.get_level_values(0).unique()) == [
        tables.column_label(s, a) for s, a in tables.table_layout("mv")]
    assert set(t.columns.get_level_values(1)) == {"paper", "ours", "Δ"}
    assert (t.xs("Δ", axis=1, level=1) == "+0.002").all().all()
    first = c.iloc[0]
    assert t.loc[int(first["k"]), (tables.column_label(first["selector"], first["aggregator"]),
                                   "paper")] == f"{first['paper_mean']:.3f}"
    with pytest.raises(ValueError, match="must have columns"):
        tables.comparison_table(c.drop(columns="diff"))


def test_verdict_table_and_claim_texts() -> None:
    good = _results({("greedy_mi", "map"): [0.17, 0.17, 0.16, 0.15, 0.15, 0.16, 0.17, 0.18],
                     ("topk", "map"): [0.17, 0.17, 0.17, 0.17, 0.17, 0.17, 0.18, 0.18]})
    v = claims.verdicts({"mmlu_pro": good, "medmcqa": None},
                        claims=[c for c in claims.CLAIMS if c.id in ("G1", "G2", "MED1")])
    t = claims.verdict_table(v, "mmlu_pro")
    assert list(t.columns) == ["claim", "paper", "ours", "verdict"]
    assert (t["paper"] == claims.NO_PAPER_TABLE).all()  # not "None" / "—"
    assert "✓ holds" in t.loc["G1", "verdict"] and "±" in t.loc["G1", "ours"]
    # the shared "what is measured" prefix moves into the claim cell
    assert "mean over k=3..7" in t.loc["G2", "claim"] and "mean over" not in t.loc["G2", "ours"]
    m = claims.verdict_table(v, "medmcqa", html=False)
    assert m.loc["MED1", "verdict"] == "– no results"
    # the paper's own MED1 differences (≈ 0.01) are inside its own spread
    assert m.loc["MED1", "paper"].endswith("≈")
    text = claims.claims_markdown()
    assert all(f"**{c.id}**" in text for c in claims.CLAIMS)
    assert "$" not in text and "^" not in text  # math is not typeset in generated outputs
    assert all(c.short and len(c.short) <= 60 for c in claims.CLAIMS)


def test_banner_follows_the_data(tmp_path) -> None:
    X, y, _ = sample_equicorrelated([0.7, 0.8, 0.9], 0.3, 3, 200, random_state=0)
    one = to_long(X, y, condition="5shot", models=["a", "b", "c"])
    b1 = tables.dataset_banner("mmlu_pro", one, n_splits=5, seed=0)
    assert "One condition (`5shot`)" in b1 and "over 5 evaluations" in b1 and "real" in b1
    two = pd.concat([one, to_long(X, y, condition="other", models=["a", "b", "c"])])
    b2 = tables.dataset_banner(str(tmp_path / "mine.csv"), two, n_splits=3, seed=1)
    assert "2 conditions" in b2 and "2 × 3 = 6 evaluations" in b2 and "`mine.csv`" in b2
    assert str(tmp_path) not in b2 and "$" not in b2
    assert tables.short_path(tmp_path / "x", root=tmp_path) == "x"
    assert tables.short_path("/elsewhere/deep/results", root=tmp_path) == "deep/results"


def test_pool_comparison_and_headers() -> None:
    paper = load_paper_pool("mmlu")
    cmp = tables.compare_pool(paper.assign(accuracy=paper["accuracy"] - 0.001), "mmlu")
    f = tables.format_pool_comparison(cmp)
    assert f.columns.names[1] == "model" and f.index.is_unique
    assert ("accuracy (%)", "Δ") in f.columns and ("avg. ρ", "paper") in f.columns
    assert (f[("accuracy (%)", "Δ")] == "−0.1").all()
    t = pd.DataFrame({"model": ["a"], "accuracy": [0.8], "accuracy_std": [0.0], "tau": [-0.84],
                      "avg_rho": [0.5]})
    t.attrs["n_conditions"] = 1
    g = tables.format_model_pool_table(t)
    assert list(g.columns) == ["Model", "Accuracy", "threshold τ", "avg. ρ"]
    assert g["Accuracy"].iloc[0] == "80.0%"  # one condition: no "± 0.0%"


def load_paper_pool(dataset: str) -> pd.DataFrame:
    from ensel.datasets.paper_tables import load_paper_table

    return load_paper_table("model_pools", dataset=dataset)[["model", "accuracy", "tau",
                                                              "avg_rho"]]


@pytest.mark.parametrize(("m", "labelled"), [(12, 12), (40, 40), (1000, None)])
def test_correlation_heatmap_stays_page_sized(m, labelled) -> None:
    """A 1,000-model pool drew a 550 x 500-inch heatmap (100 s in ensel evaluate); the
    figure is now at most 11 x 10 inches and labels only some of more than 40 models."""
    import matplotlib.pyplot as plt

    S = np.full((m, m), 0.3)
    np.fill_diagonal(S, 1.0)
    fig = figures.correlation_heatmap(S, [f"m{j}" for j in range(m)])
    w, h = fig.get_size_inches()
    assert w <= 11 and h <= 10
    n_labels = len(fig.axes[0].get_xticklabels())
    assert n_labels == labelled if labelled else 5 <= n_labels < m
    plt.close(fig)


def test_page_checks_summary_table_and_failure() -> None:
    checks = claims.PageChecks("demo")
    assert checks.close("exact", [0.1, 0.2], [0.1, 0.2 + 1e-12], tol=1e-9, ref="Thm 4.4")
    assert checks.at_least("positive", [0.5, 2.0], 0.0)
    assert checks.equal("picks", [0, 2], [0, 2])
    assert checks.summary() == "Checks on this page: 3, all passed."
    assert list(checks.table().columns) == ["", "check", "paper", "value", "criterion"]
    assert "<details" in checks.html()
    checks.report()  # no error
    assert not checks.at_most("small", 0.3, 0.1, ref="Eq. (10)")
    assert checks.summary() == "Checks on this page: 4, 1 FAILED."
    with pytest.raises(claims.CheckFailed, match=r"demo: 1 of 4 checks failed:\n  ✗ small "
                                                 r"\(Eq. \(10\)\): 0.3, expected ≤ 0.1"):
        checks.report()


def test_page_checks_not_applicable_is_neither_passed_nor_failed() -> None:
    checks = claims.PageChecks("demo")
    assert checks.at_most("small", 0.01, 0.02)
    checks.not_applicable("pairs", "300 queries for 1,000 models", bound="< 0.02")
    assert checks.summary() == "Checks on this page: 1, all passed; 1 not applicable."
    assert list(checks.table()[""]) == ["✓", "–"]
    assert checks.table()["value"].iloc[1] == "not applicable: 300 queries for 1,000 models"
    checks.report()  # no error
    assert not checks.at_least("big", 0.0, 1.0)
    assert checks.summary() == "Checks on this page: 2, 1 FAILED; 1 not applicable."
    with pytest.raises(claims.CheckFailed, match=r"demo: 1 of 2 checks failed:\n  ✗ big"):
        checks.report()


@pytest.mark.parametrize(("m", "n", "gap", "mark"), [
    (10, 100, 0.019, "✓"), (10, 100, 0.02, "✗"), (10, 99, 0.5, "–"), (1000, 300, 0.05, "–"),
])
def test_copula_pair_check_applies_from_ten_queries_per_model(m, n, gap, mark) -> None:
    checks = claims.PageChecks("demo")
    claims.check_copula_pairs(checks, gap, n_models=m, n_queries=n)
    assert list(checks.table()[""]) == [mark]


def test_page_checks_strict_bounds() -> None:
    checks = claims.PageChecks("demo")
    assert checks.at_most("equal allowed", 0.1, 0.1)
    assert not checks.at_most("equal refused", 0.1, 0.1, strict=True)
    assert not checks.at_least("equal refused", 0.1, 0.1, strict=True)
    assert not checks.close("equal refused", 0.2, 0.1, tol=0.1, strict=True)
    assert checks.close("inside", 0.15, 0.1, tol=0.1, strict=True)
    assert list(checks.table()["criterion"]) == ["≤ 0.1", "< 0.1", "> 0.1", "< 0.1", "< 0.1"]


def test_counts_sentence_and_forest_plot() -> None:
    from ensel.book import protocol

    res = {"medmcqa": _noisy([-0.02] * 12, 0.005, 0, m=12),
           "mmlu_pro": _noisy([0.0] * 8, 0.01, 1)}
    v = claims.verdicts(res)
    counts = protocol.verdict_counts(v)
    assert list(counts.columns) == ["holds", "within noise", "contradicted", "point", "claims",
                                    "not counted"]
    assert (counts[["holds", "within noise", "contradicted"]].sum(axis=1)
            == counts["claims"]).all()
    # G1, G2, G5 (G4 needs majority-vote results); the control G3-WMV is not counted,
    # and without it G3 is not either
    assert counts.loc["mmlu_pro", "claims"] == 3
    text = protocol.verdict_sentence(v, counts)
    assert "stand-ins" in text and "MMLU-Pro" in text and "testable" in text
    assert "paper's own mean ± std" not in text  # an unpaired rule: not a headline
    assert "Budget by budget" not in text
    # Top-k better by 0.03 at every budget: the sentence names the budgets
    worse = ex.paired_differences(_noisy([0.03] * 8, 0.005, 2), n_boot=0)
    with_k = protocol.verdict_sentence(v, counts, {"mmlu_pro": protocol.budget_verdicts(worse)})
    assert with_k.startswith(text)
    assert "Top-k is better at k = 1, 2, 3, 4, 5, 6, 7, 8 by each budget's own" in with_k
    assert "at k = 1, 2, 3, 4, 5, 6, 7, 8 after Holm over the 8 budgets" in with_k
    e = claims.effects_table(v)
    ours = e.dropna(subset=["effect"])
    assert len(ours) and (ours["effect_low"] <= ours["effect_high"]).all()
    fig = figures.claims_forest(e, dataset_label=tables.dataset_label)
    assert len(fig.axes[0].get_yticklabels()) == len(e)


def test_ensemble_against_the_single_best_model() -> None:
    from ensel.book import protocol

    g5 = next(c for c in claims.CLAIMS if c.id == "G5")
    # every ensemble (k >= 2) 0.03 better than the best single model: holds
    f = g5.check(claims.evidence_from_results(_noisy([0.0] + [-0.03] * 7, 0.005, 0)))
    assert f.verdict == "holds" and "k=" in f.text
    # Greedy MI's ensembles no better than Top-k's first model: within noise
    res = _noisy([0.0] * 8, 0.01, 2)
    res.loc[res["selector"] == "greedy_mi", "error"] = np.repeat(
        res.loc[(res["selector"] == "topk") & (res["k"] == 1), "error"].to_numpy(), 8)
    res.loc[res["selector"] == "greedy_mi", "error"] += np.random.default_rng(0).normal(
        0, 0.01, (res["selector"] == "greedy_mi").sum())
    v = claims.verdicts({"x": res}, claims=[g5])
    assert v["verdict"].iloc[0] in ("within noise", "contradicted")
    assert "single" in protocol.single_model_sentence(v)
    worse = g5.check(claims.evidence_from_results(_noisy([0.0] + [0.03] * 7, 0.005, 0)))
    assert worse.verdict == "contradicted"


def test_margin_sensitivity_and_the_pages_rule_checks() -> None:
    """The report's sensitivity table re-checks the equivalence claims under each margin
    (the old absolute one makes a 0.004 difference on errors of 0.035 "equivalent", the
    relative one does not), its row of the book's rule reproduces the saved counts, and the
    experiments page's checks of the rules pass on the same verdicts."""
    from ensel.book import protocol

    res = _noisy([0.004] * 12, 0.0005, 0, m=12).assign(
        error=lambda d: d["error"] - 0.135,
        **{ex.INNER_COLUMN: lambda d: d[ex.INNER_COLUMN] - 0.135})
    v = claims.verdicts({"imdb": res})
    assert v.set_index("id").loc["IMDB2", "verdict"] == "different"
    t = protocol.margin_sensitivity(v, {"imdb": res})
    old, book = t.loc[claims.EQUIVALENCE_ABSOLUTE.label()], t.loc[t.attrs["book"]]
    assert old["equivalent"] == 1 and book["different"] == 1
    assert book["margin, IMDB"] == claims.EQUIVALENCE.floor and old["margin, IMDB"] == 0.01
    counts = protocol.verdict_counts(v).sum()
    assert [book[f"stand-ins {k}"] for k in ("holds", "within noise", "contradicted")] == \
        [counts[k] for k in ("holds", "within noise", "contradicted")]
    # IMDB2: equivalent (holds) under the old margin, different (contradicted) under the book's
    assert old["stand-ins holds"] == book["stand-ins holds"] + 1
    assert old["stand-ins contradicted"] == book["stand-ins contradicted"] - 1
    assert t["equivalent"].dtype.kind == "i"
    checks = claims.PageChecks("demo")
    protocol.check_claim_rules(checks, v, res)
    assert len(checks) >= 2 and not checks.failures(), checks.table()
    assert "the floor" in protocol.margin_text(res)
    # G3's control was not run (no W-MV): the sentence says where G3 is not counted
    assert "on IMDB, G3 finds" in protocol.artefact_sentence(v)


def test_answer_bias_moves_the_conversion_ratio() -> None:
    from ensel.book import cards

    t = cards.answer_bias_sensitivity("mmlu", seed=0, n_items=600, biases=(-0.1, 0.0, 0.2))
    asym = t[t["variant"] == "class-asymmetric"].set_index("bias")
    assert (asym["ratio"].diff().dropna() < 0).all()  # a yes-bias lowers the ratio
    assert asym.loc[0.0, "ratio"] == pytest.approx(3.0, rel=0.3)
    assert (t["residual"] < 1e-10).all()
    ref = t[t["variant"] == "label-invariant"]
    assert len(ref) == 1 and ref["ratio"].iloc[0] == pytest.approx(1.0, rel=0.3)
    with pytest.raises(ValueError, match="bias must lie in"):
        cards.with_answer_bias(np.ones((2, 2), dtype=np.int8), 1.5, seed=0)
