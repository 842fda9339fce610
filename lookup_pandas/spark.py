"""``lookup_pandas.spark`` (``lp.spark``): enrichment of PySpark DataFrames.

The functions are those of :mod:`lookup_pandas.integrations.spark`, where the module's guide is.
pyspark is needed (``pip install 'lookup-pandas[spark]'``), and Java 17 for Spark itself.

Example: ``sdf.transform(lambda d: lp.spark.enrich_profiles(d, "linkedin_url"))``
"""

from .integrations.spark import *  # noqa: F403  the functions, listed once: there
from .integrations.spark import __all__ as __all__
