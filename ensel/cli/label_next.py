"""``ensel label-next DATA [-n 10] [--labels FILE] [--strategy S] [--json]``.

Which unlabelled items to label next so that the choice of ensemble is decided
(:func:`ensel.fewlabels.label_next`). DATA is a tidy table whose gold column has gaps (a
blank label = no gold for the item): a multi-class table is read as it is (option labels),
a binary one (answers and gold ``+1``/``-1``) too; ``--binary`` turns a multi-class table into
the paper's binary queries first (the items without gold are dropped by that view).
``--labels FILE`` gives gold in a separate CSV with columns ``item`` and ``label``
(blank = none), added to DATA's own gold as ``ensel select`` and ``ensel report`` add it
(:func:`ensel.cli._labels.with_labels`): a label that contradicts the table's exits 2
naming the item.

The text output is the current choice (with ``--strategy decisive``) and one line per item:
rank, item, score, reason. ``--json`` prints the schema ``ensel.label-next/1``::

    {"schema": "ensel.label-next/1", "data": [str], "view": "binary" | "native",
     "condition": str, "strategy": str, "n_items": int, "n_labels": int,
     "n_unlabelled": int, "choice": {...FewLabelChoice.to_dict()} | null,
     "items": [{"item": str, "score": float, "reason": str}]}
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ensel._errors import UsageError
from ensel.cli._args import POSITIVE, SEED, _add_format, _k_arg
from ensel.cli._labels import with_labels

__all__ = ["SCHEMA", "add_arguments", "read_labelled", "run_command"]

SCHEMA = "ensel.label-next/1"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``ensel label-next``."""
    from ensel.fewlabels import AGGREGATORS, STRATEGIES

    p.add_argument("data", nargs="+", metavar="DATA",
                   help="answers file(s) whose label column has gaps, or a dataset name")
    p.add_argument("-n", type=POSITIVE, default=10, help="items to label next (default 10)")
    p.add_argument("--labels", default=None, metavar="FILE",
                   help="gold in a separate CSV (columns item,label; blank = none), added "
                        "to DATA's label column (a label contradicting it exits 2 naming "
                        "the item), as ensel select and report read it")
    p.add_argument("--strategy", default="decisive", choices=list(STRATEGIES),
                   help="decisive (what decides the choice; needs one gold label at least), "
                        "disagreement (most divided models first) or random")
    p.add_argument("-k", default="auto", type=_k_arg, help="ensemble size or 'auto'")
    p.add_argument("--method", default="score_mi", metavar="METHOD",
                   help="the selector proposing the ensembles (default score_mi)")
    p.add_argument("--aggregator", default="ds", choices=list(AGGREGATORS),
                   help="how the ensemble answers (default ds: Dawid-Skene)")
    p.add_argument("--condition", default=None, help="use one condition only")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--json", action="store_true", help=f"JSON output (schema {SCHEMA})")
    _add_format(p)


def read_labelled(args: Any) -> tuple[Any, Any, str, str]:
    """The answers, the gold with gaps, the view and the condition of ``ensel label-next``."""
    from ensel.data import answer_matrix, conditions, is_native, to_wide
    from ensel.datasets import read_data

    # the one reader takes gold with gaps in either view (a blank label = no gold)
    data = args.data[0] if len(args.data) == 1 else list(args.data)
    if args.labels is None:
        df = read_data(data, format=args.format, view="binary" if args.binary else None)
    else:  # the file's gold merged into the table's, on the table's items (before --binary)
        df, _ = with_labels(read_data(data, format=args.format,
                                      view="native" if args.binary else None), args,
                            "label-next")
    cond = args.condition if args.condition is not None else str(conditions(df)[0])
    if len(conditions(df)) > 1 and args.condition is None:
        raise UsageError(f"the answers hold {len(conditions(df))} conditions "
                         f"({', '.join(map(str, conditions(df)[:4]))}, ...): choose one "
                         "with --condition")
    if is_native(df):
        A, y, view = answer_matrix(df, args.condition, validate=False), None, "native"
    else:
        X, yy = to_wide(df, args.condition, validate=False, gaps=True)
        A, y, view = X, yy, "binary"
    return A, y, view, cond


def run_command(args: Any) -> int:
    """``ensel label-next`` on parsed arguments."""
    import numpy as np

    from ensel.fewlabels import label_next
    from ensel.fewlabels._gold import read_pool

    A, y, view, cond = read_labelled(args)
    pool = read_pool(A, y, "label-next")
    n_lab = int(pool.labelled.sum())
    n_un = pool.A.shape[0] - n_lab
    if args.n > n_un:
        raise UsageError(f"-n {args.n}: only {n_un:,} of the {pool.A.shape[0]:,} items have no "
                         "gold label; ask for at most that many")
    if n_lab == 0 and args.strategy == "decisive":
        raise UsageError(
            "no item has a gold label: --strategy decisive compares the candidate ensembles "
            f"by their errors, which need at least one label (the selector {args.method} "
            "estimates the information of the answers about the gold). Start with "
            "--strategy disagreement (or random), label those items, then run decisive")
    out = label_next(A, y, args.n, k=args.k, method=str(args.method).replace("-", "_"),
                     aggregator=args.aggregator, seed=args.seed, strategy=args.strategy)
    choice = out.attrs.get("choice")
    doc = {"schema": SCHEMA, "data": list(args.data), "view": view, "condition": cond,
           "strategy": args.strategy, "n_items": int(pool.A.shape[0]), "n_labels": n_lab,
           "n_unlabelled": n_un, "choice": choice,
           "items": [{"item": str(r.item), "score": float(np.round(r.score, 12)),
                      "reason": r.reason} for r in out.itertuples()]}
    if args.json:
        print(json.dumps(doc, indent=1))
        return 0
    print(f"{view} view, condition {cond}: {n_lab:,} items with gold, {n_un:,} without")
    if choice is not None:
        print(f"current choice: {choice['reason']}")
    print(f"label next ({args.strategy}):")
    width = max(len(str(r["item"])) for r in doc["items"])
    for rank, r in enumerate(doc["items"], 1):
        print(f"{rank:>3}  {r['item']:<{width}}  {r['score']:.3g}  {r['reason']}")
    return 0
