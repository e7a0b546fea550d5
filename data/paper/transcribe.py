"""Re-create the CSV files in this folder from the paper's LaTeX source.

Usage::

    .venv/bin/python data/paper/transcribe.py path/to/paper.tex

Every number is copied as printed (the strings between ``$...$`` in the table cells), so
the CSV files are an exact transcription; ``tests/test_paper_tables.py`` checks shapes and
spot values. Model families are assigned from the vendor prefix printed before the slash
(see ``FAMILY``). The MAP / MV / W-MV tables share their column order
(Top-k, Term 1, Terms 1+2, Greedy MI); the method codes follow ``ensel.select``.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

FAMILY = {"OpenAI": "OpenAI", "Qwen": "Qwen", "Moonshotai": "Moonshot", "Google": "Google",
          "MistralAI": "Mistral", "Anthropic": "Anthropic", "Meta-LLaMA": "Meta",
          "microsoft": "Microsoft", "deepseek": "DeepSeek"}
# dataset -> (model pool, MAP results, MV vs MAP, W-MV vs MAP) table labels
TABLES = {
    "medmcqa": ("tab:medmcqa_models", "tab:medmcqa_results", "tab:medmcqa_mv_vs_map",
                "tab:medmcqa_wmv_vs_map"),
    "mmlu": ("tab:mmlu_models", "tab:mmlu_results", "tab:mmlu_mv_vs_map", "tab:mmlu_wmv_vs_map"),
    "imdb": ("tab:models_imdb", "tab:imdb_results", "tab:imdb_mv_vs_map", "tab:imdb_wmv_vs_map"),
}
# number of binary queries, from the text (Sec. 5.1, Sec. 5.2, Appendix "IMDB")
N_ITEMS = {"medmcqa": 8366, "mmlu": 10000, "imdb": 10000}
SELECTIONS = [("medmcqa", "tab:medmcqa_selections", "t0.7-r1"),
              ("mmlu", "tab:mmlu_selections", "t0.7-r2")]
METHODS = ["topk", "relevance", "mrmr", "greedy_mi"]
RESULT_FILES = [("results_map.csv", ["map"] * 4),
                ("results_mv_vs_map.csv", ["mv", "mv", "mv", "map"]),
                ("results_wmv_vs_map.csv", ["wmv", "wmv", "wmv", "map"])]


def _rows(tex: str, label: str) -> list[list[str]]:
    """Cells of the body rows (between \\midrule and \\bottomrule) of the labelled table."""
    i = tex.index("\\label{" + label + "}")
    j = tex.index(r"\midrule", i) + len(r"\midrule")
    k = tex.index(r"\bottomrule", j)
    out = []
    for row in tex[j:k].split(r"\\"):
        row = row.strip().removeprefix(r"\midrule").strip()
        if row:
            out.append([c.strip() for c in row.split("&")])
    return out


def _write(name: str, rows: list[dict[str, object]]) -> None:
    with open(HERE / name, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"{name}: {len(rows)} rows")


def main(tex_path: str) -> None:
    tex = Path(tex_path).read_text(encoding="utf-8")
    pools, datasets = [], []
    for ds, (label, *_) in TABLES.items():
        rank = 0
        for cells in _rows(tex, label):
            if "Average" in cells[0]:
                acc = re.fullmatch(r"\$([\d.]+)\\%\$", cells[1]).group(1)
                rho = re.fullmatch(r"\$\\bar\{\\rho\} = ([\d.]+)\$", cells[3]).group(1)
                datasets.append(dict(dataset=ds, table=label, n_models=rank, n_items=N_ITEMS[ds],
                                     accuracy_pct=acc, avg_rho=rho))
                continue
            rank += 1
            provider, model = cells[0].split("/", 1)
            acc = re.fullmatch(r"\$([\d.]+)\\% \\pm ([\d.]+)\\%\$", cells[1])
            tau = re.fullmatch(r"\$(-?[\d.]+)\$", cells[2]).group(1)
            rho = re.fullmatch(r"\$([\d.]+)\$", cells[3]).group(1)
            pools.append(dict(dataset=ds, table=label, rank=rank, provider=provider, model=model,
                              family=FAMILY[provider], accuracy_pct=acc.group(1),
                              accuracy_std_pct=acc.group(2), tau=tau, avg_rho=rho))
    _write("model_pools.csv", pools)
    _write("datasets.csv", datasets)

    for col, (fname, aggregators) in enumerate(RESULT_FILES, start=1):
        rows = []
        for ds, labels in TABLES.items():
            for cells in _rows(tex, labels[col]):
                for method, agg, cell in zip(METHODS, aggregators, cells[1:], strict=True):
                    m = re.fullmatch(r"\$(?:\\mathbf\{)?([\d.]+) \\pm ([\d.]+)\}?\$", cell)
                    rows.append(dict(dataset=ds, table=labels[col], k=int(cells[0]),
                                     method=method, aggregator=agg, mean=m.group(1),
                                     std=m.group(2),
                                     bold=str(cell.startswith(r"$\mathbf{")).lower()))
        _write(fname, rows)

    sel = []
    for ds, label, condition in SELECTIONS:
        for cells in _rows(tex, label):
            for method, cell in zip(["greedy_mi", "mrmr"], cells[1:], strict=True):
                m = re.fullmatch(r"(?:\+ )?(\S+) \(([\d.]+)\\%\)", cell)
                sel.append(dict(dataset=ds, table=label, condition=condition, method=method,
                                k=int(cells[0]), model=m.group(1), accuracy_pct=m.group(2)))
    _write("selections.csv", sel)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: transcribe.py path/to/paper.tex")
    main(sys.argv[1])
