"""``ensel report``: the recommendation first, the evidence after, one offline HTML page with
nothing unrendered in it; on a weak abstaining pool and on a real source with prices."""

from __future__ import annotations

import contextlib
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from ensel._html import myst_html, notebook_html, tex_html, unrendered_markup
from ensel.cli import main
from tests.conftest import require_mirror


class _Text(HTMLParser):
    """The visible text of a page, in order, and the alt text of each image."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.alts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs) -> None:
        if tag in ("style", "script", "title"):
            self._hidden += 1
        if tag == "img":
            self.alts.append(dict(attrs).get("alt") or "")

    def handle_endtag(self, tag) -> None:
        if tag in ("style", "script", "title"):
            self._hidden -= 1

    def handle_data(self, data) -> None:
        if not self._hidden:
            self.parts.append(data)


def _read(html: str) -> tuple[str, list[str]]:
    p = _Text()
    p.feed(html)
    return " ".join(" ".join(p.parts).split()), p.alts


def _weak_pool(path: Path) -> np.ndarray:
    """24 models near chance in families of 6, each abstaining on 15-20 % of the items."""
    from tools.reports import weak_pool

    return weak_pool(path)


@pytest.fixture(scope="module")
def weak(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("weak")
    X = _weak_pool(tmp / "weak.parquet")
    out = tmp / "r" / "weak.html"
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        assert main(["report", str(tmp / "weak.parquet"), "-o", str(out), "--jobs", "1",
                     "--json"]) == 0
    doc = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    return {"X": X, "html": out.read_text(encoding="utf-8"), "out": out, "doc": doc,
            "stdout": stdout.getvalue()}


@pytest.fixture(scope="module")
def real(tmp_path_factory) -> dict:
    mirror = require_mirror("princeton-nlp/LLMBar")
    mp = pytest.MonkeyPatch()
    mp.setenv("ENSEL_DATA_MIRROR", str(mirror))
    try:
        from ensel.datasets import load

        tmp = tmp_path_factory.mktemp("real")
        load("llmbar").to_parquet(tmp / "llmbar.parquet", index=False)
        out = tmp / "llmbar.html"
        assert main(["report", str(tmp / "llmbar.parquet"), "--prices", "shipped",
                     "--drop-unpriced", "-o", str(out), "--jobs", "1"]) == 0
    finally:
        mp.undo()
    return {"html": out.read_text(encoding="utf-8"),
            "doc": json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))}


def test_the_json_on_stdout_is_the_sidecar(weak) -> None:
    """``--json`` prints the document written beside the page, and nothing else."""
    doc = weak["doc"]
    assert doc["schema"] == "ensel.report/1" and doc["select"]["schema"] == "ensel.select/2"
    assert json.loads(weak["stdout"]) == doc


def test_the_weak_pool_is_near_chance_and_abstains(weak) -> None:
    X = weak["X"]
    abstain = (X == 0).mean(axis=0)
    assert X.shape[1] >= 20 and (0.13 <= abstain).all() and (abstain <= 0.22).all()
    assert 0.15 <= (X == 0).mean() <= 0.20
    answered = [(d["accuracy_answered"]) for d in weak["doc"]["models"]]
    assert max(answered) < 0.66 and min(answered) > 0.4  # near chance (0.5)


@pytest.mark.parametrize("which", ["weak", "real"])
def test_every_report_is_fully_rendered(which, request) -> None:
    html = request.getfixturevalue(which)["html"]
    assert unrendered_markup(html) == []
    text, alts = _read(html)
    assert alts and all(len(a) > 40 and a.endswith(".") for a in alts)
    # one file: nothing loaded from elsewhere, no code
    assert not re.findall(r'<(?:script|link|img)[^>]+(?:src|href)="(?!data:)', html)
    assert "<script" not in html and "import " not in text
    # formulas are HTML, not MathJax targets (tools/browsercheck waits for MathJax on those)
    assert 'class="math' not in html


@pytest.mark.parametrize("which", ["weak", "real"])
def test_the_recommendation_comes_first(which, request) -> None:
    r = request.getfixturevalue(which)
    text, _ = _read(r["html"])
    rec = r["doc"]["recommendation"]
    head = text[:text.index("The evidence")]
    assert rec["headline"] in head and "Use: " in head
    for m in rec["models"]:
        assert m in head
    assert f"{rec['error']:.3f} [{rec['low']:.3f}, {rec['high']:.3f}]" in head
    a = r["doc"]["all_models"]
    assert f"All {a['k']} models together" in head and f"{a['error']:.3f}" in head
    z = r["doc"]["no_model"]
    assert f"No model at all (always the majority label of the training part): " \
           f"{z['error']:.3f} [{z['low']:.3f}, {z['high']:.3f}]" in head
    # the numbers are ensel select -k auto's with its defaults
    sel = r["doc"]["select"]
    assert sel["schema"] == "ensel.select/2"
    assert sel["k_mode"] == "auto" and sel["defaults"][0].startswith("method ")
    if rec["one_model_enough"]:
        assert "One model is enough" in head
    else:
        assert [s["model"] for s in sel["selected"]] == rec["models"]


def test_weak_pool_report_shows_abstentions(weak) -> None:
    text, alts = _read(weak["html"])
    assert "coverage" in text and "accuracy when answered" in text
    rows = weak["doc"]["models"]
    assert len(rows) == 24
    for row in rows:
        assert row["accuracy"] == pytest.approx(row["coverage"] * row["accuracy_answered"])
        assert f"{100 * row['coverage']:.1f} %" in text
    assert any("coverage" in a for a in alts)
    assert weak["doc"]["buy_list"] is None and "Buy list" not in text


def test_real_report_has_the_buy_list_and_the_frontier(real) -> None:
    text, alts = _read(real["html"])
    doc = real["doc"]
    from ensel.frontier import SCHEMA

    buy = doc["buy_list"]
    assert buy and doc["frontier"]["schema"] == SCHEMA and buy == doc["frontier"]["buy_list"]
    assert text.index("Buy list") < text.index("The evidence")
    for row in buy:  # the library's buy list (ensel.budget.buy_list), each choice named
        assert row["choice"]["cost"] <= row["budget"] * (1 + 1e-9)
        ms = row["choice"]["models"]
        assert (f"{ms[0]} alone" if len(ms) == 1 else ", ".join(ms)) in text
    last = buy[-1]["choice"]
    head = text[:text.index("The evidence")]
    names = f"{last['models'][0]} alone" if len(last["models"]) == 1 else \
        ", ".join(last["models"])
    assert re.search(r"To buy, by the buy list ?: " + re.escape(names), head), head
    assert any(a.startswith("Held-out error against cost per query") for a in alts)
    # asking no model: the frontier's zero-cost point, on the same splits
    assert doc["frontier"]["methods"]["budgeted"]["hull"][0] == pytest.approx(
        [0.0, doc["no_model"]["error"]])
    price = {m["model"]: m["usd_per_query"] for m in doc["models"]}
    cost = sum(price[m] for m in doc["recommendation"]["models"])
    head = text[:text.index("Buy list")]
    assert re.search(r"prices aside: the recommendation of ensel select -k auto ?, "
                     + re.escape(f"{cost:.3g} USD per query"), head), head
    assert doc["purchase"]["recommendation_cost"] == pytest.approx(cost)
    assert doc["prices"] == "shipped" and doc["dropped_models"]


def _lead(html: str) -> str:
    """The first line of the page's answer."""
    return _read(re.search(r'<p class="lead">(.*?)</p>', html, re.S).group(0))[0]


