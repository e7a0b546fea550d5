"""``ensel select --json`` is byte-identical to the documents recorded before the registry,
protocol and command-package moves of issue 27 (``tests/data/select_json/``, written by
the command at commit c00f9b7): a refactoring must not change a number, a default or a word.
``mmlu_auto.json`` was re-recorded by the same command when the MMLU stand-in's default
became class-asymmetric (issue 26), and again when that variant's latent Sigma was
calibrated to the pooled table: only its numbers changed, from new data. All three were
re-recorded for ``ensel.select/2`` (issue 36): the schema name and two keys per picked model
(``coverage``, ``accuracy_answered``) were added; every other byte is the same.
``imdb_three.json`` was re-recorded when evaluations began counting a tie as half an error
(issue 38): only the best-single comparison's half-sample interval changed (on one half the
two-model logistic fit gives both models the same weight, so the 27 test items where they
disagree score exactly 0: ties, once sent to +1), the other two documents are unchanged.
Issue 39 (multi-class answers read as they are) added two keys to all three, ``view``
(``"binary"``) after ``format`` and ``gold`` (every item has gold) at the end; every other
byte is the same.
Gold with gaps (issues 39 and 40) added ``gold.intervals`` (the sentence saying what the
intervals are of) and ``few_labels`` (``null`` when every item has gold) to all three; every
other byte is the same.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ensel.cli import main
from ensel.data import to_long
from ensel.pools import family_pool

GOLDEN = Path(__file__).parent / "data" / "select_json"

RUNS = {
    "pool_default": ["pool.parquet", "-k", "5", "--splits", "4", "--halvings", "2"],
    "imdb_three": ["imdb", "-k", "2", "--method", "three-term", "--aggregator", "logistic",
                   "--splits", "3"],
    "mmlu_auto": ["mmlu", "-k", "auto", "--max-k", "4", "--splits", "3", "--halvings", "2",
                  "--method", "top-k", "--aggregator", "wmv"],
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_select_json_is_unchanged(name, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    if "pool.parquet" in RUNS[name]:
        p = family_pool(30, 1500, random_state=3)
        to_long(p.X, p.y, condition="sim", items=[f"q{i}" for i in range(1500)],
                models=[f"m{j:02d}" for j in range(30)]).to_parquet("pool.parquet", index=False)
    assert main(["select", *RUNS[name], "--json"]) == 0
    assert capsys.readouterr().out == (GOLDEN / f"{name}.json").read_text(encoding="utf-8")


def test_the_document_serialises_the_evidence_dataclass(tmp_path, monkeypatch) -> None:
    import json

    from ensel.datasets import load
    from ensel.evidence import SelectEvidence, select_evidence

    ev = select_evidence(load("imdb"), k=2, method="three-term", aggregator="logistic",
                         n_splits=3)
    assert isinstance(ev, SelectEvidence) and ev.method == "three_term"
    golden = json.loads((GOLDEN / "imdb_three.json").read_text(encoding="utf-8"))
    doc = ev.to_dict()
    assert list(doc) == [k for k in golden if k not in ("data", "format")]
    assert doc == {k: v for k, v in golden.items() if k not in ("data", "format")}
