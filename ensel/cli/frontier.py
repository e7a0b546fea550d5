"""``ensel frontier``: the cost-error frontier of your models (see :mod:`ensel.cost_cli`)."""

from __future__ import annotations

from ensel.cost_cli import add_frontier_arguments as add_arguments
from ensel.cost_cli import frontier_command as run_command

__all__ = ["add_arguments", "run_command"]
