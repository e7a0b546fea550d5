"""Page support for the book: only the notebooks (and the build) import this package.

=========================  ===================================================================
module                     what
=========================  ===================================================================
:mod:`ensel.book.tables`   tables in the paper's format, comparisons with the paper's numbers
:mod:`ensel.book.claims`   the paper's claims as data and their verdicts; graded verdicts
:mod:`ensel.book.figures`  the figures (matplotlib)
:mod:`ensel.book.simulation`  Monte Carlo comparisons against exact laws (batch means)
:mod:`ensel.book.results`  where experiments pages keep their results for the report
:mod:`ensel.book.runner`   executes the notebooks with papermill (``make book``)
=========================  ===================================================================

The library (everything else in :mod:`ensel`) never imports this package; a test checks it.
"""
