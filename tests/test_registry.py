"""The selector registry is the one seam: a toy selector (one module plus its spec) reaches
the command line, ``experiment.evaluate`` and the experiments page's tables and figure.

Adding a selector touches 2 files: its module in ``ensel/select/`` and its
:class:`~ensel.select.SelectorSpec` in ``ensel/select/__init__.py``. Here the module is
written to a temporary folder and the spec is put into :data:`ensel.select.SPECS` for the
test's duration, exactly what the two edits do.
"""

from __future__ import annotations

import importlib
import json
import sys

import matplotlib
import numpy as np
import pandas as pd
import pytest

from ensel import experiment, select
from ensel.cli import main
from ensel.copula import sample_equicorrelated
from ensel.data import to_long
from ensel.select import SelectorSpec

matplotlib.use("Agg")

TOY_MODULE = '''
"""A toy selector: the last ``k`` models, last first (nested) -- or, when ``reverse_prefix``
is set, the first ``k`` models in reverse order (not nested: its choice at k is no prefix
of its choice at k + 1)."""

import numpy as np

from ensel.select._base import _BaseSelector


class LastK(_BaseSelector):
    _needs_both_classes = False
    reverse_prefix = False

    def _path(self, Xa, ya, k):
        m = Xa.shape[1]
        last = k - 1 if self.reverse_prefix else m - 1
        picks = list(range(last, last - k, -1))
        return picks, [0.0] * k, np.full((k, m), np.nan)


class FirstKReversed(LastK):
    reverse_prefix = True
'''


