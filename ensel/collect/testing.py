"""Small files in the upstream formats of the query sources, for tests, benchmarks and demos.

They hold made-up text in the real column layout (MedMCQA: ``id, question, opa..opd, cop,
choice_type``; MMLU: ``question, subject, choices, answer``; IMDB: ``text, label``).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["write_fixture"]


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
        raise ValueError(f"no fixture for source {source!r}")
    df.to_parquet(p, index=False)
    return p
