"""The rendered-page prose checks (tests/rendered_prose.py) catch what they are meant to catch.

The checks themselves run on every page of the built book (test_built_book.py)."""

from __future__ import annotations

from rendered_prose import quoted_glue, shown_defaults


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
