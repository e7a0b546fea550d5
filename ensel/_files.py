"""Input files: what a file holds, judged by its content, and reading tables from it.

The one place that guesses a file's format: :func:`sniff` (magic bytes: gzip, Parquet, zip,
UTF-16, JSON, binary, text), the names of table files (:data:`TABLE_SUFFIXES`,
:func:`is_table_name`) and of lm-evaluation-harness logs (:func:`is_samples_name`), the one
JSON member of a zip (:func:`one_json_member`), and reading a CSV (plain or gzip, with pyarrow;
the header checked for another separator, Excel's ``sep=`` hint and repeated names) or Parquet
file into text-keyed columns, with messages that name the file and its line or row.
:mod:`ensel.data` (the tidy table's schema and validation), :mod:`ensel.datasets` (``load``),
its importers and the wide reader all read files through here.
"""

from __future__ import annotations

import csv
import errno
import gzip
import os
import zipfile
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ensel._errors import DataError

if TYPE_CHECKING:  # imported where a table is read: the command line parses without it
    import pandas as pd

__all__ = [
    "FORMATS",
    "TABLE_SUFFIXES",
    "DirectoryGivenError",
    "MissingFileError",
    "as_text",
    "check_table_file",
    "csv_names",
    "is_samples_name",
    "is_table_name",
    "line_counter",
    "one_json_member",
    "read_table",
    "refuse_kind",
    "refuse_link_loop",
    "release_read_memory",
    "sniff",
]


class MissingFileError(DataError, FileNotFoundError):
    """An input file that does not exist."""


class DirectoryGivenError(DataError, IsADirectoryError):
    """A folder where an input file was expected."""


#: The formats the importers read (:mod:`ensel.datasets.importers`), and one line on each;
#: here, without pandas, so that the command line's ``--format`` costs nothing to parse.
FORMATS: dict[str, str] = {
    "tidy": "tidy table: item, model, [condition,] answer, label (CSV/Parquet)",
    "wide": "one row per item, one column per model, one gold column (CSV/Parquet)",
    "lm-eval": "lm-evaluation-harness --log_samples samples_*.jsonl (several models)",
    "mmlu-pro": "MMLU-Pro per-question outputs (JSON list of records, or a zip of one)",
}

#: The names of a tidy or wide table file (its content decides how it is read).
TABLE_SUFFIXES = (".csv", ".csv.gz", ".parquet", ".pq")


def is_table_name(name: str | os.PathLike[str]) -> bool:
    """Whether a file name ends like a table (:data:`TABLE_SUFFIXES`, any case).

    Examples
    --------
    >>> is_table_name("Answers.CSV.gz"), is_table_name("model_outputs.json")
    (True, False)
    """
    return str(name).lower().endswith(TABLE_SUFFIXES)


def is_samples_name(name: str | os.PathLike[str]) -> bool:
    """Whether a file is named like an lm-evaluation-harness samples file
    (``samples_<task>_<timestamp>.jsonl``)."""
    base = os.path.basename(os.fspath(name))
    return base.startswith("samples_") and base.endswith(".jsonl")


def one_json_member(zf: zipfile.ZipFile, shown: str) -> bytes:
    """The bytes of the one ``.json`` member of a zip archive (MMLU-Pro's zipped outputs);
    another count is refused naming ``shown`` and the members found."""
    members = [n for n in zf.namelist() if n.endswith(".json")]
    if len(members) != 1:
        raise DataError(f"{shown}: expected one JSON file in the zip, found {members}")
    return zf.read(members[0])


def sniff(path: str | os.PathLike[str]) -> str:
    """What a file holds, from its first bytes (never its name).

    Returns ``"gzip"`` (``1f 8b``), ``"parquet"`` (``PAR1``), ``"zip"`` (``PK``),
    ``"utf16"`` (a UTF-16 byte-order mark, as Excel's "Unicode Text" writes),
    ``"json"`` (text starting with ``{`` or ``[``), ``"binary"`` (a NUL byte in the first
    KiB) or ``"text"``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.csv"
    >>> _ = p.write_bytes(b"PAR1....")
    >>> sniff(p)
    'parquet'
    """
    with open(path, "rb") as fh:
        head = fh.read(1024)
    if head[:2] == b"\x1f\x8b":
        return "gzip"
    if head[:4] == b"PAR1":
        return "parquet"
    if head[:2] == b"PK":
        return "zip"
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "utf16"
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if text[:1] in (b"{", b"["):
        return "json"
    if b"\x00" in head:
        return "binary"
    return "text"


