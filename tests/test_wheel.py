"""A wheel built from the checkout works outside the repository (data shipped as package data)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CODE = """
import ensel, ensel.datasets
from pathlib import Path
assert Path(ensel.__file__).resolve().is_relative_to(Path({target!r}).resolve()), ensel.__file__
from ensel.datasets import load
from ensel.datasets._paths import package_data
from ensel.datasets.paper_tables import load_paper_table
from ensel.experiment import evaluate
assert "_data" in str(package_data()), package_data()
df = load("medmcqa", n_items=300, cache=False)
pools = load_paper_table("model_pools")
res = evaluate(df, ks=[1, 2], n_splits=1)
print(len(df), len(pools), len(res))
"""


@pytest.mark.xdist_group("wheel")
def test_wheel_installed_outside_the_checkout(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(dist), str(ROOT)], check=True, capture_output=True)
    (wheel,) = dist.glob("ensel-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "ensel/_data/paper/model_pools.csv" in names
    assert "ensel/_data/registry/mmlu_pro.csv" in names
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                    str(target), str(wheel)], check=True, capture_output=True)
    env = {**os.environ, "PYTHONPATH": str(target), "ENSEL_DATA_DIR": str(tmp_path / "cache")}
    env.pop("ENSEL_PAPER_DIR", None)
    out = subprocess.run([sys.executable, "-c", CODE.format(target=str(target))],
                         cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    n_rows, n_pools, n_res = map(int, out.stdout.split())
    assert n_rows > 0 and n_pools > 0 and n_res > 0
