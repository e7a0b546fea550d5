"""Shared test helpers: where the mirrored upstream files (MMLU-Pro, MMLU-Redux, LLMBar) are."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ensel.datasets import DATASETS

REPO = Path(__file__).resolve().parents[1]
UPSTREAM = "TIGER-AI-Lab/MMLU-Pro"
#: The mirrored upstream repository of each downloaded real dataset (declared in
#: data/datasets.yml): tests over the real datasets are parametrised with its names.
UPSTREAMS = {name: spec.upstream for name, spec in DATASETS.items() if spec.upstream}


def shared_mirror(upstream: str = UPSTREAM) -> Path | None:
    """The mirror holding ``upstream`` (``owner/repo``): ``$ENSEL_DATA_MIRROR`` or
    ``<repo>/../shared/mirror``, if present."""
    env = os.environ.get("ENSEL_DATA_MIRROR", "").strip()
    for candidate in ([Path(env)] if env else []) + [REPO.parent / "shared" / "mirror"]:
        if (candidate / upstream / "SHA256SUMS").is_file():
            return candidate.resolve()
    return None


def require_mirror(upstream: str = UPSTREAM) -> Path:
    """Return the mirror of ``upstream`` (``owner/repo``, default MMLU-Pro); fail in CI
    (``CI=true``) and skip elsewhere when it is missing."""
    mirror = shared_mirror(upstream)
    if mirror is None:
        msg = f"the {upstream} mirror (../shared/mirror or ENSEL_DATA_MIRROR) is missing"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg + " in CI")
        pytest.skip(msg)
    return mirror


def require_built_book() -> Path:
    """Return ``_build/html`` of the book ``make book`` built; fail in CI (``CI=true``, where
    ``make test-book`` runs after ``make book``) and skip elsewhere when it is missing."""
    html = REPO / "_build" / "html"
    if not (html / "index.html").is_file():
        msg = "no built book (_build/html/index.html); make book builds it"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg + " (CI runs make test-book after make book)")
        pytest.skip(msg)
    return html


#: Cell tags that keep a cell's code out of the reader's sight.
HIDDEN_TAGS = {"remove-cell", "remove-input", "hide-input"}


def page_code_cells(page: str) -> list:
    """The code cells of ``notebooks/<page>.py`` (jupytext source, not executed)."""
    import jupytext

    nb = jupytext.read(REPO / "notebooks" / f"{page}.py")
    return [c for c in nb.cells if c.cell_type == "code"]


def visible(cell) -> bool:
    """Whether a reader sees the cell's code."""
    return not set(cell.metadata.get("tags", [])) & HIDDEN_TAGS


@pytest.fixture
def python_sigint():
    """SIGINT handled as Python does in a foreground process (``KeyboardInterrupt``) for the
    test, whatever the test runner inherited: a shell starts a background job with SIGINT
    ignored, and ``signal_guard`` rightly keeps an ignored signal ignored."""
    import signal

    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)
