"""``df.lookup``: enrichment as a DataFrame accessor, registered when lookup_pandas is imported.

>>> import pandas as pd
>>> import lookup_pandas as lp
>>> from lookup_pandas.testing import MockTransport, people_service
>>> ada = {"id": "prsn_1", "handle": "ada", "headline": "Engineer"}
>>> client = lp.Client(api_key="lk_test", base_url="https://api.example.com", cache=False,
...                    transport=MockTransport(people_service(ada, balance=100)))
>>> leads = pd.DataFrame({"handle": ["ada", "ADA", ""]})
>>> leads.lookup.estimate_profiles("handle", client=client).to_fetch
1
>>> enriched = leads.lookup.enrich_profiles("handle", client=client, progress=False)
>>> enriched[["handle", "profile_headline", "lookup_status"]]
  handle profile_headline lookup_status
0    ada         Engineer            ok
1    ADA         Engineer            ok
2                     NaN       invalid
>>> enriched.lookup.summary.fetched  # the run's JobSummary, also after a round trip to parquet
1

Each method is :mod:`lookup_pandas.api.functions`' function of the same name, made by
:func:`~lookup_pandas.api.adapters.frame_method`, with its signature, docstring and types.
pandas-stubs types ``df.lookup`` as a column, so a type checker sees the methods' types
through the class: ``LookupAccessor(leads).enrich_profiles("handle")`` is a DataFrame, and
with ``background=True`` an EnrichmentJob.
"""

from __future__ import annotations

import pandas as pd

from .api import emails
from .api import functions as api
from .api.adapters import FrameAccessor, frame_method
from .api.enriched_frames import summary_of
from .enrichment.results import JobSummary

__all__ = ["LookupAccessor"]


@pd.api.extensions.register_dataframe_accessor("lookup")
class LookupAccessor(FrameAccessor[pd.DataFrame]):
    """``df.lookup``: ``enrich_profiles``, ``enrich_companies``, the Email API's
    ``find_emails``, ``verify_emails`` and ``reverse_emails``, their estimates, ``summary``."""

    enrich_profiles = frame_method(api.enrich_profiles)
    estimate_profiles = frame_method(api.estimate_profiles)
    enrich_companies = frame_method(api.enrich_companies)
    estimate_companies = frame_method(api.estimate_companies)
    find_emails = frame_method(emails.find_emails)
    estimate_find_emails = frame_method(emails.estimate_find_emails)
    verify_emails = frame_method(emails.verify_emails)
    estimate_verify_emails = frame_method(emails.estimate_verify_emails)
    reverse_emails = frame_method(emails.reverse_emails)
    estimate_reverse_emails = frame_method(emails.estimate_reverse_emails)

    @property
    def summary(self) -> JobSummary | None:
        """The JobSummary of the enrichment that made this frame, or None when it keeps none.

        It is rebuilt from ``attrs["lookup_summary"]``, so it follows the frame through
        filters, ``pd.concat`` of enriched frames, and parquet, feather or pickle files (CSV
        and Excel keep no ``attrs``). After enrichments chained on one frame, it is the last's.
        """
        return summary_of(self._frame)
