"""LLMBar: LLM judges choosing the better of two outputs, natively binary queries.

Source: `princeton-nlp/LLMBar <https://github.com/princeton-nlp/LLMBar>`_ (MIT), files pinned
by commit and SHA-256 in ``data/registry/llmbar.csv``:
``Dataset/<subset>/evaluators/<LLM>/<strategy>/result.json``, 10 subsets x 6 LLMs (GPT-4,
ChatGPT, ChatGPT-0301, PaLM2, LLaMA2, Falcon) x 3 prompting strategies (Vanilla, CoT,
Metrics_Reference). A file is a JSON list of records ``input, output_1, output_2, label``
(``1`` or ``2``: which output is better) and ``results``: a list whose dict element holds the
judge's verdict under both presentation orders, ``{"swap = False": {"winner": "1"|"2"|null,
...}, "swap = True": {...}}`` (``winner`` names the better output in the original numbering in
both orders; the other elements of ``results`` are the strategy's intermediate generations).

Choices (all shown on the dataset card)
---------------------------------------
* **Queries**: one per record, natively binary: ``Y = +1`` when ``output_1`` is the better
  output, ``Y = -1`` when it is ``output_2``. A judge says ``+1`` when its winner is ``"1"``,
  ``-1`` when ``"2"``; a ``null`` winner (the verdict could not be parsed) is an
  **abstention** (``0``; ``null_pred="false"`` makes it ``-1``).
* **Models**: a judge LLM x a prompting strategy is one model, named ``<LLM>/<strategy>``
  (18 models); the strategies of one LLM form its **family** (:func:`family`). ChatGPT and
  ChatGPT-0301 are two versions of one model but kept as two families, as upstream lists them.
* **Presentation orders as conditions**: each record was judged with the outputs in the
  original order and swapped; the two orders are the two ``condition`` values
  ``original-order`` and ``swapped-order`` (like the paper's temperature/run conditions:
  same items and models, a different draw of the judges' noise). ``orders`` selects them.
* **Items**: the default ``subset="llmbar"`` is the LLMBar benchmark proper: ``Natural`` and
  the four ``Adversarial`` subsets (``Neighbor, GPTInst, GPTOut, Manual``), 419 items. The
  ``CaseStudy`` subsets (synthetic probes: base-9/base-10 arithmetic, negation, constraints)
  are available with ``subset="all"`` or by name. An item is named
  ``<subset>/<index in the file>``; every file of a subset must hold the same records in the
  same order (checked: a mismatch is an error). No record occurs in two subsets and no two
  models answer identically (checked on the pinned files by the tests), so there are no
  duplicates to drop.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd

from ensel._errors import DataError, UsageError
from ensel.datasets import _fetch
from ensel.datasets.binary import NULL_PRED

__all__ = [
    "BENCHMARK",
    "ORDERS",
    "VIEWS",
    "convert",
    "family",
    "file_entries",
    "is_available",
    "load",
    "subset_names",
    "upstream_accuracy",
]

NAME = "llmbar"
#: The LLMBar benchmark proper (the default subset).
BENCHMARK = (
    "LLMBar/Natural",
    "LLMBar/Adversarial/Neighbor",
    "LLMBar/Adversarial/GPTInst",
    "LLMBar/Adversarial/GPTOut",
    "LLMBar/Adversarial/Manual",
)
#: Presentation orders and their condition names.
ORDERS = {"original": ("swap = False", "original-order"),
          "swapped": ("swap = True", "swapped-order")}
_PATH_RE = re.compile(
    r"^Dataset/(?P<subset>.+)/evaluators/(?P<llm>[^/]+)/(?P<strategy>[^/]+)/result\.json$")
_WINNER = {"1": 1, "2": -1}
#: The native answer of each binary one: the better output's number (blank = no verdict).
_NATIVE = {1: "1", -1: "2", 0: None}
#: Accepted values of ``view``.
VIEWS = ("binary", "native")


def family(model: str) -> str:
    """The family of a judge ``<LLM>/<strategy>``: its LLM.

    Examples
    --------
    >>> family("GPT-4/CoT")
    'GPT-4'
    """
    return str(model).split("/", 1)[0]


def file_entries() -> dict[tuple[str, str], _fetch.RegistryEntry]:
    """Registry entries keyed by ``(subset, "<LLM>/<strategy>")``."""
    out: dict[tuple[str, str], _fetch.RegistryEntry] = {}
    for entry in _fetch.read_registry(NAME):
        m = _PATH_RE.match(entry.path)
        if not m:
            raise DataError(f"registry {NAME!r}: unrecognised file {entry.path!r}")
        out[(m["subset"], f"{m['llm']}/{m['strategy']}")] = entry
    return out


def subset_names() -> dict[str, str]:
    """Named groups of subsets accepted by ``subset`` (besides subset paths)."""
    return {"llmbar": "the LLMBar benchmark: Natural + the four Adversarial subsets",
            "natural": "LLMBar/Natural", "adversarial": "the four LLMBar/Adversarial subsets",
            "casestudy": "the CaseStudy probes", "all": "every subset"}


def _subsets(subset: str | Sequence[str], known: Sequence[str]) -> list[str]:
    groups = {"llmbar": list(BENCHMARK), "natural": ["LLMBar/Natural"],
              "adversarial": [s for s in BENCHMARK if "/Adversarial/" in s],
              "casestudy": [s for s in known if s.startswith("CaseStudy/")],
              "all": list(known)}
    if isinstance(subset, str):
        if subset in groups:
            return [s for s in groups[subset] if s in known] or groups[subset]
        subset = [subset]
    chosen = list(subset)
    unknown = [s for s in chosen if s not in known]
    if unknown or not chosen:
        raise UsageError(f"subset of llmbar.load must be one of {sorted(groups)} or subset "
                         f"paths from {sorted(known)}; got {unknown or chosen!r}")
    return chosen


def _verdict(results: object, where: str) -> dict:
    dicts = [r for r in results if isinstance(r, dict)] if isinstance(results, list) else []
    if len(dicts) != 1:
        raise DataError(f"{where}: 'results' must hold exactly one verdict object "
                        f"({{'swap = False': ..., 'swap = True': ...}}); found {len(dicts)}")
    return dicts[0]


def _read(path: str | Path) -> list:
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    if not isinstance(data, list):
        raise DataError(f"{path}: expected a JSON list of records; got {type(data).__name__}")
    return data


def _check_options(orders: object, null_pred: object) -> list[str]:
    if null_pred not in NULL_PRED:
        raise UsageError(f"null_pred of llmbar.load must be one of {NULL_PRED}; "
                         f"got {null_pred!r}")
    order_list = ([orders] if isinstance(orders, str)
                  else list(orders) if isinstance(orders, Sequence) else [orders])
    bad = [o for o in order_list if o not in ORDERS]
    if bad or not order_list or len(set(order_list)) != len(order_list):
        raise UsageError(f"orders of llmbar.load must be distinct values from {sorted(ORDERS)}; "
                         f"got {orders!r}")
    return cast(list[str], order_list)  # every entry is a key of ORDERS (checked above)


def convert(files: Mapping[tuple[str, str], str | Path], *,
            orders: Sequence[str] = ("original", "swapped"),
            null_pred: str = "abstain", view: str = "binary") -> pd.DataFrame:
    """Convert upstream ``result.json`` files to the tidy table.

    Parameters
    ----------
    files : mapping
        ``{(subset, "<LLM>/<strategy>"): path}``; every subset needs the same models.
    orders, null_pred, view
        As in :func:`load`.

    Returns
    -------
    pandas.DataFrame
        ``item, model, condition, answer, label``, items in subset then record order, models
        sorted. ``attrs["records"]`` counts the items per subset.
    """
    order_list = _check_options(orders, null_pred)
    from ensel._validation import check_option

    check_option(view, "view", VIEWS)
    if view == "native":
        null_pred = "abstain"  # a blank answer; mapped to the winners below
    subsets = sorted({s for s, _ in files}, key=lambda s: (s not in BENCHMARK, s))
    models = sorted({m for _, m in files})
    missing = [(s, m) for s in subsets for m in models if (s, m) not in files]
    if missing:
        raise UsageError(f"llmbar files: every subset needs every model; missing {missing[:3]}")
    abstain = 0 if null_pred == "abstain" else -1
    rows: list[tuple[str, str, str, int, int]] = []
    n_records: dict[str, int] = {}
    for subset in subsets:
        reference: list[tuple] | None = None
        for model in models:
            path = files[(subset, model)]
            data = _read(path)
            records = []
            for i, rec in enumerate(data):
                where = f"{path} record {i}"
                if not isinstance(rec, dict) or rec.get("label") not in (1, 2):
                    raise DataError(f"{where}: expected a record with 'label' 1 or 2")
                records.append((rec.get("input"), rec.get("output_1"), rec.get("output_2"),
                                rec["label"]))
                verdict = _verdict(rec.get("results"), where)
                label = 1 if rec["label"] == 1 else -1
                for order in order_list:
                    key, condition = ORDERS[order]
                    if key not in verdict:
                        raise DataError(f"{where}: no verdict {key!r}")
                    winner = verdict[key].get("winner") if isinstance(verdict[key], dict) else None
                    answer = _WINNER.get(str(winner), abstain) if winner is not None else abstain
                    rows.append((f"{subset}/{i}", model, condition, answer, label))
            if reference is None:
                reference = records
            elif records != reference:
                raise UsageError(f"{path}: its records differ from those of the other judges of "
                                 f"{subset!r} (every file of a subset must list the same records "
                                 "in the same order)")
        n_records[subset] = len(reference or [])
    df = pd.DataFrame(rows, columns=["item", "model", "condition", "answer", "label"])
    df["answer"] = df["answer"].astype(np.int8)
    df["label"] = df["label"].astype(np.int8)
    item_order = {it: i for i, it in enumerate(dict.fromkeys(df["item"]))}
    cond_order = {ORDERS[o][1]: i for i, o in enumerate(order_list)}
    df = (df.assign(_c=df["condition"].map(cond_order), _i=df["item"].map(item_order))
          .sort_values(["_c", "_i", "model"], kind="stable").drop(columns=["_c", "_i"])
          .reset_index(drop=True))
    df.attrs = {"records": n_records,
                "options": {"orders": order_list, "null_pred": null_pred, "subsets": subsets}}
    if view == "native":
        from ensel.data import validate_responses

        attrs = {**df.attrs, "view": "native"}
        df["answer"] = df["answer"].map(_NATIVE).astype(object)
        df["label"] = df["label"].map(_NATIVE).astype(object)
        df["options"] = "1|2"
        df = validate_responses(df)
        df.attrs = attrs
    return df


def load(*, subset: str | Sequence[str] = "llmbar",
         orders: Sequence[str] = ("original", "swapped"),
         null_pred: str = "abstain", view: str = "binary") -> pd.DataFrame:
    """LLMBar's judges as models, its records as binary queries, as a tidy table.

    Parameters
    ----------
    subset : str or list of str, default="llmbar"
        ``"llmbar"`` (Natural + the four Adversarial subsets), ``"natural"``,
        ``"adversarial"``, ``"casestudy"``, ``"all"``, or subset paths such as
        ``"LLMBar/Adversarial/Neighbor"``.
    orders : list of {"original", "swapped"}, default=("original", "swapped")
        Presentation orders kept, one condition each (``original-order``, ``swapped-order``).
    null_pred : {"abstain", "false"}, default="abstain"
        A verdict that could not be parsed becomes ``0`` (abstention) or ``-1``.
    view : {"binary", "native"}, default="binary"
        ``"native"``: the judges' verdicts as they are, option labels ``"1"``/``"2"`` (the
        better output's number; blank = no verdict; ``options`` ``1|2``). The task is
        binary by nature, so the binary view is the same answers read as ``+1`` (output 1)
        and ``-1`` (output 2): one query per record, not the two queries
        :func:`ensel.datasets.binary.to_binary_view` makes of a multiple-choice question.

    Returns
    -------
    pandas.DataFrame
        ``item, model, condition, answer, label`` (see :func:`convert`).

    Raises
    ------
    ValueError
        Bad options or inconsistent files.
    ensel.datasets._fetch.DataUnavailableError
        The files are neither in the mirror/cache nor downloadable.
    """
    _check_options(orders, null_pred)
    entries = file_entries()
    chosen = _subsets(subset, sorted({s for s, _ in entries}))
    files = {(s, m): _fetch.fetch(e) for (s, m), e in entries.items() if s in chosen}
    return convert(files, orders=orders, null_pred=null_pred, view=view)


def is_available() -> bool:
    """Whether every file is in the mirror or the cache (the network is never probed)."""
    try:
        return _fetch.is_available(NAME)
    except ValueError:
        return False


def upstream_accuracy(df: pd.DataFrame) -> pd.Series:
    """Each (model, condition)'s accuracy: the share of records where its winner is the gold.

    An abstention counts as wrong, as in LLMBar's own scoring of an unparsed verdict.
    """
    right = df["answer"] == df["label"]
    return right.groupby([df["model"], df["condition"]], sort=False).mean()
