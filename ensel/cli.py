"""The ``ensel`` command line.

``ensel notebooks ...``  execute the book's notebooks (see :mod:`ensel.runner`)
``ensel datasets ...``   list or fetch datasets (see :mod:`ensel.datasets`)
``ensel collect ...``    regenerate the paper's raw answers (see :mod:`ensel.collect.cli`)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ensel`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="ensel",
        description="Information-theoretic LLM ensemble selection: companion tools.",
    )
    parser.add_argument("command", choices=["notebooks", "datasets", "collect"],
                        help="notebooks: execute the book's notebooks; datasets: list/fetch data")
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    if not argv or argv[0] in ("-h", "--help"):
        parser.print_help()
        return 0
    args = parser.parse_args(argv[:1])
    if args.command == "notebooks":
        from ensel.runner import main as runner_main

        return runner_main(argv[1:])
    if args.command == "collect":
        from ensel.collect.cli import main as collect_main

        return collect_main(argv[1:])
    from ensel.datasets.__main__ import main as datasets_main

    return datasets_main(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
