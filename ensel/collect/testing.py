"""Small files in the upstream formats of the query sources, for tests, benchmarks and demos.

They hold made-up text in the real column layout (MedMCQA: ``id, question, opa..opd, cop,
choice_type``; MMLU: ``question, subject, choices, answer``; IMDB: ``text, label``).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from ensel._errors import UsageError

__all__ = ["demo_config", "write_fixture"]


def write_fixture(source: str, path: str | os.PathLike[str], n: int = 50, *,
                  seed: int = 0) -> Path:
    """Write ``n`` made-up rows of ``source`` (``medmcqa``, ``mmlu``, ``imdb``) as Parquet.

    Examples
    --------
    >>> import tempfile, pandas as pd
    >>> p = write_fixture("mmlu", tempfile.mkdtemp() + "/test.parquet", n=4)
    >>> list(pd.read_parquet(p).columns)
    ['question', 'subject', 'choices', 'answer']
    """
    rng = np.random.default_rng(seed)
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    if source == "medmcqa":
        df = pd.DataFrame({
            "id": [f"q{i:05d}" for i in range(n)],
            "question": [f"Synthetic medical question {i}?" for i in range(n)],
            **{f"op{c}": [f"option {c} of {i}" for i in range(n)] for c in "abcd"},
            "cop": rng.integers(0, 4, n), "choice_type": ["single"] * n,
            "exp": [""] * n, "subject_name": ["Anatomy"] * n, "topic_name": [""] * n,
        })
    elif source == "mmlu":
        df = pd.DataFrame({
            "question": [f"Synthetic question number {i}: which is right?" for i in range(n)],
            "subject": ["abstract_algebra"] * n,
            "choices": [[f"choice {c} of question {i}" for c in "ABCD"] for i in range(n)],
            "answer": rng.integers(0, 4, n),
        })
    elif source == "imdb":
        df = pd.DataFrame({"text": [f"Synthetic review {i}: a film I saw." for i in range(n)],
                           "label": np.arange(n) % 2})
    else:
        raise UsageError(f"no fixture for source {source!r}")
    df.to_parquet(p, index=False)
    return p


def demo_config(folder: str | os.PathLike[str], *, models: list[str], n_queries: int,
                source: str = "mmlu_pro", pool: str = "mmlu", temperatures: tuple = (0.7,),
                runs: int = 1, cost_cap_usd: float | None = None, seed: int = 0,
                timeout_s: float = 1.0) -> Path:
    """Write a run configuration for the simulated pool (used by the book and the benchmark).

    Models are named as in the stand-in ``pool`` and served as ``sim/<name, lower case>``, each
    priced at 2 / 8 USD per million tokens (made up, for the cost cap). With ``source="mmlu"``
    a made-up MMLU-format file of ``n_queries / 2`` questions is written beside the config.

    Returns
    -------
    pathlib.Path
        The configuration file ``<folder>/run.yml``.
    """
    import yaml

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    ids = {m: f"sim/{m.lower()}" for m in models}
    dataset = {"source": source, "pool": pool, "n_queries": n_queries, "models": ids}
    if source == "mmlu":
        write_fixture("mmlu", folder / "mmlu.parquet", n=n_queries // 2, seed=seed)
        dataset["path"] = "mmlu.parquet"
    doc = {
        "endpoint": {"base_url": "http://127.0.0.1:9/v1", "api_key_env": None,
                     "timeout_s": timeout_s},
        "datasets": {"mmlu": dataset}, "temperatures": list(temperatures), "runs": runs,
        "concurrency": 16, "requests_per_minute": 10_000_000, "backoff_s": 0.02,
        "seed": seed, "store": "answers.sqlite",
        "prices": {"as_of": "simulated",
                   "per_million_tokens": {i: [2.0, 8.0] for i in ids.values()}},
    }
    if cost_cap_usd is not None:
        doc["cost_cap_usd"] = cost_cap_usd
    path = folder / "run.yml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path