@pytest.fixture(scope="module")
def redux(tmp_path_factory) -> dict:
    """ensel report on MMLU-Redux (the mirror) with the shipped prices: the cost-blind
    recommendation (an ensemble) costs more than what the buy list buys."""
    mirror = require_mirror("aryopg/mmlu-redux")
    mp = pytest.MonkeyPatch()
    mp.setenv("ENSEL_DATA_MIRROR", str(mirror))
    try:
        from ensel.datasets import load

        tmp = tmp_path_factory.mktemp("redux")
        load("mmlu_redux").to_parquet(tmp / "redux.parquet", index=False)
        out = tmp / "redux.html"
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            assert main(["report", str(tmp / "redux.parquet"), "--prices", "shipped",
                         "--drop-unpriced", "-o", str(out), "--jobs", "1"]) == 0
    finally:
        mp.undo()
    return {"html": out.read_text(encoding="utf-8"), "stdout": stdout.getvalue(),
            "doc": json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))}


@pytest.mark.parametrize("which", ["redux", "real"])
def test_with_prices_the_first_line_is_what_the_buy_list_buys(which, request) -> None:
    r = request.getfixturevalue(which)
    doc, html = r["doc"], r["html"]
    buy, rec = doc["purchase"], doc["recommendation"]
    last = doc["buy_list"][-1]
    # what to buy: the buy list's choice at its largest budget, as good as the best there
    assert buy["models"] == last["choice"]["models"] and buy["cost"] == last["choice"]["cost"]
    assert buy["error"] == last["choice"]["error"] and buy["budget"] == last["budget"]
    assert buy["as_good"]["as_good"] and buy["cost"] <= last["best"]["cost"] + 1e-12
    price = {m["model"]: m["usd_per_query"] for m in doc["models"]}
    assert buy["recommendation_cost"] == pytest.approx(sum(price[m] for m in rec["models"]))
    # the page: its first line is the buy list's answer, the cost-blind one follows as the
    # reference, both before the buy list and the evidence
    assert _lead(html) == buy["headline"]
    assert buy["headline"].startswith(f"Buy {', '.join(buy['models'])}" if len(buy["models"]) > 1
                                      else f"Buy {buy['models'][0]} alone")
    text, _ = _read(html)
    head = text[:text.index("Buy list")]
    assert head.index(buy["headline"]) < head.index("prices aside") < head.index(rec["headline"])
    assert f"held-out error {buy['error']:.3f}" in buy["headline"]
    if which == "redux":
        # MMLU-Redux: cost-blind, an ensemble of several models; the buy list buys a choice as
        # good for less, and the headline says what the cost-blind one costs
        assert len(rec["models"]) > 1 and buy["cost"] < buy["recommendation_cost"]
        assert (f"The cost-blind recommendation, shown below, costs "
                f"{buy['recommendation_cost']:.3g} USD per query.") in buy["headline"]
        assert r["stdout"].splitlines()[0] == buy["headline"]  # the command's line too


