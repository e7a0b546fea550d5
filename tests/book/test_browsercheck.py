"""The browser check finds each kind of problem on a tiny site and passes a clean page.

The site is written into tmp_path: one clean page (a link, an image, a narrow table, short code,
math rendered by the MathJax copy that sphinx-mathjax-offline ships, when it is installed) and
one page per deliberate problem. Chromium runs once for the whole module; the tests skip only
when the system Chromium is not installed.
"""

from __future__ import annotations

import base64
import importlib.metadata
import shutil
import urllib.request
from pathlib import Path

import pytest

from tools.browsercheck import Problem, check_site, find_chromium, main, pages, serve

pytestmark = pytest.mark.xdist_group("browser")

# A 1x1 PNG.
_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
_LONG = "x = " + " + ".join(f"value_{i}" for i in range(60))


def _mathjax_script() -> str | None:
    """Copy MathJax (SVG output, one self-contained file) from sphinx-mathjax-offline."""
    try:
        dist = importlib.metadata.distribution("sphinx-mathjax-offline")
    except importlib.metadata.PackageNotFoundError:
        return None
    path = Path(str(dist.locate_file("sphinx-mathjax-offline/static/mathjax/tex-svg.js")))
    return str(path) if path.is_file() else None


def _page(body: str, head: str = "") -> str:
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>t</title>{head}</head>"
            f"<body style='margin:0'><main style='max-width:800px'>{body}</main></body></html>")


def _site(root: Path) -> tuple[Path, bool]:
    root.mkdir()
    (root / "_images").mkdir()
    (root / "_images" / "dot.png").write_bytes(_PNG)
    (root / "_static").mkdir()
    (root / "_static" / "junk.html").write_text("<html>an asset, not a page</html>")
    mathjax = _mathjax_script()
    head = ""
    math = ""
    if mathjax:
        shutil.copy(mathjax, root / "_static" / "tex-svg.js")
        head = "<script defer src='_static/tex-svg.js'></script>"
        math = ("<p>Inline <span class='math notranslate nohighlight'>\\(x^2\\)</span>.</p>"
                "<div class='math notranslate nohighlight'>\\[\\sum_i w_i X_i\\]</div>")
    (root / "clean.html").write_text(_page(
        "<h1 id='top'>Clean</h1><p>See <a href='index.html'>home</a>, "
        "<a href='clean.html#top'>top</a>, <a href='#top'>here</a>, "
        "<a href='https://example.org/not-fetched'>an external site</a>. Costs $5 or $6.</p>"
        "<img src='_images/dot.png' alt='dot'>"
        "<table><tr><td>a</td><td>b</td></tr></table>"
        "<div class='highlight' style='overflow-x:auto'><pre>print('short')</pre></div>"
        "<pre>a = r'\\(kept in code\\)' + '$$'</pre>" + math, head))
    (root / "index.html").write_text(_page("<p><a href='clean.html'>clean</a></p>"))
    refresh = '<meta http-equiv="Refresh" content="0; url={}" />'
    (root / "redirect.html").write_text(refresh.format("clean.html"))
    (root / "redirect-gone.html").write_text(refresh.format("gone.html"))
    (root / "console.html").write_text(_page(
        "<p>text</p><script>console.error('deliberate console error');</script>"))
    (root / "link.html").write_text(_page(
        "<p><a href='missing.html'>gone</a> <a href='clean.html#nowhere'>no anchor</a></p>"))
    (root / "image.html").write_text(_page("<img src='_images/missing.png' alt='missing'>"))
    (root / "math.html").write_text(_page(
        "<p>Unrendered <span class='math notranslate nohighlight'>\\(a+b\\)</span> and "
        "$$\\int f$$ here.</p>"))
    (root / "overflow.html").write_text(_page(
        f"<div class='highlight' style='overflow-x:auto'><pre>{_LONG}</pre></div>"
        "<table style='width:2400px'><tr><td>a very wide table</td></tr></table>"))
    return root, mathjax is not None


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory):
    if find_chromium() is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium; "
                    "make check-browser installs it)")
    base = tmp_path_factory.mktemp("browsercheck")
    site, has_mathjax = _site(base / "html")
    shots = base / "screenshots"
    checked_pages, problems = check_site(site, screenshots=shots)
    return site, shots, checked_pages, problems, has_mathjax


def _on(problems: list[Problem], page: str, kind: str | None = None) -> list[Problem]:
    return [p for p in problems if p.page == page and (kind is None or p.kind == kind)]


def test_pages_skips_asset_folders(tmp_path: Path) -> None:
    site, _ = _site(tmp_path / "html")
    assert pages(site) == ["clean.html", "console.html", "image.html", "index.html",
                           "link.html", "math.html", "overflow.html", "redirect-gone.html",
                           "redirect.html"]


