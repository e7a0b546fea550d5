"""Shared test helpers: where the mirrored upstream files (MMLU-Pro, MMLU-Redux, LLMBar) are."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ensel.datasets import DATASETS

REPO = Path(__file__).resolve().parents[1]
UPSTREAM = "TIGER-AI-Lab/MMLU-Pro"
#: The mirrored upstream repository of each downloaded real dataset (declared in
#: data/datasets.yml): tests over the real datasets are parametrised with its names.
UPSTREAMS = {name: spec.upstream for name, spec in DATASETS.items() if spec.upstream}


def shared_mirror(upstream: str = UPSTREAM) -> Path | None:
    """The mirror holding ``upstream`` (``owner/repo``): ``$ENSEL_DATA_MIRROR`` or
    ``<repo>/../shared/mirror``, if present."""
    env = os.environ.get("ENSEL_DATA_MIRROR", "").strip()
    for candidate in ([Path(env)] if env else []) + [REPO.parent / "shared" / "mirror"]:
        if (candidate / upstream / "SHA256SUMS").is_file():
            return candidate.resolve()
    return None


def require_mirror(upstream: str = UPSTREAM) -> Path:
    """Return the mirror of ``upstream`` (``owner/repo``, default MMLU-Pro); fail in CI
    (``CI=true``) and skip elsewhere when it is missing."""
    mirror = shared_mirror(upstream)
    if mirror is None:
        msg = f"the {upstream} mirror (../shared/mirror or ENSEL_DATA_MIRROR) is missing"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg + " in CI")
        pytest.skip(msg)
    return mirror


def require_built_book() -> Path:
    """Return ``_build/html`` of the book ``make book`` built; fail in CI (``CI=true``, where
    ``make test-book`` runs after ``make book``) and skip elsewhere when it is missing."""
    html = REPO / "_build" / "html"
    if not (html / "index.html").is_file():
        msg = "no built book (_build/html/index.html); make book builds it"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg + " (CI runs make test-book after make book)")
        pytest.skip(msg)
    return html


#: Cell tags that keep a cell's code out of the reader's sight.
HIDDEN_TAGS = {"remove-cell", "remove-input", "hide-input"}


def page_code_cells(page: str) -> list:
    """The code cells of ``notebooks/<page>.py`` (jupytext source, not executed)."""
    import jupytext

    nb = jupytext.read(REPO / "notebooks" / f"{page}.py")
    return [c for c in nb.cells if c.cell_type == "code"]


def visible(cell) -> bool:
    """Whether a reader sees the cell's code."""
    return not set(cell.metadata.get("tags", [])) & HIDDEN_TAGS


@pytest.fixture
def python_sigint():
    """SIGINT handled as Python does in a foreground process (``KeyboardInterrupt``) for the
    test, whatever the test runner inherited: a shell starts a background job with SIGINT
    ignored, and ``signal_guard`` rightly keeps an ignored signal ignored."""
    import signal

    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


# --- Scheduling under xdist (make test runs -n 2 --dist loadgroup) ------------------------
# A module-scoped fixture (a report rendered once, a mirror loaded once) is computed once per
# worker that runs a test needing it: spread over two workers, twice, and again whenever a
# worker comes back to the module after other work. Every test that uses one is put in its
# module's xdist group, so that each such fixture is computed once per run; the other tests
# of the module stay free to run on either worker. xdist queues the larger groups first
# (loadscopereorder), so a long group does not start last and leave the other worker idle.


def _module_fixture_group(item: pytest.Item) -> str | None:
    """The module of ``item`` when it needs a module-scoped fixture of the test suite: by
    name, or through ``request.getfixturevalue`` (a test taking ``request`` in a module that
    defines one)."""
    info = getattr(item, "_fixtureinfo", None)
    module = getattr(item, "module", None)
    if info is None or module is None:  # doctests
        return None

    def shared(defs) -> bool:
        return bool(defs) and defs[-1].scope in ("module", "package", "session") \
            and defs[-1].baseid.startswith("tests")

    if any(shared(info.name2fixturedefs.get(name)) for name in info.names_closure):
        return module.__name__
    if "request" in info.argnames and any(
            getattr(getattr(v, "_fixture_function_marker", None), "scope", None) == "module"
            for v in vars(module).values()):
        return module.__name__
    return None