def refuse_kind(kind: str, shown: str, hint: str = "") -> None:
    """Refuse a file that :func:`sniff` says is not a CSV or Parquet table, naming it.

    Examples
    --------
    >>> refuse_kind("utf16", "t.csv")
    Traceback (most recent call last):
    ...
    ensel._errors.DataError: t.csv: the file is UTF-16 text (Excel's "Unicode Text"); save it \
as "CSV UTF-8" (comma-separated) and give that file
    """
    if kind == "utf16":
        raise DataError(f"{shown}: the file is UTF-16 text (Excel's \"Unicode Text\"); save it "
                        "as \"CSV UTF-8\" (comma-separated) and give that file")
    if kind in ("zip", "json", "binary"):
        what = {"zip": "a zip archive", "json": "JSON", "binary": "binary data"}[kind]
        raise DataError(f"{shown}: the file holds {what}, not a CSV or Parquet table{hint}")


def refuse_link_loop(path: str | os.PathLike[str]) -> None:
    """Refuse a path whose symbolic links lead back to themselves (naming it), where
    ``exists`` would only say "no such file" and ``resolve`` raise a ``RuntimeError``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "loop.csv"
    >>> p.symlink_to(p)
    >>> refuse_link_loop(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ensel._errors.DataError: .../loop.csv: a symbolic link loop (the link leads back to \
itself); give the real file
    """
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise DataError(f"{path}: a symbolic link loop (the link leads back to itself); "
                            "give the real file") from None


def check_table_file(path: str | os.PathLike[str]) -> tuple[Path, str]:
    """The path of a table file (existence, folder, suffix, emptiness checked) and its name
    as shown in messages (as given)."""
    shown = str(path)
    p = Path(path).expanduser()
    refuse_link_loop(p)
    if p.is_dir():
        raise DirectoryGivenError(
            f"responses path {shown!r} is a directory, not a file; give the path of a "
            ".csv, .csv.gz, .parquet or .pq file inside it"
        )
    if not is_table_name(p.name):
        raise DataError(
            f"cannot read {shown!r}: unsupported file type; expected a .csv, .csv.gz, "
            ".parquet or .pq file"
        )
    if not p.is_file():
        where = "" if p.is_absolute() else f" (relative to the current folder {Path.cwd()})"
        raise MissingFileError(f"responses file {str(p)!r} does not exist{where}")
    if p.stat().st_size == 0:
        raise DataError(f"{shown}: the file is empty")
    return p, shown


def as_text(values: pd.Index, col: str, src: str) -> pd.Index:
    """Names kept as text (a file's ids are text: ``01`` and ``1`` are two items)."""
    import pandas as pd

    if values.dtype != object and pd.api.types.is_string_dtype(values.dtype):
        return values  # a text dtype (categories hold no missing value)
    if values.dtype == object and pd.api.types.infer_dtype(values, skipna=False) == "string":
        return values
    text = pd.Index([v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
                     for v in values])
    if text.has_duplicates:
        same = text[text.duplicated()][0]
        raise DataError(f"{src}: column {col!r} holds two values written {same!r}; give each "
                        f"{col} one spelling")
    return text


def read_table(p: Path, shown: str, text_columns: Sequence[str]) -> tuple[pd.DataFrame, str, int]:
    """A table file by its content: the frame, how its rows are numbered, the first number."""
    kind = sniff(p)
    if kind == "parquet":
        return _read_parquet(p, shown, text_columns), "row", 0
    refuse_kind(kind, shown, " (MMLU-Pro outputs: ensel import mmlu-pro)"
                if kind in ("zip", "json") else "")
    return _read_csv(p, shown, text_columns, gz=kind == "gzip"), "line", 2


