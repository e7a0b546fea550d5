"""Figures that say their message: coinciding lines stay visible, legends sit outside the
data, heatmaps are ordered by family (ensel.book.figures)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ensel.book import figures  # noqa: E402


def _summary() -> pd.DataFrame:
    rows = [{"selector": s, "aggregator": "map", "k": k, "mean": 0.3 - 0.01 * k, "std": 0.01}
            for s in ("topk", "relevance", "greedy_mi") for k in (1, 2, 3)]
    return pd.DataFrame(rows)


def test_coinciding_lines_are_offset_and_the_legend_is_outside_the_axes() -> None:
    fig = figures.error_vs_k(_summary(), selectors=("topk", "relevance", "greedy_mi"))
    ax = fig.axes[0]
    xs = [tuple(line.get_xdata()) for line in ax.lines]
    assert len(set(xs)) == 3, "identical curves are drawn side by side, not on top"
    assert all(line.get_marker() not in ("", "None") for line in ax.lines)
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    assert legend.x0 >= ax.get_window_extent().x1 - 1, "the legend is right of the data"


def test_heatmap_orders_models_by_family_and_outlines_the_blocks() -> None:
    names = ["a1", "b1", "a2", "c1", "b2"]
    fams = ["A", "B", "A", "C", "B"]
    S = np.eye(5)
    fig = figures.correlation_heatmap(S, names, families=fams)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["a1 [A]", "a2 [A]", "b1 [B]", "b2 [B]", "c1 [C]"]
    blocks = sorted((p.get_x(), p.get_width()) for p in ax.patches
                    if not p.get_fill())
    assert blocks == [(0, 2), (2, 2)], "families of two models outlined, singletons not"


def test_families_of_a_stand_in_and_of_a_users_table() -> None:
    from ensel.datasets import standins

    s = standins.spec("medmcqa")
    assert figures.families_of("medmcqa", s.models[::-1]) == s.families[::-1]
    assert figures.families_of("/tmp/my_answers.csv", ["m1"]) is None


def test_the_heatmaps_family_outlines_are_not_in_its_data() -> None:
    fig = figures.correlation_heatmap(np.eye(3), ["a1", "a2", "b1"], families=["A", "A", "B"])
    d = figures.figure_data(fig)
    assert set(d["kind"]) == {"cell"} and len(d) == 9


def _pixels(png: bytes) -> np.ndarray:
    import io

    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def test_the_cropped_png_is_the_tight_png_from_one_drawing() -> None:
    from IPython.core.pylabtools import print_figure

    from ensel._html import cropped_png

    fig = figures.error_vs_k(_summary(), selectors=("topk", "relevance", "greedy_mi"),
                             title="a title")
    tight = _pixels(print_figure(fig, "png", bbox_inches="tight"))
    cropped = _pixels(cropped_png(fig, 0.1))
    assert abs(tight.shape[0] - cropped.shape[0]) <= 1
    assert abs(tight.shape[1] - cropped.shape[1]) <= 1
    h, w = min(tight.shape[0], cropped.shape[0]), min(tight.shape[1], cropped.shape[1])
    # the same picture, drawn up to half a pixel apart: anti-aliased edges differ a little
    assert np.abs(tight[:h, :w] - cropped[:h, :w]).mean() < 5
    # a drawing that leaves the canvas is left to matplotlib's tight box
    fig.text(1.05, 0.5, "beyond the right edge")
    assert cropped_png(fig, 0.1) is None


def test_the_png_formatter_crops_only_the_inline_backends_tight_png() -> None:
    import functools

    from IPython.core.pylabtools import print_figure

    tight = functools.partial(print_figure, fmt="png", base64=True, bbox_inches="tight")
    assert figures._tight_png_pad(tight) == 0.1
    assert figures._tight_png_pad(functools.partial(tight, pad_inches=0.3)) == 0.3
    for other in (functools.partial(print_figure, fmt="png", base64=True, bbox_inches=None),
                  functools.partial(print_figure, fmt="svg"),
                  functools.partial(tight, dpi=200), None):
        assert figures._tight_png_pad(other) is None


def test_png_bytes_of_a_figure_without_pyplot_at_its_own_dpi() -> None:
    import io

    from matplotlib.figure import Figure
    from PIL import Image

    from ensel._html import png_bytes

    fig = Figure(figsize=(4, 3))
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1])
    ax.set_xlabel("x")
    tight = io.BytesIO()
    fig.savefig(tight, format="png", dpi=110, bbox_inches="tight")
    canvas, dpi = fig.canvas, fig.dpi
    a = np.asarray(Image.open(tight).convert("RGB")).astype(int)
    b = np.asarray(Image.open(io.BytesIO(png_bytes(fig, 110))).convert("RGB")).astype(int)
    assert abs(a.shape[0] - b.shape[0]) <= 1 and abs(a.shape[1] - b.shape[1]) <= 1
    h, w = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
    assert np.abs(a[:h, :w] - b[:h, :w]).mean() < 5
    assert fig.canvas is canvas and fig.dpi == dpi, "the figure is left as it was"
