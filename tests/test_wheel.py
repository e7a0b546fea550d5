"""The sdist and the wheel are complete: a fresh environment outside the checkout runs ensel.

The test builds both distributions from the checkout, checks their metadata with
``twine check --strict``, installs the wheel with its core dependencies into a new virtual
environment (no system site-packages, versions from ``requirements/constraints.txt``; pip
downloads what its cache lacks) in a temporary folder, and runs the library, the shipped
data and the command line from there (``ensel --version``, ``ensel collect estimate paper``,
``ensel notebooks list``, and ``ensel evaluate`` refusing in one line that names the extra it
needs); then it adds the ``notebooks`` extra, executes a page of the book as a reader who
downloaded it would, and runs ``ensel evaluate`` on a small tidy table. One virtual
environment serves every test.

The fresh environment takes minutes (pip installs every dependency), so its tests are marked
``slow``: CI runs them (``make test-slow``), ``make test`` deselects them. ``make test`` builds
the distributions, checks them with twine, and runs the library and the command line from the
wheel unpacked outside the checkout, on this environment's dependencies.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS = ROOT / "requirements" / "constraints.txt"

pytestmark = pytest.mark.xdist_group("wheel")


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None,
         timeout: float = 900) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                         timeout=timeout)
    assert out.returncode == 0, f"{cmd}\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out


def _snapshot(dest: Path) -> Path:
    """The checkout's files as git lists them (tracked, and untracked but not ignored), copied
    to ``dest``: the build reads a tree that no test running beside it writes into (building
    in the checkout once failed with "No such file or directory" in a parallel run). Outside
    a git checkout (an unpacked sdist), the checkout itself."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"],
                                cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return ROOT
    for name in listed.decode().split("\0"):
        src = ROOT / name
        if name and src.is_file():  # not a file deleted in the working tree
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    dist = tmp_path_factory.mktemp("dist")
    source = _snapshot(tmp_path_factory.mktemp("source"))
    # the wheel is built from the sdist (build's default), so a file missing from the sdist
    # is missing from the wheel too; nothing is written into the checkout
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(source)],
         cwd=dist)
    (wheel,) = dist.glob("ensel-*.whl")
    (sdist,) = dist.glob("ensel-*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


@pytest.fixture(scope="module")
def fresh(dists: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A new virtual environment with the wheel and its core dependencies only."""
    home = tmp_path_factory.mktemp("user")
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(home / "venv")
    python = home / "venv" / "bin" / "python"
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "ENSEL_PAPER_DIR", "ENSEL_REPO_ROOT")}
    env.update(ENSEL_DATA_DIR=str(home / "cache"), PIP_DISABLE_PIP_VERSION_CHECK="1",
               PATH=f"{python.parent}{os.pathsep}{env.get('PATH', '')}")
    _run([str(python), "-m", "pip", "install", "-q", "-c", str(CONSTRAINTS),
          str(dists["wheel"])], cwd=home, env=env)
    return {"python": python, "home": home, "env": env}


def test_twine_check_strict_and_contents(dists: dict[str, Path]) -> None:
    out = _run([sys.executable, "-m", "twine", "check", "--strict", str(dists["wheel"]),
                str(dists["sdist"])], cwd=ROOT)
    assert out.stdout.count("PASSED") == 2, out.stdout
    names = zipfile.ZipFile(dists["wheel"]).namelist()
    for shipped in ("ensel/_data/paper/model_pools.csv", "ensel/_data/registry/mmlu_pro.csv",
                    "ensel/_data/collect/paper.yml", "ensel/_data/collect/prompts.yml",
                    "ensel/_data/notebooks/experiments.py", "ensel/_data/notebooks/runs.yml",
                    "ensel/py.typed", "ensel-0.1.0.dist-info/licenses/LICENSE"):
        assert shipped.replace("0.1.0", _version()) in names, shipped
    # build tooling stays out of the wheel (development only: tools/)
    assert not [n for n in names if "browsercheck" in n or "bookcheck" in n or
                n.startswith("tools/")], names
    meta = zipfile.ZipFile(dists["wheel"]).read(
        f"ensel-{_version()}.dist-info/METADATA").decode()
    for field in ("License-Expression: MIT", "License-File: LICENSE",
                  "Author-email: Yigit Turkmen", "Project-URL: Paper,",
                  "Project-URL: Documentation,", "Classifier: Typing :: Typed",
                  "Keywords: large language models", "Provides-Extra: collect",
                  "Provides-Extra: notebooks", 'Requires-Dist: openai<4,>=3.0; extra == "collect"'):
        assert field in meta, field
    core = [line for line in meta.splitlines()
            if line.startswith("Requires-Dist:") and "extra ==" not in line]
    assert not [r for r in core if any(p in r for p in ("matplotlib", "seaborn", "openai",
                                                        "tenacity", "aiolimiter"))], core
    with tarfile.open(dists["sdist"]) as tar:
        members = {m.name.split("/", 1)[1] for m in tar.getmembers() if "/" in m.name}
    assert {"LICENSE", "CITATION.cff", "CHANGELOG.md", "pyproject.toml",
            "notebooks/experiments.py", "data/collect/paper.yml"} <= members


def _version() -> str:
    import ensel

    return ensel.__version__


CORE = textwrap.dedent("""
    import importlib.util, json, sys
    from pathlib import Path
    import ensel
    home = Path(sys.argv[1] if len(sys.argv) > 1 else sys.prefix).resolve()
    assert Path(ensel.__file__).resolve().is_relative_to(home), ensel.__file__
    from ensel.datasets import load
    from ensel.datasets._paths import package_data
    from ensel.datasets.paper_tables import load_paper_table
    from ensel.experiment import evaluate
    from ensel.collect.config import load_config
    from ensel.collect.estimate import estimate
    df = load("medmcqa", n_items=100)
    res = evaluate(df, ks=[1, 2], n_splits=1)
    est = estimate(load_config(package_data("collect", "paper.yml")))
    print(json.dumps({
        "version": ensel.__version__,
        "rows": len(df), "models": int(df["model"].nunique()), "results": len(res),
        "pools": len(load_paper_table("model_pools")),
        "experiments_page": package_data("notebooks", "experiments.py").is_file(),
        "paper_requests": int(est["requests"].sum()),
        "extras_absent": [m for m in ("matplotlib", "seaborn", "openai", "tenacity",
                                      "aiolimiter", "sklearn") if importlib.util.find_spec(m)],
    }))
""")


@pytest.fixture(scope="module")
def unpacked(dists: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The wheel unpacked in a temporary folder, first on the path of this environment's Python
    (its dependencies, the wheel's code and data): the quick stand-in for the fresh
    environment."""
    home = tmp_path_factory.mktemp("unpacked")
    with zipfile.ZipFile(dists["wheel"]) as wheel:
        wheel.extractall(home / "site")
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "ENSEL_PAPER_DIR", "ENSEL_REPO_ROOT")}
    env.update(PYTHONPATH=str(home / "site"), ENSEL_DATA_DIR=str(home / "cache"))
    return {"python": Path(sys.executable), "home": home, "env": env}


