"""``--labels FILE``: gold in a separate CSV, for ``ensel label-next``, ``select`` and ``report``.

One reader (:func:`labels_file`: columns ``item`` and ``label``, blank = no gold) and one
validation: the labels go through :func:`ensel.fewlabels._gold.read_pool`, as in
``ensel label-next``, which names a label for an item that is not in the answers, two
different labels for one item and a value that is not a label of the item. :func:`merge_labels`
then adds them to the table's own gold, refusing a label that contradicts it (naming the
item), before the one gold-with-gaps path runs (:func:`ensel.evidence.select_with_gaps`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ensel._errors import DataError, UsageError

__all__: list[str] = []


def labels_file(path: str) -> Any:
    """The gold of a ``--labels`` CSV as a Series indexed by item (text)."""
    import pandas as pd

    f = Path(path).expanduser()
    if not f.is_file():
        raise DataError(f"--labels {path}: no such file")
    df = pd.read_csv(f, dtype=str, keep_default_na=False)
    missing = [c for c in ("item", "label") if c not in df.columns]
    if missing:
        raise DataError(f"--labels {path}: needs the columns item and label; missing "
                        f"{', '.join(missing)} (found {', '.join(map(str, df.columns))})")
    blank = df["item"].str.strip() == ""
    if blank.any():
        raise DataError(f"--labels {path}: line {int(blank.to_numpy().argmax()) + 2} has no "
                        "item")
    return pd.Series(df["label"].str.strip().to_numpy(), index=pd.Index(
        df["item"].str.strip().to_numpy(), name="item"), name="label")


def _file_gold(df: Any, y: Any, path: str, command: str) -> dict[str, Any]:
    """The labels of ``y`` (non-blank) as the table writes them (option label, or ``+1``/
    ``-1``), per item, validated per condition by :func:`ensel.fewlabels._gold.read_pool`."""
    from ensel.data import answer_matrix, conditions, is_native, to_wide
    from ensel.fewlabels._gold import read_pool

    names = set(map(str, df["item"].unique()))
    stray = [name for name in y.index if name not in names]
    if stray:
        raise DataError(f"--labels {path}: a label for item {stray[0]!r}, which is not in "
                        f"the answers ({len(names):,} items)"
                        + (f"; {len(stray) - 1:,} more such items" if len(stray) > 1 else ""))
    out: dict[str, Any] = {}
    for cond in conditions(df):
        if is_native(df):
            A: Any = answer_matrix(df, cond, validate=False)
            here = set(map(str, A.items))
        else:
            A, _ = to_wide(df, cond, validate=False, gaps=True)
            here = set(map(str, A.index))
        pool = read_pool(A, y[[name in here for name in y.index]], command)
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
    y = y[y != ""]
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
    the gold of ``--labels`` merged in first (before ``--binary`` turns the questions into
    queries, so the file names the table's items), and where the gold came from."""
    from ensel.cli._args import _read

    if getattr(args, "labels", None) is None:
        return _read(args.data, args.format, binary=args.binary, native=True), None
    df = _read(args.data, args.format, native=True)
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
