"""Import lm-evaluation-harness per-sample logs (``--log_samples``) of several models.

``lm_eval --model hf --model_args pretrained=ORG/NAME --tasks TASK --output_path OUT
--log_samples`` writes, per model, a folder ``OUT/<ORG__NAME>/`` with

* ``results_<timestamp>.json``: the run's summary; the model is named by ``model_name``
  (recent versions) or by ``pretrained=...`` in ``config.model_args`` (a string
  ``"pretrained=ORG/NAME,dtype=..."`` or a dict);
* ``samples_<task>_<timestamp>.jsonl``: one JSON object per document, with ``doc_id``,
  ``doc``, ``target`` (for a multiple-choice task the gold option's index, an integer or a
  digit string), ``arguments`` (one (context, continuation) request per option),
  ``resps``/``filtered_resps`` (per option ``[log-likelihood, is_greedy]``; numbers or
  strings), ``filter``, ``metrics`` and the per-sample metrics such as ``acc``.

The chosen option is the argmax of the per-option log-likelihoods (``filtered_resps``; ties
go to the lowest index, as ``acc`` is computed), so the binary view of
:mod:`ensel.datasets.binary` is exact as for MMLU-Pro. When ``acc`` is logged it is checked
against that choice. The question of a sample is ``<task>/<doc_id>``; the model name comes
from the results file next to the samples file (same timestamp when there are several),
else from the folder name.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ensel._files import is_samples_name
from ensel.data import DataError
from ensel.datasets.binary import item_seed_key, native_table, option_label, to_binary

__all__ = ["is_samples_file", "model_name", "read_lm_eval"]

_SAMPLES_RE = re.compile(r"^samples_(?P<task>.+?)_(?P<ts>\d{4}-\d{2}-\d{2}T[0-9\-.:]+)\.jsonl$")


_Err = DataError


def is_samples_file(path: Path) -> bool:
    """Whether ``path`` is named like an lm-evaluation-harness samples file."""
    return is_samples_name(path)


def _task_and_stamp(path: Path) -> tuple[str, str | None]:
    m = _SAMPLES_RE.match(path.name)
    if m:
        return m["task"], m["ts"]
    return path.name[len("samples_"):-len(".jsonl")], None


def model_name(samples_path: str | Path) -> str:
    """The model of a samples file, from the run's ``results_*.json`` beside it.

    Order: ``model_name``; ``pretrained=`` (or ``model=``) in ``config.model_args``;
    ``config.model``; the folder name (lm-evaluation-harness names it after the model).
    """
    path = Path(samples_path)
    _, stamp = _task_and_stamp(path)
    candidates = sorted(path.parent.glob("results_*.json"))
    if stamp is not None and (path.parent / f"results_{stamp}.json").is_file():
        candidates = [path.parent / f"results_{stamp}.json"]
    for res in candidates[-1:]:
        try:
            doc = json.loads(res.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise _Err(f"{res}: not a readable JSON results file ({exc})") from None
        if not isinstance(doc, dict):
            raise _Err(f"{res}: expected a JSON object (lm-evaluation-harness results, with "
                       f"model_name or config); got a JSON {type(doc).__name__}")
        name = doc.get("model_name")
        if isinstance(name, str) and name.strip():
            return name.strip()
        config = doc.get("config") or {}
        if not isinstance(config, dict):
            raise _Err(f"{res}: 'config' must be a JSON object; got a JSON "
                       f"{type(config).__name__}")
        args = config.get("model_args")
        if isinstance(args, dict):
            for key in ("pretrained", "model", "path"):
                if args.get(key):
                    return str(args[key])
        elif isinstance(args, str):
            for part in args.split(","):
                key, _, value = part.partition("=")
                if key.strip() in ("pretrained", "model", "path") and value.strip():
                    return value.strip()
        if config.get("model"):
            return str(config["model"])
    return path.parent.name


def _loglik(value: Any) -> float:
    if isinstance(value, (list, tuple)) and value:
        value = value[0]
    if isinstance(value, (list, tuple)) and value:  # resps: [[ll, greedy]]
        value = value[0]
    return float(value)


def _continuations(arguments: Any) -> list[str]:
    if isinstance(arguments, dict):  # {"gen_args_0": {"arg_0": ctx, "arg_1": cont}, ...}
        items = sorted(arguments.items(), key=lambda kv: int(re.sub(r"\D", "", kv[0]) or 0))
        return [str(v.get("arg_1", "")) if isinstance(v, dict) else "" for _, v in items]
    if isinstance(arguments, list):
        return [str(a[1]) if isinstance(a, (list, tuple)) and len(a) > 1 else "" for a in arguments]
    return []


def _gold(target: Any, n_options: int, conts: list[str], where: str) -> int:
    if isinstance(target, bool):
        raise _Err(f"{where}: target {target!r} is not an option index")
    if isinstance(target, int):
        g = target
    elif isinstance(target, str) and target.strip().lstrip("-").isdigit():
        g = int(target.strip())
    elif isinstance(target, str) and target.strip() in [c.strip() for c in conts]:
        g = [c.strip() for c in conts].index(target.strip())
    else:
        raise _Err(f"{where}: target {target!r} is neither an option index nor one of the "
                   "options (only multiple-choice tasks with one gold option can be imported)")
    if not 0 <= g < n_options:
        raise _Err(f"{where}: target {g} is outside the {n_options} options")
    return g


def _read_samples(path: Path) -> tuple[str, list[tuple[int, int, int, int | None]]]:
    """``task`` and rows ``(doc_id, gold, n_options, chosen)`` of one samples file."""
    task, _ = _task_and_stamp(path)
    rows: list[tuple[int, int, int, int | None]] = []
    seen: dict[int, int] = {}
    with open(path, "rb") as fh:  # decoded line by line: a bad byte is named by its line
        for lineno, raw in enumerate(fh, start=1):
            where = f"{path}, line {lineno}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise _Err(f"{where}: not UTF-8 text (byte {exc.start} of the line: "
                           f"{exc.reason}); lm-evaluation-harness writes UTF-8") from None
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise _Err(f"{where}: not valid JSON ({exc.msg})") from None
            if not isinstance(rec, dict):
                raise _Err(f"{where}: expected a JSON object per line")
            missing = [k for k in ("doc_id", "target") if k not in rec]
            resps = rec.get("filtered_resps", rec.get("resps"))
            if resps is None:
                missing.append("filtered_resps")
            if missing:
                raise _Err(f"{where}: missing field(s) {missing}; an lm-evaluation-harness "
                           "samples line has doc_id, target, arguments, resps, filtered_resps")
            doc_id = rec["doc_id"]
            if isinstance(doc_id, bool) or not isinstance(doc_id, int) or doc_id < 0:
                raise _Err(f"{where}: doc_id {doc_id!r} is not a non-negative integer")
            if doc_id in seen:
                raise _Err(f"{where}: duplicate doc_id {doc_id} (first on line {seen[doc_id]}); "
                           "one sample per document expected (a single filter)")
            seen[doc_id] = lineno
            if not isinstance(resps, list) or len(resps) < 2:
                raise _Err(f"{where}: filtered_resps must hold one log-likelihood per option "
                           "(at least 2); is this a multiple-choice (loglikelihood) task?")
            try:
                ll = [_loglik(r) for r in resps]
            except (TypeError, ValueError):
                raise _Err(f"{where}: filtered_resps {str(resps)[:80]} are not log-likelihoods "
                           "(a generation task cannot be imported)") from None
            n = len(ll)
            gold = _gold(rec["target"], n, _continuations(rec.get("arguments")), where)
            finite = [v for v in ll if not math.isnan(v)]
            chosen = None if not finite else max(range(n), key=lambda i: (ll[i], -i))
            if "acc" in rec and chosen is not None:
                try:
                    acc = float(rec["acc"])
                except (TypeError, ValueError):
                    acc = None
                if acc is not None and acc in (0.0, 1.0) and bool(acc) != (chosen == gold):
                    raise _Err(f"{where}: acc={rec['acc']} disagrees with the argmax of the "
                               f"log-likelihoods (option {chosen}, gold {gold})")
            rows.append((doc_id, gold, n, chosen))
    if not rows:
        raise _Err(f"{path}: the file is empty")
    return task, rows


def read_lm_eval(paths: Sequence[str | Path], *, seed: int = 0, null_pred: str = "abstain",
                 condition: str = "all", view: str = "binary") -> pd.DataFrame:
    """Tidy binary table from lm-evaluation-harness samples files of several models.

    Parameters
    ----------
    paths : sequence of path
        ``samples_<task>_<timestamp>.jsonl`` files (any number of models and tasks; the model
        of each file is found by :func:`model_name`).
    seed : int, default=0
        Seeds each question's negative option (:func:`ensel.datasets.binary.to_binary`).
    null_pred : {"abstain", "false"}, default="abstain"
        What a sample without finite log-likelihoods becomes.
    condition : str, default="all"
    view : {"binary", "native"}, default="binary"
        ``"native"``: the option chosen, as its letter (``A..``), items ``<task>/<doc_id>``
        with an ``options`` column (the number of options); ``seed`` and ``null_pred`` do
        not apply.

    Returns
    -------
    pandas.DataFrame
        ``item, model, condition, answer, label``; items ``<task>/<doc_id>:<option>``.
        Questions not answered by every model are dropped (``attrs["dropped"]``).

    Raises
    ------
    ValueError
        Naming the file and line: invalid JSON, missing fields, a non-multiple-choice task,
        duplicate documents, gold options that differ between models, two files of one
        model for the same task.
    """
    answers: list[tuple[str, str, int, int | None]] = []
    gold: dict[tuple[str, int], tuple[int, int, str]] = {}
    models: list[str] = []
    seen_files: dict[tuple[str, str], Path] = {}
    for p in paths:
        path = Path(p)
        model = model_name(path)
        task, rows = _read_samples(path)
        if (model, task) in seen_files:
            raise _Err(f"{path}: model {model!r} already has task {task!r} in "
                       f"{seen_files[(model, task)]}; pass one samples file per model and task")
        seen_files[(model, task)] = path
        if model not in models:
            models.append(model)
        for doc_id, g, n, chosen in rows:
            key = (task, doc_id)
            if key in gold and gold[key][:2] != (g, n):
                raise _Err(f"{path}: document {doc_id} of task {task!r} has gold option {g} of "
                           f"{n}, but {gold[key][2]} says {gold[key][0]} of {gold[key][1]}")
            gold.setdefault(key, (g, n, str(path)))
            answers.append((model, task, doc_id, chosen))
    ans = pd.DataFrame(answers, columns=["model", "task", "doc_id", "chosen"])
    per_model = ans.groupby(["task", "doc_id"])["model"].nunique()
    complete = per_model[per_model == len(models)].index
    dropped = int(len(per_model) - len(complete))
    keys = sorted(complete)
    if dropped:
        from ensel._notice import notice

        notice(f"lm-eval import: dropped {dropped:,} of {len(per_model):,} documents (not "
               f"answered by every one of the {len(models)} models)")
    if not keys:
        raise _Err("no document was answered by every model; check that the samples files "
                   "are of the same task(s)")
    qid = {k: i for i, k in enumerate(keys)}
    questions = pd.DataFrame({
        "question_id": range(len(keys)),
        "name": [f"{t}/{d}" for t, d in keys],
        "seed_key": [item_seed_key(f"{t}/{d}") for t, d in keys],
        "answer": [option_label(gold[k][0]) for k in keys],
        "answer_index": [gold[k][0] for k in keys],
        "n_options": [gold[k][1] for k in keys],
    })
    ans = ans[[k in qid for k in zip(ans["task"], ans["doc_id"], strict=True)]]
    answers_df = pd.DataFrame({
        "model": ans["model"].to_numpy(),
        "question_id": [qid[k] for k in zip(ans["task"], ans["doc_id"], strict=True)],
        "pred": [None if c is None or c != c else option_label(int(c)) for c in ans["chosen"]],
    })
    if view == "native":
        tidy = native_table(questions, answers_df, models=models, condition=condition)
        tidy.attrs = {"dropped": {"not_answered_by_all": dropped}}
        return tidy
    tables = to_binary(questions, answers_df, models=models, seed=seed, null_pred=null_pred,
                       condition=condition)
    tidy = tables.tidy
    tidy.attrs = {"dropped": {"not_answered_by_all": dropped}}
    return tidy
