"""The label-free model anchored by the gold it has, the ensembles' errors under it, and the
draws that carry the uncertainty of the few labels (private; see :mod:`ensel.fewlabels`)."""

from __future__ import annotations

from dataclasses import dataclass
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
        for j in S:
            a = A[:, j]
            seen = a >= 0
            ac = np.where(seen, pos[np.maximum(a, 0)], -1)
            known = ac >= 0
            if self.plurality:
                out[np.flatnonzero(known), ac[known]] += 1.0
            else:
                out[known] += self.logconf[j][:, ac[known]].T
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
    return LabelModel(predictor, Ac, gold, contrib, allowed, P, cf_prior, cf_contrib)


def expected_errors(model: LabelModel, tied: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per item: the expected error of a prediction under the model's posterior (a tie among
    ``t`` classes counting ``1 - 1/t`` as everywhere in ensel), and its error against the
    gold (``NaN`` without gold)."""
    t = tied.sum(axis=1)
    fhat = 1.0 - (tied * model.P).sum(axis=1) / t
    lab = model.gold >= 0
    e = np.full(t.shape, np.nan)
    e[lab] = 1.0 - tied[np.flatnonzero(lab), model.gold[lab]] / t[lab]
    return fhat, e


def calibrated(P: np.ndarray, tau: float) -> np.ndarray:
    """The posteriors at temperature ``tau``: ``P^tau`` renormalised per item."""
    from ensel.aggregate._multiclass import softmax_rows

    with np.errstate(divide="ignore"):
        return softmax_rows(tau * np.log(P))


@dataclass(frozen=True)
class Draws:
    """Draws of the population error of each candidate ensemble."""

    errors: np.ndarray  # (C, D)
    temperature: np.ndarray  # (D, n_bins) the calibration of each draw, per bin
    tau: np.ndarray  # (n_bins,) the calibration fitted on all the labels (no resampling)
    bins: np.ndarray  # (n,) the confidence bin of each item
    noise: np.ndarray  # (D, n_bins) the share of confident mistakes of each draw, per bin
    noise_fit: np.ndarray  # (n_bins,) its point fit


def confidence_bins(P: np.ndarray) -> np.ndarray:
    """The bin of each item by the model's uncertainty ``1 - max_c P`` (:data:`BINS`)."""
    return np.digitize(1.0 - P.max(axis=1), BINS)


def _calibration_draws(model: LabelModel, lab: np.ndarray, n_draws: int,
                       rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Indices into the grid of (temperature, noise) of each draw per bin ``(D, n_bins)``,
    and of the point fit (all labels, weight one each) per bin."""
    logtau = np.log(_TAU)
    prior = (-0.5 * (logtau / PRIOR_SD) ** 2)[:, None] + np.zeros(_NOISE.size)[None, :]
    n_bins = len(BINS) + 1
    bins = confidence_bins(model.P)
    k = model.allowed.sum(axis=1)
    which = np.empty((n_draws, n_bins), dtype=np.int64)
    point = np.empty(n_bins, dtype=np.int64)
    for b in range(n_bins):
        L = lab[bins[lab] == b]
        LL = np.empty((_TAU.size, _NOISE.size, L.size))
        for t, tau in enumerate(_TAU):
            p = calibrated(model.P[L], tau)[np.arange(L.size), model.gold[L]]
            LL[t] = np.log(np.maximum((1 - _NOISE[:, None]) * p[None, :]
                                      + _NOISE[:, None] / k[L][None, :], 1e-300))
        LL = LL.reshape(_TAU.size * _NOISE.size, L.size)
        h = rng.standard_exponential((n_draws, L.size))
        h *= L.size / np.maximum(h.sum(axis=1, keepdims=True), 1e-300)
        logpost = h @ LL.T + prior.ravel()[None, :]  # (D, grid): each draw's posterior
        logpost -= logpost.max(axis=1, keepdims=True)
        cum = np.exp(logpost).cumsum(axis=1)
        which[:, b] = (rng.random(n_draws)[:, None] * cum[:, -1:] > cum).sum(axis=1)
        point[b] = int((LL.sum(axis=1) + prior.ravel()).argmax())
    return which, point


def draw_errors(model: LabelModel, tieds: list[np.ndarray], n_draws: int,
                rng: np.random.Generator) -> Draws:
    """Bayesian-bootstrap draws of each candidate's error on the population of items.

    The labels recalibrate the label model: in each bin of its confidence (:data:`BINS`),
    its posteriors at a temperature ``tau`` (``P^tau`` renormalised; ``tau < 1`` where the
    model is overconfident, as Dawid-Skene is for models that share their errors), mixed
    with a share ``eps`` of uniform guesses (``(1 - eps) P^tau + eps / K``: the items where
    the model is wrong however sure, as when every model shares one wrong answer), with a
    normal prior on ``log tau`` (sd :data:`PRIOR_SD`, centred on the model as fitted) over
    the grid :data:`TEMPERATURES` and equal prior mass on the grid :data:`NOISE`. Each draw
    resamples the labelled items (Dirichlet(1) weights) and draws each bin's ``(tau, eps)``
    from the posterior they give (few labels in a bin leave the prior's spread, many the
    resampling's), and resamples the items (Dirichlet(1))
    for the population; a candidate's error is the weighted mean of its gold error on a
    labelled item and of its expected error under the calibrated posterior elsewhere.
    Labels chosen from the answers (by :func:`ensel.fewlabels.label_next`, which favours
    the unsure items) calibrate the bins they fall in; the bins keep them from setting the
    calibration of the sure items.
    """
    lab = np.flatnonzero(model.gold >= 0)
    n = model.P.shape[0]
    which, point = _calibration_draws(model, lab, n_draws, rng)
    bins = confidence_bins(model.P)
    g = rng.standard_exponential((n_draws, n))
    g /= g.sum(axis=1, keepdims=True)
    out = np.zeros((len(tieds), n_draws))
    is_lab = model.gold >= 0
    chance = 1.0 - 1.0 / model.allowed.sum(axis=1)  # the error of a uniform guess
    for b in range(len(BINS) + 1):
        rows = np.flatnonzero(bins == b)
        if rows.size == 0:
            continue
        gl = is_lab[rows]
        for t in np.unique(which[:, b] // _NOISE.size):
            P = calibrated(model.P[rows], float(_TAU[t]))
            fs = []
            for tied in tieds:
                tr = tied[rows]
                fs.append(1.0 - (tr * P).sum(axis=1) / tr.sum(axis=1))
            for e in np.unique(which[:, b][which[:, b] // _NOISE.size == t] % _NOISE.size):
                draws = np.flatnonzero(which[:, b] == t * _NOISE.size + e)
                G = g[np.ix_(draws, rows)]
                for c, tied in enumerate(tieds):
                    f = (1.0 - _NOISE[e]) * fs[c] + _NOISE[e] * chance[rows]
                    tr = tied[rows]
                    f[gl] = 1.0 - tr[gl, model.gold[rows[gl]]] / tr[gl].sum(axis=1)
                    out[c, draws] += G @ f
    return Draws(out, _TAU[which // _NOISE.size], _TAU[point // _NOISE.size],
                 bins, _NOISE[which % _NOISE.size], _NOISE[point % _NOISE.size])
