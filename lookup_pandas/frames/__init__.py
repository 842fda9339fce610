"""Records as frames, pure: flattening records into columns, polars frames, the overview."""
