"""Page support for the dataset cards (stand-ins and MMLU-Pro).

The computations of the stand-in card's per-dataset sections (fit table, family heatmap,
copula recovery, accuracy draws, persistence, notes on the paper's tables), each returning
a table whose ``attrs`` carry the statistics the page quotes and checks, and the matching
``check_*`` functions that record the page's checks in a
:class:`~ensel.book.claims.PageChecks`. Only the pages import this module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ensel.book import profiles
from ensel.book.claims import PageChecks
from ensel.paper import paper_ref

__all__ = [
    "NAMES",
    "LABEL",
    "glue_values",
    "printed",
    "decimals",
    "sizes_table",
    "check_sizes",
    "fit_table",
    "check_fit",
    "fit_facts",
    "family_heatmap",
    "recovery",
    "check_recovery",
    "estimated_spread_bound",
    "accuracy_table",
    "check_accuracy",
    "fit_summary",
    "persistence",
    "check_persistence",
    "average_rows",
    "tau_rows",
    "odd_precision",
    "tie_rows",
    "greedy_columns_repeat",
    "selection_accuracies",
    "registry_summary",
    "file_summary",
    "binary_counts",
    "pool_table",
    "accuracy_bars",
    "error_bars",
    "source_registry",
    "model_families",
    "source_accuracy",
    "agreement_pairs",
    "source_accuracy_bars",
    "provenance_markdown",
    "ANSWER_BIASES",
    "LAMBDA_STEPS",
    "with_answer_bias",
    "answer_bias_sensitivity",
    "source_counts",
    "single_vendor_models",
    "check_prose_range",
    "variant_sensitivity",
    "sensitivity_figure",
]

#: The stand-ins, their display names and the paper's pool tables (from data/datasets.yml).
NAMES = profiles.names("stand-in")
LABEL = {n: profiles.label(n) for n in NAMES}
_POOL_REF = {n: str(profiles.profile(n)["paper_table"]) for n in NAMES}


def glue_values(prefix: str, values: Mapping[str, Any]) -> None:
    """Glue each value as ``<prefix>_<key>`` (numpy scalars as Python numbers, so
    ``{glue:text}`` can format them)."""
    from myst_nb import glue

    for key, value in values.items():
        if isinstance(value, np.generic):
            value = value.item()
        glue(f"{prefix}_{key}" if prefix else key, value, display=False)


def printed(table: str) -> pd.DataFrame:
    """A transcribed CSV as the printed strings (to read how many decimals the paper gives)."""
    from ensel.datasets.paper_tables import paper_dir

    return pd.read_csv(paper_dir() / f"{table}.csv", dtype=str, keep_default_na=False)


def decimals(values: pd.Series) -> pd.Series:
    """Number of printed decimals of each string."""
    return values.str.split(".").str[1].str.len().fillna(0).astype(int)


def _avg_offdiag(S: np.ndarray) -> np.ndarray:
    """Each model's mean correlation with the others (rows of S without the diagonal)."""
    S = np.asarray(S)
    return (S.sum(axis=-1) - np.diagonal(S, axis1=-2, axis2=-1)) / (S.shape[-1] - 1)


def _same_family(spec: Any) -> np.ndarray:
    fam = np.asarray(spec.families)
    return (fam[:, None] == fam[None, :]) & ~np.eye(len(fam), dtype=bool)


# ------------------------------------------------------------------------------ stand-ins
def sizes_table(frames: Mapping[str, pd.DataFrame], specs: Mapping[str, Any]) -> pd.DataFrame:
    """Models, queries, conditions and rows of each stand-in, against the paper."""
    from ensel.datasets import standins
    from ensel.datasets.paper_tables import load_paper_table

    paper = load_paper_table("datasets").set_index("dataset")
    C = len(standins.CONDITIONS)
    out = {}
    for name, df in frames.items():
        s, m, n_run = specs[name], len(specs[name].models), df["item"].nunique()
        labels = _labels(df)
        out[LABEL[name]] = {
            "models (paper table)": f"{m} ({paper_ref(paper.loc[name, 'table'])})",
            "binary queries (paper)": f"{s.n_items:,}",
            "binary queries (this page)": f"{n_run:,}",
            "conditions": f"{C}: " + ", ".join(standins.CONDITIONS),
            "rows at the paper's size": f"{s.n_items * m * C:,}",
            "rows loaded here": f"{len(df):,}",
            "share of Y = +1 (every condition)":
                f"{(labels == 1).sum().iloc[0] / n_run:.4f}",
        }
    return pd.DataFrame(out)