def test_the_unpacked_wheel_runs_outside_the_checkout(unpacked: dict) -> None:
    """The library, its shipped data and the command line from the wheel's files alone."""
    site = str(unpacked["home"] / "site")
    out = _run([str(unpacked["python"]), "-c", CORE, site], cwd=unpacked["home"],
               env=unpacked["env"])
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["version"] == _version()
    assert got["rows"] == 100 * got["models"] * 6  # 100 items x 12 models x 6 conditions
    assert got["results"] > 0 and got["pools"] == 37 and got["experiments_page"]
    assert got["paper_requests"] == 2_102_352

    def ensel(*args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
        cmd = [str(unpacked["python"]), "-m", "ensel", *args]
        done = subprocess.run(cmd, cwd=unpacked["home"], env=unpacked["env"],
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == code, f"{cmd}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return done

    assert ensel("--version").stdout.strip() == f"ensel {_version()}"
    assert "total: 2,102,352 requests" in ensel("collect", "estimate", "paper").stdout
    nbs = json.loads(ensel("notebooks", "list", "--json").stdout)
    assert nbs["checkout"] is False and nbs["config"].startswith(site)
    run = ensel("notebooks", "run", "experiments", code=2).stderr.strip().splitlines()
    assert len(run) == 1 and "checkout" in run[0]


def _ensel(fresh: dict, *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    """``ensel ARGS`` of the fresh environment, run in its home folder (outside the
    checkout); ``code``: the exit code expected."""
    cmd = [str(fresh["python"].parent / "ensel"), *args]
    out = subprocess.run(cmd, cwd=fresh["home"], env=fresh["env"], capture_output=True,
                         text=True, timeout=900)
    assert out.returncode == code, f"{cmd}\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out


@pytest.fixture(scope="module")
def small_table(fresh: dict) -> Path:
    """A small tidy table (4 models x 60 items, one condition) written by the wheel."""
    path = fresh["home"] / "small.parquet"
    _run([str(fresh["python"]), "-c", textwrap.dedent(f"""
        from ensel.datasets import load
        df = load("medmcqa", n_items=60)
        df = df[df["model"].isin(sorted(df["model"].unique())[:4])
                & (df["condition"] == sorted(df["condition"].unique())[0])]
        df.to_parquet({str(path)!r}, index=False)
    """)], cwd=fresh["home"], env=fresh["env"])
    return path


@pytest.fixture(scope="module")
def core_cli(fresh: dict, small_table: Path) -> dict:
    """The command line of the core install (before any extra is added to the venv)."""
    return {
        "version": _ensel(fresh, "--version").stdout,
        "estimate": _ensel(fresh, "collect", "estimate", "paper").stdout,
        "estimate_json": json.loads(_ensel(fresh, "collect", "estimate", "paper",
                                           "--json").stdout),
        "notebooks": json.loads(_ensel(fresh, "notebooks", "list", "--json").stdout),
        "datasets": json.loads(_ensel(fresh, "datasets", "list", "--json").stdout),
        "run_page": _ensel(fresh, "notebooks", "run", "experiments", code=2),
        "evaluate": _ensel(fresh, "evaluate", str(small_table), "-o", "report.html", code=2),
    }


@pytest.mark.slow
def test_the_wheel_runs_outside_the_checkout(fresh: dict, core_cli: dict) -> None:
    out = _run([str(fresh["python"]), "-c", CORE], cwd=fresh["home"], env=fresh["env"])
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["version"] == _version()
    assert got["rows"] == 100 * got["models"] * 6  # 100 items x 12 models x 6 conditions
    assert got["results"] > 0 and got["pools"] == 37 and got["experiments_page"]
    assert got["paper_requests"] == 2_102_352  # the README's estimate of the paper's run
    assert got["extras_absent"] == []  # the core install pulls none of the extras
    assert "collect" in _ensel(fresh, "--help").stdout
    assert core_cli["version"].strip() == f"ensel {_version()}"


@pytest.mark.slow
def test_the_cli_of_the_core_install(core_cli: dict) -> None:
    # the README's command, with the config shipped in the wheel
    assert "total: 2,102,352 requests" in core_cli["estimate"]
    est = core_cli["estimate_json"]
    assert est["schema"] == "ensel.collect.estimate/1"
    assert est["total_requests"] == 2_102_352 == sum(r["requests"] for r in est["rows"])
    assert "site-packages" in est["config"] and est["config"].endswith("paper.yml")
    # the runs config and page sources come from the package, not a checkout
    nbs = core_cli["notebooks"]
    assert nbs["schema"] == "ensel.notebooks.list/1" and nbs["checkout"] is False
    assert "site-packages" in nbs["config"]
    assert "experiments-medmcqa" in {r["output"] for r in nbs["runs"]}
    assert core_cli["datasets"]["schema"] == "ensel.datasets.list/1"
    assert {"medmcqa", "mmlu_pro"} <= {d["name"] for d in core_cli["datasets"]["datasets"]}
    # executing the book's runs needs the repository: one line that says so
    run = core_cli["run_page"].stderr.strip().splitlines()
    assert len(run) == 1 and run[0].startswith("ensel notebooks: error:")
    assert "checkout" in run[0] and "ensel evaluate" in run[0]
    # evaluate needs the notebooks extra: one line naming it, exit 2, before any work
    ev = core_cli["evaluate"].stderr.strip().splitlines()
    assert len(ev) == 1 and ev[0].startswith("ensel evaluate: error:"), ev
    assert 'pip install "ensel[notebooks]"' in ev[0] and "papermill" in ev[0]


@pytest.fixture(scope="module")
def with_notebooks(fresh: dict, dists: dict[str, Path], core_cli: dict) -> dict:
    """The same environment with the ``notebooks`` extra added (after the core checks)."""
    _run([str(fresh["python"]), "-m", "pip", "install", "-q", "-c", str(CONSTRAINTS),
          f"{dists['wheel']}[notebooks]"], cwd=fresh["home"], env=fresh["env"])
    return fresh


@pytest.mark.slow
def test_a_downloaded_page_runs_with_the_notebooks_extra(with_notebooks: dict) -> None:
    """The reader's path: pip install "ensel[notebooks]", then run a page's notebook."""
    import jupytext
    import nbformat

    fresh = with_notebooks
    nb = jupytext.read(ROOT / "notebooks" / "theorem_e_1.py")
    at = next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
    nb.cells.insert(at + 1, nbformat.v4.new_code_cell(
        "pools_per_k = 2\nn_sample = 50000", metadata={"tags": ["injected-parameters"]}))
    page = fresh["home"] / "theorem_e_1.ipynb"
    nbformat.write(nb, page)
    code = textwrap.dedent(f"""
        import nbclient, nbformat
        nb = nbformat.read({str(page)!r}, as_version=4)
        nbclient.NotebookClient(nb, timeout=600, kernel_name="python3").execute()
        nbformat.write(nb, {str(page)!r})
    """)
    _run([str(fresh["python"]), "-c", code], cwd=fresh["home"], env=fresh["env"])
    done = nbformat.read(page, as_version=4)
    outputs = [o for c in done.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    glued = [o for o in outputs if "application/papermill.record/text/plain" in o.get("data", {})
             or o.get("metadata", {}).get("scrapbook")]
    assert len(glued) >= 5, "the page glues its numbers with myst_nb"


@pytest.mark.slow
def test_evaluate_from_the_wheel(with_notebooks: dict, small_table: Path) -> None:
    """``ensel evaluate`` outside the checkout: the experiments page shipped in the wheel,
    executed on a small tidy table, written as an HTML report and the executed notebook."""
    import nbformat

    fresh = with_notebooks
    out = _ensel(fresh, "evaluate", str(small_table), "-o", "report.html", "--splits", "2",
                 "--no-exhaustive")
    assert out.stdout == ""  # progress and phases go to stderr
    phases = [line for line in out.stderr.splitlines() if line.startswith("ensel evaluate:")]
    assert [p.split(":")[1].split()[0] for p in phases] == ["read", "executing", "page"]
    assert "4 models" in phases[0] and out.stderr.rstrip().splitlines()[-1].startswith("wrote")
    html = (fresh["home"] / "report.html").read_text(encoding="utf-8")
    assert "Traceback" not in html and len(html) > 100_000
    done = nbformat.read(fresh["home"] / "report.ipynb", as_version=4)
    outputs = [o for c in done.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert outputs and not [o for o in outputs if o.output_type == "error"]
    assert str(small_table.stem) in json.dumps(done.cells[0:40], default=str)
