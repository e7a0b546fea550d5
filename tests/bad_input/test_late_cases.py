"""The last late or misleading refusals of issue 28.

An output path under a regular file names that file; a scipy sparse matrix is refused as one
(with ``.toarray()``); a ``sample_weight`` of the wrong length names ``sample_weight`` and both
lengths; ``--method`` is read in any case (``EXHAUSTIVE`` runs the exhaustive scan);
``evaluate(seed=-1)`` names ``seed``; a notebook parameter naming an unknown dataset is refused
before the page runs, with the known datasets.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from ensel._io import NotebookRunError
from ensel.aggregate import AGGREGATORS
from ensel.select import SELECTORS

from .conftest import assert_usage_error, run_cli

X = np.array([[1, -1, 1], [-1, 1, 1], [1, 1, -1], [-1, -1, -1], [1, -1, -1], [-1, 1, 1]])
Y = np.array([1, -1, 1, -1, 1, -1])


def _tidy(n_items: int = 40, n_models: int = 4, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.choice([-1, 1], n_items)
    rows = []
    for j in range(n_models):
        right = rng.random(n_items) < 0.6 + 0.08 * j
        for i in range(n_items):
            rows.append({"item": f"q{i}", "model": f"m{j}",
                         "answer": int(y[i] if right[i] else -y[i]), "label": int(y[i])})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- -o under a file
def test_an_output_path_under_a_file_names_the_file(tmp_path, capsys) -> None:
    src = tmp_path / "t.csv"
    _tidy().to_csv(src, index=False)
    blocker = tmp_path / "existing_file"
    blocker.write_text("not a folder\n", encoding="utf-8")
    r = run_cli(["import", "tidy", src, "-o", blocker / "x.parquet"], capsys)
    line = assert_usage_error(r, "import", f"{blocker}", "is a file, not a folder")
    assert "exists" not in line
    assert blocker.read_text(encoding="utf-8") == "not a folder\n"
    deeper = run_cli(["import", "tidy", src, "-o", blocker / "sub" / "x.parquet"], capsys)
    assert_usage_error(deeper, "import", f"{blocker} is a file, not a folder")


# --------------------------------------------------------------------------- sparse matrices
def _estimators():
    for name, cls in sorted(SELECTORS.items()):
        yield f"select.{name}", lambda cls=cls: cls(k=1)
    for name, cls in sorted(AGGREGATORS.items()):
        yield f"aggregate.{name}", lambda cls=cls: cls()


@pytest.mark.parametrize("make", [e[1] for e in _estimators()], ids=[e[0] for e in _estimators()])
@pytest.mark.parametrize("kind", [sp.csr_matrix, sp.csr_array])
def test_a_sparse_matrix_is_refused_as_one(make, kind) -> None:
    with pytest.raises(ValueError) as info:
        make().fit(kind(X), Y)
    msg = str(info.value)
    assert "\n" not in msg and "shape ()" not in msg, msg
    assert msg == (f"X is a scipy sparse matrix ({kind.__name__} of shape (6, 3)), which is "
                   "not accepted; convert it with X.toarray()"), msg
    assert isinstance(info.value, TypeError)  # as scikit-learn's refusal of sparse data


def test_a_sparse_matrix_is_refused_at_predict_and_as_labels() -> None:
    est = AGGREGATORS["map"]().fit(X, Y)
    with pytest.raises(ValueError, match=r"^X is a scipy sparse matrix \(csc_matrix"):
        est.predict(sp.csc_matrix(X))
    with pytest.raises(ValueError, match=r"^y is a scipy sparse matrix .*y\.toarray\(\)$"):
        AGGREGATORS["map"]().fit(X, sp.csr_matrix(Y.reshape(1, -1)))
    # the dense conversion the message asks for works
    assert est.predict(sp.csc_matrix(X).toarray()).tolist() == est.predict(X).tolist()


# --------------------------------------------------------------------------- sample_weight
@pytest.mark.parametrize("name", sorted(AGGREGATORS))
def test_a_sample_weight_of_the_wrong_length_is_named(name) -> None:
    est = AGGREGATORS[name]().fit(X, Y)
    with pytest.raises(ValueError) as info:
        est.score(X, Y, sample_weight=[1.0, 2.0, 1.0])
    assert str(info.value) == ("sample_weight of score must be one weight per item of X "
                               "(6 weights); got 3 weights")


def test_sample_weight_is_checked_and_used() -> None:
    est = AGGREGATORS["map"]().fit(X, Y)
    right = (est.predict(X) == Y).astype(float)
    w = np.arange(1.0, 7.0)
    assert est.score(X, Y, sample_weight=w) == pytest.approx(float((right * w).sum() / w.sum()))
    assert est.score(X, Y, sample_weight=None) == pytest.approx(float(right.mean()))
    with pytest.raises(ValueError, match=r"^sample_weight of score must be finite weights "
                                         r">= 0; got -1.0 at position 2$"):
        est.score(X, Y, sample_weight=[1, 1, -1, 1, 1, 1])
    with pytest.raises(ValueError, match=r"^sample_weight of score must be 1-dimensional"):
        est.score(X, Y, sample_weight=np.ones((6, 1)))
    with pytest.raises(ValueError, match=r"^sample_weight of score must be weights with a "
                                         r"positive sum; got all weights 0$"):
        est.score(X, Y, sample_weight=np.zeros(6))
    # labels other than -1/+1 (classes_ from y) take the same check
    y01 = (Y > 0).astype(int)
    est01 = AGGREGATORS["map"]().fit(X, y01)
    with pytest.raises(ValueError, match=r"\(6 weights\); got 5 weights$"):
        est01.score(X, y01, sample_weight=np.ones(5))


# --------------------------------------------------------------------------- --method case
def test_method_in_capitals_runs_the_exhaustive_scan(tmp_path, capsys) -> None:
    src = tmp_path / "t.csv"
    _tidy().to_csv(src, index=False)
    common = ["select", src, "-k", "2", "--splits", "3", "--halvings", "0", "--json"]
    upper = run_cli([*common, "--method", "EXHAUSTIVE"], capsys)
    assert upper.code == 0, upper.err
    lower = run_cli([*common, "--method", "exhaustive"], capsys)
    assert lower.code == 0, lower.err
    a, b = json.loads(upper.out), json.loads(lower.out)
    assert a["method"] == "exhaustive" and a["aggregator"] == "map"
    a.pop("command", None), b.pop("command", None)
    assert a == b
    mixed = run_cli([*common, "--method", "Exhaustive", "--aggregator", "map"], capsys)
    assert mixed.code == 0, mixed.err
    assert json.loads(mixed.out)["selected"] == a["selected"]
    wrong = run_cli([*common, "--method", "EXHAUSTIVE", "--aggregator", "mv"], capsys)
    assert_usage_error(wrong, "select", "--method exhaustive is evaluated with --aggregator "
                                        "map only")


# --------------------------------------------------------------------------- evaluate(seed)
@pytest.mark.parametrize("seed", [-1, 1.5, "0"])
def test_evaluate_names_a_bad_seed(seed) -> None:
    from ensel.experiment import evaluate, half_sample_errors

    with pytest.raises(ValueError) as info:
        evaluate(_tidy(), seed=seed, ks=[1], n_splits=2)
    assert str(info.value).startswith("seed of evaluate must be an int in [0, inf); got "), \
        str(info.value)
    from ensel.protocol import Protocol

    with pytest.raises(ValueError, match=r"^seed of Protocol must be an int"):
        half_sample_errors(_tidy(), protocol=Protocol(seed=seed, n_halvings=2), ks=[1])


# --------------------------------------------------------------------------- notebook dataset
def test_a_notebook_parameter_naming_an_unknown_dataset_fails_before_the_page(
        tmp_path, capsys) -> None:
    from ensel.datasets import DATASETS

    out = tmp_path / "out"
    r = run_cli(["notebooks", "run", "experiments", "-p", "dataset=nope", "--out-dir", out],
                capsys)
    assert_usage_error(r, "notebooks", "-p dataset=nope: unknown dataset 'nope'",
                       "known: " + ", ".join(DATASETS))
    assert "executing" not in r.out + r.err
    assert not out.exists()


def test_a_notebook_parameter_naming_a_file_is_not_refused_as_unknown(tmp_path) -> None:
    from ensel.book.runner import NotebookRun, check_dataset_parameters

    run = NotebookRun("experiments", "x", {"dataset": "mmlu"}, requires_data=("{dataset}",))
    check_dataset_parameters(run, {"dataset": "mmlu"})
    src = tmp_path / "mine.csv"
    src.write_text("item,model,answer,label\n", encoding="utf-8")
    check_dataset_parameters(run, {"dataset": str(src)})
    missing = str(tmp_path / "gone.csv")
    with pytest.raises(NotebookRunError, match=r"^-p dataset=.*gone.csv: no such file .*gone"):
        check_dataset_parameters(run, {"dataset": missing})
    with pytest.raises(NotebookRunError, match=r"^-p dataset=mmlux: unknown dataset 'mmlux' "
                                         r"\(did you mean 'mmlu"):
        check_dataset_parameters(run, {"dataset": "mmlux"})


# ------------------------------------------------------------------ import tidy --condition
def test_import_tidy_condition_does_not_merge_two_conditions(tmp_path, capsys) -> None:
    """``--condition`` renames the one condition of a tidy file; with two, one name for both
    would write each (item, model) twice, so it is refused (a trial found it accepted)."""
    rows = "".join(f"q{i},{m},{c},{1 if (i + j) % 3 else -1},{1 if i % 2 else -1}\n"
                   for c in ("t0", "t1") for i in range(6) for j, m in enumerate("ab"))
    two = tmp_path / "two.csv"
    two.write_text("item,model,condition,answer,label\n" + rows, encoding="utf-8")
    out = tmp_path / "o.csv"
    r = run_cli(["import", "tidy", two, "--condition", "y", "-o", out], capsys)
    assert_usage_error(r, "import", "--condition y", "2 conditions ('t0', 't1')")
    assert not out.exists()
    one = tmp_path / "one.csv"
    one.write_text("item,model,condition,answer,label\n" + rows[:len(rows) // 2],
                   encoding="utf-8")
    assert run_cli(["import", "tidy", one, "--condition", "y", "-o", out], capsys).code == 0
    assert set(pd.read_csv(out)["condition"]) == {"y"}