def test_server_listens_on_loopback_only(tmp_path: Path) -> None:
    site, _ = _site(tmp_path / "html")
    with serve(site) as base:
        assert base.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(base + "clean.html", timeout=30) as response:
            assert b"Clean" in response.read()


def test_clean_page_passes(checked) -> None:
    _, _, _, problems, has_mathjax = checked
    assert _on(problems, "clean.html") == []
    assert _on(problems, "index.html") == []
    assert _on(problems, "redirect.html") == []  # a redirect page whose target exists
    if not has_mathjax:
        pytest.skip("sphinx-mathjax-offline is not installed: the clean page has no math")


def test_console_error_is_found(checked) -> None:
    found = _on(checked[3], "console.html", "console")
    assert len(found) == 1 and "deliberate console error" in found[0].detail


def test_broken_links_are_found(checked) -> None:
    details = [p.detail for p in _on(checked[3], "link.html", "broken-link")]
    assert any("missing.html does not exist" in d for d in details), details
    assert any("clean.html#nowhere" in d for d in details), details


def test_broken_redirect_is_found(checked) -> None:
    found = _on(checked[3], "redirect-gone.html")
    assert [p.kind for p in found] == ["broken-link"]
    assert "redirect: gone.html does not exist" in found[0].detail


def test_broken_image_is_found(checked) -> None:
    found = _on(checked[3], "image.html", "broken-image")
    assert len(found) == 1 and "_images/missing.png" in found[0].detail
    assert _on(checked[3], "image.html", "console") == []  # reported once, as an image


def test_unrendered_math_is_found(checked) -> None:
    details = [p.detail for p in _on(checked[3], "math.html", "math")]
    assert any("no rendered math" in d for d in details), details
    assert any("$$\\int f$$" in d for d in details), details


def test_overflow_is_found(checked) -> None:
    details = [p.detail for p in _on(checked[3], "overflow.html", "overflow")]
    assert any(d.startswith("document; content ") for d in details), details
    assert any(d.startswith("div.highlight") and "value_0" in d for d in details), details


def test_every_problem_page_and_only_those(checked) -> None:
    _, _, checked_pages, problems, _ = checked
    assert {p.page for p in problems} == {"console.html", "link.html", "image.html",
                                           "math.html", "overflow.html", "redirect-gone.html"}
    assert "_static/junk.html" not in checked_pages


def test_screenshot_of_each_page(checked) -> None:
    _, shots, checked_pages, _, _ = checked
    for page in checked_pages:
        png = shots / page.replace(".html", ".png")
        assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", page


