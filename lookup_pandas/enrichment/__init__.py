"""Enrichment: a plan made before anything is sent, its run (single calls and batch jobs), and
the results, summaries and provenance it gives back, in the foreground or in the background."""
