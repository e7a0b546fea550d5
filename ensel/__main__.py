"""``python -m ensel``: the ``ensel`` command line (:mod:`ensel.cli`)."""

import sys

from ensel.cli import main

if __name__ == "__main__":
    sys.exit(main())
