"""Support of the user guide's pages (``notebooks/guide_*.py``; book layer).

* :func:`example` -- a seeded stand-in for *your* answers and prices: a small
  family-structured pool (:func:`ensel.pools.family_pool`) written the way a user's table
  usually is (``True``/``False`` answers, blanks for abstentions), and a price per query by
  the book's stated rule (:data:`ensel.book.budgets.POOL_PRICE_RULE`).
* :func:`workdir` -- a scratch folder the page works in (removed when the kernel exits), so
  the commands read and write plain file names, as in a user's own folder.
* :func:`ensel`, :func:`ensel_output`, :func:`ensel_json` -- run one ``ensel ...`` command
  line as a user types it (the installed package's command, through this interpreter);
  print it, return it, or return its ``--json`` document; fail the page when the command
  exits otherwise than expected.
"""

from __future__ import annotations

import atexit
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["FAMILIES", "ensel", "ensel_json", "ensel_output", "example", "workdir"]

#: Family names of the example pool (models of one family share their mistakes).
FAMILIES = ("atlas", "birch", "cedar", "delta", "ember", "fjord")


def example(n_models: int = 9, n_items: int = 600, *, family_size: int = 3,
            abstain: float = 0.05, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A seeded stand-in for a user's answers and prices.

    Returns ``(answers, prices)``: the tidy table (``item, model, condition, answer, label``;
    ``answer`` and ``label`` spelled ``"True"``/``"False"``, an abstention a missing value)
    of ``n_models`` models named ``<family>-<size>`` answering ``n_items`` binary questions,
    each answer abstained with probability ``abstain``; and the price table (``model,
    usd_per_query``) by :data:`ensel.book.budgets.POOL_PRICE_RULE`.

    Examples
    --------
    >>> answers, prices = example(n_models=4, n_items=10)
    >>> list(answers.columns), list(prices.columns)
    (['item', 'model', 'condition', 'answer', 'label'], ['model', 'usd_per_query'])
    """
    from ensel.book.budgets import pool_prices
    from ensel.data import to_long
    from ensel.pools import family_pool

    if not 1 <= -(-n_models // family_size) <= len(FAMILIES):
        raise ValueError(f"n_models must need 1..{len(FAMILIES)} families of {family_size}; "
                         f"got n_models={n_models}")
    pool = family_pool(n_models, n_items, family_size=family_size, random_state=seed)
    rng = np.random.default_rng(seed)
    X = np.where(rng.random(pool.X.shape) < abstain, 0, pool.X).astype(np.int8)
    models = [f"{FAMILIES[j // family_size]}-{j % family_size + 1}" for j in range(n_models)]
    tidy = to_long(X, pool.y, items=[f"q{i:04d}" for i in range(n_items)], models=models)
    spelled = {1: "True", -1: "False", 0: None}
    answers = tidy.assign(answer=tidy["answer"].map(spelled), label=tidy["label"].map(spelled))
    usd = pool_prices(pool.accuracy, random_state=seed)
    prices = pd.DataFrame({"model": models, "usd_per_query": np.round(usd, 6)})
    return answers, prices


def workdir(prefix: str = "ensel-guide-") -> Path:
    """Make a scratch folder, make it the working folder, and remove it at exit."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, path, True)
    os.chdir(path)
    return path


def _run(line: str, expect: int) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(line)
    if not argv or argv[0] != "ensel":
        raise ValueError(f"line must start with 'ensel'; got {line!r}")
    proc = subprocess.run([sys.executable, "-m", "ensel", *argv[1:]], capture_output=True,
                          text=True, check=False)
    if proc.returncode != expect:
        raise RuntimeError(f"{line!r} exited with {proc.returncode}, not {expect}:\n"
                           f"{proc.stderr.strip()}")
    return proc


def ensel_output(line: str, *, expect: int = 0) -> str:
    """Run the command line ``line`` (it starts with ``ensel``) and return what it printed.

    The command runs as a user runs it, in its own process, in the working folder. Returned:
    stdout followed by stderr (notices; the error line when the command fails on purpose,
    ``expect`` being its exit code, 2 for refused input), with the working folder's path
    left out of file names. Any other exit code raises :class:`RuntimeError` with the
    command's stderr, which fails the page.
    """
    proc = _run(line, expect)
    text = "\n".join(t.rstrip() for t in (proc.stdout, proc.stderr) if t.strip())
    return text.replace(f"{Path.cwd()}{os.sep}", "")


def ensel_json(line: str) -> Any:
    """Run the command line ``line`` (with ``--json``) and return the document it printed."""
    return json.loads(_run(line, 0).stdout)


def ensel(line: str, *, expect: int = 0) -> None:
    """Run the command line ``line`` as :func:`ensel_output` does and print what it printed."""
    print(ensel_output(line, expect=expect))
