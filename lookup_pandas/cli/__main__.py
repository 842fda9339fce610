"""``python -m lookup_pandas.cli``: the same as the ``lookup-pandas`` command."""

from . import main

raise SystemExit(main())