@pytest.fixture()
def toy(tmp_path, monkeypatch):
    (tmp_path / "toy_selector.py").write_text(TOY_MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("toy_selector", None)
    module = importlib.import_module("toy_selector")
    monkeypatch.setitem(select.SPECS, "toy", SelectorSpec(
        "toy", module.LastK, "Toy", style={"color": "#123456", "marker": "*"}))
    return module


def _table(m: int = 6, n: int = 800) -> pd.DataFrame:
    X, y, _ = sample_equicorrelated([0.8, 0.75, 0.7, 0.7, 0.65, 0.6][:m], 0.2, m, n,
                                    random_state=0)
    return to_long(X, y, condition="c", items=[f"q{i:04d}" for i in range(n)],
                   models=[f"m{j}" for j in range(m)])


def test_the_toy_selector_is_a_command_line_choice(toy, tmp_path, capsys) -> None:
    with pytest.raises(SystemExit):
        main(["select", "--help"])
    from ensel.select import SELECTORS

    assert "toy" in SELECTORS
    assert f"one of {', '.join([*SELECTORS, 'exhaustive'])}" \
        in " ".join(capsys.readouterr().out.split())
    path = tmp_path / "answers.parquet"
    _table().to_parquet(path, index=False)
    assert main(["select", str(path), "-k", "2", "--method", "toy", "--aggregator", "map",
                 "--splits", "2", "--halvings", "0", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["method"] == "toy"
    assert [s["model"] for s in doc["selected"]] == ["m5", "m4"]


def test_the_toy_selector_runs_in_evaluate(toy) -> None:
    res = experiment.evaluate(_table(), ks=[1, 2, 3], n_splits=2,
                              selectors=["topk", "toy"], aggregators=["map"])
    toy_rows = res[res["selector"] == "toy"]
    assert len(toy_rows) == 2 * 3
    assert set(toy_rows.loc[toy_rows["k"] == 3, "selected"]) == {"m5|m4|m3"}


def test_a_selector_that_is_not_nested_is_fitted_at_every_budget(toy, monkeypatch) -> None:
    spec = SelectorSpec("toy", toy.FirstKReversed, "Toy", nested=False)
    monkeypatch.setitem(select.SPECS, "toy", spec)
    res = experiment.evaluate(_table(), ks=[1, 2, 3], n_splits=1, selectors=["toy"],
                              aggregators=["map"])
    assert list(res.sort_values("k")["selected"]) == ["m0", "m1|m0", "m2|m1|m0"]
    # declared nested, the same selector would be evaluated on prefixes of its k = 3 choice
    monkeypatch.setitem(select.SPECS, "toy", SelectorSpec("toy", toy.FirstKReversed, "Toy"))
    res = experiment.evaluate(_table(), ks=[1, 2, 3], n_splits=1, selectors=["toy"],
                              aggregators=["map"])
    assert list(res.sort_values("k")["selected"]) == ["m2", "m2|m1", "m2|m1|m0"]


def test_the_toy_selector_reaches_the_experiments_page_tables_and_figure(toy) -> None:
    # the experiments page's own calls with its parameter extra_selectors = ["toy"]
    from ensel.book import figures, tables

    extra_selectors = ["toy"]
    selectors = [*experiment.PAPER_SELECTORS, *extra_selectors]
    results = experiment.evaluate(_table(), ks=[1, 2], n_splits=2, selectors=selectors)
    summary = experiment.summarise(results)
    extra = [(s, "map") for s in extra_selectors]
    table = tables.results_table(summary, "map", extra=extra)
    assert "Toy (MAP)" in table.columns
    fig = figures.error_vs_k(summary, selectors=selectors)
    colours = {line.get_label(): line.get_color() for line in fig.axes[0].get_lines()}
    assert colours["Toy (MAP)"] == "#123456"
    assert np.isfinite(summary.loc[summary["selector"] == "toy", "mean"]).all()


def test_every_aggregator_has_one_name_in_prose() -> None:
    """The prose of ``ensel select`` and ``ensel report`` names an aggregator by its spec's
    ``words`` (:func:`ensel.aggregate.aggregator_name`), never by its key: every registered
    aggregator has words of its own."""
    from ensel.aggregate import MULTICLASS_SPECS, SPECS, aggregator_name

    specs = {**SPECS, **MULTICLASS_SPECS}
    words = [aggregator_name(name) for name in specs]
    assert all(s.words for s in specs.values()) and len(set(words)) == len(words)
    assert all(w != name for w, name in zip(words, specs, strict=True))
    assert aggregator_name("ds") == "Dawid-Skene" and aggregator_name("toy") == "toy"


def test_the_default_and_the_papers_selectors_have_display_names() -> None:
    """A table header or legend shows a selector's ``label``; ensel's default selector
    showed its key (``score_mi − Top-k`` on the answers page)."""
    from ensel.select import DEFAULT_SELECTOR, MULTICLASS_SPECS, SPECS, paper_selectors

    for name in (*paper_selectors(), DEFAULT_SELECTOR):
        assert SPECS[name].label != name, name
    for name, spec in MULTICLASS_SPECS.items():  # the same names as the binary criteria
        assert spec.label == SPECS[name].label, name
    assert SPECS["score_mi"].label == "ScoreMI"


def test_the_book_names_aggregators_by_the_registry(monkeypatch) -> None:
    """The book's modules kept copies of the aggregators' names ("MV table", "Dawid-Skene
    (same N)"); they read the registry now."""
    import pandas as pd

    from ensel.aggregate import aggregator_name
    from ensel.book import few_labels, protocol, tables

    assert few_labels.ARMS["ds"] == f"{aggregator_name('ds')} (same N)"
    assert few_labels.ARMS["vote"] == f"{aggregator_name('plurality')} (no labels)"
    comparisons = {a: pd.DataFrame({"selector": ["topk"], "diff": [0.1]})
                   for a in ("map", "mv", "wmv")}
    assert list(protocol.paper_differences(comparisons).columns) == [
        "MAP table", "MV table", "W-MV table"]
    monkeypatch.setitem(tables.AGGREGATOR_NAMES, "mv", "vote")
    assert "vote table" in protocol.paper_differences(comparisons).columns
