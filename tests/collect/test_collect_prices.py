"""``--prices-from-store``: the commands that pay in dollars, priced by the tokens a real
``ensel collect`` run measured (the collector's own code against the simulated pool), and
their bad input (exit 2, one line)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from ensel.cli import main
from ensel.collect.collector import collect
from ensel.collect.config import load_config
from ensel.collect.store import Store
from ensel.costs import PriceError, prices_from_store

PRICES = {"sim/gpt-4.1": (2.0, 8.0), "sim/gpt-4o": (2.5, 10.0), "sim/llama-3.1-8b": (0.1, 0.2)}


@pytest.fixture(scope="module")
def run(tmp_path_factory, make_config_module, serve_module) -> dict[str, Path]:
    """A collected store of 3 models over 60 questions (x 2 conditions) priced for all three
    in its config, the tidy table exported from it, and a config pricing only one model."""
    folder = tmp_path_factory.mktemp("store")
    one = make_config_module(folder, n_questions=60)
    text = one.read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.startswith("prices:"))
    per = ", ".join(f"{m}: [{a}, {b}]" for m, (a, b) in PRICES.items())
    full = folder / "full.yml"
    full.write_text(text.replace(line, f'prices: {{as_of: "2025-10-15", per_million_tokens: '
                                       f'{{{per}}}}}'), encoding="utf-8")
    _, cfg = serve_module(load_config(full))
    summary = collect(cfg)
    assert summary.failed == 0
    with Store(cfg.store) as st:
        df = st.export()
    data = folder / "answers.csv"
    df.to_csv(data, index=False)
    return {"store": Path(cfg.store), "config": full, "one_priced": one, "data": data,
            "dir": folder}


@pytest.fixture(scope="module")
def make_config_module():
    from tests.collect.conftest import write_config

    return write_config


@pytest.fixture(scope="module")
def serve_module():
    import dataclasses
    import os

    from ensel.collect.collector import load_queries
    from ensel.collect.simulate import SimulatedPool, SimulatorServer
    from tests.collect.conftest import FAKE_KEY, KEY_ENV

    old = os.environ.get(KEY_ENV)
    os.environ[KEY_ENV] = FAKE_KEY
    servers = []

    def start(cfg):
        server = SimulatorServer(SimulatedPool.from_config(cfg, load_queries(cfg))).start()
        servers.append(server)
        return server, dataclasses.replace(cfg, base_url=server.base_url)

    yield start
    for server in servers:
        server.stop()
    if old is None:
        os.environ.pop(KEY_ENV, None)
    else:
        os.environ[KEY_ENV] = old


def _by_hand(store: Path) -> dict[str, float]:
    """Mean over each model's answered rows of its tokens times its config price."""
    con = sqlite3.connect(store)
    rows = con.execute("SELECT model, model_id, prompt_tokens, completion_tokens FROM answers "
                       "WHERE answer IS NOT NULL").fetchall()
    con.close()
    sums: dict[str, list[float]] = {}
    for model, mid, pt, ct in rows:
        sums.setdefault(model, []).append((pt * PRICES[mid][0] + ct * PRICES[mid][1]) / 1e6)
    return {m: sum(v) / len(v) for m, v in sums.items()}


def _run(capsys, argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_store_prices_the_commands_by_measured_tokens(capsys, run) -> None:
    import json

    expected = _by_hand(run["store"])
    assert len(expected) == 3 and len(set(expected.values())) == 3
    p = prices_from_store(run["store"], run["config"])
    assert p.usd_per_query.to_dict() == pytest.approx(expected, rel=1e-12)
    code, out, err = _run(capsys, ["cascade", run["data"], "--prices-from-store", run["store"],
                                   "--store-config", run["config"], "--splits", "2",
                                   "--json"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["prices"] == f"store:{run['store']}"
    assert dict(zip(doc["order"], doc["usd_per_query"], strict=True)) == pytest.approx(
        {m: expected[m] for m in doc["order"]}, rel=1e-12)
    budget = sorted(expected.values())[1] * 1.01  # the two cheapest fit
    code, out, err = _run(capsys, ["select", run["data"], "--budget-usd", budget,
                                   "--prices-from-store", run["store"], "--store-config",
                                   run["config"], "--splits", "2", "--json"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["cost"] <= budget and {s["model"] for s in doc["selected"]} <= set(expected)
    code, out, err = _run(capsys, ["frontier", run["data"], "--prices-from-store",
                                   run["store"], "--store-config", run["config"],
                                   "--budgets", "3", "--splits", "2", "--no-cascade",
                                   "--json"])
    assert code == 0, err
    assert json.loads(out)["best_single"]["usd_per_query"] == pytest.approx(
        expected[json.loads(out)["best_single"]["model"]], rel=1e-12)


def _edited(run: dict[str, Path], name: str, sql: str) -> Path:
    """A copy of the collected store changed by one SQL statement."""
    path = run["dir"] / name
    shutil.copy(run["store"], path)
    con = sqlite3.connect(path)
    con.execute(sql)
    con.commit()
    con.close()
    return path


def _no_tokens(run: dict[str, Path]) -> Path:
    return _edited(run, "no_tokens.sqlite",
                   "UPDATE answers SET prompt_tokens = NULL WHERE model = 'GPT-4o'")


def _without_a_model(run: dict[str, Path]) -> Path:
    return _edited(run, "two_models.sqlite", "DELETE FROM answers WHERE model = 'LLaMA-3.1-8b'")


def _not_sqlite(run: dict[str, Path]) -> Path:
    path = run["dir"] / "not_a_store.sqlite"
    path.write_text("model,usd_per_query\nx,1\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("case", "store", "config", "extra", "needle"), [
    ("missing store", lambda r: r["dir"] / "nowhere.sqlite", "config", [],
     "no store at '.*nowhere.sqlite'"),
    ("not a store", _not_sqlite, "config", [], "is not an ensel collect store"),
    ("no token counts", _no_tokens, "config", [],
     "model 'GPT-4o' has \\d+ answered row\\(s\\) without token counts"),
    ("model unpriced in the config", lambda r: r["store"], "one_priced", [],
     "model 'GPT-4o' \\(sim/gpt-4o\\) has no price in"),
    ("a model of the data not in the store", _without_a_model, "config", [],
     "LLaMA-3.1-8b"),
    ("both price sources", lambda r: r["store"], "config", ["--prices", "shipped"],
     "--prices or --prices-from-store, not both"),
])
@pytest.mark.parametrize("command", [["frontier"], ["cascade"], ["select", "--budget-usd", "1"]])
def test_bad_stores_exit_2_with_one_line(capsys, run, case, store, config, extra, needle,
                                         command) -> None:
    import re

    argv = [command[0], run["data"], *command[1:], "--prices-from-store", store(run),
            "--store-config", run[config], *extra]
    code, out, err = _run(capsys, argv)
    assert code == 2, (case, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert re.search(needle, err), (case, err)
    if case not in ("both price sources", "a model of the data not in the store"):
        assert f"error: --prices-from-store {store(run)}: " in err  # named by the option
    assert not (run["dir"] / "nowhere.sqlite").exists()  # a missing store is not created


def test_store_config_alone_is_refused(capsys, run) -> None:
    code, _, err = _run(capsys, ["cascade", run["data"], "--store-config", run["config"]])
    assert code == 2 and "give --prices-from-store STORE too" in err


def test_the_library_names_the_model_without_tokens(run) -> None:
    with pytest.raises(PriceError, match="'GPT-4o' has \\d+ answered"):
        prices_from_store(_no_tokens(run), run["config"])
