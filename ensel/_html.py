"""The one path from results to a self-contained offline HTML page, and its check.

Both HTML reports of the command line are written here: ``ensel report`` (built from the
evidence objects by :mod:`ensel.report`) and ``ensel evaluate`` (an executed notebook of the
book, :func:`notebook_html`). They share the page (:func:`page`: one file, its style inline,
nothing loaded from the network), the figures (:func:`figure_html`: PNG inlined as base64,
an ``alt`` text that says what the figure shows), the tables (:func:`table_html`) and the
formulas (:func:`tex_html`: the TeX of a ``$...$`` written as Unicode and HTML, so no script
is needed to read it). MyST markup of a notebook (``{glue:text}`` and other roles, ``(label)=``
targets, ``$...$`` math) is resolved by :func:`myst_html`.

:func:`unrendered_markup` lists what a reader must never see in any HTML page the project
writes: a raw ``{role}`` (``{glue...}``, ``{download}``, ``{cite}``, ...), a ``(label)=``
target, a ``$...$`` formula outside a math element, and an image without a real ``alt``
text. The tests run it on every report; ``tools/bookcheck.py`` on every page of the book.
"""

from __future__ import annotations

import base64
import html as _html
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from html.parser import HTMLParser
from typing import Any

__all__ = ["CSS", "DEFAULT_ALT_TEXTS", "caption_text", "cropped_png", "esc", "figure_html",
           "img_html", "myst_html", "notebook_html", "page", "png_bytes", "png_html",
           "table_html", "tex_html", "unrendered_markup"]

