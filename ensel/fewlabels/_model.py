"""The label-free model anchored by the gold it has, the ensembles' errors under it, and the
draws that carry the uncertainty of the few labels (private; see :mod:`ensel.fewlabels`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ensel.fewlabels._gold import Pool

__all__: list[str] = []

#: Fewest items of each half for the cross-fitted errors (smaller pools use one fit).
CROSS_FIT_MIN = 50
#: The grid of temperatures by which the labels recalibrate the label model's posteriors.
TEMPERATURES: tuple[float, ...] = tuple(
    np.exp(np.linspace(np.log(0.05), np.log(5.0), 61)).tolist())
#: Upper ends of the bins of the label model's uncertainty ``1 - max_c P(Y = c | answers)``
#: each calibrated by its own temperature (a last bin above the last end).
BINS = (0.01, 0.1)
#: The grid of the share of items on which the model is wrong whatever it says (gold taken
#: as a uniform guess): what a temperature cannot express, e.g. every model sharing one
#: wrong answer or a wrong gold. Equal prior mass on each point.
NOISE: tuple[float, ...] = (0.0, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32)
#: Standard deviation of the normal prior of ``log tau`` (centred on the model as fitted).
PRIOR_SD = 1.0
_TAU = np.asarray(TEMPERATURES)  # the grids as arrays, for the computation
_NOISE = np.asarray(NOISE)


@dataclass(frozen=True)
class Predictor:
    """What an ensemble needs to answer new items: its members' log-likelihood tables."""

    classes: np.ndarray  # (K,) option codes of the classes
    logprior: np.ndarray  # (K,)
    logconf: np.ndarray  # (m, K, A) weighted log P(answer a | class c) of every model
    plurality: bool

    def scores(self, A: np.ndarray, S: tuple[int, ...], n_options: np.ndarray) -> np.ndarray:
        """``(n, K)`` scores of the ensemble ``S`` on option codes ``A`` (all models)."""
        K = self.classes.size
        pos = np.full(int(max(self.logconf.shape[2], A.max(initial=0) + 1)), -1)
        pos[self.classes] = np.arange(K)
        out = np.zeros((A.shape[0], K)) if self.plurality else np.tile(self.logprior,
                                                                         (A.shape[0], 1))
        zero = np.zeros((1, K))
        for j in S:
            a = A[:, j]
            seen = a >= 0
            ac = np.where(seen, pos[np.maximum(a, 0)], -1)
            known = ac >= 0
            if self.plurality:
                out[np.flatnonzero(known), ac[known]] += 1.0
            else:  # the model's row of each answer; an unknown one (-1) adds the zero row
                out += np.vstack([self.logconf[j].T, zero])[ac]
        out[~(self.classes[None, :] < n_options[:, None])] = -np.inf
        return out