def release_read_memory() -> None:
    """Give the memory Arrow kept from reading tables back to the system, once the frames
    read from them are gone (Arrow's allocator keeps freed blocks for reuse: after reading
    20 million answers and pivoting them, about 400 MB the command would never use again)."""
    import sys

    pa = sys.modules.get("pyarrow")  # nothing was read through Arrow without it
    if pa is not None:
        pa.default_memory_pool().release_unused()


def _header(p: Path, shown: str, gz: bool) -> str:
    try:
        with (gzip.open(p, "rb") if gz else open(p, "rb")) as fh:
            first = fh.readline()
        header = first.removeprefix(b"\xef\xbb\xbf").decode("utf-8").rstrip("\r\n")
    except UnicodeDecodeError:
        raise DataError(f"{shown}, line 1: the header is not UTF-8 text; save the file as "
                        "UTF-8") from None
    except (OSError, EOFError, zlib.error) as exc:
        raise DataError(f"{shown}: cannot decompress ({exc}); is the .gz file complete?"
                        ) from None
    if header.strip().lower().startswith("sep=") and len(header.strip()) <= 6:
        raise DataError(f"{shown}, line 1: {header.strip()!r} is Excel's separator hint, not "
                        "the header; delete that first line (or save as \"CSV UTF-8\")")
    return header


def csv_names(p: Path, shown: str, gz: bool) -> list[str]:
    """Column names of a CSV file's header; a separator other than ``,`` and a column named
    twice are refused (naming line 1)."""
    header = _header(p, shown, gz)
    names = next(csv.reader([header]), [])
    if len(names) <= 1:
        for sep in (";", "\t", "|"):
            if sep in header:
                raise DataError(
                    f"{shown}, line 1: the columns are separated by {sep!r}, not by commas "
                    f"(header {header[:60]!r}); save the table as comma-separated CSV"
                )
    unnamed = [i + 1 for i, name in enumerate(names) if not name.strip()]
    if len(unnamed) > 1:
        cols = ", ".join(str(i) for i in unnamed[:5]) + (" ..." if len(unnamed) > 5 else "")
        raise DataError(f"{shown}, line 1: the header has {len(unnamed)} unnamed columns "
                        f"(columns {cols}), such as the empty columns a spreadsheet saves as "
                        "',,' at the end of each line; delete them or give them names")
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise DataError(f"{shown}, line 1: the header names the column {name!r} twice")
        seen.add(name)
    return names


def line_counter(p: Path, gz: bool) -> Callable[[int], int]:
    """``j -> `` the line of a CSV file where data row ``j`` is (the header is line 1; blank
    lines, which the reader skips, are counted): only called to name a row in a message."""

    def line_of(j: int) -> int:
        row = -1
        try:
            with (gzip.open(p, "rb") if gz else open(p, "rb")) as fh:
                for number, line in enumerate(fh, start=1):
                    if number == 1 or not line.strip(b"\r\n"):
                        continue
                    row += 1
                    if row == j:
                        return number
        except (OSError, EOFError, zlib.error):
            pass
        return j + 2  # one line per row

    return line_of


def _find_line(p: Path, gz: bool, test: Callable[[bytes], bool]) -> int | None:
    """Number of the first line of the file for which ``test(raw bytes)`` is true."""
    try:
        with (gzip.open(p, "rb") if gz else open(p, "rb")) as fh:
            for number, line in enumerate(fh, start=1):
                if test(line):
                    return number
    except (OSError, EOFError, zlib.error):
        return None
    return None


