"""The notebook runner, the runs config and the table of contents stay consistent."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
import yaml

from ensel.book.runner import (
    NotebookRun,
    adhoc_run,
    find_runs,
    load_runs,
    toc_files,
    toc_problems,
    toc_text,
    write_toc,
)
from ensel.book.runner._execute import _strip_volatile, _warnings_in

ROOT = Path(__file__).resolve().parents[2]


def test_every_notebook_source_has_runs_and_every_run_is_in_the_toc() -> None:
    runs = load_runs(ROOT / "notebooks" / "runs.yml")
    sources = {p.stem for p in (ROOT / "notebooks").glob("*.py")}
    assert sources == {r.notebook for r in runs}, "notebooks/*.py and runs.yml disagree"
    assert toc_problems(runs, ROOT / "_toc.yml") == []
    for f in toc_files(ROOT / "_toc.yml"):
        if not f.startswith("book/_generated/"):
            assert (ROOT / f"{f}.md").is_file(), f"_toc.yml names {f} but {f}.md does not exist"


def test_toc_problems_name_a_missing_and_a_stale_page(tmp_path: Path) -> None:
    runs = load_runs(ROOT / "notebooks" / "runs.yml")
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    for part in toc["parts"]:
        for ch in part["chapters"]:
            if ch.get("file") == "book/_generated/experiments-llmbar":
                ch["file"] = "book/_generated/experiments-gone"
    (tmp_path / "_toc.yml").write_text(yaml.safe_dump(toc))
    assert toc_problems(runs, tmp_path / "_toc.yml") == [
        "_toc.yml does not list the page of run 'experiments-llmbar' (notebook 'experiments', "
        "dataset 'llmbar'): add '- file: book/_generated/experiments-llmbar'",
        "_toc.yml lists book/_generated/experiments-gone, which no run of runs.yml writes (a "
        "stale entry, or a dataset no longer declared with that page)"]


def test_the_committed_toc_is_what_ensel_notebooks_toc_writes() -> None:
    runs = load_runs(ROOT / "notebooks" / "runs.yml")
    assert toc_text(runs, ROOT / "_toc.yml") == (ROOT / "_toc.yml").read_text(), \
        "_toc.yml is not current: run .venv/bin/ensel notebooks toc"


def test_ensel_notebooks_toc_rewrites_only_the_dataset_pages(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from ensel.book.runner import main

    runs = load_runs(ROOT / "notebooks" / "runs.yml")
    good = (ROOT / "_toc.yml").read_text()
    # a dataset page missing, one of another dataset's group out of order, a stale one
    bad = (good.replace("      - file: book/_generated/experiments-mmlu_redux\n", "")
           .replace("      - file: book/_generated/modelling-llmbar\n",
                    "      - file: book/_generated/modelling-gone\n")
           .replace("      - file: book/_generated/standins_card-medmcqa\n"
                    "      - file: book/_generated/standins_card-mmlu\n",
                    "      - file: book/_generated/standins_card-mmlu\n"
                    "      - file: book/_generated/standins_card-medmcqa\n"))
    assert bad != good
    toc = tmp_path / "_toc.yml"
    toc.write_text(bad)
    assert write_toc(runs, toc, check=True) and toc.read_text() == bad  # check: no write
    assert write_toc(runs, toc) and toc.read_text() == good
    assert not write_toc(runs, toc)
    # the command on a checkout: current, exit 0; --check on a stale one: exit 1, one line
    (tmp_path / "notebooks").symlink_to(ROOT / "notebooks")
    monkeypatch.setenv("ENSEL_REPO_ROOT", str(tmp_path))
    assert main(["toc", "--check"]) == 0
    toc.write_text(bad)
    assert main(["toc", "--check"]) == 1
    assert capsys.readouterr().out == ("_toc.yml: the pages of the declared datasets are out of "
                                       "date (run: ensel notebooks toc)\n")
    assert main(["toc"]) == 0 and toc.read_text() == good
    assert capsys.readouterr().out == ("_toc.yml: wrote the pages of the declared datasets "
                                       "(data/datasets.yml)\n")


def _write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "a.py").write_text("# %%\nx = 1\n")
    cfg = tmp_path / "runs.yml"
    cfg.write_text(text)
    return cfg


def test_load_runs_defaults_and_test_parameters(tmp_path: Path) -> None:
    cfg = _write(tmp_path, "notebooks:\n  - notebook: a\n    test_parameters: {n: 2}\n")
    (run,) = load_runs(cfg)
    assert run == NotebookRun("a", "a", {}, {"n": 2})
    assert run.effective_parameters(test=False) == {}
    assert run.effective_parameters(test=True) == {"n": 2}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("items: []\n", "top-level 'notebooks:' list"),
        ("notebooks:\n  - notebook: missing\n", "no source file"),
        ("notebooks:\n  - {notebook: a, colour: red}\n", "unknown keys"),
        ("notebooks:\n  - notebook: a\n    runs: [{output: x}, {output: x}]\n", "used twice"),
        ("notebooks:\n  - [a]\n", "mapping with a 'notebook' key"),
    ],
)
def test_load_runs_rejects_bad_configs(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_runs(_write(tmp_path, text))


def test_find_runs_names_the_known_notebooks(tmp_path: Path) -> None:
    runs = load_runs(_write(tmp_path, "notebooks:\n  - notebook: a\n"))
    with pytest.raises(ValueError, match="no run of notebook 'b'.*notebooks: a"):
        find_runs(runs, "b")


def test_adhoc_run_is_named_after_its_parameters() -> None:
    base = NotebookRun("experiments", "experiments-medmcqa", {"dataset": "medmcqa", "seed": 0})
    imdb = NotebookRun("experiments", "experiments-imdb", {"dataset": "imdb", "seed": 0})
    run, adhoc = adhoc_run(base, {"dataset": "/home/me/answers.parquet"}, [base, imdb])
    assert adhoc and run.output.startswith("experiments-answers-")
    assert run.parameters == {"dataset": "/home/me/answers.parquet", "seed": 0}
    # same stem, other container or other values: other names
    csv, _ = adhoc_run(base, {"dataset": "/home/me/answers.csv"}, [base])
    one, _ = adhoc_run(base, {"seed": 1}, [base])
    abc, _ = adhoc_run(base, {"seed": "1"}, [base])
    assert len({run.output, csv.output, one.output, abc.output}) == 4
    # parameters of a listed run: that run (the book's page), not an ad-hoc one
    assert adhoc_run(base, {"dataset": "imdb"}, [base, imdb]) == (imdb, False)


def test_unknown_parameter_fails_at_once_listing_the_parameters(tmp_path: Path, capsys,
                                                                monkeypatch) -> None:
    from ensel.book.runner import main as runner_main

    root = tmp_path / "repo"
    (root / "notebooks").mkdir(parents=True)
    (root / "notebooks" / "page.py").write_text(
        "# # Page\n\n# %% tags=['parameters']\nn_items = 100  # size\nseed = 0\n\n"
        "# %%\nraise SystemExit('must not run')\n")
    (root / "notebooks" / "runs.yml").write_text("notebooks:\n  - notebook: page\n")
    monkeypatch.setenv("ENSEL_REPO_ROOT", str(root))
    assert runner_main(["run", "page", "-p", "k=abc", "--out-dir", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "no parameter 'k'" in err and "n_items=100, seed=0" in err
    assert not (tmp_path / "o").exists()


def test_strip_volatile_and_warning_scan() -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["papermill"] = {"start_time": "t", "duration": 1.0, "parameters": {"a": 1}}
    cell = nbformat.v4.new_code_cell("1")
    cell.metadata["papermill"] = {"start_time": "t", "end_time": "u", "duration": 2.0,
                                  "status": "completed"}
    cell.metadata["execution"] = {"iopub.status.busy": "t"}
    cell.outputs = [nbformat.v4.new_output("stream", name="stderr",
                                           text="RuntimeWarning: divide by zero")]
    nb.cells.append(cell)
    _strip_volatile(nb)
    assert nb.metadata["papermill"] == {"parameters": {"a": 1}}
    assert cell.metadata["papermill"] == {"status": "completed"}
    assert "execution" not in cell.metadata
    assert len(_warnings_in(nb)) == 1


def test_run_title_replaces_the_page_title(tmp_path: Path) -> None:
    from ensel.book.runner._execute import _set_title

    cfg = _write(tmp_path, "notebooks:\n  - notebook: a\n    runs:\n"
                 "      - {output: a-x, title: 'Page X', parameters: {d: x}}\n")
    (run,) = load_runs(cfg)
    assert run.title == "Page X"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Generic title\n\nText with # inside"),
                nbformat.v4.new_markdown_cell("# Another")]
    _set_title(nb, run.title)
    assert nb.cells[0].source == "# Page X\n\nText with # inside"
    assert nb.cells[1].source == "# Another"
    with pytest.raises(ValueError, match="no '# title' line"):
        _set_title(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("text")]), "T")


def _root_with(tmp_path: Path, source: str) -> Path:
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "page.py").write_text(source)
    (tmp_path / "notebooks" / "runs.yml").write_text("notebooks:\n  - notebook: page\n")
    return tmp_path


@pytest.mark.notebooks
def test_a_failing_check_names_the_notebook_and_cell(tmp_path: Path) -> None:
    from ensel.book.runner import NotebookRunError, execute_run

    root = _root_with(tmp_path, "# %%\nx = 1\n\n# %%\nassert x == 2, 'x is not 2'\n")
    (run,) = load_runs(root / "notebooks" / "runs.yml")
    with pytest.raises(NotebookRunError, match=r"notebook 'page'.*cell 2: AssertionError: x is"):
        execute_run(run, out_dir=tmp_path / "out", root=root)
    assert (tmp_path / "out" / "_failed" / "page.ipynb").is_file()  # kept for inspection
    assert not (tmp_path / "out" / "page.ipynb").exists()  # never where the book reads it


@pytest.mark.notebooks
def test_a_printed_warning_fails_the_run(tmp_path: Path) -> None:
    from ensel.book.runner import NotebookRunError, execute_run

    root = _root_with(tmp_path, "# %%\nimport warnings\nwarnings.warn('careful', UserWarning)\n")
    (run,) = load_runs(root / "notebooks" / "runs.yml")
    with pytest.raises(NotebookRunError, match="(?s)printed warnings.*UserWarning: careful"):
        execute_run(run, out_dir=tmp_path / "out", root=root)
    path = execute_run(run, out_dir=tmp_path / "out", root=root, allow_warnings=True)
    assert path.is_file()


def test_needs_orders_runs_and_fails_early(tmp_path: Path, capsys) -> None:
    from ensel.book.runner import missing_inputs

    nb = tmp_path / "notebooks"
    nb.mkdir()
    for name in ("report", "exp"):
        (nb / f"{name}.py").write_text("# # T\nx = 1\n")
    (nb / "runs.yml").write_text(
        "notebooks:\n"
        "  - notebook: report\n    needs: [exp]\n"
        "  - notebook: exp\n    produces: ['results/{d}.parquet']\n"
        "    runs:\n      - {output: exp-a, parameters: {d: a}}\n"
        "      - {output: exp-b, parameters: {d: b}}\n")
    runs = load_runs(nb / "runs.yml")
    assert [r.output for r in runs] == ["exp-a", "exp-b", "report"]
    assert runs[1].products() == ["results/b.parquet"]
    out = tmp_path / "out"
    out.mkdir()
    (out / "exp-a.ipynb").write_text("{}")
    assert missing_inputs(runs[2], runs, out) == ["exp-b (exp-b.ipynb)"]
    (nb / "runs.yml").write_text("notebooks:\n  - notebook: report\n    needs: [nope]\n")
    with pytest.raises(ValueError, match=r"needs \['nope'\], which runs.yml does not list"):
        load_runs(nb / "runs.yml")
    (nb / "runs.yml").write_text("notebooks:\n  - notebook: report\n    needs: [exp]\n"
                                 "  - notebook: exp\n    needs: [report]\n")
    with pytest.raises(ValueError, match="form a cycle"):
        load_runs(nb / "runs.yml")


def test_report_alone_without_experiments_fails_early(tmp_path: Path, capsys) -> None:
    from ensel.book.runner import main as runner_main

    code = runner_main(["run", "reproduction_report", "--out-dir", str(tmp_path)])
    assert code == 2
    err = capsys.readouterr().err
    assert "needs the runs experiments-medmcqa" in err and "make run NB=experiments" in err


def test_requires_data_is_read_per_notebook_and_per_run(tmp_path: Path) -> None:
    cfg = _write(tmp_path, "notebooks:\n  - notebook: a\n    requires_data: '{dataset}'\n"
                 "    runs:\n      - {output: a-x, parameters: {dataset: x}}\n"
                 "      - {output: a-y, parameters: {dataset: y}, requires_data: [z]}\n")
    x, y = load_runs(cfg)
    assert x.requires_data == ("{dataset}",)
    assert y.requires_data == ("{dataset}", "z")
    assert adhoc_run(x, {"dataset": "w"}, [x])[0].requires_data == ("{dataset}",)


def test_unavailable_data_uses_the_datasets_own_check(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from ensel.book.runner import unavailable_data

    (tmp_path / "empty-mirror").mkdir()
    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(tmp_path / "empty-mirror"))
    monkeypatch.setenv("ENSEL_DATA_DIR", str(tmp_path / "empty-cache"))
    run = NotebookRun("experiments", "e", requires_data=("{dataset}",))
    assert unavailable_data(run, {"dataset": "mmlu_pro"}) == ["mmlu_pro"]
    # stand-ins are generated, a user's table reports its own errors, a missing parameter
    # requires nothing
    assert unavailable_data(run, {"dataset": "medmcqa"}) == []
    assert unavailable_data(run, {"dataset": str(tmp_path / "mine.csv")}) == []
    assert unavailable_data(run, {}) == []


def test_a_run_without_its_data_is_one_note_and_is_not_executed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ensel.book.runner import execute_run

    (tmp_path / "notebooks").mkdir()
    # a page that would fail if executed
    (tmp_path / "notebooks" / "p.py").write_text(
        "# %% [markdown]\n# # The page\n#\n# Prose.\n\n"
        "# %% tags=[\"parameters\"]\ndataset = 'x'\n\n# %%\nraise RuntimeError('ran')\n")
    (tmp_path / "empty-mirror").mkdir()
    monkeypatch.setenv("ENSEL_DATA_MIRROR", str(tmp_path / "empty-mirror"))
    monkeypatch.setenv("ENSEL_DATA_DIR", str(tmp_path / "empty-cache"))
    run = NotebookRun("p", "p-run", {"dataset": "mmlu_pro"}, title="Run title",
                      requires_data=("{dataset}",))
    out = execute_run(run, out_dir=tmp_path / "out", root=tmp_path)
    nb = nbformat.read(out, as_version=4)
    assert [c.cell_type for c in nb.cells] == ["markdown", "markdown"]
    assert nb.cells[0].source == "# Run title"
    note = nb.cells[1].source
    assert note.startswith("```{note}") and "MMLU-Pro data not available" in note
    assert "python -m ensel.datasets fetch mmlu_pro" in note and "ENSEL_DATA_MIRROR" in note
    assert out.read_bytes() == execute_run(run, out_dir=tmp_path / "out2",
                                           root=tmp_path).read_bytes()


def test_output_fills_figure_and_target_labels() -> None:
    from ensel.book.runner._execute import _fill_run_labels as _label_figures

    nb = nbformat.v4.new_notebook()
    md = nbformat.v4.new_markdown_cell("(tab-{output}-pool)=\n## Pool\n\nText {output} kept.")
    code = nbformat.v4.new_code_cell("1")
    code.metadata["mystnb"] = {"figure": {"name": "fig-{output}-map", "caption": "c"}}
    nb.cells += [md, code]
    _label_figures(nb, "experiments-mmlu")
    assert md.source == "(tab-experiments-mmlu-pool)=\n## Pool\n\nText {output} kept."
    assert code.metadata["mystnb"]["figure"]["name"] == "fig-experiments-mmlu-map"


def _mini_book(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    nb = root / "notebooks"
    nb.mkdir(parents=True)
    (nb / "a.py").write_text("# # A\n\n# %% tags=['parameters']\nx = 1\n\n# %%\nprint(x)\n")
    (nb / "b.py").write_text("# # B\n\n# %%\nprint('b')\n")
    (nb / "report.py").write_text("# # Report\n\n# %%\nprint('report')\n")
    (nb / "runs.yml").write_text(
        "notebooks:\n  - notebook: report\n    needs: [a]\n  - notebook: a\n"
        "    runs: [{output: a, parameters: {x: 3}}]\n  - notebook: b\n")
    return root


def _status(out: str) -> dict[str, str]:
    found = {}
    for line in out.splitlines():
        if line.startswith("["):
            status, rest = line[1:].split("]", 1)
            found[rest.split()[0]] = status.strip()
    return found


@pytest.mark.notebooks
def test_incremental_parallel_build(tmp_path: Path, monkeypatch, capsys) -> None:
    from ensel.book.runner import main as runner_main

    root = _mini_book(tmp_path)
    out = tmp_path / "out"
    monkeypatch.setenv("ENSEL_REPO_ROOT", str(root))
    assert runner_main(["all", "--out-dir", str(out), "--jobs", "2"]) == 0
    assert _status(capsys.readouterr().out) == {"a": "ok", "b": "ok", "report": "ok"}
    pages = {p.name: p.read_bytes() for p in out.glob("*.ipynb")}
    assert runner_main(["all", "--out-dir", str(out), "--jobs", "2"]) == 0
    assert _status(capsys.readouterr().out) == {"a": "cached", "b": "cached",
                                                "report": "cached"}
    assert {p.name: p.read_bytes() for p in out.glob("*.ipynb")} == pages
    # editing one notebook re-executes it and what needs it, nothing else
    (root / "notebooks" / "a.py").write_text(
        "# # A\n\n# %% tags=['parameters']\nx = 2\n\n# %%\nprint(x)\n")
    assert runner_main(["all", "--out-dir", str(out), "--jobs", "2"]) == 0
    assert _status(capsys.readouterr().out) == {"a": "ok", "b": "cached", "report": "ok"}
    assert runner_main(["all", "--out-dir", str(out), "--force", "--jobs", "1"]) == 0
    assert set(_status(capsys.readouterr().out).values()) == {"ok"}
    # the page shows the parameters it ran with (the defaults folded), and download links
    nb = nbformat.read(out / "a.ipynb", as_version=4)
    tags = {t: c.metadata.get("tags", []) for c in nb.cells for t in c.metadata.get("tags", [])
            if t in ("parameters", "injected-parameters")}
    assert "hide-cell" not in tags["injected-parameters"]
    assert "hide-cell" in tags["parameters"]
    assert "{download}`jupytext source <_sources/a.py>`" in nb.cells[-1].source
    assert (out / "_sources" / "a.py").is_file()


@pytest.mark.notebooks
def test_a_failed_run_never_replaces_the_good_page(tmp_path: Path, monkeypatch,
                                                    capsys) -> None:
    from ensel.book.runner import main as runner_main

    root = _mini_book(tmp_path)
    out = tmp_path / "out"
    monkeypatch.setenv("ENSEL_REPO_ROOT", str(root))
    assert runner_main(["run", "b", "--out-dir", str(out)]) == 0
    good = (out / "b.ipynb").read_bytes()
    (root / "notebooks" / "b.py").write_text("# # B\n\n# %%\nraise RuntimeError('broken')\n")
    assert runner_main(["run", "b", "--out-dir", str(out)]) == 1
    err = capsys.readouterr().err
    assert "RuntimeError: broken" in err and "last good page is unchanged" in err
    assert (out / "b.ipynb").read_bytes() == good
    assert (out / "_failed" / "b.ipynb").is_file()


@pytest.mark.notebooks
def test_an_adhoc_run_leaves_the_book_untouched(tmp_path: Path, monkeypatch, capsys) -> None:
    from ensel.book.runner import main as runner_main

    root = _mini_book(tmp_path)
    monkeypatch.setenv("ENSEL_REPO_ROOT", str(root))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my answers.csv").write_text("x\n")
    assert runner_main(["run", "a", "-p", "x=my answers.csv"]) == 0
    out = capsys.readouterr().out
    assert "ad-hoc run" in out
    (page,) = (root / "_build" / "adhoc").glob("a-my_answers-*.ipynb")
    assert str(tmp_path / "my answers.csv") in page.read_text()  # resolved from the caller
    assert not (root / "book" / "_generated").exists()


@pytest.mark.notebooks
@pytest.mark.parametrize("sig", ["SIGINT", "SIGKILL"])
def test_an_interrupted_run_leaves_the_previous_page(tmp_path: Path, sig: str) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    root = _mini_book(tmp_path)
    out = tmp_path / "out"
    env = {**os.environ, "ENSEL_REPO_ROOT": str(root)}
    cmd = [sys.executable, "-m", "ensel.book.runner", "run", "b", "--out-dir", str(out)]
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    good = (out / "b.ipynb").read_bytes()
    (root / "notebooks" / "b.py").write_text(
        "# # B\n\n# %%\nprint('started', flush=True)\n\n# %%\nimport time\ntime.sleep(60)\n")
    log = (tmp_path / "run.log").open("wb")  # a file, not a pipe nobody reads: a full pipe
    # buffer would block the interrupted run (and its kernel) on its last words
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    staged = out / ".staging" / "b.ipynb"
    while time.monotonic() < deadline and not (staged.is_file()
                                               and "started" in staged.read_text()):
        time.sleep(0.2)
    assert staged.is_file(), "the run did not start in time"
    os.killpg(proc.pid, getattr(signal, sig))
    try:  # the kernel's shutdown after Ctrl-C is slow when the cores are busy
        proc.wait(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise AssertionError("the interrupted run did not end: "
                             + (tmp_path / "run.log").read_text(errors="replace")[-2000:]) from None
    finally:
        log.close()
    if sig == "SIGINT":  # one line and 130, never a second try that finishes the page
        assert proc.returncode == 130, (tmp_path / "run.log").read_text(errors="replace")[-2000:]
        assert (tmp_path / "run.log").read_text().rstrip().endswith(
            "ensel notebooks: interrupted; temporary and partial files removed")
        assert not (out / ".staging" / "b.ipynb").exists()
    assert proc.returncode != 0
    assert (out / "b.ipynb").read_bytes() == good


@pytest.mark.usefixtures("python_sigint")
def test_after_a_signal_the_kernel_is_stopped_at_once(monkeypatch) -> None:
    """A graceful shutdown after a signal races the interrupted cell's reply and the kernel
    logs a ZMQError traceback under the command's one line; after a signal the run's kernel
    manager kills the kernel instead, and only then."""
    import os
    import signal

    from jupyter_client import AsyncKernelManager
    from jupyter_core.utils import run_sync

    from ensel._io import signal_guard
    from ensel.book.runner._execute import _kernel_manager_class

    seen = []

    async def record(self, now=False, restart=False):
        seen.append(now)

    monkeypatch.setattr(AsyncKernelManager, "shutdown_kernel", record)
    with signal_guard() as guard:
        manager = _kernel_manager_class(guard)()
        run_sync(manager.shutdown_kernel)()  # a run that ends normally: graceful
        run_sync(manager.shutdown_kernel)(now=True)
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
        run_sync(manager.shutdown_kernel)()  # after the signal: at once
    assert seen == [False, True, True]


@pytest.mark.usefixtures("python_sigint")
@pytest.mark.notebooks
def test_a_kernel_stopped_after_a_signal_writes_nothing(tmp_path: Path) -> None:
    """A real kernel in the middle of a cell, shut down after a signal: its stderr (the
    terminal it shares with the command) stays empty. The graceful shutdown wrote the
    20-line ZMQError traceback here every time."""
    import asyncio
    import os
    import signal

    from ensel._io import signal_guard
    from ensel.book.runner._execute import _kernel_manager_class

    async def stop_mid_cell(manager) -> None:
        with (tmp_path / "kernel.err").open("wb") as err:
            await manager.start_kernel(stderr=err,
                                       extra_arguments=["--IPKernelApp.log_level=ERROR"])
            client = manager.client()
            client.start_channels()
            try:
                await client.wait_for_ready(timeout=120)
                client.execute("import time\nfor _ in range(1000):\n    time.sleep(0.01)")
                await asyncio.sleep(0.5)
                await manager.shutdown_kernel()
            finally:
                client.stop_channels()

    with signal_guard() as guard:
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
        asyncio.run(stop_mid_cell(_kernel_manager_class(guard)(kernel_name="python3")))
    assert (tmp_path / "kernel.err").read_text(errors="replace") == ""


@pytest.mark.usefixtures("python_sigint")
def test_a_signal_the_kernel_client_swallows_still_ends_the_run(tmp_path: Path,
                                                                  monkeypatch) -> None:
    """Under load, Ctrl-C can land in the kernel client while the kernel starts; it comes out
    as "Kernel died before replying", the one error the runner retries. The run must end
    with the interruption, not run the page a second time."""
    import os
    import signal

    import papermill

    from ensel.book.runner._execute import execute_run

    root = _mini_book(tmp_path)
    calls = []

    def swallowing(*args, **kwargs):
        calls.append(1)
        try:
            os.kill(os.getpid(), signal.SIGINT)  # the handler raises here
        except BaseException:  # what a library's catch-all does with it
            pass
        raise RuntimeError("Kernel died before replying to kernel_info")

    monkeypatch.setattr(papermill, "execute_notebook", swallowing)
    (run,) = find_runs(load_runs(root / "notebooks" / "runs.yml"), "b")
    with pytest.raises(KeyboardInterrupt):  # a library caller gets its own Ctrl-C back
        execute_run(run, out_dir=tmp_path / "out", root=root)
    assert calls == [1]
    from ensel._io import exit_on_signals

    with pytest.raises(SystemExit) as exc, exit_on_signals("ensel notebooks"):
        execute_run(run, out_dir=tmp_path / "out", root=root)  # the command: 130
    assert exc.value.code == 130
    assert calls == [1, 1]
    assert not (tmp_path / "out" / "b.ipynb").exists()


def test_figure_labels_name_their_run() -> None:
    from ensel.book.runner._execute import _fill_run_labels

    fig = nbformat.v4.new_code_cell("plot()", metadata={
        "mystnb": {"figure": {"caption": "c", "name": "fig-{output}-error"}}})
    fixed = nbformat.v4.new_code_cell("plot()", metadata={
        "mystnb": {"figure": {"caption": "c", "name": "fig-fixed"}}})
    nb = nbformat.v4.new_notebook(cells=[fig, fixed, nbformat.v4.new_code_cell("x = 1")])
    _fill_run_labels(nb, "correlation_sweep-low")
    assert fig.metadata["mystnb"]["figure"]["name"] == "fig-correlation_sweep-low-error"
    assert fixed.metadata["mystnb"]["figure"]["name"] == "fig-fixed"


def test_longest_chain_starts_first(tmp_path: Path) -> None:
    from ensel.book.runner import DURATIONS, critical_path, read_durations

    nb = tmp_path / "notebooks"
    nb.mkdir()
    for name in ("small", "exp", "report", "new"):
        (nb / f"{name}.py").write_text("# # T\nx = 1\n")
    (nb / "runs.yml").write_text(
        "notebooks:\n  - notebook: small\n  - notebook: new\n"
        "  - notebook: exp\n    runs:\n      - {output: exp-a}\n      - {output: exp-b}\n"
        "  - notebook: report\n    needs: [exp]\n")
    runs = load_runs(nb / "runs.yml")
    out = tmp_path / "out"
    out.mkdir()
    assert read_durations(out) == {}  # no history: every run counts 0, runs.yml order kept
    (out / "timings.json").write_text(
        '[{"output": "small", "seconds": 12.0, "status": "ok"},'
        ' {"output": "exp-a", "seconds": 0.0, "status": "cached"},'
        ' {"output": "exp-b", "seconds": 10.0, "status": "ok"}]')
    (out / DURATIONS).write_text('{"exp-a": 9.0, "report": 4.0}')
    durations = read_durations(out)
    assert durations == {"small": 12.0, "exp-a": 9.0, "exp-b": 10.0, "report": 4.0}
    path = critical_path(runs, durations)
    # the experiments run before the report, which waits for them: their chains include it
    assert path == {"small": 12.0, "new": 0.0, "exp-a": 13.0, "exp-b": 14.0, "report": 4.0}
    order = sorted(runs, key=lambda r: -path[r.output])
    assert [r.output for r in order] == ["exp-b", "exp-a", "small", "report", "new"]
    (out / DURATIONS).write_text("not json")
    assert read_durations(out) == {"small": 12.0, "exp-b": 10.0}


def test_captioned_figures_get_their_caption_as_alt_text() -> None:
    """Without ``mystnb.image.alt`` Sphinx writes the image's file name as its alt text."""
    import nbformat

    from ensel._html import unrendered_markup
    from ensel.book.runner._execute import _figure_alt_texts

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("plt.show()", metadata={"mystnb": {"figure": {
            "caption": "Test error of $k$ models, {numref}`as before <fig-a>`.",
            "name": "fig-x"}}}),
        nbformat.v4.new_code_cell("plt.show()", metadata={"mystnb": {
            "figure": {"caption": "c"}, "image": {"alt": "kept as written"}}}),
        nbformat.v4.new_code_cell("x = 1")])
    _figure_alt_texts(nb)
    alt = nb.cells[0].metadata["mystnb"]["image"]["alt"]
    assert alt == "Test error of k models, as before."
    assert unrendered_markup(f'<img src="a.png" alt="{alt}">') == []
    assert nb.cells[1].metadata["mystnb"]["image"]["alt"] == "kept as written"
    assert "mystnb" not in nb.cells[2].metadata
