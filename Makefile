# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
# Each builds .venv from pyproject.toml when it is missing or older than pyproject.toml.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: venv test test-spark35 demo bench lint docs clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

venv: $(STAMP)

# The docstrings' examples run first (`>>>`, one process, a few seconds: a wrong example stops
# here), then the suite in 4 worker processes, each taking whole test files (module fixtures stay
# in one process); `.venv/bin/python -m pytest` alone runs the same tests in one process
test: venv
	$(PY) -m pytest -q --doctest-modules lookup_pandas docs/hooks
	$(PY) -m pytest -n 4 --dist loadfile

# lookup_pandas.spark again under pyspark 3.5 (the dev extra installs 4.x; the spark extra takes
# either), in a venv of its own: the package with its spark and redis extras, and what the Spark
# tests import. Its docstrings' examples, its unit tests and the local[2] tests against the emulator.
SPARK35       := .venv-spark35
SPARK35_STAMP := $(SPARK35)/.installed
SPARK_TESTS   := lookup_pandas/integrations/spark.py tests/unit/integrations/test_spark.py \
                 tests/integration/integrations/test_spark.py

$(SPARK35_STAMP): pyproject.toml
	@test -x $(SPARK35)/bin/python || $(PYTHON) -m venv $(SPARK35)
	$(SPARK35)/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(SPARK35)/bin/python -m pip install --quiet --disable-pip-version-check -e '.[spark,redis]' \
		'pyspark>=3.5,<4' 'pytest>=8' 'pytest-timeout>=2.3' 'hypothesis>=6.100' cloudpickle
	@touch $(SPARK35_STAMP)

test-spark35: $(SPARK35_STAMP)
	$(SPARK35)/bin/python -c 'import pyspark; print("pyspark", pyspark.__version__)'
	$(SPARK35)/bin/python -m pytest -q --doctest-modules $(SPARK_TESTS)

demo: venv
	$(VENV)/bin/lookup-pandas demo

bench: venv
	$(PY) bench/run.py

# ruff's rules and its formatter on everything, mypy --strict on the package and its plugin,
# and the layers contract of pyproject.toml's [tool.importlinter] (a wrong-way import fails)
LINTED := lookup_pandas tests bench pytest_lookup_pandas.py docs/hooks

lint: venv
	$(VENV)/bin/ruff check $(LINTED)
	$(VENV)/bin/ruff format --check $(LINTED)
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# The wheel and the sdist in dist/ (git-ignored), built as a user's pip would (an isolated
# build environment), then twine's check of what an index would show
.PHONY: dist
dist: venv
	rm -rf dist
	$(PY) -m build --outdir dist
	$(VENV)/bin/twine check --strict dist/*

# The docs site (mkdocs.yml): guides, the API reference from the docstrings, and the notebooks
# run against the emulator (docs/hooks/notebooks.py), into site/. --strict: a warning, a broken
# link or a missing reference fails. Open site/index.html as a file: it fetches nothing.
# NO_MKDOCS_2_WARNING: mkdocs-material's banner about its successor, printed on every build
docs: venv
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

clean:
	rm -rf $(VENV) $(SPARK35) build dist site .pytest_cache .ruff_cache .hypothesis .mypy_cache
