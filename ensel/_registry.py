"""What the two registries of estimators share (:data:`ensel.select.SPECS`,
:data:`ensel.aggregate.SPECS`): the base of their specs and the name -> class view of a
registry."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = ["EstimatorSpec", "EstimatorView"]

E = TypeVar("E")


@dataclass(frozen=True)
class EstimatorSpec:
    """One registered estimator: its registry key, its class and its display label (a
    registry's spec class adds what its own readers need)."""

    name: str
    estimator: Any
    label: str


class EstimatorView(Mapping[str, E], Generic[E]):
    """A read-only view of a registry (name -> spec) as name -> estimator class; always
    current, as it reads the registry's dict on every access (a spec registered later, e.g.
    by a test's toy selector, is in it)."""

    def __init__(self, specs: Mapping[str, EstimatorSpec]) -> None:
        self._specs = specs

    def __getitem__(self, name: str) -> E:
        return self._specs[name].estimator

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def __repr__(self) -> str:
        return repr({name: spec.estimator for name, spec in self._specs.items()})
