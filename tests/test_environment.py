"""The environment files agree with each other and pin what the build needs."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _split(req: str) -> tuple[str, str]:
    m = re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*)$", req)
    assert m, f"cannot parse requirement {req!r}"
    return _norm(m.group(1)), m.group(2).replace(" ", "")


def _pyproject_requirements() -> dict[str, str]:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(meta["dependencies"])
    for extra in meta["optional-dependencies"].values():
        reqs += extra
    return dict(_split(r) for r in reqs)


def _environment_requirements() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    out: dict[str, str] = {}
    for dep in env["dependencies"]:
        items = dep["pip"] if isinstance(dep, dict) else [dep]
        for item in items:
            if item.startswith("-e") or _norm(item) in ("pip", "python"):
                continue
            name, spec = _split(item)
            if name == "python":
                continue
            out[name] = spec
    return out


def test_environment_yml_lists_the_same_packages_as_pyproject() -> None:
    py = _pyproject_requirements()
    env = _environment_requirements()
    assert sorted(set(py) - set(env)) == [], "in pyproject.toml but not in environment.yml"
    assert sorted(set(env) - set(py)) == [], "in environment.yml but not in pyproject.toml"
    differing = {n: (py[n], env[n]) for n in py if py[n] != env[n]}
    assert differing == {}, f"version specifiers differ (pyproject, environment.yml): {differing}"


def test_constraints_pin_every_dependency_exactly() -> None:
    pins = {}
    for line in (ROOT / "requirements" / "constraints.txt").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, version = line.partition("==")
        assert version, f"constraint {line!r} is not an exact pin"
        pins[_norm(name)] = version
    missing = sorted(set(_pyproject_requirements()) - set(pins))
    assert missing == [], f"dependencies without an exact pin in constraints.txt: {missing}"


def test_python_requirement() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert meta["requires-python"] == ">=3.11"
