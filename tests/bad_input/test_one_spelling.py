"""Findings of the session-8 trial: inputs that gave a silent wrong answer.

Two model names that differ only in case or surrounding white space (``m1`` and ``m1 ``)
became two models, each answering part of the items; they are refused, naming both rows.
"""

from __future__ import annotations

import pandas as pd
import pytest

from ensel._errors import DataError
from ensel.data import validate_responses

from .conftest import assert_usage_error, run_cli


@pytest.mark.parametrize("other", ["m1 ", " m1", "M1", "m1\t"])
def test_two_spellings_of_one_model_are_refused(tmp_path, capsys, other) -> None:
    rows = [("q1", "m1", 1, 1), ("q1", "m2", 1, 1), ("q2", other, -1, 1), ("q2", "m2", 1, 1),
            ("q3", "m1", 1, -1), ("q3", "m2", -1, -1)]
    path = tmp_path / "a.csv"
    path.write_text("item,model,answer,label\n"
                    + "".join(f"{i},{m},{a},{y}\n" for i, m, a, y in rows), encoding="utf-8")
    r = run_cli(["select", path, "-k", "1"], capsys)
    assert_usage_error(r, "select", f"'m1' (line 2 of {path})",
                       f"{other!r} (line 4 of {path})", "differ only in case")
    df = pd.DataFrame(rows, columns=["item", "model", "answer", "label"])
    with pytest.raises(DataError, match=r"'m1' \(row 0\).*\(row 2\)"):
        validate_responses(df)


def test_distinct_models_with_a_shared_prefix_are_kept() -> None:
    df = pd.DataFrame({"item": ["q1", "q1", "q1"], "model": ["m1", "m1-large", "m10"],
                       "answer": [1, -1, 1], "label": [1, 1, 1]})
    assert sorted(validate_responses(df)["model"]) == ["m1", "m1-large", "m10"]
