"""The protocol object: one description of splits, test fraction, halvings and seed."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import ensel
from ensel import experiment
from ensel.book import protocol as book_protocol
from ensel.datasets import load
from ensel.diagnostics import heldout_curves
from ensel.protocol import LARGE_POOL, PAPER_PROTOCOL, SELECT_PROTOCOL, Protocol

PKG = Path(ensel.__file__).parent


def test_bad_protocols_are_refused_with_one_line() -> None:
    with pytest.raises(ValueError, match=r"n_splits of Protocol must be an int in \[1, inf\)"):
        Protocol(n_splits=0)
    with pytest.raises(ValueError, match="test_fraction of Protocol"):
        Protocol(test_fraction=1.0)
    with pytest.raises(ValueError, match="protocol of heldout_errors must be an ensel.protoc"):
        experiment.heldout_errors([[1], [-1]], [1, -1], protocol={"n_splits": 2})
    # evaluate: the contract's loose numbers or a protocol, never both
    with pytest.raises(ValueError, match="give protocol= or n_splits, not both"):
        experiment.evaluate([], n_splits=3, protocol=Protocol(n_splits=3))


def test_the_large_table_rule() -> None:
    assert SELECT_PROTOCOL.for_table(LARGE_POOL) is SELECT_PROTOCOL
    large = SELECT_PROTOCOL.for_table(LARGE_POOL + 1)
    assert (large.n_splits, large.n_halvings, large.splits_per_half) == (10, 5, 1)
    assert PAPER_PROTOCOL.for_table(10 * LARGE_POOL) == PAPER_PROTOCOL  # no rule: unchanged
    assert PAPER_PROTOCOL.replace(n_splits=7, seed=None).n_splits == 7


def test_every_default_of_the_protocol_reads_the_paper_protocol() -> None:
    # the contract's evaluate (and heldout_curves) spell the three numbers out
    for func in (experiment.evaluate, heldout_curves):
        params = inspect.signature(func).parameters
        assert params["n_splits"].default == PAPER_PROTOCOL.n_splits
        assert params["test_fraction"].default == PAPER_PROTOCOL.test_fraction
    # the others take the protocol alone: one way to pass it
    for func in (experiment.heldout_errors, experiment.half_sample_errors):
        params = inspect.signature(func).parameters
        assert params["protocol"].default is PAPER_PROTOCOL
        assert not {"n_splits", "test_fraction", "seed", "n_halvings"} & set(params), func


def test_no_literal_split_count_or_test_fraction_outside_the_protocol_module() -> None:
    """One edit changes the protocol: no signature repeats 5 splits or the 0.2 fraction."""
    offenders = []
    for path in sorted(PKG.rglob("*.py")):
        if path.name == "protocol.py" and path.parent == PKG:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            a = node.args
            pairs = list(zip(a.args[len(a.args) - len(a.defaults):], a.defaults, strict=True))
            pairs += [(p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)
                      if d is not None]
            for p, d in pairs:
                if p.arg in ("n_splits", "test_fraction", "n_halvings") and \
                        isinstance(d, ast.Constant) and d.value is not None:
                    offenders.append(f"{path.relative_to(PKG)}:{node.name}({p.arg}={d.value})")
    assert offenders == []


def test_another_split_count_runs_the_experiments_page_computation() -> None:
    """The experiments page's calls (splits_for, evaluate, half_sample_errors,
    paired_differences) with a protocol of 3 splits instead of the paper's 5."""
    three = PAPER_PROTOCOL.replace(n_splits=3, n_halvings=2)
    df = load("medmcqa", n_items=300, cache=False)
    df = df[df["condition"].isin(["t0.7-r1", "t0.7-r2"])]
    n_splits, why = book_protocol.splits_for("medmcqa", 2, None, protocol=three)
    assert n_splits == 3 and why.startswith("3 splits per condition, the paper's protocol")
    results = experiment.evaluate(df, ks=[1, 2], protocol=three, selectors=["topk", "greedy_mi"],
                                  aggregators=["map"])
    assert sorted(results["split"].unique()) == [0, 1, 2]
    assert len(results) == 2 * 3 * 2 * 2  # conditions x splits x selectors x budgets
    reps = experiment.half_sample_errors(df, ks=[1, 2], protocol=three,
                                         selectors=["topk", "greedy_mi"], aggregators=["map"])
    assert sorted(reps["halving"].unique()) == [0, 1]
    diffs = experiment.paired_differences(results, "greedy_mi", "topk", "map", n_boot=0,
                                          replicates=reps)
    assert (diffs["n"] == 6).all()
    # the same numbers as the explicit arguments
    same = experiment.evaluate(df, ks=[1, 2], n_splits=3, selectors=["topk", "greedy_mi"],
                               aggregators=["map"])
    assert same.equals(results)


def test_paired_differences_return_the_standard_error_behind_the_interval() -> None:
    from scipy.special import stdtrit

    df = load("medmcqa", n_items=300, cache=False)
    results = experiment.evaluate(df, ks=[2], n_splits=2, selectors=["topk", "greedy_mi"],
                                  aggregators=["map"])
    d = experiment.paired_differences(results, "greedy_mi", "topk", "map", n_boot=0)
    t = stdtrit(d["n"] - 1, 0.975)
    assert ((d["ci_high"] - d["ci_low"]) / 2 / t - d["se"]).abs().max() < 1e-12
