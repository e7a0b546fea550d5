"""``ensel import FORMAT PATH... -o tidy.parquet``: convert answers to the tidy table."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ensel._io import UsageError, check_output, write_atomic
from ensel.cli._args import SEED

__all__ = ["HELP", "add_arguments", "run_command"]

HELP = "convert answers to the tidy table"
DESCRIPTION = "Convert your models' answers to the tidy table."


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``ensel import``."""
    from ensel._files import FORMATS

    seed = SEED
    p.add_argument("format", choices=[*FORMATS, "auto"], metavar="FORMAT",
                   help=f"one of {', '.join(FORMATS)}, or auto")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("-o", "--output", required=True, help="tidy table to write (.parquet/.csv)")
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    p.add_argument("--seed", type=seed, default=0,
                   help="seed of each question's negative option (multiple choice)")
    p.add_argument("--condition", default=None, help="condition written on every row")
    p.add_argument("--gold", default=None, help="wide: name of the gold column")
    p.add_argument("--item", default=None, help="wide: name of the item column")
    p.add_argument("--options", default=None, help="wide: the option set, e.g. A,B,C,D")
    p.add_argument("--correctness", action="store_true",
                   help="wide, binary task: model columns hold 1/0 = right/wrong")
    p.add_argument("--null-pred", choices=["abstain", "false"], default="abstain",
                   help="a choice that could not be parsed (default: abstain)")
    view = p.add_mutually_exclusive_group()
    view.add_argument("--native", action="store_true",
                      help="keep multiple-choice answers as they are: option labels, one row "
                           "per (item, model), an 'options' column (default: the paper's "
                           "binary queries)")
    view.add_argument("--binary", action="store_true",
                      help="write the paper's binary queries, also of a multi-class tidy table")


def run_command(args: Any) -> int:
    """``ensel import`` on parsed arguments (see :mod:`ensel.cli`)."""
    from ensel.datasets.importers import read

    if not args.output.lower().endswith((".parquet", ".pq", ".csv")):
        raise UsageError(f"-o {args.output}: the output must be a .parquet, .pq or .csv file")
    out = check_output(args.output, inputs=args.paths, force=args.force)
    fmt = None if args.format == "auto" else args.format
    options: dict[str, Any] = {}
    if fmt != "tidy":
        options = {"seed": args.seed, "null_pred": args.null_pred}
        if args.condition:
            options["condition"] = args.condition
    wide_only = {"gold": args.gold, "item": args.item, "correctness": args.correctness or None,
                 "options": args.options.split(",") if args.options is not None else None}
    given = {k: v for k, v in wide_only.items() if v is not None}
    if given:
        if fmt not in ("wide", None):
            raise UsageError(f"--{next(iter(given))} applies to the wide format only")
        options.update(given)
    view = "native" if args.native else "binary" if args.binary else None
    df = read(args.paths, format=fmt, view=view, **options)
    if args.condition and fmt == "tidy":
        held = list(df["condition"].unique())
        if len(held) > 1:  # one name for all would pair answers of two conditions as one
            shown = ", ".join(repr(str(c)) for c in held[:3]) + (", ..." if len(held) > 3 else "")
            raise UsageError(f"--condition {args.condition}: the data hold {len(held)} "
                             f"conditions ({shown}); one name for all would merge them into "
                             "duplicate answers; import one condition at a time or drop "
                             "--condition")
        df = df.assign(condition=args.condition)
    csv = out.name.lower().endswith(".csv")
    write_atomic(out, lambda tmp: df.to_csv(tmp, index=False) if csv
                 else df.to_parquet(tmp, index=False), force=args.force)
    print(f"wrote {out}: {len(df):,} answers, {df['item'].nunique():,} items x "
          f"{df['model'].nunique()} models x {df['condition'].nunique()} condition(s)",
          file=sys.stderr)
    return 0