def _not_utf8(line: bytes) -> bool:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _read_csv(p: Path, shown: str, text_columns: Sequence[str], *, gz: bool) -> pd.DataFrame:
    """A CSV file (plain or gzip) with pyarrow: every column as text, ids dictionary-coded."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    names = csv_names(p, shown, gz)
    text = pa.dictionary(pa.int32(), pa.string())
    types = {n: (text if n in text_columns else pa.string()) for n in names}
    convert = pacsv.ConvertOptions(column_types=types, strings_can_be_null=False,
                                   quoted_strings_can_be_null=False)

    def parse(newlines_in_values: bool) -> pa.Table:
        source = pa.input_stream(str(p), compression="gzip" if gz else None)
        return pacsv.read_csv(source, convert_options=convert, parse_options=pacsv.ParseOptions(
            newlines_in_values=newlines_in_values))

    try:
        try:
            table = parse(False)  # the fast, parallel parse
        except pa.ArrowInvalid as exc:
            if "Expected" not in str(exc):
                raise
            table = parse(True)  # a quoted cell may hold a line break
    except pa.ArrowInvalid as exc:
        msg = str(exc)
        if "UTF8" in msg:
            line = _find_line(p, gz, _not_utf8)
            at = f", line {line}" if line else ""
            raise DataError(f"{shown}{at}: not UTF-8 text; save it as UTF-8") from None
        if "Expected" in msg and "columns" in msg:
            width = len(names)
            line = _find_line(p, gz, lambda b: len(next(csv.reader(
                [b.decode("utf-8", "replace")]), [])) not in (width, 0))
            at = f", line {line}" if line else ""
            raise DataError(f"{shown}{at}: expected {width} comma-separated fields like the "
                            f"header; {msg.split(':', 1)[-1].strip()[:80]}") from None
        raise DataError(f"{shown}: not a readable CSV file ({msg[:120]})") from None
    except (OSError, EOFError, zlib.error) as exc:
        raise DataError(f"{shown}: cannot read the compressed data ({exc}); is the .gz "
                        "file complete?") from None
    return table.to_pandas(split_blocks=True, self_destruct=True)


def _read_parquet(p: Path, shown: str, text_columns: Sequence[str]) -> pd.DataFrame:
    """A Parquet file with pyarrow; the id columns dictionary-encoded by Arrow (text columns
    read as dictionaries, others encoded after reading: integer codes, not 20 million Python
    objects or a pandas hash table), then text categoricals.

    One column at a time, each given back to the system once in pandas: the whole Arrow
    table at once, with the pandas copy beside it and what Arrow's allocator keeps, took
    twice the memory (0.9 GB for 20 million answers, against 0.5 GB)."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    columns: dict[str, pd.Series] = {}
    try:
        schema = pq.read_schema(p)
        # a pandas index written as a column stays out of the table, as pandas reads it
        index = {c for c in (schema.pandas_metadata or {}).get("index_columns", [])
                 if isinstance(c, str)}
        for name in (n for n in schema.names if n not in index):
            textual = name in text_columns and (
                pa.types.is_string(schema.field(name).type)
                or pa.types.is_large_string(schema.field(name).type))
            col = pq.read_table(p, columns=[name],
                                read_dictionary=[name] if textual else None).column(0)
            if name in ("item", "model", "condition") and not pa.types.is_dictionary(col.type):
                try:
                    col = pc.dictionary_encode(col)
                except (pa.ArrowNotImplementedError, pa.ArrowTypeError):
                    pass  # a type Arrow cannot encode: pandas factorizes it below
            table = pa.table({name: col})
            del col
            columns[name] = table.to_pandas(split_blocks=True, self_destruct=True)[name]
            del table
            pa.default_memory_pool().release_unused()
        df = pd.DataFrame(columns)
    except Exception as exc:  # pyarrow raises several types for a damaged file
        raise DataError(f"{shown}: cannot read as Parquet ({type(exc).__name__}: "
                        f"{str(exc)[:120]}); is it a complete Parquet file?") from None
    del columns
    for col in ("item", "model", "condition"):
        if col in df.columns and not isinstance(df[col].dtype, pd.CategoricalDtype):
            codes, uniques = pd.factorize(df[col], use_na_sentinel=True)
            df[col] = pd.Categorical.from_codes(codes, categories=as_text(
                pd.Index(uniques), col, shown))
        elif col in df.columns:
            cat = df[col].array
            text = as_text(cat.categories, col, shown)
            if text is not cat.categories:  # the same codes, the names as text
                df[col] = pd.Categorical.from_codes(cat.codes, dtype=pd.CategoricalDtype(text),
                                                    validate=False)
    return df
