"""The import graph of ``ensel``: no circles, and command modules stay at the top.

Every ``import`` statement counts, at module level or inside a function (a function-level
import is still a dependency, only a later one), so a circle cannot hide in a lazy import.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import ensel

PKG = Path(ensel.__file__).parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


@functools.cache
def _tree(path: Path) -> ast.Module:
    """The parsed source of ``path``, once per test process (the tests only read it)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def import_graph() -> dict[str, set[str]]:
    """``module -> modules of ensel it imports`` (the most specific module each names)."""
    return {name: set(deps) for name, deps in _import_graph().items()}


@functools.cache
def _import_graph() -> dict[str, frozenset[str]]:
    modules = _modules()
    graph: dict[str, frozenset[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps: set[str] = set()
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                           for a in node.names]
            else:
                continue
            for t in targets:
                while t and t not in modules:
                    t = t.rpartition(".")[0]
                if t and t != "ensel" and t != name:
                    deps.add(t)
        graph[name] = frozenset(deps)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle as a list of modules (first == last), or ``None``."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                return stack[stack.index(dep):] + [dep]
            if dep not in state and (found := visit(dep)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_cycle_finder_finds_a_circle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_graph_sees_function_level_imports() -> None:
    graph = import_graph()
    # ensel.select._exhaustive imports MAPAggregator at module level; the package's own
    # parts are found through the package (``from ensel.select._base import ...``)
    assert "ensel.aggregate" in graph["ensel.select._exhaustive"]
    assert "ensel.select._base" in graph["ensel.select._score_mi"]


def test_no_import_circles_in_ensel() -> None:
    assert find_cycle(import_graph()) is None, " -> ".join(find_cycle(import_graph()) or [])


def test_no_module_outside_the_command_package_imports_a_command_module() -> None:
    graph = import_graph()
    commands = {m for m in graph if m.startswith("ensel.cli.")}
    assert {"ensel.cli.select", "ensel.cli.evaluate", "ensel.cli.importer",
            "ensel.cli.frontier", "ensel.cli.cascade"} <= commands
    offenders = sorted(f"{m} -> {d}" for m, deps in graph.items()
                       if not m.startswith("ensel.cli") for d in deps
                       if d in commands or (d == "ensel.cli" and m != "ensel.__main__"))
    assert offenders == []


def test_every_command_module_lives_in_the_command_package() -> None:
    # a command's module (``add_arguments``/``run_command``) is in ``ensel/cli/`` or is a
    # package's own ``cli``/``__main__``/runner, and no other module defines both
    from ensel.cli import COMMANDS

    graph = import_graph()
    defines = sorted(m for m in graph
                     if {"add_arguments", "run_command"} <= _top_level_functions(m))
    allowed = {module for module, _, _ in COMMANDS.values()}
    assert set(defines) <= allowed, sorted(set(defines) - allowed)
    assert not [m for m in allowed if not m.startswith("ensel.cli.")
                and m.rpartition(".")[2] not in ("cli", "_cli", "__main__", "runner")]


def _top_level_functions(module: str) -> set[str]:
    tree = _tree(_modules()[module])
    names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    for n in tree.body:  # ``from x import a as add_arguments``
        if isinstance(n, ast.ImportFrom):
            names |= {a.asname for a in n.names if a.asname}
    return names


def _fresh_python(code: str) -> str:
    """What ``code`` prints in a new interpreter (nothing imported before it), stripped."""
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_a_command_imports_the_book_runner_only_when_it_runs() -> None:
    # the parsers of select, evaluate, import and datasets, and every command module but the
    # runner's own (`notebooks`); `ensel evaluate` imports the runner inside run_command
    code = ("import sys; from ensel.cli import build_parser\n"
            "for c in ('select', 'evaluate', 'import', 'datasets'): build_parser(c)\n"
            "import ensel.cli.select, ensel.cli.evaluate, ensel.cli.importer, ensel.collect.cli\n"
            "print(sorted(m for m in sys.modules if m.startswith('ensel.book')))")
    out = _fresh_python(code)
    assert out == "[]"


def test_the_top_level_help_and_version_import_no_command_module() -> None:
    """``ensel``, ``ensel --help`` and ``ensel --version`` name no command, so no command's
    module (nor pandas, numpy or scipy) is imported to list the commands."""
    code = ("import contextlib, io, sys; from ensel.cli import main, COMMANDS\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    codes = [main([]), main(['--help'])]\n"
            "    try: main(['--version'])\n"
            "    except SystemExit as e: codes.append(e.code)\n"
            "heavy = ('pandas', 'numpy', 'scipy', *(m for m, _, _ in COMMANDS.values()))\n"
            "print(codes, sorted(m for m in heavy if m in sys.modules))")
    out = _fresh_python(code)
    assert out == "[0, 0, 0] []"
