"""``python -m ensel.book.runner``: the command ``ensel notebooks``."""

import sys

from ensel.book.runner._cli import main

sys.exit(main())
