"""The offline check finds every kind of external resource a page can load."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.bookcheck import external_resources, main, unrendered_pages


def _site(tmp_path: Path, body: str, css: str = "") -> Path:
    (tmp_path / "index.html").write_text(f"<html><head></head><body>{body}</body></html>")
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "a.css").write_text(css)
    return tmp_path


def test_clean_site_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = _site(tmp_path, '<script src="_static/x.js"></script><a href="https://example.org">'
                 'link</a><img src="_images/a.png" alt="Error against k for two selectors.">'
                 '<link rel="stylesheet" href="a.css">',
                 css="body { background: url(img/x.png) }")
    assert external_resources(site) == {}
    assert main([str(site)]) == 0
    assert "no external resources" in capsys.readouterr().out


@pytest.mark.parametrize(
    "body",
    [
        '<script src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js"></script>',
        '<script src="//cdnjs.cloudflare.com/require.js"></script>',
        '<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">',
        '<link rel="preload" href="https://example.org/font.woff2">',
        '<img src="http://example.org/logo.png">',
        '<iframe src="https://mybinder.org/"></iframe>',
        '<div style="background: url(https://example.org/bg.png)"></div>',
        '<style>@import "https://example.org/x.css";</style>',
    ],
)
def test_external_resources_are_reported(tmp_path: Path, body: str) -> None:
    site = _site(tmp_path, body)
    problems = external_resources(site)
    assert list(problems) == ["index.html"]
    assert main([str(site)]) == 1


def test_external_url_in_css_is_reported(tmp_path: Path) -> None:
    site = _site(tmp_path, "", css="@font-face { src: url('https://fonts.gstatic.com/x.woff2') }")
    assert list(external_resources(site)) == ["_static/a.css"]


def test_missing_build(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="build the book first"):
        external_resources(tmp_path)


@pytest.mark.parametrize("body, found", [
    ("<p>{glue:text}<code>n</code> models</p>", "raw role"),
    ('<p>see {download}<code>CSV &lt;a.csv&gt;</code></p>', "raw role"),
    ("<p>(tab-experiments-pool)=</p>", "raw target"),
    ("<p>Top-$k$ selection</p>", "unrendered math"),
    ('<img src="_images/a.png" alt="_images/a.png">', "image without a real alt text"),
    ('<img src="_images/a.png">', "image without a real alt text"),
])
def test_unrendered_markup_on_a_page_fails_the_check(tmp_path: Path, capsys, body: str,
                                                     found: str) -> None:
    site = _site(tmp_path, body + '<span class="math notranslate">\\(k\\)</span>'
                 '<pre>glue("n", 3)  # {glue:text}`n`</pre>')
    assert [p.split(":")[0] for p in unrendered_pages(site)["index.html"]] == [found]
    assert main([str(site)]) == 1
    assert found in capsys.readouterr().err
    assert main([str(site), "--no-markup"]) == 0
