"""``--labels FILE``: gold in a separate CSV, for ``ensel label-next``, ``select`` and ``report``.

One reader (:func:`labels_file`: columns ``item`` and ``label``, blank = no gold) and one
validation: the labels go through :func:`ensel.fewlabels._gold.read_pool` (:func:`file_pool`),
the check of every gold value of :mod:`ensel.fewlabels`, told the file and the line of each
label, so that a label for an item that is not in the answers, two different labels for one
item and a value that is not a label of the item are refused naming the file, the line, the
column and the value (as the table reader :mod:`ensel.data` names them). :func:`merge_labels`
then adds them to the table's own gold, refusing a label that contradicts it (naming the
item), before the one gold-with-gaps path runs (:func:`ensel.evidence.select_with_gaps`,
:func:`ensel.fewlabels.label_next`); :func:`with_labels` is that step for every command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ensel._errors import DataError, UsageError

__all__: list[str] = []


def labels_file(path: str) -> Any:
    """The gold of a ``--labels`` CSV as a Series indexed by item (text), its blank labels
    left out; ``attrs["lines"]``: the file line of each entry (the header is line 1)."""
    import numpy as np
    import pandas as pd

    f = Path(path).expanduser()
    if not f.is_file():
        raise DataError(f"--labels {path}: no such file")
    try:
        df = pd.read_csv(f, dtype=str, keep_default_na=False)
    except (ValueError, pd.errors.ParserError) as exc:  # not text, or not CSV
        raise DataError(f"--labels {path}: not a CSV of item,label lines "
                        f"({' '.join(str(exc).split())[:200]})") from None
    missing = [c for c in ("item", "label") if c not in df.columns]
    if missing:
        raise DataError(f"--labels {path}: needs the columns item and label; missing "
                        f"{', '.join(missing)} (found {', '.join(map(str, df.columns))})")
    blank = df["item"].str.strip() == ""
    if blank.any():
        raise DataError(f"--labels {path}: line {int(blank.to_numpy().argmax()) + 2} has no "
                        "item")
    label = df["label"].str.strip().to_numpy()
    keep = label != ""
    y = pd.Series(label[keep], index=pd.Index(df["item"].str.strip().to_numpy()[keep],
                                               name="item"), name="label")
    # the line of each label: a row of item,label is one line (the header is line 1)
    y.attrs["lines"] = np.flatnonzero(keep) + 2
    y.attrs["path"] = str(path)
    return y


def file_pool(A: Any, y: Any, keep: Any = None) -> Any:
    """:func:`ensel.fewlabels._gold.read_pool` of the answers ``A`` and the labels ``y`` of
    :func:`labels_file` (``keep``: these entries of ``y`` only), its refusals naming the
    file and the line."""
    import numpy as np

    from ensel.fewlabels._gold import read_pool

    lines = np.asarray(y.attrs["lines"])
    if keep is not None:
        y, lines = y.iloc[keep], lines[keep]
    return read_pool(A, y, f"--labels {y.attrs.get('path', '')}".strip(), lines=lines)


def _file_gold(df: Any, y: Any, path: str, command: str) -> dict[str, Any]:
    """The labels of ``y`` (non-blank) as the table writes them (option label, or ``+1``/
    ``-1``), per item, validated per condition by :func:`ensel.fewlabels._gold.read_pool`."""
    import numpy as np

    from ensel.data import answer_matrix, conditions, is_native, to_wide
    from ensel.fewlabels._gold import check_known

    names = set(map(str, df["item"].unique()))
    check_known(y.index, names, f"--labels {path}", y.attrs["lines"])  # in any condition
    out: dict[str, Any] = {}
    for cond in conditions(df):
        if is_native(df):
            A: Any = answer_matrix(df, cond, validate=False)
            here = set(map(str, A.items))
        else:
            A, _ = to_wide(df, cond, validate=False, gaps=True)
            here = set(map(str, A.index))
        pool = file_pool(A, y, np.flatnonzero([name in here for name in y.index]))
        for i in range(len(pool.items)):
            if pool.gold[i] >= 0:
                v = pool.label_of(i, int(pool.gold[i]))
                out[str(pool.items[i])] = v if pool.options is not None else int(v)
    return out


def merge_labels(df: Any, path: str, command: str) -> tuple[Any, dict[str, Any]]:
    """``df`` (a tidy table as read) with the gold of the ``--labels`` file ``path`` added, and
    where the gold came from: ``{"labels_file", "from": "table" | "file" | "both",
    "n_table", "n_file", "n_both", "words"}`` (items with gold in the table, in the file, in
    both; ``words``: :func:`source_line`, the line the outputs print)."""
    import pandas as pd

    from ensel.data import is_native

    y = labels_file(path)
    native = is_native(df)
    given = _file_gold(df, y, path, command)
    items = df["item"].astype(str)
    table = df.groupby(items, observed=True, sort=False)["label"].first()
    table = table[table.notna()] if native else table[table != 0]
    both = 0
    for name, v in given.items():
        if name not in table.index:
            continue
        t = table[name]
        if (str(t) if native else int(t)) != v:
            shown = (repr(str(t)), repr(v)) if native else (f"{int(t):+d}", f"{v:+d}")
            raise DataError(f"--labels {path}: item {name!r} has the gold {shown[1]} in the "
                            f"file and {shown[0]} in the table; give one gold label per item "
                            "(or leave it blank in one of them)")
        both += 1
    new = items.map(given)
    out = df.copy()
    if native:
        merged = new.where(new.notna(), out["label"].astype(object))
        out["label"] = pd.Categorical(merged)
    else:
        out["label"] = new.fillna(out["label"]).astype(out["label"].dtype)
    n_t, n_f = int(len(table)), len(given)
    where = "both" if n_t and n_f else "file" if n_f else "table"
    source = {"labels_file": path, "from": where, "n_table": n_t, "n_file": n_f,
              "n_both": both}
    return out, {**source, "words": source_line(source)}


def read_with_labels(args: Any, command: str) -> tuple[Any, dict[str, Any] | None]:
    """The answers of ``ensel select``/``report`` (native view, ``--binary`` as asked) with
    the gold of ``--labels`` merged in first (:func:`with_labels`), and where the gold came
    from."""
    from ensel.cli._args import _read

    if getattr(args, "labels", None) is None:
        return _read(args.data, args.format, binary=args.binary, native=True), None
    return with_labels(_read(args.data, args.format, native=True), args, command)


def with_labels(df: Any, args: Any, command: str) -> tuple[Any, dict[str, Any]]:
    """``df`` (the answers as read, the table's items: not yet turned into queries by
    ``--binary``) with the gold of ``--labels`` merged into its own (:func:`merge_labels`),
    then in the binary view when ``--binary`` asks (so the file names the table's items);
    and where the gold came from. The one way ``select``, ``report`` and ``label-next``
    take a labels file."""
    df, source = merge_labels(df, args.labels, command)
    if args.binary:
        from ensel.data import is_native
        from ensel.datasets.binary import to_binary_view

        if is_native(df):
            df = to_binary_view(df, validate=False)
    return df, source


def source_line(source: dict[str, Any]) -> str:
    """One line saying where the gold came from (``source`` of :func:`merge_labels`)."""
    f, t, b = source["n_file"], source["n_table"], source["n_both"]
    def n(count: int) -> str:
        return f"{count:,} item{'' if count == 1 else 's'}"

    parts = ([f"the table ({n(t)})"] if t else []) + [
        f"{source['labels_file']} ({n(f)}" + (f", {b:,} of them also in the table)"
                                              if b else ")")]
    return f"gold from: {' and '.join(parts)}"


def check_labels_option(args: Any) -> None:
    """``--labels`` with prices or ``--budget-usd`` is refused by name (those paths read
    the paper's binary view with full gold)."""
    if getattr(args, "labels", None) is not None and (
            getattr(args, "budget_usd", None) is not None or args.prices is not None
            or getattr(args, "prices_from_store", None) is not None):
        raise UsageError("--labels applies without prices: the buy list and --budget-usd "
                         "need gold for every item in DATA's label column")