def _labels(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop_duplicates(["condition", "item"]).pivot(
        index="item", columns="condition", values="label")


def _one_value_per_row(table: pd.DataFrame) -> bool:
    """``(table.nunique(axis=1) == 1).all()`` without a pandas call per row: every row has
    a value and its values (missing ones aside) are all equal."""
    a = table.to_numpy(dtype=float)
    if a.size == 0:
        return bool(a.shape[0] == 0)
    seen = ~np.isnan(a)
    lo = np.where(seen, a, np.inf).min(axis=1)
    hi = np.where(seen, a, -np.inf).max(axis=1)
    return bool((seen.any(axis=1) & (lo == hi)).all())


def check_sizes(checks: PageChecks, frames: Mapping[str, pd.DataFrame],
                specs: Mapping[str, Any], n_items: int | None) -> None:
    """Sizes as in the paper, every condition present, labels shared and balanced."""
    from ensel.datasets import standins
    from ensel.datasets.paper_tables import load_paper_table

    paper = load_paper_table("datasets").set_index("dataset")
    C = len(standins.CONDITIONS)
    for name, df in frames.items():
        s, L = specs[name], LABEL[name]
        m, n_run = len(s.models), df["item"].nunique()
        labels = _labels(df)
        n_pos = (labels == 1).sum()
        checks.add(f"{L}: models and queries as in the paper",
                   m == paper.loc[name, "n_models"] and s.n_items == paper.loc[name, "n_items"],
                   value=f"{m}, {s.n_items}", ref="Sec. 6")
        checks.equal(f"{L}: queries loaded", n_run, s.n_items if n_items is None else n_items)
        checks.add(f"{L}: one row per query, model and condition",
                   len(df) == n_run * m * C and df["condition"].nunique() == C,
                   value=len(df))
        checks.add(f"{L}: models in the paper's order",
                   list(df["model"].cat.categories) == s.models)
        checks.add(f"{L}: no abstentions", set(np.unique(df["answer"])) <= {-1, 1})
        checks.add(f"{L}: same labels in every condition", _one_value_per_row(labels))
        checks.add(f"{L}: labels balanced in every condition",
                   (n_pos == (n_run + 1) // 2).all(), value=int(n_pos.iloc[0]))


def fit_table(name: str) -> pd.DataFrame:
    """Per-model fit of the two-factor correlation model against the printed averages."""
    from ensel.datasets import standins

    s = standins.spec(name)
    res = standins.fit_residuals(name)
    raw = printed("model_pools")
    raw = raw[raw["dataset"] == name].reset_index(drop=True)
    d = decimals(raw["avg_rho"])
    table = pd.DataFrame({
        "model": res["model"], "family": res["family"],
        "loading a_j": np.round(s.loadings, 4),
        "avg rho (paper)": raw["avg_rho"],
        "avg rho (fitted)": res["fitted_avg_rho"].round(5),
        "fitted, as printed": [f"{v:.{k}f}" for v, k in
                               zip(res["fitted_avg_rho"], d, strict=True)],
        "residual": res["residual"].round(5),
    })
    table.attrs.update(res.attrs, printed_decimals=int(d.max()),
                       same_models=list(raw["model"]) == list(res["model"]))
    return table


def check_fit(checks: PageChecks, name: str, table: pd.DataFrame) -> None:
    """Every fitted average rounds to the printed one; Sigma is the two-factor model,
    symmetric, unit-diagonal, positive definite; within-family above cross-family."""
    from ensel.datasets import standins

    s, a, L = standins.spec(name), table.attrs, LABEL[name]
    ref = _POOL_REF[name]
    checks.add(f"{L}: fit table rows are the paper's models", a["same_models"], ref=ref)
    checks.add(f"{L}: every fitted average ρ̄_j rounds to the printed value",
               (table["fitted, as printed"] == table["avg rho (paper)"]).all(), ref=ref)
    checks.at_most(f"{L}: max |residual| within the fit tolerance",
                   a["max_abs_residual"] - a["tolerance"], 1e-12, ref=ref)
    half = 0.5 * 10.0 ** (-a["printed_decimals"])
    checks.add(f"{L}: fit tolerance tighter than half a printed unit",
               a["tolerance"] < half, value=a["tolerance"], bound=f"< {half:g}", ref=ref)
    S, same = np.asarray(s.Sigma), _same_family(s)
    pooled = standins.pooled_correlation(name).to_numpy()
    model = np.outer(s.loadings, s.loadings) + s.family_loading**2 * same
    off = ~np.eye(len(same), dtype=bool)
    checks.add(f"{L}: pooled error correlation is the two-factor model off the diagonal",
               np.allclose(pooled[off], model[off], atol=1e-9))
    checks.add(f"{L}: Σ symmetric with unit diagonal",
               np.allclose(S, S.T) and np.allclose(np.diag(S), 1.0))
    eig = float(np.linalg.eigvalsh(S).min())
    checks.add(f"{L}: Σ positive definite (smallest eigenvalue)", eig > 0, value=eig,
               bound="> 0")
    idio = 1 - np.asarray(s.loadings) ** 2 - s.family_loading**2 * same.any(axis=1)
    checks.add(f"{L}: every model keeps idiosyncratic variance", idio.min() > 0,
               value=float(idio.min()), bound="> 0")
    if same.any():
        checks.add(f"{L}: within-family correlation above cross-family",
                   a["within_family_mean"] > a["across_family_mean"],
                   value=f"{a['within_family_mean']:.3f} vs {a['across_family_mean']:.3f}",
                   ref=ref)
    gap = pooled_gap(name)
    checks.at_most(f"{L}: class-asymmetric pooled avg ρ̄_j as close to the table as the "
                   "label-invariant fit (max |pooled − paper| over models)",
                   gap.loc["class-asymmetric", "max |pooled - paper|"],
                   gap.attrs["tolerance"], ref=ref)
    checks.add(f"{L}: no pair's pooled target out of the class-asymmetric mixture's reach",
               s.calibration_clipped == 0, value=s.calibration_clipped, bound="0")


def pooled_gap(name: str) -> pd.DataFrame:
    """How far the errors pooled over both labels (:func:`ensel.datasets.standins.
    pooled_correlation`, what the paper's tables report) sit from the table, per variant:
    mean and max ``|pooled avg rho_j - printed|`` over models, the mean signed difference,
    and the mean / max ``|pooled rho_ij - label-invariant Sigma_ij|`` over pairs. The
    class-asymmetric row is measured twice: calibrated (the stand-in) and with the
    label-invariant ``Sigma`` left uncalibrated (what the calibration removes).
    ``attrs["tolerance"]`` is the label-invariant variant's own max gap plus the
    calibration's bisection tolerance."""
    from ensel.copula import average_correlation
    from ensel.datasets import standins

    li = standins.spec(name, variant="label-invariant")
    base = np.asarray(li.Sigma)
    iu = np.triu_indices(len(li.models), 1)
    mats = {v: standins.pooled_correlation(name, v).to_numpy() for v in standins.VARIANTS}
    mats["class-asymmetric, uncalibrated"] = standins.pooled_correlation(
        name, "class-asymmetric", latent=base).to_numpy()
    rows = []
    for label, M in mats.items():
        d = average_correlation(M, per_model=True) - li.target_avg_rho
        pair = np.abs(M - base)[iu]
        rows.append({"variant": label, "mean |pooled - paper|": float(np.abs(d).mean()),
                     "max |pooled - paper|": float(np.abs(d).max()),
                     "mean (pooled - paper)": float(d.mean()),
                     "mean |pair - LI Sigma|": float(pair.mean()),
                     "max |pair - LI Sigma|": float(pair.max())})
    out = pd.DataFrame(rows).set_index("variant")
    out.attrs["tolerance"] = (float(out.loc["label-invariant", "max |pooled - paper|"])
                              + standins.POOLED_CALIBRATION_TOL)
    return out


def fit_facts(name: str) -> dict[str, Any]:
    """The numbers the page quotes about one fit (for ``glue``)."""
    from ensel.datasets import standins

    res = standins.fit_residuals(name)
    a, s = res.attrs, standins.spec(name)
    S, same = standins.pooled_correlation(name).to_numpy(), _same_family(s)
    fam = np.asarray(s.families)
    across = fam[:, None] != fam[None, :]
    overlap = S[across].max() > S[same].min()
    return {
        "g": a["family_loading"], "g2": a["family_loading"] ** 2,
        "within": a["within_family_mean"], "across": a["across_family_mean"],
        "within_lo": S[same].min(), "within_hi": S[same].max(),
        "across_lo": S[across].min(), "across_hi": S[across].max(),
        "overlap": ("the ranges overlap: the contrast holds on average, not pair by pair"
                    if overlap else "the ranges do not overlap"),
        "max_res": a["max_abs_residual"],
        "worst": res.loc[res["residual"].abs().idxmax(), "model"],
        "rms": float(np.sqrt(np.mean(res["residual"] ** 2))), "tol": a["tolerance"],
    }


def family_heatmap(name: str) -> Figure:
    """Sigma with models grouped by family; white squares mark the family blocks."""
    from ensel.book.figures import correlation_heatmap
    from ensel.datasets import standins

    s = standins.spec(name)
    corr = standins.correlation_matrix(name)
    fig = correlation_heatmap(corr.to_numpy(), s.models, families=s.families,
                              title=f"{LABEL[name]}: stand-in latent correlation "
                              "Sigma (grouped by family)")
    fig.attrs = {"same_order": list(corr.index) == s.models}
    return fig


def recovery(name: str, df: pd.DataFrame, *, condition: str, seed: int, n_reps: int
             ) -> pd.DataFrame:
    """Re-fit the copula on the positive queries (``Y = +1``) of one condition and compare
    with the target, in units of the Monte Carlo spread of the same estimator on ``n_reps``
    independent samples. One label, because within a label the errors follow the copula
    exactly with that label's thresholds (:func:`ensel.datasets.standins.class_error_rates`
    for the class-asymmetric variant, ``df.attrs["standin_variant"]``); pooled over both,
    the class-asymmetric thresholds add correlation the copula does not have."""
    from scipy.special import ndtri

    from ensel.copula import errors_from, fit_gaussian_copula, sample_errors
    from ensel.data import to_wide
    from ensel.datasets import standins

    variant = df.attrs.get("standin_variant", standins.DEFAULT_VARIANT)
    s = standins.spec(name, variant=variant)
    X, y = to_wide(df, condition, validate=False)
    pos = y.to_numpy() == 1
    X, y = X[pos], y[pos]
    E = errors_from(X.to_numpy(), y.to_numpy())
    tau_hat, Sigma_hat = fit_gaussian_copula(E)
    eps_c = 1.0 - standins.condition_accuracies(name, seed=seed).loc[condition].to_numpy()
    if variant == "class-asymmetric":
        eps_c = standins.class_error_rates(name, eps_c)[0]
    tau_c = ndtri(eps_c)
    Sigma = np.asarray(s.Sigma)
    rng = np.random.default_rng([seed, 8, len(s.models)])
    reps = [fit_gaussian_copula(sample_errors(tau_c, Sigma, len(y), random_state=rng))
            for _ in range(n_reps)]
    tau_sd = np.std([t for t, _ in reps], axis=0, ddof=1)
    Sig_reps = np.stack([S for _, S in reps])
    sig_sd = Sig_reps.std(axis=0, ddof=1)
    avg_sd = _avg_offdiag(Sig_reps).std(axis=0, ddof=1)
    iu = np.triu_indices(len(s.models), 1)
    z_pairs = (Sigma_hat - Sigma)[iu] / sig_sd[iu]
    z_avg = (_avg_offdiag(Sigma_hat) - _avg_offdiag(Sigma)) / avg_sd
    z_tau = (tau_hat - tau_c) / tau_sd
    mean_sd = Sig_reps[:, iu[0], iu[1]].mean(axis=1).std(ddof=1)
    z_mean = (Sigma_hat[iu].mean() - Sigma[iu].mean()) / mean_sd
    table = pd.DataFrame({
        "model": s.models,
        "avg rho (paper)": s.target_avg_rho,
        "avg rho (Sigma)": _avg_offdiag(Sigma).round(4),
        "avg rho (re-fitted)": _avg_offdiag(Sigma_hat).round(4),
        "MC sd": avg_sd.round(4),
        "z": z_avg.round(2),
        "tau (condition)": tau_c.round(3),
        "tau (re-fitted)": tau_hat.round(3),
        "z (tau)": z_tau.round(2),
    })
    table.attrs = {
        "same_models": list(X.columns) == s.models, "n": len(y), "n_reps": n_reps,
        "mean_hat": Sigma_hat[iu].mean(), "mean_sigma": Sigma[iu].mean(), "z_mean": z_mean,
        "max_diff": np.abs(Sigma_hat - Sigma)[iu].max(), "n_pairs": len(z_pairs),
        "z_pairs": np.abs(z_pairs).max(), "z_avg": np.abs(z_avg).max(),
        "z_tau": np.abs(z_tau).max(),
        "psd": bool(np.linalg.eigvalsh(Sigma_hat).min() > 0
                    and np.allclose(np.diag(Sigma_hat), 1)),
    }
    return table


def estimated_spread_bound(z_max: float, n_reps: int) -> float:
    """The |z| bound with the same two-sided tail probability as ``|z| <= z_max`` under a
    known standard deviation, when the deviation is estimated from ``n_reps`` Monte Carlo
    samples (Student's t with ``n_reps - 1`` degrees of freedom).

    Examples
    --------
    >>> round(estimated_spread_bound(4.5, 60), 2), round(estimated_spread_bound(4.5, 20), 2)
    (4.94, 6.13)
    >>> estimated_spread_bound(4.5, 10**7) - 4.5 < 1e-4
    True
    """
    from scipy.stats import norm, t

    return float(t.isf(norm.sf(z_max), n_reps - 1))


def check_recovery(checks: PageChecks, name: str, table: pd.DataFrame, z_max: float) -> None:
    """The re-fit's |z| against :func:`estimated_spread_bound` of ``z_max`` (the Monte
    Carlo deviations in the denominators are estimates from ``n_reps`` samples)."""
    a, L = table.attrs, LABEL[name]
    bound = estimated_spread_bound(z_max, a["n_reps"])
    checks.add(f"{L}: recovery data has the paper's models", a["same_models"])
    checks.add(f"{L}: re-fitted Σ positive definite, unit diagonal", a["psd"],
               ref="Algorithm 6")
    for key, what in (("z_pairs", "pairwise ρ_ij"), ("z_avg", "per-model ρ̄_j"),
                      ("z_tau", "thresholds τ_j")):
        checks.at_most(f"{L}: recovery of the {what}, max |z|", a[key], bound)
    checks.at_most(f"{L}: recovery of the mean ρ, |z|", abs(a["z_mean"]), bound)


def accuracy_table(name: str, df: pd.DataFrame, *, seed: int) -> pd.DataFrame:
    """Drawn per-condition accuracies vs the paper's mean ± std, and the data vs the draws
    (binomial standard errors)."""
    from ensel.datasets import standins

    info = standins.model_info(name).set_index("model")
    drawn = standins.condition_accuracies(name, seed=seed)  # conditions x models
    z_draw = (drawn - info["accuracy"]) / info["accuracy_std"]
    correct = (df["answer"] == df["label"]).groupby(
        [df["condition"], df["model"]], observed=True).mean().unstack("model")
    correct = correct.loc[list(standins.CONDITIONS), list(info.index)]
    n = df["item"].nunique()
    z_data = (correct - drawn) / np.sqrt(drawn * (1 - drawn) / n)
    table = (100 * drawn.T).round(2)
    table.columns = [f"{c} (%)" for c in table.columns]
    table.insert(0, "paper std (%)", (100 * info["accuracy_std"]).round(2))
    table.insert(0, "paper mean (%)", (100 * info["accuracy"]).round(2))
    table["mean of draws (%)"] = (100 * drawn.mean()).round(2)
    table["max |z| draws"] = z_draw.abs().max().round(2)
    table["max |z| data"] = z_data.abs().max().round(2)
    table.attrs = {"z_draw": z_draw.abs().max().max(), "n_draws": z_draw.size, "n": n,
                   "z_data": z_data.abs().max().max(),
                   "in_range": bool(((drawn > 0.5) & (drawn < 0.9999)).all().all())}
    return table


def check_accuracy(checks: PageChecks, name: str, table: pd.DataFrame, z_max: float) -> None:
    a, L = table.attrs, LABEL[name]
    checks.at_most(f"{L}: drawn accuracies around the paper's mean ± std, max |z|",
                   a["z_draw"], z_max, ref=_POOL_REF[name])
    checks.at_most(f"{L}: accuracies in the data around the draws, max |z|", a["z_data"],
                   z_max)
    checks.add(f"{L}: the accuracy clip range (0.5, 0.9999) is never hit", a["in_range"])


def fit_summary() -> pd.DataFrame:
    """The three correlation fits side by side."""
    from ensel.datasets import standins

    rows = []
    for name in NAMES:
        res = standins.fit_residuals(name)
        a = res.attrs
        rows.append({
            "dataset": LABEL[name],
            "g": round(a["family_loading"], 3),
            "g^2": round(a["family_loading"] ** 2, 3),
            "mean within-family rho": round(a["within_family_mean"], 3),
            "mean cross-family rho": round(a["across_family_mean"], 3),
            "max |residual|": round(a["max_abs_residual"], 4),
            "worst model": res.loc[res["residual"].abs().idxmax(), "model"],
            "RMS residual": round(float(np.sqrt(np.mean(res["residual"] ** 2))), 4),
            "tolerance": a["tolerance"],
        })
    return pd.DataFrame(rows).set_index("dataset")


def persistence(frames: Mapping[str, pd.DataFrame], *, seed: int, n_reps: int,
                conditions: tuple[str, str]) -> pd.DataFrame:
    """The copula fitted on two conditions side by side (2m columns): the same model's
    latent correlation across conditions against the assumed persistence ``p``. Fitted on
    the positive queries (``Y = +1``), where the errors follow the copula exactly with that
    label's thresholds, as in :func:`recovery`."""
    from scipy.special import ndtri

    from ensel.copula import errors_from, fit_gaussian_copula, sample_errors
    from ensel.data import to_wide
    from ensel.datasets import standins

    p = standins.DEFAULT_PERSISTENCE
    c1, c2 = conditions
    rows, z = [], {}
    for name, df in frames.items():
        s = standins.spec(name, variant=df.attrs.get("standin_variant",
                                                     standins.DEFAULT_VARIANT))
        m = len(s.models)
        Es = []
        for c in (c1, c2):
            X, y = to_wide(df, c, validate=False)
            pos = y.to_numpy() == 1
            Es.append(errors_from(X.to_numpy()[pos], y.to_numpy()[pos]))
            y = y[pos]
        _, S2 = fit_gaussian_copula(np.hstack(Es))
        Sigma = np.asarray(s.Sigma)
        joint = np.block([[Sigma, p * Sigma], [p * Sigma, Sigma]])
        acc = standins.condition_accuracies(name, seed=seed)
        eps2 = 1.0 - np.concatenate([acc.loc[c1], acc.loc[c2]])
        if df.attrs.get("standin_variant", standins.DEFAULT_VARIANT) == "class-asymmetric":
            eps2 = standins.class_error_rates(name, eps2)[0]
        tau2 = ndtri(eps2)
        rng = np.random.default_rng([seed, 9, m])
        reps = np.stack([fit_gaussian_copula(sample_errors(tau2, joint, len(y),
                                                           random_state=rng))[1]
                         for _ in range(n_reps)])
        self_hat = np.diag(S2[:m, m:])
        self_sd = np.stack([np.diag(R[:m, m:]) for R in reps]).std(axis=0, ddof=1)
        mean_sd = np.stack([np.diag(R[:m, m:]).mean() for R in reps]).std(ddof=1)
        z_self = (self_hat - p) / self_sd
        z_mean = (self_hat.mean() - p) / mean_sd
        off = ~np.eye(m, dtype=bool)
        rows.append({
            "dataset": LABEL[name], "p (assumed)": p,
            "same model across conditions: mean": round(self_hat.mean(), 4),
            "min": round(self_hat.min(), 4), "max": round(self_hat.max(), 4),
            "z (mean)": round(z_mean, 2), "max |z| (per model)": round(np.abs(z_self).max(), 2),
            "cross-condition block / Sigma (median)": round(float(np.median(
                S2[:m, m:][off] / Sigma[off])), 3),
        })
        z[name] = (abs(z_mean), np.abs(z_self).max(), np.allclose(np.diag(S2[:m, :m]), 1.0))
    out = pd.DataFrame(rows).set_index("dataset")
    out.attrs = {"z": z, "p": p}
    return out


def check_persistence(checks: PageChecks, table: pd.DataFrame, z_max: float) -> None:
    for name, (z_mean, z_self, unit) in table.attrs["z"].items():
        L = LABEL[name]
        checks.at_most(f"{L}: persistence p recovered on average, |z|", z_mean, z_max)
        checks.at_most(f"{L}: persistence p recovered per model, max |z|", z_self, z_max)
        checks.add(f"{L}: each condition alone has a unit-diagonal copula", unit)


# -------------------------------------------------------------- notes on the paper's tables
def average_rows() -> pd.DataFrame:
    """The pool tables' printed "Average" rows against the mean of their rows."""
    from ensel.datasets.paper_tables import load_paper_table

    pools = load_paper_table("model_pools")
    rows, agree = [], {}
    for name in NAMES:
        pool = pools[pools["dataset"] == name]
        raw = printed("datasets").set_index("dataset").loc[name]
        rows.append({
            "dataset": LABEL[name],
            "accuracy: printed average (%)": raw["accuracy_pct"],
            "accuracy: mean of rows (%)": round(pool["accuracy_pct"].mean(), 2),
            "difference": round(pool["accuracy_pct"].mean() - float(raw["accuracy_pct"]), 2),
            "avg rho: printed average": raw["avg_rho"],
            "avg rho: mean of rows": round(pool["avg_rho"].mean(), 4),
        })
        half_unit = 0.5 * 10.0 ** -decimals(pd.Series([raw["accuracy_pct"]])).iloc[0]
        agree_acc = abs(pool["accuracy_pct"].mean() - float(raw["accuracy_pct"])) <= half_unit
        nd = len(raw["avg_rho"].split(".")[1])
        agree_rho = f"{pool['avg_rho'].mean():.{nd}f}" == raw["avg_rho"]
        agree[name] = (agree_acc, agree_rho)
    out = pd.DataFrame(rows).set_index("dataset")
    out.attrs = {"agree": agree}
    return out


def tau_rows() -> pd.DataFrame:
    """Printed tau against Phi^-1(1 - accuracy), with the rounding bound of each row."""
    from scipy.special import ndtri
    from scipy.stats import norm

    from ensel.datasets.paper_tables import load_paper_table

    pools = load_paper_table("model_pools")
    raw_pools = printed("model_pools")
    rows, ok = [], {}
    for name in NAMES:
        pool = pools[pools["dataset"] == name].reset_index(drop=True)
        raw = raw_pools[raw_pools["dataset"] == name].reset_index(drop=True)
        tau_from_acc = ndtri(1.0 - pool["accuracy"].to_numpy())
        diff = np.abs(tau_from_acc - pool["tau"].to_numpy())
        bound = (0.5 * 10.0 ** -decimals(raw["tau"]).to_numpy()
                 + 0.5 * 10.0 ** -(decimals(raw["accuracy_pct"]).to_numpy() + 2)
                 / norm.pdf(tau_from_acc))
        rows.append({"dataset": LABEL[name],
                     "max |Phi^-1(1 - acc) - tau|": round(diff.max(), 4),
                     "its rounding bound": round(bound[diff.argmax()], 4),
                     "rows within bound": f"{int((diff <= bound).sum())} / {len(diff)}"})
        ok[name] = bool((diff <= bound).all())
    out = pd.DataFrame(rows).set_index("dataset")
    out.attrs = {"ok": ok}
    return out


def odd_precision() -> pd.DataFrame:
    """Printed values with another number of decimals than the rest of their column."""
    odd = []
    for table, cols, key in [("model_pools",
                              ["accuracy_pct", "accuracy_std_pct", "tau", "avg_rho"], "model"),
                             ("results_map", ["mean", "std"], "k"),
                             ("results_mv_vs_map", ["mean", "std"], "k"),
                             ("results_wmv_vs_map", ["mean", "std"], "k")]:
        raw = printed(table)
        for col in cols:
            d = decimals(raw[col])
            usual = d.groupby([raw["table"]]).transform(lambda x: x.mode().iloc[0])
            for i in np.flatnonzero(d != usual):
                row = raw.iloc[i]
                odd.append({"table": paper_ref(row["table"]), "row": f"{key} = {row[key]}"
                            + (f", {row['method']}" if "method" in raw else ""),
                            "column": col, "printed": row[col], "decimals": int(d.iloc[i]),
                            "usual decimals": int(usual.iloc[i])})
    return pd.DataFrame(odd)


def tie_rows(results: pd.DataFrame) -> pd.DataFrame:
    """Rows of the paper's results tables where not every method at the minimum is bold."""
    rows = []
    for (table, k), g in results.groupby(["table", "k"], sort=False):
        best = g[g["mean"] == g["mean"].min()]
        if not best["bold"].all():
            rows.append({"table": paper_ref(table), "k": k, "minimum": best["mean"].iloc[0],
                         "methods at the minimum": len(best),
                         "of them bold": int(best["bold"].sum()),
                         "bold in the row": int(g["bold"].sum())})
    out = pd.DataFrame(rows)
    out.attrs = {"n_rows": results.groupby(["table", "k"]).ngroups}
    return out


def greedy_columns_repeat(results: pd.DataFrame) -> tuple[bool, int]:
    """Whether the Greedy MI column of the MV and W-MV tables repeats the MAP table's, and
    over how many (dataset, k) rows."""
    gm = results[results["method"] == "greedy_mi"]
    gm = gm.assign(kind=gm["table"].str.extract(r"_(results|mv_vs_map|wmv_vs_map)$")[0])
    wide = gm.pivot_table(index=["dataset", "k"], columns="kind", values=["mean", "std"])
    same = all((wide[(v, "results")] == wide[(v, kind)]).all()
               for v in ("mean", "std") for kind in ("mv_vs_map", "wmv_vs_map"))
    return bool(same and (gm["aggregator"] == "map").all()), len(wide)


def selection_accuracies(sel: pd.DataFrame) -> pd.DataFrame:
    """The selection tables' accuracies next to the pool tables' means."""
    from ensel.datasets.paper_tables import load_paper_table

    pools = load_paper_table("model_pools")
    return sel.merge(pools[["dataset", "model", "accuracy_pct"]], on=["dataset", "model"],
                     suffixes=("_selection", "_pool"), how="left", validate="many_to_one")


# ------------------------------------------------------------------------------- MMLU-Pro
def registry_summary(registry: pd.DataFrame) -> pd.DataFrame:
    """Files and megabytes of the pinned MMLU-Pro registry, per commit and kind."""
    return (registry.assign(kind=np.where(registry["path"].str.endswith(".zip"),
                                          "model zip", "GPT-4o JSON"))
            .groupby(["commit", "kind"])
            .agg(files=("path", "size"),
                 megabytes=("size", lambda s: round(s.sum() / 1e6, 1)))
            .reset_index())


def file_summary(raw: pd.DataFrame) -> pd.DataFrame:
    """Per model file: records, original-MMLU records, null and invalid preds, stray
    entries and multiple-choice accuracy."""
    from ensel.datasets import mmlu_pro as mp

    letter_ok = [isinstance(p, str) and p in mp.LETTERS[:n]
                 for p, n in zip(raw["pred"], raw["n_options"].to_numpy(), strict=True)]
    files = (raw.assign(ori=raw["src"].str.startswith("ori_mmlu"),
                        null=raw["pred"].isna(),
                        invalid=raw["pred"].notna() & ~np.asarray(letter_ok),
                        correct=raw["pred"] == raw["answer"])
             .groupby("model")
             .agg(records=("question_id", "size"), ori_mmlu=("ori", "sum"),
                  null_pred=("null", "sum"), invalid_letter=("invalid", "sum"),
                  mc_accuracy_all=("correct", "mean")))
    files["stray_entries"] = pd.Series(raw.attrs["skipped_entries"])
    return files.sort_values("mc_accuracy_all", ascending=False)


def binary_counts(view: Any) -> pd.DataFrame:
    """What the binary view keeps and drops, and the size of the tidy table."""
    tidy = view.tidy
    return pd.Series({
        **{f"questions: {k.replace('_', ' ')}": v for k, v in view.dropped.items()},
        "binary queries": tidy["item"].nunique(),
        "models": len(view.models),
        "rows of the tidy table": len(tidy),
        "abstentions (answer 0)": int((tidy["answer"] == 0).sum()),
    }, name="count").to_frame()


def pool_table(meta: pd.DataFrame) -> pd.DataFrame:
    """The model pool: name, provider, family, size (from the name, else "unknown"),
    tuning."""
    shown = meta[["display_name", "provider", "family", "params_b", "tuning"]].copy()
    shown["params_b"] = shown["params_b"].map(lambda v: "unknown" if pd.isna(v) else f"{v:g}")
    return shown.rename(columns={"display_name": "model name",
                                 "params_b": "size (B params)"})


def accuracy_bars(summary: pd.DataFrame, title: str) -> Figure:
    """Multiple-choice and binary accuracy per model."""
    fig, ax = plt.subplots(figsize=(8, 3.8))
    x = np.arange(len(summary))
    ax.bar(x - 0.2, summary["mc_accuracy"], 0.4, label="multiple choice (pred = gold)")
    ax.bar(x + 0.2, summary["binary_accuracy"], 0.4, label="binary view (both queries)")
    ax.set_xticks(x, summary.index, rotation=60, ha="right", fontsize=8)
    ax.set_ylim(0, 1.15)
    ax.set_ylabel("accuracy")
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper center", ncol=2, frameon=False)
    fig.tight_layout()
    return fig


def error_bars(summary: pd.DataFrame) -> Figure:
    """Error rate per model on positive and on negative queries."""
    fig, ax = plt.subplots(figsize=(8, 3.5))
    x = np.arange(len(summary))
    ax.bar(x - 0.2, summary["error_pos"], 0.4, label="error rate on Y = +1 (gold option)")
    ax.bar(x + 0.2, summary["error_neg"], 0.4, label="error rate on Y = -1 (one distractor)")
    ax.set_xticks(x, summary.index, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("error rate")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


# ------------------------------------------------------------- real sources (one card)
def source_registry(name: str) -> pd.DataFrame:
    """Files and megabytes of a real source's pinned registry, per commit and top folder."""
    from ensel.datasets import _fetch

    reg = pd.DataFrame([e.__dict__ for e in _fetch.read_registry(name)])
    top = reg["path"].map(lambda p: "/".join(p.split("/")[:2]) if p.startswith("Dataset/")
                          else p.split("/")[0] + "/…")
    return (reg.assign(folder=top).groupby(["commit", "folder"])
            .agg(files=("path", "size"), megabytes=("size", lambda s: round(s.sum() / 1e6, 2)))
            .reset_index())


def model_families(name: str, models: Sequence[str]) -> pd.DataFrame:
    """Each model of a real source with its family (the loader's ``family`` function)."""
    from ensel.datasets import DATASETS

    spec = DATASETS[name]
    out = pd.DataFrame({"model": list(models), "family": [spec.family_of(m) for m in models]})
    return out.set_index("model")


def source_accuracy(df: pd.DataFrame) -> pd.DataFrame:
    """Per model (rows) and condition: accuracy over all queries (an abstention counts as an
    error, the rule of :data:`ensel.evidence.ERROR_RULE`), the abstention rate, the accuracy
    on the queries answered (NaN for a model that never answered), and the error on
    ``Y = +1`` and on ``Y = -1``."""
    t = df.assign(err=df["answer"] != df["label"], abst=df["answer"] == 0)
    g = t.groupby(["model", "condition"], sort=False)
    answered = t[~t["abst"]].groupby(["model", "condition"], sort=False)["err"].mean()
    out = pd.DataFrame({"accuracy": 1 - g["err"].mean(), "abstained": g["abst"].mean()})
    out["accuracy when answered"] = 1 - answered.reindex(out.index)
    by_label = t.groupby(["model", "condition", "label"], sort=False)["err"].mean().unstack(
        "label")
    out["error on Y=+1"] = by_label[1]
    out["error on Y=−1"] = by_label[-1]
    return out


def agreement_pairs(df: pd.DataFrame, top: int = 5) -> pd.DataFrame:
    """The ``top`` model pairs that give the same answer most often (over every query and
    condition): near-duplicates a selector should not pay for twice."""
    w = df.pivot_table(index=["condition", "item"], columns="model", values="answer",
                       aggfunc="first", observed=True)
    a = w.to_numpy()
    cols = list(w.columns)
    rows = []
    for i in range(len(cols)):
        same = (a[:, i:i + 1] == a[:, i + 1:]).mean(axis=0)
        rows += [(cols[i], cols[i + 1 + j], float(s)) for j, s in enumerate(same)]
    out = pd.DataFrame(rows, columns=["model a", "model b", "same answer"])
    return out.sort_values("same answer", ascending=False, kind="stable").head(top).reset_index(
        drop=True)


def source_accuracy_bars(acc: pd.DataFrame, title: str) -> Figure:
    """Accuracy per model, one bar per condition; the 0.5 line is chance on balanced labels."""
    piv = acc["accuracy"].unstack("condition")
    fig, ax = plt.subplots(figsize=(8, 3.8))
    x = np.arange(len(piv))
    width = 0.8 / max(1, piv.shape[1])
    for i, cond in enumerate(piv.columns):
        ax.bar(x + (i - (piv.shape[1] - 1) / 2) * width, piv[cond], width, label=str(cond))
    ax.axhline(0.5, color="k", lw=0.8, ls=":")
    ax.set_xticks(x, piv.index, rotation=60, ha="right", fontsize=8)
    ax.set_ylim(0, 1.1)
    ax.set_ylabel("accuracy (binary queries)")
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper center", ncol=max(1, piv.shape[1]), frameon=False)
    fig.tight_layout()
    return fig


def provenance_markdown(name: str) -> str:
    """Markdown bullets: a real source's upstream, licence, citation and how the files are
    pinned and fetched (from its profile)."""
    from ensel.book.profiles import profile

    p = profile(name)
    return (f"* Upstream: [{p['url']}]({p['url']}), licence **{p['licence']}**; "
            f"{p['citation']}.\n"
            f"* Files pinned by commit and SHA-256 in `data/registry/{name}.csv`, downloaded "
            "from `https://raw.githubusercontent.com/<owner>/<repo>/<commit>/<path>` once "
            "into the data folder (`ENSEL_DATA_DIR`) and checked, or read from a "
            "byte-for-byte mirror (`ENSEL_DATA_MIRROR`); never stored in this repository.")


def source_counts(df: pd.DataFrame) -> pd.Series:
    """What the loader counted: questions at each step (``attrs["dropped"]``) or records per
    subset (``attrs["records"]``)."""
    counts = df.attrs.get("dropped") or df.attrs.get("records") or {}
    return pd.Series(counts, name="count", dtype="int64")


def single_vendor_models(name: str) -> pd.DataFrame:
    """The models of a stand-in's pool that are the only one of their vendor, with their
    printed average correlation (a mean of cross-family correlations only)."""
    from ensel.datasets.paper_tables import load_paper_table

    pools = load_paper_table("model_pools")
    pool = pools[pools["dataset"] == name]
    per_family = pool.groupby("family")["model"].transform("size")
    return pool.loc[per_family == 1, ["model", "family", "avg_rho"]].reset_index(drop=True)


def check_prose_range(checks: PageChecks, name: str, singles: pd.DataFrame) -> None:
    """Where the paper's prose quotes a cross-family correlation range for the models Greedy MI
    picks (profile ``prose_cross_family_max``), show that it cannot hold pool-wide: a
    single-vendor model's printed average (all cross-family pairs) exceeds it."""
    p = profiles.profile(name)
    bound = p.get("prose_cross_family_max")
    if bound is None or singles.empty:
        return
    checks.add(f"{p['label']}: a single-vendor model has average ρ above the prose's {bound}",
               singles["avg_rho"].max() > float(bound), value=singles["avg_rho"].max(),
               bound=f"> {bound}", ref=f"Sec. 6.1, {p['paper_table']}")


# ------------------------------------------------------- which verdicts depend on the make
#: The claims whose verdicts the sensitivity section follows: Greedy MI against Top-k over
#: k = 3..7 (the paper's headline) and Top-k against Term 1 (true by construction on
#: either variant: :data:`ensel.datasets.standins.RELEVANCE_FOLLOWS_ACCURACY`).
SENSITIVITY_CLAIMS = ("G2", "MMLU3")


def variant_sensitivity(names: Sequence[str], *, seed: int, n_items: int, n_splits: int,
                        scales: Sequence[float] = (0.0, 0.5, 1.0),
                        variants: Sequence[str] | None = None) -> pd.DataFrame:
    """The same claims on every stand-in made differently: each variant
    (:data:`ensel.datasets.standins.VARIANTS`) with the family loading at each fraction of
    its largest value (``scales``). The protocol runs on ``n_items`` queries per condition
    with ``n_splits`` splits, Top-k, Term 1 and Greedy MI with MAP; each claim of
    :data:`SENSITIVITY_CLAIMS` gets its verdict by the claims' own rule. A stand-in whose
    source is binary by nature (IMDB) has only the label-invariant variant.

    Returns one row per (dataset, variant, scale): ``g``, ``class_gap`` (error on Y=+1
    minus error on Y=-1, mean over models and conditions), ``g2_effect``, ``g2_low``,
    ``g2_high``, ``g2_verdict`` and ``mmlu3_verdict``.
    """
    from ensel import experiment
    from ensel.book.claims import CLAIMS, evidence_from_results
    from ensel.datasets import standins

    checks = {c.id: c.check for c in CLAIMS if c.id in SENSITIVITY_CLAIMS}
    rows = []
    for name in names:
        kinds = list(variants or standins.VARIANTS)
        if standins.OPTIONS_PER_QUESTION[name] is None:  # binary by nature: symmetric only
            kinds = [v for v in kinds if v == "label-invariant"]
        for variant in kinds:
            for scale in scales:
                df = standins.load(name, seed=seed, n_items=n_items, variant=variant,
                                   family_scale=float(scale))
                err = (df["answer"] != df["label"]).to_numpy()
                pos = df["label"].to_numpy() == 1
                res = experiment.evaluate(df, n_splits=n_splits, seed=seed,
                                          selectors=("topk", "relevance", "greedy_mi"),
                                          aggregators=("map",))
                ev = evidence_from_results(res)
                g2, m3 = checks["G2"](ev), checks["MMLU3"](ev)
                rows.append({"dataset": name, "variant": variant, "scale": float(scale),
                             "g": standins.spec(name, float(scale)).family_loading,
                             "class_gap": float(err[pos].mean() - err[~pos].mean()),
                             "g2_effect": g2.effect.mean, "g2_low": g2.effect.low,
                             "g2_high": g2.effect.high, "g2_verdict": g2.verdict,
                             "mmlu3_verdict": m3.verdict})
    return pd.DataFrame(rows)


def sensitivity_figure(table: pd.DataFrame) -> Figure:
    """Greedy MI − Top-k over k = 3..7 (MAP) against the family loading, one panel per
    stand-in, one line per variant, with 95 % intervals."""
    names = list(pd.unique(table["dataset"]))
    fig, axes = plt.subplots(1, len(names), figsize=(3.2 * len(names), 3.0), squeeze=False,
                             sharey=True)
    for ax, name in zip(axes[0], names, strict=True):
        sub = table[table["dataset"] == name]
        for j, (variant, part) in enumerate(sub.groupby("variant", sort=False)):
            x = part["scale"].to_numpy() + (j - 0.5) * 0.03
            y = part["g2_effect"].to_numpy()
            ax.errorbar(x, y, yerr=[y - part["g2_low"].to_numpy(),
                                    part["g2_high"].to_numpy() - y],
                        marker="o", capsize=3, label=variant)
        ax.axhline(0.0, color="#888888", linewidth=0.8)
        ax.set_title(profiles.label(name), fontsize=9)
        ax.set_xlabel("family loading g / largest g")
    axes[0][0].set_ylabel("Greedy MI − Top-k, k = 3..7")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    return fig


#: The yes/no biases of :func:`answer_bias_sensitivity`: the probability that a model's
#: yes/no answer is "yes" whatever its multiple-choice pick (negative: "no").
ANSWER_BIASES = (-0.2, -0.1, 0.0, 0.05, 0.1, 0.2, 0.3)
#: Greedy MI steps (after the first) over which the share of Λ is measured: the plug-in law
#: of a handful of models has every cell well filled; later steps are estimation noise.
LAMBDA_STEPS = 3


def with_answer_bias(X: np.ndarray, bias: float, *, seed: int) -> np.ndarray:
    """Answers in ``{-1, +1}`` with an independent yes/no bias: each answer is replaced by
    ``+1`` ("yes") with probability ``bias`` (``-1`` with probability ``-bias`` when
    negative), independently of the item, the label and the other answers. The uniform draws
    depend only on ``seed`` and the shape, so a larger ``|bias|`` replaces a superset of the
    answers a smaller one replaces (the error rates move monotonically with it).

    >>> X = np.array([[1, -1], [-1, -1]], dtype=np.int8)
    >>> with_answer_bias(X, 0.0, seed=0).tolist()
    [[1, -1], [-1, -1]]
    >>> with_answer_bias(X, 1.0, seed=0).tolist()
    [[1, 1], [1, 1]]
    """
    b = float(bias)
    if not -1.0 <= b <= 1.0:
        from ensel._errors import UsageError
        raise UsageError(f"bias must lie in [-1, 1]; got {bias!r}")
    u = np.random.default_rng([int(seed), 0x59455321]).random(np.shape(X))  # "YES!"
    return np.where(u < abs(b), np.int8(1 if b > 0 else -1), np.asarray(X)).astype(np.int8)


def answer_bias_sensitivity(name: str, *, seed: int, n_items: int | None = None,
                            biases: Sequence[float] = ANSWER_BIASES,
                            steps: int = LAMBDA_STEPS) -> pd.DataFrame:
    """How the size of Λ (the correction term of Theorem 4.3 that Eq. (10) drops) on a
    stand-in depends on the assumption that every yes/no answer follows one
    multiple-choice pick (the 3:1 ratio of the class-asymmetric variant).

    On the first condition of stand-in ``name`` (class-asymmetric; and once label-invariant,
    bias 0, as the reference where Λ = 0 in law), each yes/no answer carries the independent
    bias of :func:`with_answer_bias` (seeded by ``seed``); then the error rates on the gold
    option (``eps_pos``, Y = +1) and on the distractor (``eps_neg``), their ratio, and along
    the first ``steps + 1`` picks of Greedy MI the plug-in terms of Theorem 4.3
    (:func:`ensel.diagnostics.decomposition_path`, exact on the empirical law):
    ``lambda_share`` = sum of |Λ| over steps 2.. ``steps + 1`` over the sum of the true gains
    Δ there, and ``lambda_max``, the largest |Λ|.
    """
    from ensel import select
    from ensel.data import to_wide
    from ensel.datasets import standins
    from ensel.diagnostics import decomposition_path

    rows = []
    for variant, grid in (("label-invariant", [0.0]), ("class-asymmetric", list(biases))):
        df = standins.load(name, seed=seed, n_items=n_items, variant=variant)
        cond = str(df["condition"].cat.categories[0])
        Xw, yw = to_wide(df, cond, validate=False)
        X0, y = Xw.to_numpy().astype(np.int8), yw.to_numpy()
        for b in grid:
            X = with_answer_bias(X0, b, seed=seed)
            err = X != y[:, None]
            order = select.greedy_mi(X, y, min(steps + 1, X.shape[1]))
            path = decomposition_path(X, y, order, estimator="plugin")
            later = path[path["step"] >= 2]
            pos, neg = float(err[y == 1].mean()), float(err[y == -1].mean())
            rows.append({"variant": variant, "bias": float(b), "eps_pos": pos,
                         "eps_neg": neg, "ratio": pos / neg,
                         "lambda_share": float(later["correction"].abs().sum()
                                               / later["delta"].sum()),
                         "lambda_max": float(later["correction"].abs().max()),
                         "residual": float(path["residual"].abs().max())})
    out = pd.DataFrame(rows)
    out.attrs.update(dataset=name, condition=cond, steps=int(steps))
    return out
