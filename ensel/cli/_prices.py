"""What the commands that pay in dollars share: the price options, reading the data and
the prices, and the interval of a per-split value.

Used by ``ensel select --budget-usd`` (:mod:`ensel.cli.select`), ``ensel frontier``
(:mod:`ensel.cli.frontier`) and ``ensel cascade`` (:mod:`ensel.cli.cascade`). A price table
missing a model of the data is an error (exit 2) unless ``--drop-unpriced``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["add_price_arguments", "add_common_arguments", "prepare", "interval"]


def add_price_arguments(p: Any) -> None:
    """``--prices``, ``--prices-from-store`` (with ``--store-config``), ``--drop-unpriced``."""
    p.add_argument("--prices", default=None, metavar="P",
                   help="price table (CSV model,usd_per_query or per-token columns; YAML); "
                        "'shipped' for ensel's dated list prices; 'tidy' for the data's own "
                        "cost column (mean USD per answer)")
    p.add_argument("--prices-from-store", default=None, metavar="STORE",
                   help="price each model by its measured tokens: the ensel collect SQLite "
                        "STORE's prompt and completion tokens of every answer times the "
                        "per-million-token prices of --store-config (instead of --prices)")
    p.add_argument("--store-config", default=None, metavar="CONFIG",
                   help="the run config whose prices.per_million_tokens price the store "
                        "(default: ensel's shipped paper.yml, prices as of its as_of date)")
    p.add_argument("--drop-unpriced", action="store_true",
                   help="drop the data's models that have no price (default: error)")
    from ensel.budget import EQUIVALENCE_MARGIN

    p.add_argument("--margin", type=_margin, default=None, metavar="E",
                   help="equivalence margin in held-out error (default "
                        f"{EQUIVALENCE_MARGIN:g}): the cheapest choice whose mean error "
                        "exceeds the best's by at most one standard error of the paired "
                        "difference, or at most E, is recommended (ensel.budget)")


def _margin(text: str) -> float:
    import argparse
    import math

    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1); got {text!r}") from None
    if not (math.isfinite(v) and 0 < v < 1):
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1); got {text!r}")
    return v


def add_common_arguments(p: Any, *, cascade_only: bool = False) -> None:
    """DATA, the prices and the protocol's options shared by ``frontier`` and ``cascade``
    (``cascade_only``: ``--aggregator`` offers only the aggregators with a posterior)."""
    p.add_argument("data", nargs="+", metavar="DATA",
                   help="answers file(s) or a dataset name (ensel datasets list)")
    add_price_arguments(p)
    from ensel.aggregate import AGGREGATORS
    from ensel.cascade import posterior_aggregators
    from ensel.cli._args import POSITIVE, SEED, _add_format, _int_at_least

    posterior = posterior_aggregators()
    voters = [a for a in AGGREGATORS if a not in posterior]
    p.add_argument("--aggregator", default="backoff", type=str.lower,
                   choices=posterior if cascade_only else list(AGGREGATORS),
                   help="any case; default backoff" + (
                       "" if cascade_only else f" ({', '.join(voters)} only with --no-cascade: "
                       "the cascade needs a posterior)"))
    p.add_argument("--splits", type=_int_at_least(2, "an integer >= 2"), default=5,
                   help="random 80/20 splits per condition (at least 2: an interval needs "
                        "two)")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--max-models", type=POSITIVE, default=20,
                   help="largest number of models of a subset or of the cascade's order")
    p.add_argument("--json", action="store_true")
    _add_format(p)


def prepare(args: Any) -> tuple[list[Any], np.ndarray, list[str], str]:
    """Read the data and the prices; the conditions (priced models only), their prices,
    the dropped models and the price table's name."""
    from ensel._errors import UsageError
    from ensel.cli._args import _read
    from ensel.costs import (
        PriceError,
        prices_from_store,
        prices_from_tidy,
        read_prices,
        shipped_prices,
    )
    from ensel.experiment import condition_data

    if getattr(args, "no_cascade", True) is False:  # ensel frontier with its cascade
        from ensel.cascade import posterior_aggregators

        if args.aggregator not in posterior_aggregators():
            raise UsageError(f"--aggregator {args.aggregator} only votes, and the frontier's "
                             "cascade needs a posterior (predict_proba): give one of "
                             f"{', '.join(posterior_aggregators())}, or --no-cascade")
    store = getattr(args, "prices_from_store", None)
    if args.prices is not None and store is not None:
        raise UsageError("give --prices or --prices-from-store, not both")
    if getattr(args, "store_config", None) is not None and store is None:
        raise UsageError("--store-config prices a store: give --prices-from-store STORE too")
    if args.prices is None and store is None:
        raise UsageError("--prices is required: a price table (CSV or YAML), 'shipped' or "
                         "'tidy' (the data's cost column); or --prices-from-store STORE")
    if store is not None:  # before the data: a bad store fails fast
        try:
            prices = prices_from_store(store, args.store_config)
        except PriceError as exc:  # about the store, not the data: named by the option
            raise UsageError(f"--prices-from-store {store}: "
                             f"{str(exc).removeprefix('prices: ')}") from None
    df = _read(args.data, args.format, binary=args.binary)
    if store is None:
        try:
            prices = (shipped_prices() if args.prices == "shipped"
                      else prices_from_tidy(df) if args.prices == "tidy"
                      else read_prices(args.prices))
        except PriceError as exc:  # about the price table: named by the option, not DATA
            raise UsageError(f"--prices {args.prices}: "
                             f"{str(exc).removeprefix('prices: ')}") from None
    one = getattr(args, "condition", None)  # ensel select --condition
    chosen = None if one is None else [one]
    data = condition_data(df, chosen, validate=False)
    # the models of the conditions used, not of every condition: a model only another
    # condition holds needs no price
    models = sorted({str(m) for d in data for m in d.models})
    usd, kept, dropped = prices.for_models(models, drop_unpriced=args.drop_unpriced)
    if dropped:
        from ensel._notice import notice

        notice(f"{len(dropped)} unpriced model(s) dropped: {', '.join(dropped)}")
        data = condition_data(df[df["model"].astype(str).isin(kept)], chosen, validate=False)
    other = next((d for d in data if d.models != data[0].models), None)
    if other is not None:  # one price vector serves every condition: the same pool in each

        def only(a: Any, b: Any) -> str:  # the models that differ, never cut off
            names = [m for m in a.models if m not in set(b.models)]
            return f"only {a.condition!r} has {', '.join(map(repr, names))}" if names else ""

        diff = "; ".join(t for t in (only(data[0], other), only(other, data[0])) if t) or (
            f"{data[0].condition!r} and {other.condition!r} order them differently")
        raise UsageError(f"the conditions hold different models ({diff}); prices apply to one "
                         "pool of models: give data whose conditions hold the same models")
    order = {m: i for i, m in enumerate(kept)}
    usd = np.array([usd[order[m]] for m in data[0].models])
    del df  # pivoted: the conditions' arrays are all that is used from here
    from ensel._files import release_read_memory

    release_read_memory()
    return data, usd, dropped, str(args.prices) if store is None else f"store:{store}"


def interval(v: np.ndarray, clip: bool = True, low: float = 0.0,
             high: float = float("inf")) -> tuple[float, float, float]:
    """Mean and 95 % interval of per-split values (the protocol's 80/20 overlap correction);
    errors clipped to [0, 1], costs (``clip=False``) to [``low``, ``high``]: what the choice
    can cost at least (the price of the first model it asks) and at most (the budget of a
    subset picked within it)."""
    from ensel.budget import mean_interval as interval

    return interval(v, 0.2, 0.95, clip=(0.0, 1.0) if clip else (float(low), float(high)))