def test_without_prices_the_first_line_is_the_recommendation(weak) -> None:
    assert weak["doc"]["purchase"] is None
    assert _lead(weak["html"]) == weak["doc"]["recommendation"]["headline"]


@pytest.mark.parametrize("m", [1, 70])
def test_one_model_and_a_pool_too_large_to_aggregate_whole(tmp_path, m) -> None:
    from ensel.data import to_long
    from ensel.pools import family_pool

    pool = family_pool(m, 300, random_state=m)
    to_long(pool.X, pool.y).to_parquet(tmp_path / "p.parquet", index=False)
    out = tmp_path / "p.html"
    assert main(["report", str(tmp_path / "p.parquet"), "-o", str(out), "--jobs", "1"]) == 0
    html = out.read_text(encoding="utf-8")
    assert unrendered_markup(html) == []
    text, _ = _read(html)
    doc = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert doc["all_models"] is None
    if m == 1:
        assert "One model is enough: use m0." in text and "together" not in text
    else:
        assert "All 70 models together: not evaluated" in text and "at most 62 models" in text


@pytest.mark.notebooks
def test_evaluate_on_the_weak_pool_is_fully_rendered(tmp_path) -> None:
    """The paper's protocol page on the same weak abstaining pool, through ``ensel evaluate``
    (the one rendering path of the reports)."""
    _weak_pool(tmp_path / "weak.parquet")
    out = tmp_path / "eval.html"
    assert main(["evaluate", str(tmp_path / "weak.parquet"), "-o", str(out), "--splits", "2",
                 "--ks", "1-3", "--jobs", "1", "--no-progress"]) == 0
    html = out.read_text(encoding="utf-8")
    assert unrendered_markup(html) == []
    text, alts = _read(html)
    assert "24 models" in text and len(alts) >= 5
    assert all(a.endswith(".") and len(a) > 30 for a in alts)
    assert "<script" not in html and 'href="eval.ipynb"' in html


