"""The package version, defined here only: the build reads it (pyproject's
``[tool.hatch.version]``), ``lp.__version__`` and ``lookup-pandas --version`` show it, and
CHANGELOG.md's latest release names it."""

__version__ = "0.1.0"
