# The two commands of the README:
#   make book   build the HTML book (executes every notebook with papermill first)
#   make test   run the test suite (unit, property and notebook tests)
# Both create the pinned environment in .venv/ when it is missing.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CONSTRAINTS := requirements/constraints.txt
# References the book compares ensel with, not dependencies of ensel: crowd-kit's
# Dawid-Skene (notebooks/answers_as_they_are.py, benchmarks/bench_dawid_skene.py). Installed
# without its declared dependencies: crowdkit.aggregation needs only nltk (and its regex)
# beyond what ensel's environment has; transformers (~180 MB) serves crowdkit.learning,
# which nothing here imports. Pinned in $(CONSTRAINTS); about 3 MB of wheels.
REFERENCES := crowd-kit nltk regex

# Real MMLU-Pro data: use the shared mirror beside the checkout when there is one
# (CI and the developers' machines), or beside the local repository this clone was made
# from (a throw-away clone in a temporary folder); otherwise the data is downloaded on demand.
ifeq ($(origin ENSEL_DATA_MIRROR), undefined)
  ORIGIN_DIR := $(shell git config --get remote.origin.url 2>/dev/null)
  MIRROR_DIR := $(firstword $(foreach d,../shared/mirror $(ORIGIN_DIR)/../shared/mirror,\
                  $(if $(wildcard $(d)/TIGER-AI-Lab),$(d))))
  ifneq ($(MIRROR_DIR),)
    export ENSEL_DATA_MIRROR := $(abspath $(MIRROR_DIR))
  endif
endif

.PHONY: book notebooks html pdf chromium check-browser reports screenshots test test-slow test-book run lint bench lock env clean help

help:
	@echo "make book    execute the notebooks that changed (papermill) and build the HTML"
	@echo "             (FORCE=1 re-executes every notebook; JOBS=n runs n at once)"
	@echo "make pdf     print the built HTML book (not its API reference) to one PDF with an"
	@echo "             outline, offline; it fails beyond 300 pages or without an outline"
	@echo "             (_build/html/ensel-book.pdf, linked from the front page; make book does it"
	@echo "             when Chromium is installed, reprinting only the pages that changed)"
	@echo "make chromium  install Debian's chromium when it is missing (as root)"
	@echo "make test    run the tests (unit, property, notebooks)"
	@echo "make test-slow  the minutes-long tests make test leaves to CI (the wheel in a fresh"
	@echo "             environment, the full coverage study, a 1,000-model report)"
	@echo "make test-book  the tests that read the built book (after make book)"
	@echo "make check-browser  open every page of _build/html in headless Chromium, light and dark"
	@echo "             (after make book); screenshots in _build/screenshots (dark/ for dark mode)"
	@echo "make reports  ensel report on a weak abstaining pool and on LLMBar in _reports"
	@echo "             (open them with: python -m tools.browsercheck _reports --mode both)"
	@echo "make screenshots  1280x900 light and dark shots of the closing note's pages (after make book)"
	@echo "             in _build/closing-screenshots; SHOTS='page.html page.html#id' for others"
	@echo "make run NB=<notebook> [OUTPUT=<run>] [DATASET=<name|path>] [PARAMS='k=v ...']"
	@echo "make bench   run the benchmarks at full size into benchmarks/results.json and the"
	@echo "             README's timing table (BENCH='frontier refusal' runs those only)"
	@echo "make lint | lock | clean"

env: $(STAMP)

$(STAMP): pyproject.toml $(CONSTRAINTS)
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python >= 3.11 is required, found " + sys.version.split()[0]'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e ".[book,dev]"
	$(BIN)/python -m pip install --quiet --no-deps -c $(CONSTRAINTS) $(REFERENCES)
	@touch $(STAMP)

# Incremental: a run re-executes only when its inputs changed (FORCE=1 re-executes all);
# independent runs execute in parallel (JOBS=n, default: up to 2).
notebooks: $(STAMP)
	@{ $(BIN)/python -c "from ensel.datasets import mmlu_pro; raise SystemExit(not mmlu_pro.is_available())" \
	  || $(BIN)/python -m ensel.datasets fetch mmlu_pro; } > /dev/null 2>&1 \
	  && echo "MMLU-Pro data: available (mirror or cache; each file SHA-256 checked when read)" \
	  || echo "MMLU-Pro data: not available (no network, no mirror); its pages explain how to get it"
	$(TEST_ENV) $(BIN)/python -m ensel.book.runner all $(if $(FORCE),--force) $(if $(JOBS),--jobs $(JOBS))

# Sphinx rebuilds only the pages whose executed notebook changed (FORCE=1: from scratch);
# the offline and prose checks keep each file's verdict in _build/bookcheck.json, keyed by
# the file, its page's notebook and the checks' own source (tools/bookcheck.py).
html: $(STAMP)
	$(if $(FORCE),rm -rf _build/html _build/.doctrees)
	$(BIN)/python -m ensel.book.runner toc
	$(TEST_ENV) $(BIN)/jupyter-book build . --builder html -W -n --keep-going
	$(BIN)/python -m tools.bookcheck _build/html --cache _build/bookcheck.json
	@echo "Book: $(CURDIR)/_build/html/index.html"

book: $(STAMP)
	$(MAKE) --no-print-directory notebooks
	$(MAKE) --no-print-directory html
	$(MAKE) --no-print-directory pdf IF_CHROMIUM=1

