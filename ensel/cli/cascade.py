"""``ensel cascade``: an adaptive cascade on your models (see :mod:`ensel.cost_cli`)."""

from __future__ import annotations

from ensel.cost_cli import add_cascade_arguments as add_arguments
from ensel.cost_cli import cascade_command as run_command

__all__ = ["add_arguments", "run_command"]
