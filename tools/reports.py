"""The user's reports on two sources, written for the browser check.

``python -m tools.reports _build/reports`` writes ``ensel report`` on a weak, abstaining pool
(:func:`weak_pool`: 24 models near chance, 15-20 % abstentions, seeded) and, when the LLMBar
mirror is present, on LLMBar with the shipped prices, plus an ``index.html`` linking them, so
that ``python -m tools.browsercheck _build/reports --mode both`` opens them as it opens the
book (``make reports``). Development tooling: not in the wheel.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["main", "weak_pool"]


def weak_pool(path: str | Path, *, n_items: int = 600, seed: int = 11) -> object:
    """Write the weak abstaining pool as a tidy Parquet file at ``path``; return its answer
    matrix: 24 models in families of 6, accuracy when answered near chance (family levels in
    [0.51, 0.56]), each abstaining on 15-20 % of the items (:func:`ensel.pools.family_pool`)."""
    from ensel.data import to_long
    from ensel.pools import family_pool

    pool = family_pool(24, n_items, family_size=6, acc_low=0.51, acc_high=0.56, jitter=0.02,
                       abstain=(0.15, 0.20), random_state=seed)
    to_long(pool.X, pool.y).to_parquet(path, index=False)
    return pool.X


def _llmbar(folder: Path) -> Path | None:
    """LLMBar as a tidy Parquet file when its mirror is found (``ENSEL_DATA_MIRROR`` or
    ``../shared/mirror``), else ``None``."""
    root = Path(__file__).resolve().parents[1]
    mirror = os.environ.get("ENSEL_DATA_MIRROR") or str(root.parent / "shared" / "mirror")
    if not (Path(mirror) / "princeton-nlp" / "LLMBar").is_dir():
        return None
    os.environ["ENSEL_DATA_MIRROR"] = mirror
    from ensel.datasets import load

    path = folder / "llmbar.parquet"
    load("llmbar").to_parquet(path, index=False)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry: ``python -m tools.reports [FOLDER]``."""
    import tempfile

    from ensel._html import esc, page
    from ensel.cli import main as ensel

    args = list(sys.argv[1:] if argv is None else argv)
    out = Path(args[0] if args else "_build/reports")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory(prefix="ensel-reports-") as tmp:
        weak_pool(Path(tmp) / "weak.parquet")
        runs = [("weak.html", [str(Path(tmp) / "weak.parquet")],
                 "24 models near chance with 15-20 % abstentions (seeded simulation)")]
        real = _llmbar(Path(tmp))
        if real is not None:
            runs.append(("llmbar.html", [str(real), "--prices", "shipped", "--drop-unpriced"],
                         "LLMBar (real LLM judges) with ensel's shipped prices"))
        else:
            print("tools.reports: no LLMBar mirror; the real-source report is left out",
                  file=sys.stderr)
        for name, argv_, what in runs:
            if ensel(["report", *argv_, "-o", str(out / name), "--force"]) != 0:
                return 1
            written.append((name, what))
    items = "".join(f'<li><a href="{esc(n)}">{esc(n)}</a>: {esc(w)}</li>' for n, w in written)
    (out / "index.html").write_text(page("ensel reports", "<h1>ensel report, on two sources"
                                         f"</h1><ul>{items}</ul>"), encoding="utf-8")
    print(f"wrote {len(written)} report(s) and index.html in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
