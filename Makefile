# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
# Each builds .venv from pyproject.toml when it is missing or older than pyproject.toml.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: venv test demo bench lint clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

venv: $(STAMP)

# The docstrings' examples of the pure modules run first (one process, a few seconds), then the
# suite in 4 worker processes, each taking whole test files (module fixtures stay in one
# process); `.venv/bin/python -m pytest` alone runs the same tests in one process
DOCTESTED := lookup_pandas/config lookup_pandas/service lookup_pandas/frames lookup_pandas/display \
	lookup_pandas/identifiers lookup_pandas/enrichment/plan.py lookup_pandas/http/decisions.py

test: venv
	$(PY) -m pytest -q --doctest-modules $(DOCTESTED)
	$(PY) -m pytest -n 4 --dist loadfile

demo: venv
	$(VENV)/bin/lookup-pandas demo

bench: venv
	$(PY) bench/run.py

# ruff's rules and its formatter on everything, mypy --strict on the package and its plugin,
# and the layers contract of pyproject.toml's [tool.importlinter] (a wrong-way import fails)
LINTED := lookup_pandas tests bench pytest_lookup_pandas.py

lint: venv
	$(VENV)/bin/ruff check $(LINTED)
	$(VENV)/bin/ruff format --check $(LINTED)
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

clean:
	rm -rf $(VENV) build dist .pytest_cache .ruff_cache .hypothesis .mypy_cache