#: ``alt`` texts that say nothing about the figure (nbconvert's and matplotlib's defaults).
DEFAULT_ALT_TEXTS = ("no description has been provided for this image", "image", "figure",
                     "png", "output", "<figure size")

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:62rem;
margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1b1b1b;background:#fff}
h1{font-size:1.7rem;margin-bottom:.3rem}h2{margin-top:2.2rem;border-bottom:1px solid #ddd}
.lead{font-size:1.15rem}.answer{border:2px solid #2a6f97;border-radius:6px;padding:.8rem 1.1rem;
background:#f2f8fb}.answer p{margin:.4rem 0}.muted{color:#555;font-size:.92rem}
table{border-collapse:collapse;margin:.8rem 0;font-size:.92rem}caption{caption-side:top;
text-align:left;font-weight:600;padding:.3rem 0}th,td{border-bottom:1px solid #ddd;
padding:.25rem .6rem;text-align:left;vertical-align:top}td.num,th.num{text-align:right;
font-variant-numeric:tabular-nums}tr.pick td{background:#eef6ee}
figure{margin:1.2rem 0}figure img{max-width:100%;height:auto}figcaption{font-size:.92rem;
color:#333}.formula{font-family:"Cambria Math","STIX Two Math","Latin Modern Math",serif;
white-space:nowrap}.formula i{font-style:italic}code,pre{font-family:ui-monospace,Menlo,Consolas,
monospace;font-size:.9em}pre{background:#f6f6f6;padding:.6rem;overflow-x:auto}
@media (prefers-color-scheme:dark){body{background:#161616;color:#e6e6e6}
.answer{background:#10232e;border-color:#5aa9d6}th,td{border-color:#444}tr.pick td{
background:#1d2e1d}pre{background:#222}.muted,figcaption{color:#bbb}figure img{
background:#fff}}
"""


def esc(value: Any, *, quote: bool = True) -> str:
    """``value`` as HTML text (``&``, ``<``, ``>`` and, with ``quote``, quotes escaped)."""
    return _html.escape(str(value), quote=quote)


def page(title: str, body: str, *, lang: str = "en") -> str:
    """One complete HTML document: ``title``, the shared style inline, ``body`` as given."""
    return (f'<!doctype html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{esc(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n{body}\n"
            "</body>\n</html>\n")


def _check_alt(alt: str) -> str:
    text = " ".join(str(alt).split())
    if len(text) < 12 or text.lower().startswith(DEFAULT_ALT_TEXTS):
        raise ValueError(f"alt of figure_html must be a sentence saying what the figure "
                         f"shows; got {alt!r}")
    return text


def png_bytes(fig: Any, dpi: int = 110) -> bytes:
    """A matplotlib figure as PNG bytes, trimmed to its drawing (``bbox_inches="tight"``,
    from one drawing when :func:`cropped_png` can)."""
    png = cropped_png(fig, 0.1, dpi=dpi)
    if png is not None:
        return png
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


def cropped_png(fig: Any, pad_inches: float, *, dpi: float | None = None) -> bytes | None:
    """PNG of a matplotlib figure as ``savefig(..., bbox_inches="tight")`` makes it, from one
    drawing on an Agg canvas: the tight box of the drawing, padded by ``pad_inches`` (the
    padding in the figure's face colour), cut out of the canvas, at ``dpi`` (default: the
    figure's). matplotlib draws it three times (a layout pass, the tight box, the picture on
    a canvas of the new size); the picture is the same, within a pixel, for a third less
    CPU. None when it cannot be made so (a canvas of another backend, a layout engine, a face
    colour that is not opaque, or a drawing that reaches beyond the canvas): the caller then
    takes matplotlib's path."""
    import numpy as np
    from matplotlib import colors, image
    from matplotlib.backend_bases import FigureCanvasBase
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    face = colors.to_rgba(fig.get_facecolor())
    engine = fig.get_layout_engine()  # after tight_layout(): a place holder, no layout
    if (not (engine is None or isinstance(engine, PlaceHolderLayoutEngine)) or face[3] != 1.0
            or fig.canvas.device_pixel_ratio != 1):
        return None
    canvas, dpi_was = fig.canvas, fig.dpi
    if type(canvas) in (FigureCanvasBase,):  # a Figure() made without pyplot: Agg, as savefig
        FigureCanvasAgg(fig)
    elif not isinstance(canvas, FigureCanvasAgg):
        return None
    try:
        if dpi is not None:
            fig.dpi = dpi
        fig.canvas.draw()
        box = fig.get_tightbbox(fig.canvas.get_renderer())
        width, height = fig.get_size_inches()
        if box.x0 < 0 or box.y0 < 0 or box.x1 > width or box.y1 > height:
            return None
        box = box.padded(pad_inches)
        res = fig.dpi
        drawn = np.asarray(fig.canvas.buffer_rgba())
    finally:
        fig.dpi = dpi_was
        if fig.canvas is not canvas:
            fig.set_canvas(canvas)
    h, w = drawn.shape[:2]
    # matplotlib's picture: int(size) pixels, its bottom-left corner at the box's (to half a
    # pixel: the canvas was drawn on whole pixels)
    x0, y1 = round(box.x0 * res), h - round(box.y0 * res)
    x1, y0 = x0 + int(box.width * res), y1 - int(box.height * res)
    out = np.empty((y1 - y0, x1 - x0, 4), dtype=np.uint8)
    out[...] = np.round(np.asarray(face) * 255).astype(np.uint8)
    r0, r1, c0, c1 = max(y0, 0), min(y1, h), max(x0, 0), min(x1, w)
    out[r0 - y0:r1 - y0, c0 - x0:c1 - x0] = drawn[r0:r1, c0:c1]
    buf = io.BytesIO()
    image.imsave(buf, out, format="png", dpi=res)
    return buf.getvalue()


def img_html(png: bytes, alt: str) -> str:
    """One ``<img>`` holding the PNG as a ``data:`` URI, with its ``alt`` text."""
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{esc(alt)}" src="data:image/png;base64,{data}">'


def png_html(png: bytes, alt: str, caption: str | None = None, *, anchor: str | None = None
             ) -> str:
    """A PNG image inlined as base64 in a ``<figure>`` with its ``alt`` text and caption."""
    ident = f' id="{esc(anchor)}"' if anchor else ""
    cap = f"<figcaption>{caption}</figcaption>" if caption else ""
    return f"<figure{ident}>{img_html(png, _check_alt(alt))}{cap}</figure>"


def figure_html(fig: Any, alt: str, caption: str | None = None, *,
                anchor: str | None = None, dpi: int = 110) -> str:
    """A matplotlib figure as an inlined PNG (see :func:`png_html`); ``caption`` is HTML."""
    return png_html(png_bytes(fig, dpi), alt, caption, anchor=anchor)


def table_html(header: Sequence[str], rows: Iterable[Sequence[Any]], *,
               caption: str | None = None, numeric: Sequence[bool] | None = None,
               row_class: Sequence[str] | None = None, anchor: str | None = None) -> str:
    """A table; cells are HTML (escape text with :func:`esc` first); ``numeric`` columns are
    right-aligned."""
    num = list(numeric or [False] * len(header))

    def cls(j: int) -> str:
        return ' class="num"' if j < len(num) and num[j] else ""

    head = "".join(f"<th{cls(j)}>{h}</th>" for j, h in enumerate(header))
    body = []
    for i, r in enumerate(rows):
        rc = f' class="{row_class[i]}"' if row_class and row_class[i] else ""
        body.append(f"<tr{rc}>" + "".join(f"<td{cls(j)}>{c}</td>" for j, c in enumerate(r))
                    + "</tr>")
    ident = f' id="{esc(anchor)}"' if anchor else ""
    cap = f"<caption>{caption}</caption>" if caption else ""
    return (f"<table{ident}>{cap}<thead><tr>{head}</tr></thead><tbody>{''.join(body)}"
            "</tbody></table>")


# --------------------------------------------------------------------------- TeX
_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν",
    "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "varphi": "φ",
    "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ",
    "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
    "times": "×", "pm": "±", "mp": "∓", "mid": "|", "cap": "∩", "cup": "∪", "le": "≤",
    "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈", "sim": "∼",
    "to": "→", "rightarrow": "→", "leftarrow": "←", "Rightarrow": "⇒", "in": "∈",
    "notin": "∉", "subset": "⊂", "subseteq": "⊆", "setminus": "∖", "sum": "∑", "prod": "∏",
    "infty": "∞", "cdot": "·", "cdots": "⋯", "ldots": "…", "dots": "…", "partial": "∂",
    "propto": "∝", "equiv": "≡", "ell": "ℓ", "emptyset": "∅", "forall": "∀", "exists": "∃",
    "neg": "¬", "land": "∧", "lor": "∨", "lvert": "|", "rvert": "|", "vert": "|",
    "langle": "⟨", "rangle": "⟩", "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉",
    "perp": "⊥", "star": "⋆", "ast": "∗", "int": "∫", "oint": "∮", "leftrightarrow": "↔",
    "Leftrightarrow": "⇔", "iff": "⟺", "implies": "⟹", "mapsto": "↦", "subsetneq": "⊊",
    "supset": "⊃", "supseteq": "⊇", "ll": "≪", "gg": "≫", "nabla": "∇", "circ": "∘",
    "bullet": "•", "oplus": "⊕", "otimes": "⊗", "prime": "′", "top": "⊤", "bot": "⊥",
    "\\": "; ", "{": "{", "}": "}", "%": "%", "$": "$", "_": "_", "&": "&", "#": "#", "|": "‖",
    ",": "\u2009", ";": "\u2005", ":": "\u2005", "!": "", " ": " ", "quad": "\u2003",
    "qquad": "\u2003\u2003", "left": "", "right": "", "big": "", "Big": "", "bigl": "",
    "bigr": "", "Bigl": "", "Bigr": "",
}
_OPERATORS = {"log", "ln", "exp", "max", "min", "arg", "argmax", "argmin", "lim", "sup", "inf",
              "Pr", "det", "sin", "cos", "tan", "var", "Var", "E", "deg", "dim"}
_TEXT = {"text", "mathrm", "textrm", "operatorname", "textit", "mathit", "textbf", "mathbf",
         "boldsymbol", "mathsf", "texttt", "mathtt", "mathcal", "mathbb", "mathscr"}
_ACCENTS = {"hat": "\u0302", "widehat": "\u0302", "bar": "\u0304", "overline": "\u0305",
            "tilde": "\u0303", "widetilde": "\u0303", "vec": "\u20d7", "dot": "\u0307"}
_BB = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "E": "𝔼", "P": "ℙ"}


class _Tex:
    """A small reader of inline TeX: groups, commands, sub- and superscripts."""

    def __init__(self, text: str, strict: bool = True) -> None:
        self.s, self.i, self.strict = text, 0, strict

    def group(self) -> str:
        """The next argument: a ``{...}`` group, a command or one character, as HTML."""
        self.space()
        if self.i >= len(self.s):
            return ""
        if self.s[self.i] == "{":
            depth, j = 0, self.i
            while j < len(self.s):
                depth += {"{": 1, "}": -1}.get(self.s[j], 0)
                if depth == 0:
                    break
                j += 1
            inner, self.i = self.s[self.i + 1:j], j + 1
            return _Tex(inner, self.strict).render()
        if self.s[self.i] == "\\":
            return self.command()
        ch = self.s[self.i]
        self.i += 1
        return _atom(ch)

    def raw_group(self) -> str:
        """The next ``{...}`` group's text as written (for ``\\text``)."""
        self.space()
        if self.i < len(self.s) and self.s[self.i] == "{":
            j = self.s.find("}", self.i)
            j = len(self.s) if j < 0 else j
            out, self.i = self.s[self.i + 1:j], j + 1
            return out
        out = self.s[self.i:self.i + 1]
        self.i += 1
        return out

    def space(self) -> None:
        while self.i < len(self.s) and self.s[self.i] == " ":
            self.i += 1

    def command(self) -> str:
        m = re.compile(r"\\([A-Za-z]+|.)").match(self.s, self.i)
        if m is None:
            self.i += 1
            return ""
        name = m.group(1)
        self.i = m.end()
        if name in _SYMBOLS:
            return esc(_SYMBOLS[name])
        if name in _OPERATORS:
            text = {"argmax": "arg max", "argmin": "arg min"}.get(name, name)
            return f"{text}\u2009"
        if name in _TEXT:
            t = self.raw_group()
            if name == "mathbb":
                return esc("".join(_BB.get(c, c) for c in t))
            if name in ("textit", "mathit", "mathcal", "mathscr"):
                return f"<i>{esc(t)}</i>"
            if name in ("textbf", "mathbf", "boldsymbol"):
                return f"<b>{esc(t)}</b>"
            return esc(t)
        if name in _ACCENTS:
            arg = self.group()
            plain = re.sub(r"<[^>]+>", "", arg)
            if len(_html.unescape(plain)) == 1:
                return arg.replace(plain, plain + _ACCENTS[name])
            return f"{arg}{_ACCENTS[name]}"
        if name == "sqrt":
            arg = self.group()
            return f"√{arg}" if len(re.sub(r"<[^>]+>", "", arg)) <= 1 else f"√({arg})"
        if name in ("frac", "dfrac", "tfrac"):
            a, b = self.group(), self.group()
            return f"({a})/({b})"
        if name == "binom":
            a, b = self.group(), self.group()
            return f"C({a}, {b})"
        if not self.strict:  # a reader sees the command's name rather than no page
            return esc(name)
        raise ValueError(f"formula: the TeX command \\{name} has no plain-text rendering "
                         f"(ensel._html.tex_html); write it in words or add it there")

    def script(self, tag: str) -> str:
        return f"<{tag}>{self.group()}</{tag}>"

    def render(self) -> str:
        out = []
        while self.i < len(self.s):
            ch = self.s[self.i]
            if ch == "\\":
                out.append(self.command())
            elif ch in "_^":
                self.i += 1
                out.append(self.script("sub" if ch == "_" else "sup"))
            elif ch == "{":
                out.append(self.group())
            elif ch == "}":
                self.i += 1
            elif ch == "~":
                self.i += 1
                out.append("\u00a0")
            else:
                self.i += 1
                out.append(_atom(ch))
        return "".join(out)


def _atom(ch: str) -> str:
    if ch.isascii() and ch.isalpha():
        return f"<i>{ch}</i>"
    if ch == "-":
        return "−"
    if ch == "'":
        return "′"
    return esc(ch)


def tex_html(tex: str, *, strict: bool = True) -> str:
    """Inline TeX as HTML (Unicode symbols, ``<sub>``/``<sup>``, italic letters) in a
    ``<span class="formula">`` (not ``math``: that class is MathJax's, for which
    ``tools/browsercheck.py`` looks): readable without a script. A command it cannot write raises
    ``ValueError`` naming it (``strict=False``: the command's name is written; the tests
    hold every formula of the book's pages to ``strict``).

    Examples
    --------
    >>> tex_html(r"\\tau_j = \\Phi^{-1}(\\text{error rate})")
    '<span class="formula"><i>τ</i><sub><i>j</i></sub> = Φ<sup>−1</sup>(error rate)</span>'
    >>> tex_html(r"\\hat I(Y; X_S)")
    '<span class="formula"><i>I\u0302</i>(<i>Y</i>; <i>X</i><sub><i>S</i></sub>)</span>'
    """
    body = _Tex(tex.strip(), strict).render()
    for g in "αβγδεζηθκλμνξπρστφχψω":  # lower-case Greek variables in italic
        body = re.sub(f"(?<!<i>){g}(?!</i>)", f"<i>{g}</i>", body)
    return f'<span class="formula">{body}</span>'


# --------------------------------------------------------------------------- MyST
_ROLE = re.compile(r"\{([A-Za-z][\w:.+-]*)\}`([^`]*)`")
_LABEL_LINE = re.compile(r"^\(([^()\s]+)\)=[ \t]*$", re.M)
_DOLLAR = re.compile(r"(?<![\\$])\$(?=[^\s$])((?:\\\$|[^$])+?)(?<=[^\s\\])\$(?!\d)")
_TARGET = re.compile(r"^(.*?)\s*<([^<>]+)>\s*$", re.S)


def glue_values(nb: Any) -> dict[str, dict[str, Any]]:
    """The values MyST-NB's ``glue`` recorded in an executed notebook: name -> mime bundle
    (``text/plain``, ``text/markdown``, ``text/html``, ...)."""
    prefix = "application/papermill.record/"
    out: dict[str, dict[str, Any]] = {}
    for cell in nb.get("cells", []):
        for o in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            meta = o.get("metadata", {}) or {}
            name = (meta.get("scrapbook") or {}).get("name")
            if name:
                out[str(name)] = {k.removeprefix(prefix): v for k, v in
                                  (o.get("data") or {}).items()}
    return out


def _as_text(v: Any) -> str:
    return "".join(v) if isinstance(v, list) else str(v)


class _Myst:
    """MyST's inline markup resolved to HTML before markdown is rendered."""

    def __init__(self, glue: Mapping[str, Mapping[str, Any]], targets: Mapping[str, str],
                 cite: Mapping[str, str]) -> None:
        self.glue, self.targets, self.cite = glue, targets, cite
        self.held: list[str] = []

    def hold(self, html_text: str) -> str:
        """A placeholder markdown leaves alone, replaced by ``html_text`` after rendering."""
        self.held.append(html_text)
        return f"\ue000{len(self.held) - 1}\ue001"

    def release(self, text: str) -> str:
        for _ in range(3):  # held text may hold placeholders (glued markdown)
            text = re.sub("\ue000(\\d+)\ue001", lambda m: self.held[int(m.group(1))], text)
        return text

    def role(self, m: re.Match[str]) -> str:
        name, content = m.group(1), m.group(2)
        t = _TARGET.match(content)
        title, target = (t.group(1), t.group(2)) if t else (None, content)
        if name.startswith("glue"):
            key, _, fmt = target.partition(":")
            bundle = self.glue.get(key)
            if bundle is None:
                raise ValueError(f"{{{name}}}`{content}`: no value glued as {key!r} in the "
                                 "notebook")
            if name == "glue:md" and "text/markdown" in bundle:
                return self.inline(_as_text(bundle["text/markdown"]))
            if "text/html" in bundle and name in ("glue", "glue:any"):
                return self.hold(_as_text(bundle["text/html"]))
            text = _as_text(bundle.get("text/plain", ""))
            if fmt:
                try:  # an int stays an int ("{:,}" of 432 is "432", not "432.0")
                    num: float = int(text) if re.fullmatch(r"-?\d+", text.strip()) \
                        else float(text)
                    text = format(num, fmt)
                except ValueError:
                    pass
            elif len(text) > 1 and text[0] == text[-1] and text[0] in "'\"":
                text = text[1:-1]  # a glued str is shown by its repr
            return self.hold(esc(text))
        if name == "cite" or name.startswith("cite:"):
            keys = [k.strip() for k in target.split(",")]
            return self.hold(esc("(" + "; ".join(self.cite.get(k, k) for k in keys) + ")"))
        if name in ("math", "eq"):
            return self.hold(tex_html(target, strict=False) if name == "math"
                             else esc(f"({target})"))
        if name in ("numref", "ref", "doc", "download", "term", "py:func", "py:mod",
                    "py:class", "py:meth", "py:attr", "py:data", "func", "mod", "class",
                    "meth", "attr", "data", "abbr", "sub-ref", "prf:ref"):
            text = title or self.targets.get(target) or target.rsplit("/", 1)[-1]
            text = re.sub(r"%s|\{number\}|\{name\}", "", text).strip() or target
            if name.startswith("py:") or name in ("func", "mod", "class", "meth", "attr",
                                                   "data"):
                return self.hold(f"<code>{esc(text.lstrip('~'))}</code>")
            if name == "download" and target.endswith(".ipynb"):
                return self.hold(f'<a href="{esc(target.rsplit("/", 1)[-1])}">{esc(text)}</a>')
            if target in self.targets:
                return self.hold(f'<a href="#{esc(target)}">{esc(text)}</a>')
            return self.hold(esc(text))
        return self.hold(esc(title or target))

    def inline(self, text: str) -> str:
        """``{role}`` and ``$...$`` of markdown text held as HTML."""
        text = _ROLE.sub(self.role, text)
        return _DOLLAR.sub(lambda m: self.hold(tex_html(m.group(1), strict=False)), text)

    def block(self, text: str) -> str:
        text = _LABEL_LINE.sub(lambda m: self.hold(f'<a id="{esc(m.group(1))}"></a>'), text)
        text = re.sub(r"^\$\$(.+?)\$\$", lambda m: self.hold(
            f"<p>{tex_html(' '.join(m.group(1).split()), strict=False)}</p>"), text,
            flags=re.S | re.M)
        return self.inline(text)


def _markdown() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable("table")


def myst_html(text: str, *, glue: Mapping[str, Mapping[str, Any]] | None = None,
              targets: Mapping[str, str] | None = None,
              cite: Mapping[str, str] | None = None, md: Any = None) -> str:
    """MyST markdown as HTML: glued values, roles, ``(label)=`` targets and ``$...$``
    formulas resolved (``targets``: label -> text of the things the page numbers; ``cite``:
    bibliography key -> "Author, year"). Needs ``markdown-it-py`` (installed with
    ``ensel[notebooks]``).

    Examples
    --------
    >>> print(myst_html("(sec-x)=\\n## Data\\n\\n{glue:text}`n:.2f` items, $k$ models",
    ...                 glue={"n": {"text/plain": "3.14159"}}))
    <p><a id="sec-x"></a></p>
    <h2>Data</h2>
    <p>3.14 items, <span class="formula"><i>k</i></span> models</p>
    <BLANKLINE>
    """
    m = _Myst(glue or {}, targets or {}, cite or {})
    rendered = (md or _markdown()).render(m.block(text))
    return m.release(rendered)


def caption_text(text: str) -> str:
    """A MyST caption as plain text, for an ``alt`` attribute: roles by their text, ``$...$``
    formulas in Unicode, markup removed.

    Examples
    --------
    >>> caption_text("Error of $k$ models, {numref}`as before <fig-a>` (**MAP**).")
    'Error of k models, as before (MAP).'
    """
    def role_text(r: re.Match[str]) -> str:
        t = _TARGET.match(r.group(2))
        return t.group(1) if t else r.group(2)

    m = _Myst({}, {}, {})
    held = m.inline(_ROLE.sub(role_text, text))
    out = re.sub(r"<[^>]+>", "", m.release(held))
    out = re.sub(r"(\*\*|__|\*|`)", "", out)
    return " ".join(_html.unescape(out).split())


def _bib_entries(bib: str) -> dict[str, str]:
    """key -> "Authors, year" of a BibTeX file's entries (for ``{cite}``)."""
    out = {}
    for m in re.finditer(r"@\w+\{([^,\s]+),(.*?)\n\}", bib, re.S):
        body = m.group(2)
        a = re.search(r"author\s*=\s*[{\"](.+?)[}\"],?\s*\n", body, re.S)
        y = re.search(r"year\s*=\s*[{\"]?(\d{4})", body)
        names = [n.split(",")[0].strip(" {}") for n in (a.group(1).split(" and ") if a else [])]
        who = (names[0] if len(names) == 1 else f"{names[0]} & {names[1]}" if len(names) == 2
               else f"{names[0]} et al." if names else m.group(1))
        out[m.group(1)] = f"{who}, {y.group(1)}" if y else who
    return out


def notebook_html(nb: Any, *, title: str | None = None, notebook_link: str | None = None,
                  bibliography: str | None = None) -> str:
    """An executed notebook of the book as one self-contained page: its markdown and the
    outputs of its cells, no code; glued numbers, roles, targets and formulas resolved;
    every figure with its MyST-NB caption as ``alt`` text and numbered "Fig. N" as the book
    numbers its own figures (a figure without a caption is described by its number and the
    page's title); ``bibliography``: the text of a BibTeX file for ``{cite}``."""
    md = _markdown()
    glue = glue_values(nb)
    cite = _bib_entries(bibliography) if bibliography else {}
    targets: dict[str, str] = {}
    n_fig = 0
    for cell in nb.get("cells", []):  # the figures the page numbers, for {numref}
        fig = ((cell.get("metadata") or {}).get("mystnb") or {}).get("figure") or {}
        if fig.get("name"):
            n_fig += 1
            targets[str(fig["name"])] = f"Fig. {n_fig}"
    parts: list[str] = []
    heading = title
    n_fig = 0
    for cell in nb.get("cells", []):
        meta = cell.get("metadata") or {}
        tags = set(meta.get("tags") or [])
        if tags & {"remove-cell", "ensel-provenance"}:
            continue
        src = _as_text(cell.get("source", ""))
        if cell.get("cell_type") == "markdown":
            if heading is None:
                h = re.search(r"^#\s+(.+)$", src, re.M)
                heading = h.group(1).strip() if h else None
            parts.append(myst_html(src, glue=glue, targets=targets, cite=cite, md=md))
            continue
        if cell.get("cell_type") != "code" or "remove-output" in tags:
            continue
        fig = (meta.get("mystnb") or {}).get("figure") or {}
        for o in cell.get("outputs", []):
            data = o.get("data") or {}
            if (o.get("metadata") or {}).get("scrapbook") or o.get("output_type") not in (
                    "display_data", "execute_result"):
                continue
            if "image/png" in data:
                n_fig += 1
                caption = fig.get("caption")
                cap_html = None
                if caption:
                    cap_html = (f"<b>Fig. {n_fig}.</b> "
                                + myst_html(str(caption), glue=glue, targets=targets,
                                            cite=cite, md=md).strip()
                                .removeprefix("<p>").removesuffix("</p>"))
                alt = (re.sub(r"<[^>]+>", "", cap_html).removeprefix(f"Fig. {n_fig}. ")
                       if cap_html else f"Fig. {n_fig} of the page {heading or ''}".strip())
                parts.append(png_html(base64.b64decode(_as_text(data["image/png"])), alt,
                                      cap_html, anchor=fig.get("name")))
            elif "text/html" in data:
                parts.append(_as_text(data["text/html"]))
            elif "text/markdown" in data:
                parts.append(myst_html(_as_text(data["text/markdown"]), glue=glue,
                                       targets=targets, cite=cite, md=md))
            elif "text/plain" in data and "text/plain" in data and o.get(
                    "output_type") == "display_data":
                parts.append(f"<pre>{esc(_as_text(data['text/plain']))}</pre>")
    if notebook_link:
        parts.append(f'<p class="muted">The executed notebook, with its code: '
                     f'<a href="{esc(notebook_link)}">{esc(notebook_link)}</a>.</p>')
    return page(heading or "ensel report", "\n".join(parts))


# --------------------------------------------------------------------------- the check
_RAW_ROLE = re.compile(r"\{[A-Za-z][\w:.+-]*\}(?:`|\x01)")  # \x01: a code element
_RAW_LABEL = re.compile(r"(?:^|\s)\([A-Za-z0-9_{}.:-]+\)=(?:\s|$)")
_SKIP = {"script", "style", "pre", "code", "textarea", "math", "svg", "kbd", "samp"}
_INLINE = {"a", "span", "i", "b", "em", "strong", "sub", "sup", "small", "abbr", "cite",
           "q", "s", "u", "mark", "var", "dfn", "time", "data", "bdi", "bdo", "label",
           "code", "kbd", "samp", "math", "svg", "tt"}


class _TextScan(HTMLParser):
    """Visible text outside code and math, and the ``alt`` of every image."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []
        self.text: list[str] = []
        self.images: list[tuple[str | None, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k.lower(): v for k, v in attrs}
        if tag not in _INLINE:  # a block starts: text on either side is not one line
            self.text.append("\n")
        if tag == "img":
            self.images.append((a.get("alt"), a.get("src")))
            return
        if tag in ("br", "hr", "meta", "link", "input", "source", "wbr", "area", "col"):
            return
        cls = (a.get("class") or "").split()
        skip = (tag in _SKIP or "math" in cls or "formula" in cls or "highlight" in cls
                or tag.startswith("mjx-") or any(c.startswith("highlight-") for c in cls))
        if skip and not any(s for _, s in self.stack):
            self.text.append("\x01")
        self.stack.append((tag, skip))

    def handle_endtag(self, tag: str) -> None:
        if tag not in _INLINE:
            self.text.append("\n")
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data: str) -> None:
        if not any(skip for _, skip in self.stack):
            self.text.append(data)


def unrendered_markup(html_text: str) -> list[str]:
    """What a reader must not see in a rendered page, one line each (empty: clean).

    Raw MyST roles (``{glue:text}`...```, ``{download}`...```, ``{cite}`...```, any
    ``{role}```), ``(label)=`` targets, ``$...$`` formulas outside a math element (text in
    ``<code>``, ``<pre>``, ``<script>``, ``<style>`` and elements of class ``math``, MathJax's,
    or ``formula``, :func:`tex_html`'s, is not read), and images whose ``alt`` text is
    missing, empty or a default that describes nothing ("No description has been provided
    for this image", the image's own file name as Sphinx writes it when none is given).

    Examples
    --------
    >>> unrendered_markup('<p>{glue:text}`n` items, $k$ <span class="math">$k$</span></p>'
    ...                   '<img src="x.png" alt="No description has been provided for this '
    ...                   'image">')  # doctest: +NORMALIZE_WHITESPACE
    ['raw role: {glue:text}`n` items', 'unrendered math: $k$',
     "image without a real alt text: 'No description has been provided for this image'"]
    >>> unrendered_markup('<p>3 items, <span class="formula"><i>k</i></span></p>')
    []
    """
    scan = _TextScan()
    scan.feed(html_text)
    scan.close()
    text = "".join(scan.text)
    found = []
    for m in _RAW_ROLE.finditer(text):
        shown = text[m.start():m.end() + 8].replace("\x01", "`").splitlines()[0]
        found.append(f"raw role: {shown[:30]}")
    for m in _RAW_LABEL.finditer(text):
        found.append(f"raw target: {m.group(0).strip()}")
    for m in _DOLLAR.finditer(text):
        found.append(f"unrendered math: {m.group(0)[:40]}")
    for alt, src in scan.images:
        a = " ".join((alt or "").split())
        if (not a or a.lower().startswith(DEFAULT_ALT_TEXTS) or a == src
                or re.fullmatch(r"\S+\.(?:png|jpe?g|svg|gif|webp)", a, re.I)):
            found.append(f"image without a real alt text: {alt!r}")
    return found
