"""``lookup-pandas emails find | verify | reverse | prospects``: the Email API on a CSV.

``find``, ``verify`` and ``reverse`` go the one path ``df.lookup.find_emails`` and its twins
take: the estimate line first, the job, the CSV, the summary; the exit codes are ``enrich``'s.

Example: ``emails(EmailsOptions("verify", "leads.csv", output="checked.csv"))`` -> ``0``
"""

from __future__ import annotations

import sys

from .estimate import print_estimate
from .options import EmailsOptions, ProspectsOptions
from .output import check_output, target, write_frame
from .reading import read_csv
from .service_client import service_client

__all__ = ["emails", "prospects"]


def emails(options: EmailsOptions) -> int:
    """The input's rows with the action's columns and statuses, as CSV (the input read whole)."""
    from ..api.columns import check_columns, column_values
    from ..api.enriched_frames import EnrichRequest, enriched
    from ..enrichment.plan import Options

    o = options
    leads = read_csv(o.input, o.encoding)
    check_output(o.output, source=o.input)
    check_columns(leads, o.columns, o.prefix)
    with service_client(o.offline) as client:
        print_estimate(column_values(leads, o.columns), o, client)
        request = EnrichRequest(leads, o.columns, o.prefix, client, o.kind, Options(**o.job))
        out, summary = enriched(request)
    write_frame(out, o.output)
    print(f"{o.kind.desc}: {summary}{target(o.output)}", file=sys.stderr)
    return 0


def prospects(options: ProspectsOptions) -> int:
    """``lp.email_prospects(domain)`` as CSV: one row per address, every page read."""
    from ..api.emails import email_prospects

    o = options
    check_output(o.output)
    with service_client(o.offline) as client:
        frame = email_prospects(
            o.domain, kind=o.kind, max_records=o.max_records, client=client, progress=o.progress
        )
        credits = client.stats.credits_consumed
    write_frame(frame, o.output)
    told = f"{len(frame)} prospects at {o.domain} ({o.kind}); {credits:g} credits"
    print(told + target(o.output), file=sys.stderr)
    return 0
