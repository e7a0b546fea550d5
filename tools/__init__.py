"""Development-only build tooling of the book (not in the wheel).

``tools.bookcheck`` (the built HTML loads nothing from the network) and
``tools.browsercheck`` (every page in headless Chromium: console errors, broken links and
images, unrendered math, overflow), run by ``make html`` and ``make check-browser`` from the
repository root (``python -m tools.bookcheck``). The library never needs them.
"""