@dataclass(frozen=True)
class LabelModel:
    """The fitted label model on one pool, in class-index space."""

    predictor: Predictor
    A: np.ndarray  # (n, m) class indices, -1 = abstained
    gold: np.ndarray  # (n,) class indices, -1 = no gold
    contrib: np.ndarray  # (m, n, K) log-likelihood of each model's answer per class
    allowed: np.ndarray  # (n, K) the class is one of the item's options
    P: np.ndarray  # (n, K) posteriors from the answers alone (gold not used for the item)
    cf_prior: np.ndarray  # (n, K) log prior of the fit on the other half of the items
    cf_contrib: np.ndarray  # (m, n, K) contributions under the other half's fit
    Q: np.ndarray  # (n, K) posteriors under the other half's fit (the item's gold unseen)
    #: :func:`_bin_loglik` by its labelled items: the size of ``k="auto"``
    #: (:func:`point_errors`) and the draws (:func:`draw_errors`) read the same ones
    logliks: dict[bytes, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    @property
    def T(self) -> np.ndarray:
        """Posteriors with the gold where there is some (one-hot there)."""
        T = self.P.copy()
        lab = self.gold >= 0
        T[lab] = 0.0
        T[np.flatnonzero(lab), self.gold[lab]] = 1.0
        return T

    def ties(self, S: tuple[int, ...], *, cross: bool = True) -> np.ndarray:
        """``(n, K)`` bool: the classes the ensemble ``S`` ties at the top of each item
        (``cross``: its tables fitted on the other half of the items, so that the errors
        measured on an item are those of an ensemble that did not learn from it)."""
        if self.predictor.plurality:
            score = np.zeros(self.P.shape)
            for j in S:
                a = self.A[:, j]
                ok = a >= 0
                score[np.flatnonzero(ok), a[ok]] += 1.0
        elif cross:
            score = self.cf_prior + self.cf_contrib[list(S)].sum(axis=0)
        else:
            score = self.predictor.logprior + self.contrib[list(S)].sum(axis=0)
        score = np.where(self.allowed, score, -np.inf)
        top = score.max(axis=1, keepdims=True)
        return score >= top - (0.0 if self.predictor.plurality else 1e-9)


def _tables(est: Any, classes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A fitted Dawid-Skene's log prior and weighted log confusions in the class space of
    ``classes`` (a class the fit never saw gets a probability of 1e-6)."""
    K = classes.size
    pos = np.searchsorted(classes, np.asarray(est.classes_, dtype=np.int64))
    conf = np.full((est.confusions_.shape[0], K, K), 1e-6)
    conf[:, pos[:, None], pos[None, :]] = est.confusions_
    prior = np.full(K, 1e-6)
    prior[pos] = est.prior_
    W = np.log(conf)
    weights = getattr(est, "model_weights_", None)
    if weights is not None:
        W = W * np.asarray(weights)[:, None, None]
    return np.log(prior), W


def _contributions(W: np.ndarray, Ac: np.ndarray) -> np.ndarray:
    """``(m, n, K)``: each model's log-likelihood of its answer per class (0: abstained)."""
    n, m = Ac.shape
    contrib = np.zeros((m, n, W.shape[1]))
    for j in range(m):
        ok = Ac[:, j] >= 0
        contrib[j, ok] = W[j][:, Ac[ok, j]].T
    return contrib


def fit_label_model(pool: Pool, name: str, aggregator: str, seed: int) -> LabelModel:
    """Fit the label-free aggregator ``name`` on every item (gold anchors its items), and
    on each half of the items for the cross-fitted answers of the ensembles."""
    from ensel.aggregate import make_aggregator
    from ensel.aggregate._multiclass import softmax_rows

    def fit(rows: np.ndarray) -> Any:
        gold = pool.gold[rows]
        return make_aggregator(name, random_state=seed).fit(
            pool.A[rows], gold if (gold >= 0).any() else None)

    n = pool.A.shape[0]
    est = fit(np.arange(n))
    classes = np.asarray(est.classes_, dtype=np.int64)
    pos = np.full(int(max(pool.A.max(initial=0), pool.gold.max(initial=0), classes.max()) + 1),
                  -1)
    pos[classes] = np.arange(classes.size)
    Ac = np.where(pool.A >= 0, pos[np.maximum(pool.A, 0)], -1)
    gold = np.where(pool.gold >= 0, pos[np.maximum(pool.gold, 0)], -1)
    logprior, W = _tables(est, classes)
    contrib = _contributions(W, Ac)
    allowed = classes[None, :] < pool.n_options[:, None]
    P = softmax_rows(np.where(allowed, logprior + contrib.sum(axis=0), -np.inf))
    cf_prior = np.tile(logprior, (n, 1))
    cf_contrib = contrib.copy()
    if n >= 2 * CROSS_FIT_MIN:
        half = np.random.default_rng(seed).permutation(n) < n // 2
        for fold in (half, ~half):
            lp, Wf = _tables(fit(np.flatnonzero(~fold)), classes)
            rows = np.flatnonzero(fold)
            cf_prior[rows] = lp
            cf_contrib[:, rows] = _contributions(Wf, Ac[rows])
    predictor = Predictor(classes, logprior, W, aggregator == "plurality")
    Q = softmax_rows(np.where(allowed, cf_prior + cf_contrib.sum(axis=0), -np.inf))
    return LabelModel(predictor, Ac, gold, contrib, allowed, P, cf_prior, cf_contrib, Q)


def calibrated(P: np.ndarray, tau: float) -> np.ndarray:
    """The posteriors at temperature ``tau``: ``P^tau`` renormalised per item."""
    return _calibrated_grid(P, np.array([float(tau)]))[0]


@dataclass(frozen=True)
class Draws:
    """Draws of the population error of each candidate ensemble."""

    errors: np.ndarray  # (C, D)
    temperature: np.ndarray  # (D, n_bins) the calibration of each draw, per bin
    tau: np.ndarray  # (n_bins,) the calibration fitted on all the labels (no resampling)
    bins: np.ndarray  # (n,) the confidence bin of each item
    noise: np.ndarray  # (D, n_bins) the share of confident mistakes of each draw, per bin
    noise_fit: np.ndarray  # (n_bins,) its point fit
    expected: np.ndarray  # (C, D) the label model's part alone (without the rectifier)


def confidence_bins(P: np.ndarray) -> np.ndarray:
    """The bin of each item by the model's uncertainty ``1 - max_c P`` (:data:`BINS`)."""
    return np.digitize(1.0 - P.max(axis=1), BINS)


def _bin_loglik(model: LabelModel, L: np.ndarray) -> np.ndarray:
    """``(grid, n_L)``: the log-likelihood of the gold of the labelled items ``L`` at every
    point of the grid of (temperature, noise); made once per model and labelled items."""
    key = np.ascontiguousarray(L, dtype=np.int64).tobytes()
    if key not in model.logliks:
        model.logliks[key] = _bin_loglik_of(model, L)
    return model.logliks[key]


def _bin_loglik_of(model: LabelModel, L: np.ndarray) -> np.ndarray:
    k = model.allowed[L].sum(axis=1)
    p = _calibrated_grid(model.Q[L], _TAU)[:, np.arange(L.size), model.gold[L]]
    LL = np.log(np.maximum((1 - _NOISE[None, :, None]) * p[:, None, :]
                           + _NOISE[None, :, None] / k[None, None, :], 1e-300))
    return LL.reshape(_TAU.size * _NOISE.size, L.size)


def _log_prior() -> np.ndarray:
    logtau = np.log(_TAU)
    return ((-0.5 * (logtau / PRIOR_SD) ** 2)[:, None] + np.zeros(_NOISE.size)[None, :]).ravel()


def _calibration_draws(model: LabelModel, lab: np.ndarray, h: np.ndarray,
                       rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Indices into the grid of (temperature, noise) of each draw per bin ``(D, n_bins)``,
    and of the point fit (all labels, weight one each) per bin; ``h`` ``(D, n_lab)``: the
    draws' weights of the labelled items ``lab``."""
    prior = _log_prior()
    n_draws, n_bins = h.shape[0], len(BINS) + 1
    bins = confidence_bins(model.Q)
    which = np.empty((n_draws, n_bins), dtype=np.int64)
    point = np.empty(n_bins, dtype=np.int64)
    for b in range(n_bins):
        inb = bins[lab] == b
        LL = _bin_loglik(model, lab[inb])
        hb = h[:, inb]
        hb = hb * (LL.shape[1] / np.maximum(hb.sum(axis=1, keepdims=True), 1e-300))
        logpost = hb @ LL.T + prior[None, :]  # (D, grid): each draw's posterior
        logpost -= logpost.max(axis=1, keepdims=True)
        cum = np.exp(logpost).cumsum(axis=1)
        u = np.asarray(rng.random(n_draws), dtype=float)
        which[:, b] = (u[:, None] * cum[:, -1:] > cum).sum(axis=1)
        point[b] = int((LL.sum(axis=1) + prior).argmax())
    return which, point


def point_errors(model: LabelModel, tieds: list[np.ndarray]) -> np.ndarray:
    """``(C,)``: each candidate's mean expected error over the items under the label model
    at the point fit of its calibration (no draws, no rectifier): what ``k="auto"`` sizes
    the choice by, so that the labelled items' own noise does not pick the size."""
    lab = np.flatnonzero(model.gold >= 0)
    bins = confidence_bins(model.Q)
    prior = _log_prior()
    T = _shares(tieds)
    chance = 1.0 - 1.0 / model.allowed.sum(axis=1)
    total = np.zeros(len(tieds))
    for b in range(len(BINS) + 1):
        rows = np.flatnonzero(bins == b)
        if rows.size == 0:
            continue
        g = int((_bin_loglik(model, lab[bins[lab] == b]).sum(axis=1) + prior).argmax())
        tau, eps = _TAU[g // _NOISE.size], _NOISE[g % _NOISE.size]
        f = _expected(T[:, rows], _calibrated_grid(model.Q[rows], np.array([tau])))[0]
        total += ((1 - eps) * f + eps * chance[rows]).sum(axis=1)
    return total / model.Q.shape[0]


def _shares(tieds: list[np.ndarray]) -> np.ndarray:
    """``(C, n, K)``: each candidate's answer as its share of each class (ties split)."""
    T = np.stack(tieds).astype(float)
    return T / T.sum(axis=2, keepdims=True)


def _expected(T: np.ndarray, P: np.ndarray) -> np.ndarray:
    """``(U, C, n)``: the expected error of answers ``T`` ``(C, n, K)`` under each of the
    posteriors ``P`` ``(U, n, K)`` (one batched product over the items)."""
    prod = np.matmul(P.transpose(1, 0, 2), T.transpose(1, 2, 0))  # (n, U, C)
    return 1.0 - prod.transpose(1, 2, 0)


def _calibrated_grid(P: np.ndarray, taus: np.ndarray) -> np.ndarray:
    """``(U, n, K)``: the posteriors ``P`` at each temperature of ``taus`` (``P^tau``
    renormalised per item), in one pass."""
    from ensel.aggregate._multiclass import row_max, row_sum

    with np.errstate(divide="ignore"):
        logP = np.log(P)
    z = taus[:, None, None] * logP[None, :, :]
    flat = z.reshape(-1, z.shape[2])  # one row per (temperature, item): numpy's numbers,
    flat -= row_max(flat)[:, None]  # reduced column by column over the few classes
    np.exp(flat, out=flat)
    flat /= row_sum(flat)[:, None]
    return z


def draw_errors(model: LabelModel, tieds: list[np.ndarray], n_draws: int,
                rng: np.random.Generator) -> Draws:
    """Bayesian-bootstrap draws of each candidate's error on the population of items.

    The estimate is prediction-powered (Angelopoulos et al., 2023): the mean over every
    item of the candidate's expected error under the label model, plus the mean over the
    labelled items of its gold error minus that expected error (the *rectifier*). The
    rectifier removes the label model's bias whatever its cause (models that share their
    mistakes, a model that swaps the classes) when the labels are a random sample of the
    items; the label model only narrows the interval where it is good.

    The labels also recalibrate the label model: in each bin of its confidence
    (:data:`BINS`), its posteriors at a temperature ``tau`` (``P^tau`` renormalised), mixed
    with a share ``eps`` of uniform guesses (``(1 - eps) P^tau + eps / K``), with a normal
    prior on ``log tau`` (sd :data:`PRIOR_SD`, centred on the model as fitted) over the grid
    :data:`TEMPERATURES` and equal prior mass on the grid :data:`NOISE`. Each draw
    resamples the labelled items (Dirichlet(1) weights), draws each bin's ``(tau, eps)``
    from the posterior they give, computes the rectifier with the same weights, and
    resamples the items (Dirichlet(1)) for the mean of the expected errors. The rectifier
    is stratified by the bins (each bin's mean over its labelled items, weighted by the
    bin's share of the items), so that labels chosen by the model's confidence (as
    :func:`ensel.fewlabels.label_next` does) do not stand for the items they are not like;
    each bin adds two prior pseudo-items, an error and a success (Dirichlet weights of
    total mass 1 over the bins, in proportion to their items), so that a handful of labels
    that all agree with the model do not give a zero-width rectifier, and a bin without
    labels gets the prior's width.

    The computation is vectorised over the draws and the candidates; its only loop is over
    the bins and the temperatures the draws use.
    """
    lab = np.flatnonzero(model.gold >= 0)
    n, n_bins, C = model.Q.shape[0], len(BINS) + 1, len(tieds)
    h = rng.standard_exponential((n_draws, lab.size))
    which, point = _calibration_draws(model, lab, h, rng)
    g = rng.standard_exponential((n_draws, n))
    g /= g.sum(axis=1, keepdims=True)
    share = np.bincount(confidence_bins(model.Q), minlength=n_bins) / n
    # per bin an error and a success, of prior mass 1 over the bins
    pseudo = rng.standard_gamma(np.repeat(np.maximum(0.5 * share, 0.05), 2),
                                (n_draws, 2 * n_bins))
    T = _shares(tieds)  # (C, n, K)
    bins = confidence_bins(model.Q)
    chance = 1.0 - 1.0 / model.allowed.sum(axis=1)  # the error of a uniform guess
    at = np.full(n, -1)
    at[lab] = np.arange(lab.size)
    expected = np.zeros((n_draws, C))  # mean expected error over the items
    rect = np.zeros((n_draws, C))  # the rectifier, the bins' means weighted by their items
    for b in range(n_bins):
        rows = np.flatnonzero(bins == b)
        if rows.size == 0:
            continue
        lr = at[rows] >= 0
        gold_err = 1.0 - T[:, rows[lr], model.gold[rows[lr]]]  # (C, n_Lb)
        used, inv = np.unique(which[:, b] // _NOISE.size, return_inverse=True)
        f = _expected(T[:, rows], _calibrated_grid(model.Q[rows], _TAU[used]))  # (U, C, n_b)
        eps = _NOISE[which[:, b] % _NOISE.size][:, None]  # (D, 1)
        G, H = g[:, rows], h[:, at[rows[lr]]]
        Gf, Hf = np.empty((n_draws, C)), np.empty((n_draws, C))  # at each draw's tau
        for u in range(used.size):
            d = np.flatnonzero(inv == u)
            Gf[d] = G[d] @ f[u].T
            Hf[d] = H[d] @ f[u][:, lr].T
        part = (1 - eps) * Gf + eps * (G @ chance[rows])[:, None]  # the bin's share of it
        expected += part
        weight = G.sum(axis=1, keepdims=True)  # the bin's share of the items in the draw
        mean_f = part / np.maximum(weight, 1e-300)
        up, down = pseudo[:, 2 * b:2 * b + 1], pseudo[:, 2 * b + 1:2 * b + 2]
        r = (H @ gold_err.T - (1 - eps) * Hf - eps * (H @ chance[rows[lr]])[:, None]
             + up * (1.0 - mean_f) - down * mean_f)
        den = H.sum(axis=1, keepdims=True) + up + down  # 0 only if both pseudo underflow
        rect += weight * np.where(den > 0, r / np.maximum(den, 1e-300), 0.5 - mean_f)
    out = np.clip(expected + rect, 0.0, 1.0).T  # an error rate: the rectifier may overshoot
    return Draws(out, _TAU[which // _NOISE.size], _TAU[point // _NOISE.size],
                 bins, _NOISE[which % _NOISE.size], _NOISE[point % _NOISE.size], expected.T)
