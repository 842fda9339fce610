"""Unit tests: no server, no socket; one folder per folder of lookup_pandas, one file per module."""
