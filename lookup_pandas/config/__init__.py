"""The settings of a Client, read once: keywords, the environment, cache URLs (no I/O)."""