def test_report_bad_input_exits_2_with_one_line(tmp_path, capsys, weak) -> None:
    from tests.bad_input.conftest import assert_usage_error, run_cli

    data = tmp_path / "weak.parquet"
    _weak_pool(data)
    r = run_cli(["report", str(tmp_path / "missing.parquet"), "-o", str(tmp_path / "r.html")],
                capsys)
    assert_usage_error(r, "report", "missing.parquet")
    r = run_cli(["report", str(data), "--prices", str(tmp_path / "nope.csv"), "-o",
                 str(tmp_path / "r.html")], capsys)
    assert_usage_error(r, "report", "--prices", "nope.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("model,usd_per_query\nm0,-1\n", encoding="utf-8")
    r = run_cli(["report", str(data), "--prices", str(bad), "-o", str(tmp_path / "r.html")],
                capsys)
    assert_usage_error(r, "report", "--prices")
    r = run_cli(["report", str(data), "-o", str(weak["out"])], capsys)
    assert_usage_error(r, "report", "exists", "--force")
    r = run_cli(["report", str(data), "-o", str(tmp_path / "r.pdf")], capsys)
    assert_usage_error(r, "report", ".html")
    assert not list(tmp_path.glob("r.*"))


# --------------------------------------------------------------------------- the check
def test_unrendered_markup_finds_each_class() -> None:
    nbconvert_like = (
        "<p>On this run, {glue:text}<code>n_models</code> models; "
        "{download}<code>CSV &lt;x.csv&gt;</code> and {cite}<code>nadeau2003</code></p>"
        "<p>(tab-experiments-pool)=</p><p>Top-$k$ and $\\pm$ std</p>"
        '<img alt="No description has been provided for this image" src="data:,">'
        '<img src="data:,">')
    found = unrendered_markup(nbconvert_like)
    kinds = [f.split(":")[0] for f in found]
    assert kinds.count("raw role") == 3 and kinds.count("raw target") == 1
    assert kinds.count("unrendered math") == 2
    assert kinds.count("image without a real alt text") == 2
    # not flagged: code, math elements, dollar amounts, a real alt text
    clean = ('<pre>glue("x", 1)  # {glue:text}`x`</pre><code>(label)=</code>'
             '<span class="math notranslate">\\(k\\)</span><p>costs $3 or $4 a month</p>'
             '<img alt="Held-out error against budget for two methods." src="data:,">')
    assert unrendered_markup(clean) == []


def test_myst_and_tex_rendering() -> None:
    glue = {"n": {"text/plain": "1234"}, "e": {"text/plain": "0.12345"},
            "s": {"text/plain": "'a sentence.'"}, "md": {"text/markdown": "**bold** $k$"}}
    html = myst_html("(sec-a)=\n# T\n\n{glue:text}`n:,` rows, {glue:text}`e:.3f`, "
                     "{glue:text}`s` {glue:md}`md` {numref}`sec-a` {cite}`x2003`\n\n"
                     "$t_{n-1}\\, s \\sqrt{1/n + n_\\text{test}/n_\\text{train}}$",
                     glue=glue, targets={"sec-a": "Section 1"}, cite={"x2003": "X & Y, 2003"})
    assert unrendered_markup(html) == []
    text, _ = _read(html)
    assert "1,234 rows, 0.123, a sentence. bold k Section 1 (X & Y, 2003)" in text
    assert '<a id="sec-a"></a>' in html and "√(" in html
    assert tex_html(r"\bar\rho_j") == ('<span class="formula"><i>ρ</i>\u0304<sub><i>j</i></sub>'
                                       "</span>")
    with pytest.raises(ValueError, match=r"\\fooBar"):
        tex_html(r"\fooBar f")
    assert tex_html(r"\fooBar f", strict=False) == '<span class="formula">fooBar <i>f</i></span>'


def test_every_formula_of_the_pages_has_a_plain_rendering() -> None:
    """``ensel evaluate`` writes the formulas of a page as HTML (no script): each ``$...$``
    of the notebooks and book pages must be one :func:`tex_html` can write."""
    from ensel._html import _DOLLAR

    root = Path(__file__).resolve().parents[1]
    pages = sorted((root / "notebooks").glob("*.py")) + sorted((root / "book").glob("*.md"))
    n = 0
    for page in pages:
        for m in _DOLLAR.finditer(page.read_text(encoding="utf-8")):
            n += 1
            try:
                tex_html(m.group(1))
            except ValueError as exc:
                raise AssertionError(f"{page.name}: ${m.group(1)}$: {exc}") from None
    assert n > 500


def test_notebook_html_hides_code_and_describes_figures() -> None:
    import base64

    png = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()
    nb = {"cells": [
        {"cell_type": "markdown", "source": "# Page\n\n{glue:text}`n` models, $k$ = 2",
         "metadata": {}},
        {"cell_type": "code", "source": "glue('n', 5)", "metadata": {"tags": ["remove-cell"]},
         "outputs": [{"output_type": "display_data", "metadata": {"scrapbook": {"name": "n"}},
                      "data": {"application/papermill.record/text/plain": "5"}}]},
        {"cell_type": "code", "source": "fig = plot(); plt.show()",
         "metadata": {"mystnb": {"figure": {"caption": "Error against k for two selectors.",
                                            "name": "fig-x"}}},
         "outputs": [{"output_type": "display_data", "metadata": {},
                      "data": {"image/png": png, "text/plain": "<Figure size 640x480>"}}]},
    ]}
    html = notebook_html(nb, notebook_link="page.ipynb")
    assert unrendered_markup(html) == []
    text, alts = _read(html)
    assert "5 models" in text and "plot()" not in text and "glue(" not in text
    assert alts == ["Error against k for two selectors."]
    assert 'href="page.ipynb"' in html


def test_report_names_the_extra_it_needs(tmp_path, capsys, monkeypatch) -> None:
    import importlib.util

    from tests.bad_input.conftest import assert_usage_error, run_cli

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "matplotlib" else real(name, *a))
    _weak_pool(tmp_path / "weak.parquet")
    r = run_cli(["report", str(tmp_path / "weak.parquet"), "-o", str(tmp_path / "r.html")],
                capsys)
    assert_usage_error(r, "report", "matplotlib not installed")
    assert not list(tmp_path.glob("r.*"))


