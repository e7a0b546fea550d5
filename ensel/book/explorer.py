"""The offline explorer of the saturation theorem and the ensemble size.

The page computes, when the book is built, a grid of exact errors over accuracy ``alpha``,
correlation ``rho`` and ensemble size ``m`` (:func:`explorer_grid`: MAP and majority vote
from :func:`ensel.theory.ensemble_error`, the floor from :func:`ensel.theory.saturation_floor`)
and embeds it in the page (:func:`explorer_html`); ``book/_static/explorer.js`` (vanilla
JavaScript, served with the book, no network) draws the curves and moves them with the
sliders.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ensel._errors import DataError

__all__ = ["explorer_grid", "explorer_html", "EXPLORER_ID"]

#: The ``id`` of the explorer's element (``explorer.js`` and the browser check look for it).
EXPLORER_ID = "ensel-explorer"


def explorer_grid(alphas: Sequence[float], rhos: Sequence[float],
                  ms: Sequence[int]) -> pd.DataFrame:
    """Exact MAP and majority-vote errors and the saturation floor on a grid.

    Returns
    -------
    pandas.DataFrame
        Columns ``alpha, rho, m, map, majority, floor``: one row per grid point.

    Examples
    --------
    >>> g = explorer_grid([0.7], [0.3], [1, 3])
    >>> g[["m", "map"]].round(4).values.tolist()
    [[1.0, 0.3], [3.0, 0.2515]]
    >>> bool(np.allclose(g["map"], g["majority"]))
    True
    """
    from ensel.theory import ensemble_error, saturation_floor

    rows = []
    for a in alphas:
        for r in rhos:
            floor = saturation_floor(float(a), float(r))
            for m in ms:
                rows.append({"alpha": float(a), "rho": float(r), "m": int(m),
                             "map": ensemble_error(float(a), float(r), int(m), rule="map"),
                             "majority": ensemble_error(float(a), float(r), int(m),
                                                        rule="majority"),
                             "floor": floor})
    return pd.DataFrame(rows, columns=["alpha", "rho", "m", "map", "majority", "floor"])


def explorer_html(grid: pd.DataFrame, *, alpha: float, rho: float, m: int) -> str:
    """The explorer's HTML: the sliders, an empty SVG, a read-out line and the grid as JSON
    (``explorer.js`` fills in the rest); ``alpha``, ``rho`` and ``m`` are the starting
    values (the nearest grid points)."""
    alphas = sorted(set(grid["alpha"]))
    rhos = sorted(set(grid["rho"]))
    ms = sorted(set(grid["m"]))

    def nearest(values: list[float], v: float) -> int:
        return int(np.argmin(np.abs(np.asarray(values, dtype=float) - v)))

    shape = (len(alphas), len(rhos), len(ms))
    g = grid.sort_values(["alpha", "rho", "m"])
    if len(g) != shape[0] * shape[1] * shape[2]:
        raise DataError(f"the grid must hold every (alpha, rho, m) once; got {len(g)} rows "
                         f"for {shape[0]} x {shape[1]} x {shape[2]} points")
    doc = {"alpha": alphas, "rho": rhos, "m": [int(v) for v in ms],
           "map": [round(float(v), 7) for v in g["map"]],
           "majority": [round(float(v), 7) for v in g["majority"]],
           "floor": [round(float(v), 7) for v in
                     g.drop_duplicates(["alpha", "rho"])["floor"]]}
    data = html.escape(json.dumps(doc, separators=(",", ":")), quote=False)

    def slider(name: str, label: str, n: int, start: int) -> str:
        return (f'<label class="ensel-explorer-control">{label} '
                f'<input type="range" name="{name}" min="0" max="{n - 1}" step="1" '
                f'value="{start}" aria-label="{name}"> <output name="{name}"></output></label>')

    return (
        f'<div id="{EXPLORER_ID}" class="ensel-explorer">'
        + '<div class="ensel-explorer-controls">'
        + slider("alpha", "accuracy α", len(alphas), nearest(alphas, alpha))
        + slider("rho", "correlation ρ", len(rhos), nearest(rhos, rho))
        + slider("m", "ensemble size m", len(ms), nearest([float(v) for v in ms], m))
        + "</div>"
        + '<svg class="ensel-explorer-plot" viewBox="0 0 640 360" role="img" '
        + 'aria-label="exact error against ensemble size"></svg>'
        + '<p class="ensel-explorer-readout" aria-live="polite">'
        + "The explorer needs JavaScript (it runs offline, from this book's own files).</p>"
        + f'<script type="application/json" class="ensel-explorer-data">{data}</script>'
        + "</div>")
