"""The ``ensel`` command line.

``ensel notebooks ...``  execute the book's notebooks (see :mod:`ensel.book.runner`)
``ensel datasets ...``   list or fetch datasets (see :mod:`ensel.datasets`)
``ensel select|evaluate|import ...``  your own models (see :mod:`ensel.practice`)
``ensel collect ...``    regenerate the paper's raw answers (see :mod:`ensel.collect.cli`)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

__all__ = ["main"]

_PRACTICE = {"select": "select_main", "evaluate": "evaluate_main", "import": "import_main"}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ensel`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="ensel",
        description="Information-theoretic LLM ensemble selection: companion tools.",
    )
    parser.add_argument("command", choices=["notebooks", "datasets", *_PRACTICE, "collect"],
                        help="notebooks: execute the book's notebooks (ensel notebooks --help); "
                             "datasets: list, fetch or check data (ensel datasets --help); "
                             "select/evaluate/import: your own models' answers "
                             "(ensel select --help); collect: regenerate the paper's raw "
                             "answers from LLM endpoints (ensel collect --help)")
    parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    if not argv or argv[0] in ("-h", "--help"):
        parser.print_help()
        return 0
    args = parser.parse_args(argv[:1])
    if args.command in _PRACTICE:
        from ensel import practice

        return getattr(practice, _PRACTICE[args.command])(argv[1:])
    if args.command == "notebooks":
        from ensel.book.runner import main as runner_main

        return runner_main(argv[1:])
    if args.command == "collect":
        from ensel.collect.cli import main as collect_main

        return collect_main(argv[1:])
    from ensel.datasets.__main__ import main as datasets_main

    return datasets_main(argv[1:], prog="ensel datasets")


if __name__ == "__main__":
    sys.exit(main())
