"""Bad input to the real-data loaders (MMLU-Redux, LLMBar): one clear error, raised before any
file is read, so these hold without the data."""

from __future__ import annotations

import pytest

from ensel.datasets import load
from ensel.meta import random_effects


@pytest.mark.parametrize("name, options, match", [
    ("mmlu_redux", {"keep": "verified"},
     r"keep of mmlu_redux.load must be one of \('ok', 'all'\); got 'verified'"),
    ("mmlu_redux", {"null_pred": "skip"},
     r"null_pred of mmlu_redux.load must be one of \('abstain', 'false'\); got 'skip'"),
    ("mmlu_redux", {"seed": -3}, "seed of mmlu_redux.load must be a non-negative integer; "
                                 "got -3"),
    ("mmlu_redux", {"subjects": ["astrology"]},
     r"subjects of mmlu_redux.load must be MMLU subjects from \[.*'anatomy'.*\]; "
     r"got \['astrology'\]"),
    ("llmbar", {"orders": ["sideways"]},
     r"orders of llmbar.load must be distinct values from \['original', 'swapped'\]; "
     r"got \['sideways'\]"),
    ("llmbar", {"orders": ["original", "original"]}, "orders of llmbar.load must be distinct"),
    ("llmbar", {"null_pred": 0}, "null_pred of llmbar.load must be one of"),
    ("llmbar", {"subset": "Natural"},
     r"subset of llmbar.load must be one of \['adversarial', 'all', 'casestudy', 'llmbar', "
     r"'natural'\] or subset paths from \[.*\]; got \['Natural'\]"),
])
def test_real_loaders_name_the_bad_option(tmp_path, monkeypatch, name, options, match):
    # an empty mirror: a check that came after reading a file would fail differently
    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(tmp_path))
    with pytest.raises(ValueError, match=match):
        load(name, **options)


def test_unknown_option_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="unexpected keyword argument 'subsets'"):
        load("llmbar", subsets="all")


def test_meta_analysis_rejects_a_zero_standard_error():
    with pytest.raises(ValueError, match=r"se of random_effects must be positive; got "
                                         r"\[0.01, 0.0\]"):
        random_effects([0.1, 0.2], [0.01, 0.0])
