"""``ensel evaluate`` refuses bad input before it loads the notebook machinery (issue 28,
item 3: "fails in under a second").

The refusals (too few items, one label class, one model, ``--splits 1``, an unknown dataset)
run in one fresh process; after each, none of the page packages (papermill, nbformat,
nbconvert, jupytext, matplotlib) may have been imported: they cost more than the check, and
neither may scipy (0.25 s to import; the checks need none of it). A refusal of the arguments
alone (``--splits 1``, ``--ks``, ``-o``) comes before the data are read, so it imports
neither pandas nor numpy. These are tests of what is imported, not of a time (a loaded
machine makes any time flaky); benchmarks/bench_refusal.py measures the times.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .test_refusals import FEW_ITEMS, ONE_CLASS, ONE_MODEL

#: Imported only once the page runs.
PAGE_PACKAGES = ("papermill", "nbformat", "nbconvert", "jupytext", "matplotlib")
#: Not needed to refuse: scipy; nor, before the data are read, pandas and numpy.
SLOW_PACKAGES = ("scipy", *PAGE_PACKAGES)
DATA_PACKAGES = ("pandas", "numpy", "pyarrow", *SLOW_PACKAGES)

PROBE = """
import contextlib, io, json, sys
from ensel.cli import main
page = {page!r}
out = []
for argv in {cases!r}:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(argv)
    out.append([code, err.getvalue().strip().splitlines()[-1],
                sorted(m for m in page if m in sys.modules)])
print(json.dumps(out))
"""


def test_evaluate_refuses_without_importing_the_page_packages(tmp_path: Path) -> None:
    cases = []
    for name, text in (("few", FEW_ITEMS), ("one_class", ONE_CLASS), ("one_model", ONE_MODEL)):
        (tmp_path / f"{name}.csv").write_text(text, encoding="utf-8")
        cases.append(["evaluate", f"{name}.csv", "-o", "r.html"])
    (tmp_path / "good.csv").write_text(ONE_CLASS.replace(",1\n", ",-1\n", 6), encoding="utf-8")
    cases += [["evaluate", "good.csv", "-o", "r.html", "--splits", "1"],
              ["evaluate", "no_such_dataset", "-o", "r.html"]]
    proc = subprocess.run([sys.executable, "-c", PROBE.format(page=SLOW_PACKAGES, cases=cases)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    wanted = ["fewer than the 5 needed", "only one label class", "needs at least 2 models",
              "--splits must be an integer >= 2; got 1", "unknown dataset 'no_such_dataset'"]
    assert len(results) == len(cases) == len(wanted)
    for argv, (code, line, imported), fragment in zip(cases, results, wanted, strict=True):
        assert code == 2, (argv, line)
        assert line.startswith("ensel evaluate: error:") and fragment in line, (argv, line)
        assert imported == [], (argv, imported)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "few.csv", "good.csv", "one_class.csv", "one_model.csv"]  # no report, no notebook


def test_argument_refusals_come_before_reading_the_data(tmp_path: Path) -> None:
    (tmp_path / "good.csv").write_text(ONE_CLASS.replace(",1\n", ",-1\n", 6), encoding="utf-8")
    (tmp_path / "r.html").write_text("kept", encoding="utf-8")
    cases = [["evaluate", "good.csv", "-o", "x.html", "--splits", "1"],
             ["evaluate", "good.csv", "-o", "x.html", "--ks", "0-2"],
             ["evaluate", "good.csv", "-o", "r.html"],
             ["evaluate", "good.csv", "-o", "x.txt"],
             ["evaluate", "good.csv", "-o", "x.html", "--format", "excel"]]
    wanted = ["--splits must be an integer >= 2; got 1", "--ks must be positive budgets",
              "r.html", "the report must be an .html file", "invalid choice: 'excel'"]
    proc = subprocess.run([sys.executable, "-c", PROBE.format(page=DATA_PACKAGES, cases=cases)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    for argv, (code, line, imported), fragment in zip(cases, json.loads(proc.stdout), wanted,
                                                      strict=True):
        assert code == 2, (argv, line)
        assert line.startswith("ensel evaluate: error:") and fragment in line, (argv, line)
        assert imported == [], (argv, imported)
    assert (tmp_path / "r.html").read_text(encoding="utf-8") == "kept"


def test_only_the_program_freezes_its_objects_at_exit(tmp_path: Path) -> None:
    """``main()`` as the program (argv from ``sys.argv``) freezes what is alive as it ends,
    so the interpreter's last collection skips pandas' objects; ``main([...])`` called from
    Python leaves the caller's collector alone."""
    probe = ("import gc, sys\nfrom ensel.cli import main\n"
             "code = main(['select', 'missing.csv', '-k', '2'])\n"
             "frozen_by_call = gc.get_freeze_count()\n"
             "sys.argv = ['ensel', 'select', 'missing.csv', '-k', '2']\ncode2 = main()\n"
             "print(code, code2, frozen_by_call, gc.get_freeze_count() > 0)")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["2", "2", "0", "True"]
    assert proc.stderr.count("missing.csv") == 2
