"""``python -m lookup_pandas``: the same as the ``lookup-pandas`` command."""

from .cli import main

raise SystemExit(main())
