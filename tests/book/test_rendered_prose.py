"""The rendered-page prose checks (tools/prose.py) catch what they are meant to catch: each
test plants one example of a class in a small page and shows the check finds it, and that the
correct text next to it passes.

The checks themselves run on every page of the built book (``tools.bookcheck``, run by
``make html``, and test_built_book.py)."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat

from tools.bookcheck import main
from tools.prose import (
    number_agreement,
    parameter_names,
    prose_pages,
    quoted_glue,
    raw_labels,
    rounded_two_ways,
    shown_defaults,
)


def _cell(tags: list[str], code: str) -> str:
    classes = " ".join(["cell", *(f"tag_{t}" for t in tags), "docutils", "container"])
    return (f'<div class="{classes}"><div class="cell_input docutils container">'
            f'<div class="highlight-ipython3 notranslate"><div class="highlight"><pre>'
            f'<span class="n">{code}</span></pre></div></div></div></div>')


def test_quote_wrapped_glued_numbers_are_found():
    html = ('<p>In total <span class="output text_plain">\'2,102,352\'</span> requests, '
            'about $<span class="output text_plain">\'306\'</span>, over '
            '<span class="pasted-text">12</span> models; '
            '<span class="pasted-text">"0.5"</span>.</p>')
    assert quoted_glue(html) == ["'2,102,352'", "'306'", '"0.5"']
    assert quoted_glue('<p><span class="pasted-text">2,102,352</span> requests</p>') == []


def test_defaults_shown_on_a_page_that_ran_with_other_values_are_found():
    defaults = _cell(["parameters"], "rho = 0.3\nn_items = 100")
    injected = _cell(["injected-parameters"], "# Parameters\nrho = 0.6\n")
    assert shown_defaults(defaults + injected) == [
        "rho = 0.3 shown; the page ran with rho = 0.6"]
    folded = _cell(["parameters", "hide-cell"], "rho = 0.3\nn_items = 100")
    assert shown_defaults(folded + injected) == []
    same = _cell(["injected-parameters"], "# Parameters\nrho = 0.3\n")
    assert shown_defaults(defaults + same) == []
    assert shown_defaults(defaults) == []


# --------------------------------------------------- (a) a name where its value belongs
def test_a_parameter_name_printed_where_its_value_belongs_is_found():
    params = _cell(["parameters"], "seed = 0\nasym_low = 0.05")
    planted = params + "<p>uniform on [<code>asym_low</code>, 0.45] (seed <code>seed</code>)</p>"
    found = parameter_names(planted)
    assert [f.split(":")[0] for f in found] == [
        "parameter name 'asym_low' where its value belongs",
        "parameter name 'seed' where its value belongs"]
    # the value glued in its place, or a code name that is not a parameter, passes
    assert parameter_names(params + '<p>(seed <span class="pasted-text">0</span>), see '
                           "<code>ensel.select.top_k</code></p>") == []
    # the parameters cell itself shows the names: that is code, not prose
    assert parameter_names(params) == []


def test_a_name_bound_to_a_literal_in_any_code_cell_counts_as_a_value_name():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("asym_low, asym_high = 0.05, 0.45\ntable = f(x)")]
    page = "<p>on [<code>asym_low</code>, <code>asym_high</code>]; see <code>table</code></p>"
    assert len(parameter_names(page, nb)) == 2
    assert parameter_names(page) == []  # without the notebook only the parameters cell counts


def test_a_snake_case_identifier_in_running_text_is_found():
    caption = "<figcaption><p>Greedy at the budget k_budget, one point per instance" \
              "</p></figcaption>"
    assert [f.split(":")[0] for f in parameter_names(caption)] == [
        "identifier 'k_budget' in running text"]
    # in code, in a file name, in a cell's output table or in the API reference it is code
    assert parameter_names("<p>the <code>k_budget</code> option; data/model_pools.csv</p>"
                           '<div class="cell_output"><table><tr><th>map_error</th></tr>'
                           '</table></div><dl class="py function"><dd><p>shape (n_items, m)'
                           "</p></dd></dl>") == []


# ---------------------------------------------------------------------- (b) raw labels
def test_a_raw_latex_label_as_text_is_found():
    page = ("<p>the LaTeX table <code>tab:models_imdb</code> and fig:diverse_vs_topk</p>"
            "<table><tr><td>12 (tab:medmcqa_models)</td></tr></table>")
    assert [f.split(":")[0] for f in raw_labels(page)] == [
        "raw LaTeX label 'tab", "raw LaTeX label 'fig", "raw LaTeX label 'tab"]
    # the paper's number instead, a colour name, or a call that documents the labels pass
    assert raw_labels('<p>paper Table 15, colour "tab:blue" in <code>plot(color='
                      '"tab:blue")</code>, <code>paper_ref("thm:saturation")</code></p>') == []


def test_a_cross_reference_id_as_link_text_is_found():
    page = ('<td><a class="reference internal" href="x.html#fig-thm41-regret">'
            '<span class="std std-ref">fig-thm41-regret</span></a></td>')
    assert raw_labels(page) == ["link text is an id: 'fig-thm41-regret' -> "
                                "x.html#fig-thm41-regret"]
    assert raw_labels('<a href="x.html#fig-thm41-regret"><span>Fig. 12</span></a>') == []


# ---------------------------------------------------------- (c) rounded two ways
def _glued_notebook(values: dict[str, object], markdown: str) -> dict:
    nb = nbformat.v4.new_notebook()
    for key, value in values.items():
        nb.cells.append(nbformat.v4.new_code_cell(f"glue({key!r}, {value!r})", outputs=[
            nbformat.v4.new_output("display_data", data={
                "application/papermill.record/text/plain": repr(value)},
                metadata={"scrapbook": {"name": key, "mime_prefix":
                                        "application/papermill.record/"}})]))
    nb.cells.append(nbformat.v4.new_markdown_cell(markdown))
    return json.loads(nbformat.writes(nb))


def test_one_quantity_rounded_two_ways_on_a_page_is_found():
    # P_e(3) and P_e(4) are both 0.28175: floating-point noise puts them either side of the
    # rounding boundary, and the page prints 0.2817 beside 0.2818
    nb = _glued_notebook({"pe3": 0.28174999999999995, "pe4": 0.28175000000000006,
                          "acc": 0.81850001, "acc2": 0.81849999},
                         "Pₑ(3) = {glue:text}`pe3:.4f`, Pₑ(4) = {glue:text}`pe4:.4f`; "
                         "{glue:text}`acc:.1%` and {glue:text}`acc2:.1%`")
    found = rounded_two_ways(nb)
    assert found == [
        "one quantity rounded two ways: acc2:.1% shows 81.8%, acc:.1% shows 81.9% "
        "(values 81.849999 and 81.850001)",
        "one quantity rounded two ways: pe3:.4f shows 0.2817, pe4:.4f shows 0.2818 "
        "(values 0.28175 and 0.28175)"]


def test_different_quantities_and_precisions_are_not_rounded_two_ways():
    nb = _glued_notebook({"a": 0.28172, "b": 0.28178, "c": 0.28175, "n": 3, "z": 0.0,
                          "dz": 9.96e-06},
                         "{glue:text}`a:.4f`, {glue:text}`b:.4f` (really different), "
                         "{glue:text}`c:.2f` and {glue:text}`c:.4f` (one value, two "
                         "precisions), {glue:text}`n` models, {glue:text}`z:.3f` beside a "
                         "signed {glue:text}`dz:+.3f`")
    assert rounded_two_ways(nb) == []


# ------------------------------------------------------------- (d) number agreement
def test_a_count_of_one_with_a_plural_is_found():
    page = ("<p>6 are within noise and 1 are contradicted; 1 models of 3; "
            "1 claims hold</p>")
    found = number_agreement(page)
    assert len(found) == 3
    assert all(f.startswith("number agreement: ") for f in found)
    assert [w in f for f, w in zip(found, ("1 are", "1 models", "1 claims"), strict=True)] == [
        True] * 3
    # singular agreement, numbers that name things, and other counts pass
    assert number_agreement("<p>1 is contradicted, 1 holds, 1 model, 2 claims; (Term 1 ranks "
                            "the models, model 1 errs, Algorithm 1 uses MI; at k = 1 models "
                            "agree; ε ≤ 1/2 grows; 0.1 seconds; at "
                            '<span class="math">\\(K =\\)</span> 1 simultaneous errors</p>'
                            ) == []
    # table cells are separate lines: "< 1" in one cell and "sources" in the next pass
    assert number_agreement("<table><tr><td>q &lt; 1</td><td>sources</td></tr></table>") == []


# ------------------------------------------------------- the build fails on any of them
def test_the_book_check_fails_on_a_planted_page_and_names_it(tmp_path: Path, capsys) -> None:
    (tmp_path / "_static").mkdir()
    (tmp_path / "index.html").write_text("<html><body><p>1 claim holds.</p></body></html>")
    (tmp_path / "page.html").write_text("<html><body><p>1 are contradicted</p></body></html>")
    sources = tmp_path / "_sources"
    sources.mkdir()
    (sources / "page.ipynb").write_text(json.dumps(_glued_notebook(
        {"x": 0.28174999999999995, "y": 0.28175000000000006},
        "{glue:text}`x:.4f` {glue:text}`y:.4f`")))
    problems = prose_pages(tmp_path)
    assert list(problems) == ["page.html"] and len(problems["page.html"]) == 2
    assert main([str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "page.html: number agreement" in err and "rounded two ways" in err
    assert main([str(tmp_path), "--no-markup"]) == 0
