# Quick start (see README.md):
#   make reproduce   set up .venv, build every figure and table (snakemake --cores all) and
#                    compare them with the canonical run (make verify)
#   make test        set up .venv and run the test suite
# Also: make quick (same DAG, small), make pages (check a build's pages in headless Chromium,
#       with screenshots; ROOT=results/quick for the quick build), make report (one HTML report of every output),
#       make test-e2e (quick builds of whole papers, ~3 min), make slurm-test (the whole quick
#       DAG on a single-node SLURM cluster set up on this machine, ~35 min), make bench,
#       make lint, make mutation (mutation testing, on demand), make clean.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# Snakemake's jobs must find the environment's python, papermill and kernel.
export PATH := $(CURDIR)/$(BIN):$(PATH)

# The environment comes from requirements.lock: exact versions of every dependency with their
# hashes (pip --require-hashes), then the project itself without dependencies.
LOCK := requirements.lock

$(STAMP): pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install --require-hashes -r $(LOCK)
	$(BIN)/python -m pip install --no-deps -e .
	$(BIN)/python -m ipykernel install --sys-prefix --name dpbandits --display-name "Python (dpbandits)"
	$(BIN)/dpb warmup
	touch $@

# Refresh the lock: the newest versions pyproject.toml's minimums allow, with hashes (uv, installed
# into .venv on demand). Then `make test` and a paper-scale build, and say what moved in
# CHANGELOG.md.
lock: $(STAMP)
	$(BIN)/python -m pip install -q uv
	$(BIN)/uv pip compile pyproject.toml --extra dev --generate-hashes --no-annotate \
		--python $(BIN)/python --custom-compile-command "make lock" -o $(LOCK)

.PHONY: install browser pages lock reproduce verify quick report test test-e2e slurm-test bench lint mutation clean

install: $(STAMP)

# Debian's Chromium, for the page tests (headless, offline): installed once per machine (root).
CHROMIUM := /usr/bin/chromium
browser: $(CHROMIUM)
$(CHROMIUM):
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium

# Every HTML page of a build checked in the browser (markup shown as text, links, network
# requests, claim statuses against the scoreboard); screenshots in $(ROOT)/screenshots/.
ROOT ?= results
pages: $(STAMP) browser
	$(BIN)/dpb pages $(ROOT)

# Builds everything, then compares it with the committed canonical run (make verify).
reproduce: $(STAMP)
	$(BIN)/snakemake --cores all
	$(BIN)/python -m dpbandits.checks.verify

# The paper-scale results/ against canonical/ by value, one line per paper (docs/running.md).
# RTOL=1e-6 across platforms.
RTOL ?= 1e-9
verify: $(STAMP)
	$(BIN)/python -m dpbandits.checks.verify --rtol $(RTOL)

quick: $(STAMP)
	$(BIN)/snakemake --cores all --config scale=quick

# Builds what is missing, then Snakemake's report of every output marked with report().
report: $(STAMP)
	$(BIN)/snakemake --cores all
	$(BIN)/snakemake --report results/report.html --report-metadata workflow/report/metadata.yaml

# On every core, at most 8 (pytest-xdist; tests are handed out one at a time, idle workers take
# waiting ones; each pipeline test runs Snakemake on 2 cores). One file alone:
# .venv/bin/python -m pytest tests/runtime/test_cpu.py
PYTEST_PARALLEL := -n auto --maxprocesses 8 --dist worksteal
test: $(STAMP) browser
	$(BIN)/python -m pytest $(PYTEST_PARALLEL)

# The end-to-end checks (marker e2e: quick builds of whole papers, the warm-up from an empty
# numba cache), left out of `make test`.
test-e2e: $(STAMP) browser
	$(BIN)/python -m pytest -m e2e $(PYTEST_PARALLEL)

# The whole quick DAG on a single-node SLURM cluster set up on this machine (root; Debian
# packages), compared byte for byte with a local run (workflow/slurm/check.sh; ~35 min;
# SLURM_TARGETS=smoke for 15 jobs, ~4 min).
slurm-test: $(STAMP)
	bash workflow/slurm/check.sh

# AUTHORS_SCRIPT=path also times paper 003's public script (dpbandits.dev.authors_script).
AUTHORS_SCRIPT ?=
bench: $(STAMP)
	$(BIN)/dpb bench $(if $(AUTHORS_SCRIPT),--authors-script $(AUTHORS_SCRIPT))

# Mutation testing with cosmic-ray, on demand only (not in CI or `make test`; docs/mutation.md).
# Mutants live in temporary copies of the tree, never in src/. MUTATION_MODULES overrides the
# module list of workflow/mutation/modules.toml; survivors go to results/mutation/survivors.txt.
MUTATION_MODULES ?=
mutation: $(STAMP)
	$(BIN)/python workflow/mutation/run.py --out results/mutation $(MUTATION_MODULES)

lint: $(STAMP)
	$(BIN)/ruff check src tests workflow notebooks
	$(BIN)/snakemake --lint
	$(BIN)/snakefmt --check Snakefile workflow

clean:
	rm -rf results logs benchmarks .snakemake
