"""Prices as data: what one query to each model costs, in US dollars.

A price table gives every model its cost per query (and, where known, its latency). It is
read from one of these forms, all validated the same way:

* **CSV, per query** (the simplest): columns ``model,usd_per_query`` (optional
  ``latency_s``).
* **CSV, per token**: ``model,usd_per_m_input,usd_per_m_output,input_tokens,output_tokens``:
  list prices per million input and output tokens and the mean tokens of one query; the cost
  per query is ``(usd_per_m_input * input_tokens + usd_per_m_output * output_tokens) / 1e6``.
  Prices per token without the token counts are a unit mix-up and are refused.
* **YAML**: a mapping ``model: usd_per_query`` or ``model: {usd_per_query: ...}`` /
  ``model: {usd_per_m_input: ..., usd_per_m_output: ..., input_tokens: ...,
  output_tokens: ...}`` (optional ``latency_s``).
* **The collector's store** (:func:`prices_from_store`): the measured prompt and completion
  tokens of every answer of an ``ensel collect`` store times the run config's
  ``prices.per_million_tokens``; a model's price is the mean over its answers, its latency
  the mean ``latency_s`` (on the command line ``--prices-from-store STORE [--store-config
  CONFIG]``).
* **A** ``cost`` **column of the tidy table** (:func:`prices_from_tidy`): the dollars each
  answer cost; a model's price is the mean over its answers.

Validation (one line, naming the model or row): a duplicated or empty model name, a price
that is missing, not a number, NaN, zero or negative, per-token prices without token counts
(or token counts without per-token prices), and, when the table is matched to the models of
a data set (:meth:`Prices.for_models`), a model of the data with no price (unless
``drop_unpriced=True``, which drops it and says which).

The shipped table (:func:`shipped_prices`, ``data/prices.csv``) prices the models of the
book's real sources from their providers' published list prices, each row with its
provider, the date the price was in force and where it was published; open-weight models
with no list price get one stated rule (the hosted price of their parameter-size tier at
Together AI), and models that fit no rule are left out (``data/prices.md`` lists them).
Token counts per query there are one stated assumption, the same for every model (1,000
input and 300 output tokens), not a measurement: costs compare models of one source, they
are not the bill of any particular run.

Examples
--------
>>> import pandas as pd
>>> p = read_prices(pd.DataFrame({"model": ["a", "b"], "usd_per_query": [0.01, 0.002]}))
>>> p.for_models(["b", "a"])[0].tolist()
[0.002, 0.01]
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ensel._errors import EnselError

__all__ = ["PriceError", "Prices", "read_prices", "prices_from_tidy", "prices_from_store",
           "shipped_prices", "check_budget", "check_costs", "SHIPPED_PRICES", "COST_RTOL",
           "within", "cost_levels"]

#: The shipped price table, as package data (``data/prices.csv`` in a checkout).
SHIPPED_PRICES = "prices.csv"

_TOKEN_COLS = ("usd_per_m_input", "usd_per_m_output", "input_tokens", "output_tokens")


class PriceError(EnselError):
    """A bad price table or budget: one line naming the model, row or parameter."""


@dataclass(frozen=True)
class Prices:
    """A validated price table.

    Attributes
    ----------
    usd_per_query : pandas.Series
        Dollars per query, indexed by model name (all finite and positive).
    latency_s : pandas.Series
        Seconds per query where known (``NaN`` elsewhere), same index.
    table : pandas.DataFrame
        The rows as read (sources, dates, rules, token counts), indexed by model.
    source : str
        Where the table came from (a path, ``"shipped"``, ``"tidy cost column"``).
    """

    usd_per_query: pd.Series = field(repr=False)
    latency_s: pd.Series = field(repr=False)
    table: pd.DataFrame = field(repr=False)
    source: str = ""

    @property
    def models(self) -> list[str]:
        """Priced model names, in table order."""
        return [str(m) for m in self.usd_per_query.index]

    def for_models(self, models: Any, *, drop_unpriced: bool = False
                   ) -> tuple[np.ndarray, list[str], list[str]]:
        """Prices aligned with ``models``.

        Returns ``(usd, kept, dropped)``: ``usd[i]`` is the price of ``kept[i]``; ``kept`` is
        ``models`` in its order, without the unpriced ones when ``drop_unpriced`` (listed in
        ``dropped``). Without ``drop_unpriced`` a model with no price raises
        :class:`PriceError` naming it.
        """
        names = [str(m) for m in models]
        missing = [m for m in names if m not in self.usd_per_query.index]
        if missing and not drop_unpriced:
            more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
            raise PriceError(f"prices: model {missing[0]!r} of the data has no price in "
                             f"{self.source or 'the price table'}{more}; add it or drop "
                             "unpriced models (--drop-unpriced)")
        kept = [m for m in names if m not in missing]
        if not kept:
            raise PriceError(f"prices: none of the data's {len(names)} models has a price in "
                             f"{self.source or 'the price table'}")
        return self.usd_per_query.loc[kept].to_numpy(dtype=float), kept, missing


def _number(value: Any, *, model: str, column: str, where: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise PriceError(f"prices: {column} of model {model!r} ({where}) must be a number; "
                         f"got {value!r}") from None
    if math.isnan(x):
        raise PriceError(f"prices: {column} of model {model!r} ({where}) is missing (NaN)")
    if not math.isfinite(x) or x <= 0:
        raise PriceError(f"prices: {column} of model {model!r} ({where}) must be a positive "
                         f"finite number; got {x!r}")
    return x


def _from_frame(df: pd.DataFrame, source: str, *, row_offset: int = 2,
                lines: list[int] | None = None) -> Prices:
    """The rows of ``df`` validated; ``lines[i]``: the file line of row ``i`` (messages say
    "line N" of a file, "row N" of a table given as such)."""
    if "model" not in df.columns:
        raise PriceError(f"prices: {source} has no 'model' column; columns: {list(df.columns)}")
    has_q = "usd_per_query" in df.columns
    tok = [c for c in _TOKEN_COLS if c in df.columns]
    if not has_q and not tok:
        raise PriceError(f"prices: {source} needs a 'usd_per_query' column, or "
                         f"{', '.join(_TOKEN_COLS)}; columns: {list(df.columns)}")
    usd, lat, names = [], [], []
    for i, row in enumerate(df.to_dict("records")):
        where = f"line {lines[i]}" if lines is not None else f"row {i + row_offset}"
        name = row.get("model")
        if name is None or (isinstance(name, float) and math.isnan(name)) or not str(name).strip():
            raise PriceError(f"prices: {source} {where} has no model name")
        name = str(name).strip()
        if name in names:
            raise PriceError(f"prices: model {name!r} appears twice in {source} ({where})")
        q = row.get("usd_per_query") if has_q else None
        q_given = q is not None and not (isinstance(q, float) and math.isnan(q) and tok)
        if q_given:
            price = _number(q, model=name, column="usd_per_query", where=where)
        else:
            given = {c: row.get(c) for c in _TOKEN_COLS}
            present = [c for c, v in given.items()
                       if v is not None and not (isinstance(v, float) and math.isnan(v))]
            if not present:
                price = _number(q, model=name, column="usd_per_query", where=where)
            else:
                absent = [c for c in _TOKEN_COLS if c not in present]
                if absent:
                    kind = ("token counts" if any(c.endswith("_tokens") for c in absent)
                            else "per-token prices")
                    raise PriceError(f"prices: model {name!r} ({where}) gives "
                                     f"{', '.join(present)} without {', '.join(absent)}: "
                                     f"per-token prices need {kind} to give a cost per "
                                     "query (or give usd_per_query)")
                v = {c: _number(given[c], model=name, column=c, where=where) for c in _TOKEN_COLS}
                price = (v["usd_per_m_input"] * v["input_tokens"]
                         + v["usd_per_m_output"] * v["output_tokens"]) / 1e6
        latency = row.get("latency_s")
        if latency is not None and not (isinstance(latency, float) and math.isnan(latency)):
            latency = _number(latency, model=name, column="latency_s", where=where)
        else:
            latency = math.nan
        names.append(name)
        usd.append(price)
        lat.append(latency)
    if not names:
        raise PriceError(f"prices: {source} lists no model")
    table = df.assign(model=names).set_index("model")
    return Prices(pd.Series(usd, index=names, name="usd_per_query", dtype=float),
                  pd.Series(lat, index=names, name="latency_s", dtype=float), table, source)


def read_prices(prices: Any) -> Prices:
    """Read and validate a price table: a CSV or YAML path, a DataFrame or a mapping.

    Parameters
    ----------
    prices : str, pathlib.Path, pandas.DataFrame, dict or Prices
        See the module text for the forms.

    Returns
    -------
    Prices

    Raises
    ------
    PriceError
        One line naming the model, row or column at fault.
    """
    if isinstance(prices, Prices):
        return prices
    if isinstance(prices, pd.DataFrame):
        return _from_frame(prices, "the price table")
    if isinstance(prices, dict):
        return _from_mapping(prices, "the price mapping")
    path = Path(prices)
    if not path.is_file():
        raise PriceError(f"prices: no such file {str(path)!r}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:  # the price file's, not the data's
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        raise PriceError(f"prices: {path}, line {line}: not UTF-8 text ({exc.reason}); save "
                         "it as UTF-8") from None
    if path.suffix.lower() in (".yml", ".yaml"):
        doc, key_lines = _read_yaml(text, path)
        if not isinstance(doc, dict):
            raise PriceError(f"prices: {path} must be a YAML mapping model -> price; got "
                             f"{type(doc).__name__}")
        return _from_mapping(doc, str(path), key_lines)
    # comments are whole lines starting with '#' (a '#' inside a model name is kept), blank
    # lines are skipped, and every message names the file line (the header is line 1)
    kept = [(n, line) for n, line in enumerate(text.splitlines(), start=1)
            if line.strip() and not line.lstrip().startswith("#")]
    try:
        df = pd.read_csv(io.StringIO("\n".join(line for _, line in kept)),
                         skipinitialspace=True, dtype={"model": str})
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise PriceError(f"prices: {path} is not a readable CSV "
                         f"({' '.join(str(exc).split())})") from None
    lines = [n for n, _ in kept[1:]]
    return _from_frame(df, str(path), lines=lines if len(lines) == len(df) else None)


def _read_yaml(text: str, path: Path) -> tuple[Any, dict[str, int]]:
    """A YAML price file and the line of each top-level key; a key given twice is refused
    (YAML loaders keep the last one silently)."""
    import yaml

    lines: dict[str, int] = {}

    class Loader(yaml.SafeLoader):
        pass

    def mapping(loader: Any, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if key in seen:
                what = "model" if node is loader._top else "key"
                raise PriceError(f"prices: {what} {str(key)!r} appears twice in {path} (lines "
                                 f"{seen[key]} and {line})")
            seen[key] = line
            if node is loader._top:
                lines[str(key).strip()] = line
        return loader.construct_mapping(node, deep=deep)

    def document(loader: Any, node: Any) -> Any:
        return node

    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    try:
        loader = Loader(text)
        try:
            root = loader.get_single_node()
            loader._top = root
            doc = loader.construct_document(root) if root is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        raise PriceError(f"prices: {path} is not readable YAML "
                         f"({' '.join(str(exc).split())})") from None
    return doc, lines


def _from_mapping(doc: dict[Any, Any], source: str,
                  key_lines: dict[str, int] | None = None) -> Prices:
    rows = []
    for name, value in doc.items():
        rows.append({"model": name, **(value if isinstance(value, dict)
                                       else {"usd_per_query": value})})
    lines = None
    if key_lines is not None:
        lines = [key_lines.get(str(name).strip(), 0) for name in doc]
    return _from_frame(pd.DataFrame(rows), source, row_offset=1, lines=lines)


def prices_from_tidy(df: pd.DataFrame) -> Prices:
    """Prices from the optional ``cost`` column of a tidy table (mean dollars per answer)."""
    if "cost" not in df.columns:
        raise PriceError("prices: the tidy table has no 'cost' column")
    cost = pd.to_numeric(df["cost"], errors="coerce")
    bad = cost.isna() & df["cost"].notna()
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise PriceError(f"prices: cost of row {i} (model {df['model'].iloc[i]!r}) must be a "
                         f"number; got {df['cost'].iloc[i]!r}")
    # a negative or infinite cost would be averaged into a price that looks right
    wrong = (cost < 0) | np.isinf(cost)
    if wrong.any():
        i = int(np.flatnonzero(wrong.to_numpy())[0])
        raise PriceError(f"prices: cost of row {i} (model {df['model'].iloc[i]!r}) must be a "
                         f"finite number of dollars >= 0; got {float(cost.iloc[i])!r}")
    mean = cost.groupby(df["model"].astype(str), sort=True).mean()
    return _from_frame(pd.DataFrame({"model": mean.index, "usd_per_query": mean.to_numpy()}),
                       "the tidy table's cost column")


def prices_from_store(store: Any, config: Any = None) -> Prices:
    """Prices (and latencies) measured by ``ensel collect``: the tokens of every answered
    row of the SQLite ``store`` times the per-million-token prices of the run ``config``
    (``data/collect/paper.yml`` format; default: that shipped config, prices as of its
    ``prices.as_of``), averaged per model (the store's model names).

    The store is opened read-only. Raises :class:`PriceError` (one line) for a store that
    does not exist or is not an ``ensel collect`` store, one with no answered row, a model
    whose answered rows lack token counts, and a model with no price in ``config``.
    """
    import sqlite3

    from ensel.collect.config import load_config

    if config is None:
        from ensel.datasets._paths import package_data

        config = package_data("collect", "paper.yml")
    path = Path(store)
    if not path.is_file():
        raise PriceError(f"prices: no store at {str(store)!r} (an ensel collect SQLite file)")
    cfg = load_config(config)
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            t = pd.read_sql_query("SELECT model, model_id, prompt_tokens, completion_tokens, "
                                  "latency_s FROM answers WHERE answer IS NOT NULL", con)
        finally:
            con.close()
    except (sqlite3.Error, pd.errors.DatabaseError) as exc:
        why = " ".join(str(exc).split()).rsplit("': ", 1)[-1]  # pandas quotes the query
        if "locked" in why or "busy" in why:  # a store, in use by another process
            raise PriceError(f"prices: the store {str(store)!r} is locked by another process "
                             f"(an ensel collect run writing to it?): {why}; try again when "
                             "it has finished") from None
        raise PriceError(f"prices: {str(store)!r} is not an ensel collect store (SQLite with "
                         f"an answers table): {why}") from None
    if t.empty:
        raise PriceError(f"prices: the store {str(store)!r} has no answered row")
    untokened = t[t["prompt_tokens"].isna() | t["completion_tokens"].isna()]
    if len(untokened):
        model = str(untokened["model"].iloc[0])
        n = int((untokened["model"] == model).sum())
        raise PriceError(f"prices: model {model!r} has {n} answered row(s) without token "
                         f"counts (prompt_tokens, completion_tokens) in the store "
                         f"{str(store)!r}; give --prices with usd_per_query instead")
    unpriced = sorted(set(t["model_id"].astype(str)) - set(cfg.prices))
    if unpriced:
        model = t.loc[t["model_id"].astype(str) == unpriced[0], "model"].iloc[0]
        raise PriceError(f"prices: model {model!r} ({unpriced[0]}) has no price in "
                         f"{str(config)!r} (prices.per_million_tokens)")
    pin = t["model_id"].map(lambda m: cfg.prices[str(m)][0])
    pout = t["model_id"].map(lambda m: cfg.prices[str(m)][1])
    t = t.assign(usd=(t["prompt_tokens"] * pin + t["completion_tokens"] * pout) / 1e6)
    g = t.groupby("model", sort=True)
    df = pd.DataFrame({"model": list(g.groups), "usd_per_query": g["usd"].mean().to_numpy(),
                       "latency_s": g["latency_s"].mean().to_numpy()})
    return _from_frame(df, f"the store {str(store)!r} priced by {str(config)!r}")


def shipped_prices() -> Prices:
    """The dated list-price table shipped with ensel (``data/prices.csv``; see module text)."""
    from ensel.datasets._paths import package_data

    with package_data(SHIPPED_PRICES).open("rb") as f:
        df = pd.read_csv(f)
    p = _from_frame(df, "the shipped price table (data/prices.csv)")
    return p


def check_costs(costs: Any, n_models: int, *, name: str = "costs") -> np.ndarray:
    """Dollars per query of each of ``n_models`` columns, as an array: one positive finite
    price per model (``None``: 1 each, so a budget counts models).

    The one check of a price vector given to the library (:class:`ensel.budget.BudgetedScoreMI`,
    :class:`ensel.cascade.Cascade`, :func:`ensel.frontier.frontier_errors`); price *tables*
    are checked row by row when read (:func:`read_prices`).

    Examples
    --------
    >>> check_costs([0.5, 2], 2).tolist()
    [0.5, 2.0]
    >>> check_costs([0.5, -1], 2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ensel._validation.InvalidParameterError: costs ... got -1.0 for model 1
    """
    from ensel._validation import Shown, constraint_error

    if costs is None:
        return np.ones(n_models)
    keyed = (isinstance(costs, pd.Series) and not isinstance(costs.index, pd.RangeIndex)
             ) or isinstance(costs, dict)
    if keyed:  # applied by position, a price keyed by name would go to the wrong model
        keys = list(costs.index if isinstance(costs, pd.Series) else costs)
        raise constraint_error(name, "one price per column of X, in column order (a list or "
                               "an array; a Series keyed by model name would be applied by "
                               "position: pass costs[list(X.columns)].to_numpy())",
                               Shown(f"a {type(costs).__name__} keyed by "
                                     f"{', '.join(map(repr, keys[:3]))}"
                                     f"{', ...' if len(keys) > 3 else ''}"))
    try:
        c = np.asarray(costs, dtype=float).ravel()
    except (TypeError, ValueError):
        raise constraint_error(name, "positive finite dollars per query, one per model",
                               costs) from None
    if c.shape != (n_models,):
        raise constraint_error(name, f"one price per model ({n_models} values)",
                               Shown(f"{c.size} values"))
    bad = ~np.isfinite(c) | (c <= 0)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise constraint_error(name, "positive finite dollars per query",
                               Shown(f"{float(c[j])!r} for model {j}"))
    return c


def check_budget(budget: Any, usd: np.ndarray, *, name: str = "budget") -> float:
    """A per-query dollar budget that affords at least the cheapest model.

    Raises :class:`PriceError` naming ``name`` for a non-number, NaN, a non-positive budget
    or one below the cheapest model's price.
    """
    try:
        b = float(budget)
    except (TypeError, ValueError):
        raise PriceError(f"{name} must be a number of dollars per query; got {budget!r}"
                         ) from None
    if not math.isfinite(b) or b <= 0:
        raise PriceError(f"{name} must be a positive finite number of dollars per query; "
                         f"got {budget!r}")
    cheapest = float(np.min(usd))
    if not within(cheapest, b):
        raise PriceError(f"{name} {b:.6g} USD per query is below the cheapest model's price "
                         f"({cheapest:.6g} USD per query): no model fits")
    return b


#: Relative tolerance of every comparison of dollars: a sum of prices added in another
#: order differs in its last bits, never by this much, so no choice is cheaper or over a
#: budget by float noise.
COST_RTOL = 1e-12


def within(cost: Any, budget: Any) -> Any:
    """Whether ``cost`` (dollars per query; a number or an array) is within ``budget`` up
    to float noise (:data:`COST_RTOL`): a bool, or an array of them.

    Examples
    --------
    >>> within(0.1 + 0.2, 0.3), within(0.30001, 0.3)
    (True, False)
    """
    out = np.asarray(cost, dtype=float) <= np.asarray(budget, dtype=float) * (1 + COST_RTOL)
    return bool(out) if out.ndim == 0 else out


def cost_levels(costs: Any) -> list[float]:
    """Each cost as the cheapest of the costs equal to it up to float noise (:func:`within`,
    in ascending order), so that ordering choices by cost never turns on the last bits.

    Examples
    --------
    >>> cost_levels([0.3, 0.1 + 0.2, 0.2])
    [0.3, 0.3, 0.2]
    """
    c = np.asarray(costs, dtype=float).ravel()
    level = c.copy()
    order = np.argsort(c, kind="stable")
    for prev, i in zip(order[:-1], order[1:], strict=True):
        if within(c[i], level[prev]):
            level[i] = level[prev]
    return [float(v) for v in level]