# The book as one PDF: headless Chromium prints every page of _toc.yml but the API reference
# from the built HTML (served on 127.0.0.1, nothing from the network; the print rules of
# book/_static/ensel.css fold code, parameters and provenance boxes) and pypdf merges them
# with an outline; it fails beyond 300 pages or without an outline (book/_ext/pdfbook.py).
# A page is printed again only when its HTML or a file it loads changed (cache keyed by
# content in _build/pdfcache). Without Chromium make pdf stops (exit 2); make book says so in
# one line and succeeds (IF_CHROMIUM=1), and its front page then does not link the PDF.
pdf: $(STAMP)
	@test -f _build/html/index.html || { echo "pdf: no _build/html/index.html; run make book first"; exit 2; }
	$(BIN)/python book/_ext/pdfbook.py _build/html -o _build/html/ensel-book.pdf \
	  --cache _build/pdfcache $(if $(IF_CHROMIUM),--if-chromium)

# Debian's chromium when none is on PATH (as root, like CI): the browser tests of make test,
# the PDF and make check-browser need it. The one place that installs it (.ci/run uses it).
chromium:
	@command -v chromium > /dev/null || command -v chromium-browser > /dev/null || { \
	  test "$$(id -u)" = 0 || { echo "chromium: not installed; as root: apt-get install chromium"; exit 2; }; \
	  echo "chromium: installing Debian's chromium"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium > /dev/null; }

# The user's report (ensel report) on a weak abstaining pool and on LLMBar with the shipped
# prices, for the browser check: python -m tools.browsercheck _reports --mode both
reports: $(STAMP)
	$(BIN)/python -m tools.reports _reports

# The built book in a real browser: console errors, broken internal links/images, unrendered
# math, horizontal overflow at 1280 px; a screenshot of each page. Installs Debian's chromium
# when it is missing (make chromium: as root, like CI).
check-browser: $(STAMP)
	@test -f _build/html/index.html || { echo "check-browser: no _build/html/index.html; run make book first"; exit 2; }
	@$(MAKE) --no-print-directory chromium
	$(BIN)/python -m tools.browsercheck _build/html --screenshots _build/screenshots --mode both

# Screenshots for a closing note or a review (no checks): the front page, its headline figure
# with the "Reproduce this" box opened, corrections, notation, explorer, list of figures.
screenshots: $(STAMP)
	@test -f _build/html/index.html || { echo "screenshots: no _build/html/index.html; run make book first"; exit 2; }
	$(BIN)/python -m tools.browsercheck _build/html --shots _build/closing-screenshots \
	  $(foreach s,$(SHOTS),--shot "$(s)")

# The tests start Python many times (xdist's workers, the command line and the benchmark
# scripts in their own processes, a kernel per executed page), and each start imports
# ensel: with PYTHONDONTWRITEBYTECODE set (some containers set it), every one of them would
# compile ensel's modules and pytest would rewrite every test module's asserts again.
# The tests and the book's build (its workers, kernels and Sphinx import ensel too) write
# bytecode as Python does by default (__pycache__, git-ignored).
TEST_ENV := PYTHONDONTWRITEBYTECODE=

test: $(STAMP)
	$(TEST_ENV) $(BIN)/python -m pytest -n 2 --dist loadgroup --doctest-modules -m "not slow and not built_book" tests ensel

# CI runs both (.ci/run): the tests marked slow, and after make book those marked built_book,
# which read book/_generated and _build/html instead of executing the pages again.
test-slow: $(STAMP)
	$(TEST_ENV) $(BIN)/python -m pytest -n 2 --dist loadgroup -m slow tests

test-book: $(STAMP)
	@test -f _build/html/index.html || { echo "test-book: no _build/html/index.html; run make book first"; exit 2; }
	$(TEST_ENV) $(BIN)/python -m pytest -m built_book tests

run: $(STAMP)
	@test -n "$(NB)" || { echo "usage: make run NB=<notebook> [OUTPUT=..] [DATASET=..] [PARAMS='k=v ...']"; exit 2; }
	$(BIN)/python -m ensel.book.runner run $(NB) $(if $(OUTPUT),--output $(OUTPUT)) $(if $(FORCE),--force) \
	  $(if $(DATASET),-p "dataset=$(DATASET)") $(foreach p,$(PARAMS),-p "$(p)")

lint: $(STAMP)
	$(BIN)/ruff check ensel tests benchmarks notebooks book/_ext
	$(BIN)/mypy

# Every benchmark at full size (never ENSEL_BENCH_TINY), its figures kept in the committed
# record benchmarks/results.json (machine, date, load) and rendered into the README's timing
# table (tools/benchrecord.py; tests/test_readme.py holds the two equal).
# BENCH="frontier refusal" runs those only.
bench: $(STAMP)
	@$(BIN)/python -m tools.benchrecord run $(if $(BENCH),--only $(BENCH)); rc=$$?; \
	  test $$rc = 2 || $(BIN)/python -m tools.benchrecord readme; exit $$rc

# Re-resolve the dependencies in a throw-away environment and rewrite the constraints file.
lock:
	rm -rf /tmp/ensel-lock && $(PYTHON) -m venv /tmp/ensel-lock
	/tmp/ensel-lock/bin/python -m pip install --quiet -e ".[book,dev]"
	/tmp/ensel-lock/bin/python -m pip install --quiet --no-deps $(REFERENCES)
	{ echo "# Exact versions of everything make installs into .venv (Python 3.11)."; \
	  echo "# Regenerate with make lock after changing dependencies in pyproject.toml."; \
	  /tmp/ensel-lock/bin/python -m pip freeze --all --exclude-editable | grep -v '^pip=='; \
	} > $(CONSTRAINTS)

clean:
	rm -rf _build _reports book/_generated .pytest_cache .ruff_cache .hypothesis
