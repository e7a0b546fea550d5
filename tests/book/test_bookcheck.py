"""The offline check finds every kind of external resource a page can load."""

from __future__ import annotations

import json
import shutil
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


# ------------------------------------------------ the verdicts' cache (make html's run)
def _cached_run(site: Path, cache: Path, *args: str) -> tuple[int, int]:
    """The exit code of the check with ``cache``, and how many files it checked now."""
    from tools.bookcheck import CHECKS, check_files

    checks = ("external",) if "--no-markup" in args else CHECKS
    checked = check_files(site, checks, cache)[1]
    return main([str(site), "--cache", str(cache), *args]), checked


def _two_pages(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "html").mkdir()
    site = _site(tmp_path / "html", '<p>Top-<span class="math notranslate">\\(k\\)</span></p>')
    (site / "page.html").write_text("<html><body><p>Two claims hold.</p></body></html>")
    return site, tmp_path / "bookcheck.json"


def test_the_cache_rechecks_only_a_page_whose_html_changed(tmp_path: Path, capsys) -> None:
    site, cache = _two_pages(tmp_path)
    assert _cached_run(site, cache)[1] == 3  # index.html, page.html, _static/a.css
    assert main([str(site), "--cache", str(cache)]) == 0
    assert "(0 file(s) checked now, 3 from the cache)" in capsys.readouterr().out
    # a failure planted in a page that passed and is in the cache is found all the same
    (site / "page.html").write_text("<html><body><p>Top-$k$ selection</p></body></html>")
    assert _cached_run(site, cache) == (1, 1)
    assert "page.html: unrendered math" in capsys.readouterr().err
    # a failing verdict is kept too: reported again from the cache, not turned into a pass
    assert _cached_run(site, cache) == (1, 0)
    (site / "page.html").write_text('<html><body><img src="https://example.org/a.png" '
                                    'alt="A plot."></body></html>')
    assert main([str(site), "--cache", str(cache)]) == 1
    assert "page.html: <img src=https://example.org/a.png>" in capsys.readouterr().err


def test_the_cache_rechecks_a_page_whose_notebook_changed(tmp_path: Path, capsys) -> None:
    from tests.book.test_rendered_prose import _glued_notebook

    site, cache = _two_pages(tmp_path)
    (site / "_sources").mkdir()
    notebook = site / "_sources" / "page.ipynb"
    notebook.write_text(json.dumps(_glued_notebook({"x": 0.25, "y": 0.75},
                                                   "{glue:text}`x:.4f` {glue:text}`y:.4f`")))
    assert _cached_run(site, cache) == (0, 3)
    # the page's HTML is the same; its glued values are now one quantity rounded two ways
    notebook.write_text(json.dumps(_glued_notebook(
        {"x": 0.28174999999999995, "y": 0.28175000000000006},
        "{glue:text}`x:.4f` {glue:text}`y:.4f`")))
    assert _cached_run(site, cache) == (1, 1)
    assert "page.html: one quantity rounded two ways" in capsys.readouterr().err


def test_a_verdict_of_fewer_checks_is_completed_not_taken_for_a_pass(tmp_path: Path) -> None:
    site, cache = _two_pages(tmp_path)
    (site / "page.html").write_text("<html><body><p>1 are contradicted</p></body></html>")
    assert _cached_run(site, cache, "--no-markup") == (0, 3)
    assert _cached_run(site, cache) == (1, 3)  # the prose and markup checks had not run
    cache.write_text("{not json")  # a damaged cache is checked again, never trusted
    assert _cached_run(site, cache) == (1, 3)


def test_the_cache_rechecks_every_page_when_a_checker_source_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tools.bookcheck as bookcheck

    repo = Path(bookcheck.__file__).resolve().parents[1]
    copy = tmp_path / "repo"
    for rel in ("tools/bookcheck.py", "tools/prose.py", "ensel/_html.py"):
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(repo / rel, copy / rel)
    monkeypatch.setattr(bookcheck, "ROOT", copy)
    site, cache = _two_pages(tmp_path)
    before = bookcheck.checker_digest()
    assert _cached_run(site, cache) == (0, 3)
    assert _cached_run(site, cache) == (0, 0)
    # ensel/_html.py is no checker itself: it is found through the checkers' imports
    html = copy / "ensel" / "_html.py"
    html.write_text(html.read_text() + "\n# a change\n")
    assert bookcheck.checker_digest() != before
    assert _cached_run(site, cache) == (0, 3)
    for rel in ("tools/prose.py", "tools/bookcheck.py"):
        (copy / rel).write_text((copy / rel).read_text() + "\n# a change\n")
        assert _cached_run(site, cache) == (0, 3)
        assert _cached_run(site, cache) == (0, 0)