def test_tools_reports_writes_the_pages_the_browser_check_opens(tmp_path, monkeypatch,
                                                                capsys) -> None:
    from tools.reports import main as reports

    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(tmp_path / "no-mirror"))  # no LLMBar here
    assert reports([str(tmp_path / "site")]) == 0
    site = tmp_path / "site"
    assert sorted(p.name for p in site.glob("*.html")) == ["index.html", "weak.html"]
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="weak.html"' in index and unrendered_markup(index) == []
    assert unrendered_markup((site / "weak.html").read_text(encoding="utf-8")) == []
    assert "no LLMBar mirror" in capsys.readouterr().err


def test_all_models_are_recommended_when_they_and_not_the_selection_beat_one_model() -> None:
    """Where the -k auto ensemble is within noise of the best single model but all the models
    together beat it beyond the noise, the report must not say "one model is enough" (the
    guide's seeded stand-in is such a pool); and it says one model only when neither beats it.
    """
    from ensel.book.guide import example
    from ensel.report import build_report

    answers, _ = example(9, 600, seed=0)
    rep = build_report(answers)
    rec, every = rep.recommendation, rep.all_models
    assert every is not None
    if every["vs_best_single"]["high"] < 0 and not rec["ensemble"] == rec["models"]:
        assert not rec["one_model_enough"] and len(rec["models"]) == rep.n_models
        assert rec["error"] == every["error"]
        assert rec["headline"].startswith(f"Use all {rep.n_models} models together")
    # the prose names the aggregator (the registry's words), the JSON keeps its key
    assert rec["aggregator"] == "backoff" and "aggregated by the MAP table backing off to " \
        "logistic stacking:" in rec["headline"] and "by backoff" not in rec["headline"]
    assert every["vs_best_single"]["high"] < 0  # the case this test is for
    assert not rec["one_model_enough"]


def test_a_priced_report_names_why_it_read_the_binary_view(real) -> None:
    """--prices reads the paper's binary view: the view line says so, not --binary (which
    was not given)."""
    head = real["html"][:real["html"].index('<div class="answer">')]
    assert "used because of --prices: the buy list reads the paper&#x27;s binary view" in head
    assert "--binary" not in head and real["doc"]["view_reason"].startswith("--prices")