def pytest_itemcollected(item: pytest.Item) -> None:
    """Put ``item`` in its module's xdist group when it needs a module-scoped fixture (at
    collection, before xdist's workers read the groups)."""
    if not getattr(item.config.option, "loadgroup", False):  # set in xdist's workers
        return
    if item.get_closest_marker("xdist_group") is None:
        group = _module_fixture_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """xdist's workers name an item's group by appending ``@group`` to its node id
    (``item._nodeid``), which pytest 9 no longer reads (the id is ``item._id``): without this,
    ``--dist loadgroup`` spreads a group's tests over both workers like any others. The same
    suffix, set where pytest 9 reads it; nothing when the id already carries it."""
    if not getattr(config.option, "loadgroup", False):
        return
    import dataclasses

    for item in items:
        names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                        for m in item.iter_markers("xdist_group")})
        node_id = getattr(item, "_id", None)
        if not names or "@" in item.nodeid or not dataclasses.is_dataclass(node_id):
            continue
        grouped = dataclasses.replace(node_id)  # type: ignore[type-var]
        object.__setattr__(grouped, "_str_cache", f"{item.nodeid}@{'_'.join(names)}")
        setattr(item, "_id", grouped)  # noqa: B010 - a private field of pytest's


# --- Where the time goes: --durations-by-file=N ------------------------------------------
# The N test files that took longest (setup, call and teardown of all their tests summed,
# on whichever worker ran them), the N tests that used the most CPU, and the busy time of
# each worker: what to look at when make test grows (issue 37). CPU seconds (the worker's
# own and those of the processes a test ran and waited for) do not grow with the load of a
# shared machine as wall seconds do, so they are the figure to compare between runs.


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--durations-by-file", type=int, default=None, metavar="N",
                     help="show the N test files with the longest total duration and the N "
                          "tests that used the most CPU (their own processes included)")


_FILE_TIMES: dict[str, list[float]] = {}
_TEST_CPU: dict[str, float] = {}
_WORKER_TIMES: dict[str, float] = {}
_CPU_MARK = pytest.StashKey[float]()


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its children that ended (waited for)."""
    import resource

    own, children = (resource.getrusage(who) for who in
                     (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    item.stash[_CPU_MARK] = _cpu_seconds()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    now = _cpu_seconds()
    start = item.stash.get(_CPU_MARK, now)
    item.stash[_CPU_MARK] = now
    outcome.get_result().user_properties.append(("cpu_seconds", now - start))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    path = report.nodeid.split("::")[0]
    cpu = sum(v for k, v in report.user_properties if k == "cpu_seconds")
    entry = _FILE_TIMES.setdefault(path, [0.0, 0, 0.0])
    entry[0] += report.duration
    entry[1] += report.when == "call"
    entry[2] += cpu
    _TEST_CPU[report.nodeid] = _TEST_CPU.get(report.nodeid, 0.0) + cpu
    worker = getattr(report, "node", None)
    name = getattr(getattr(worker, "gateway", None), "id", "main")
    _WORKER_TIMES[name] = _WORKER_TIMES.get(name, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    n = config.getoption("durations_by_file")
    if not n or not _FILE_TIMES:
        return
    tr = terminalreporter
    tr.write_sep("=", f"slowest {n} test files (seconds summed over their tests)")
    for path, (seconds, count, cpu) in sorted(_FILE_TIMES.items(),
                                              key=lambda kv: -kv[1][0])[:n]:
        tr.write_line(f"{seconds:8.1f}s {cpu:8.1f} CPU-s {int(count):5d} tests  {path}")
    tr.write_sep("=", f"the {n} tests that used the most CPU (setup, call and teardown)")
    for nodeid, cpu in sorted(_TEST_CPU.items(), key=lambda kv: -kv[1])[:n]:
        tr.write_line(f"{cpu:8.1f} CPU-s  {nodeid}")
    tr.write_line("busy per worker: " + ", ".join(
        f"{w} {s:.1f}s" for w, s in sorted(_WORKER_TIMES.items())))
    tr.write_line(f"CPU of all tests: {sum(_TEST_CPU.values()):.1f} CPU-s")