def test_main_exit_codes_and_summary(checked, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    site = checked[0]
    assert main([str(site), "--no-screenshots", "--page", "clean.html"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out == ["browser check: 1 page, no problems"]
    assert main([str(site), "--screenshots", str(tmp_path / "s"), "--page", "image.html"]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith("image.html: broken-image: ")
    assert out[-1].startswith("browser check: 1 page, 1 problem on 1 page (1 broken-image)")
    assert (tmp_path / "s" / "image.png").is_file()


def test_missing_build_is_a_clear_error(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path), "--no-screenshots"]) == 2
    assert "no index.html" in capsys.readouterr().err


# --------------------------------------------------------------------------- the explorer's
# colours in light and dark mode, and screenshots for a closing note

ROOT = Path(__file__).resolve().parents[2]
# The theme's mode switch, as pydata-sphinx-theme does it: the stored choice becomes
# html[data-theme], whose variables colour the page (its values for the two modes).
_THEME = """<script>document.documentElement.dataset.theme =
  localStorage.getItem('mode') || 'light';</script><style>
html[data-theme=light] {--pst-color-text-base:#222832; --pst-color-text-muted:#48566b;
  --pst-color-primary:#0a7d91; --pst-color-danger:#d72d47; background:#fff; color:#222832}
html[data-theme=dark] {--pst-color-text-base:#ced6dd; --pst-color-text-muted:#9ca4af;
  --pst-color-primary:#3fb1c5; --pst-color-danger:#e78894; --pst-color-background:#14181e;
  --pst-color-on-background:#222832; background:#14181e; color:#ced6dd}
html[data-theme=light] {--pst-color-background:#fff}
/* as pydata-sphinx-theme does: in dark mode an HTML output sits on a light box */
html[data-theme=dark] .bd-content div.cell_output .text_html:not(:has(table.dataframe)) {
  color: var(--pst-color-on-background); background-color: var(--pst-color-text-base)}
</style><link rel='stylesheet' href='_static/ensel.css'>
<script defer src='_static/explorer.js'></script>"""


def _themed(body: str, style: str = "") -> str:
    return _page(body, _THEME + (f"<style>{style}</style>" if style else ""))


@pytest.fixture(scope="module")
def explorer_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if find_chromium() is None:
        pytest.skip("chromium is not installed")
    from ensel.book.explorer import explorer_grid, explorer_html

    root = tmp_path_factory.mktemp("explorer") / "html"
    (root / "_static").mkdir(parents=True)
    for name in ("explorer.js", "ensel.css"):
        shutil.copy(ROOT / "book" / "_static" / name, root / "_static" / name)
    explorer = ("<div class='bd-content'><div class='cell_output'><div class='output "
                "text_html'>" + explorer_html(explorer_grid([0.6, 0.7], [0.2, 0.4], [1, 3, 5]),
                                              alpha=0.7, rho=0.2, m=3) + "</div></div></div>")
    (root / "index.html").write_text(_themed("<p>home</p>"))
    (root / "explorer.html").write_text(_themed(explorer))
    # a curve coloured for the light mode only: it vanishes on the dark background
    (root / "explorer-light-only.html").write_text(_themed(
        explorer, ".ensel-explorer-plot .map { stroke: #222832 }"))
    (root / "box.html").write_text(_themed(
        "<h1>Box</h1><div style='height:1200px'>filler</div>"
        "<figure id='fig-x'><p>a figure</p></figure>"
        "<details class='ensel-provenance'><summary>Reproduce this figure</summary>"
        "<div style='height:300px;background:#ff00ff'>the box</div></details>"))
    return root


def test_the_explorer_is_readable_in_both_modes(explorer_site: Path) -> None:
    _, problems = check_site(explorer_site, only=["explorer.html"], modes=("light", "dark"))
    assert problems == []


def test_a_colour_written_for_the_light_mode_only_fails_in_dark(explorer_site: Path) -> None:
    _, problems = check_site(explorer_site, only=["explorer-light-only.html"],
                             modes=("light", "dark"))
    assert [(p.page, p.kind) for p in problems] == [("dark:explorer-light-only.html",
                                                     "contrast")]
    assert "MAP curve" in problems[0].detail and "rgb(34, 40, 50)" in problems[0].detail


def test_contrast_ratio_matches_wcag() -> None:
    from tools.browsercheck import contrast_ratio

    assert contrast_ratio((255, 255, 255), (0, 0, 0)) == pytest.approx(21.0)
    # pydata-sphinx-theme's dark-mode primary on its dark background, and the light-mode
    # text colour on it
    assert contrast_ratio((0x3f, 0xb1, 0xc5), (0x14, 0x18, 0x1e)) > 3
    assert contrast_ratio((0x22, 0x28, 0x32), (0x14, 0x18, 0x1e)) < 1.5


def test_screenshots_of_given_pages_in_light_and_dark(explorer_site: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    import matplotlib.image as mpimg

    from tools.browsercheck import shot_name, take_screenshots

    out = tmp_path / "shots"
    written = take_screenshots(explorer_site, out, ["explorer.html", "box.html",
                                                    "box.html#fig-x"])
    assert [p.relative_to(out).as_posix() for p in written] == [
        f"{m}/{n}" for m in ("light", "dark")
        for n in ("explorer.png", "box.png", "box--fig-x.png")]
    assert shot_name("box.html#fig-x") == "box--fig-x.png"
    for mode, corner in (("light", 1.0), ("dark", 0x14 / 255)):
        img = mpimg.imread(out / mode / "box--fig-x.png")
        assert img.shape[:2] == (900, 1280), "the window, 1280 px wide"
        assert img[5, 5, 0] == pytest.approx(corner, abs=0.02), f"{mode} background"
        magenta = (img[..., 0] > 0.9) & (img[..., 1] < 0.1) & (img[..., 2] > 0.9)
        assert magenta.sum() > 1000, "the box after #fig-x is opened and in view"
        closed = mpimg.imread(out / mode / "box.png")
        assert not ((closed[..., 0] > 0.9) & (closed[..., 1] < 0.1)).any()
    # errors: a page not in the build, an id not on its page; exit code 2 on the command line
    with pytest.raises(FileNotFoundError, match="nowhere.html is not a page"):
        take_screenshots(explorer_site, out, ["nowhere.html"])
    assert main([str(explorer_site), "--shots", str(out), "--shot", "box.html#fig-none"]) == 2
    assert "box.html has no element with id 'fig-none'" in capsys.readouterr().err
    assert main([str(explorer_site), "--shots", str(out), "--shot", "index.html",
                 "--mode", "dark"]) == 0
    assert sorted(p.name for p in out.rglob("*.png")) == ["index.png"]
    assert capsys.readouterr().out.strip().endswith(f"screenshots: 1 file in {out}")
