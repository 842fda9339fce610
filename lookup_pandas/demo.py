"""The demo behind ``lookup-pandas demo`` and ``make demo``: a messy lead list, end to end.

It runs against the emulator in-process, so it needs no key and no network. The cache and
the enriched CSV go to ``workdir``.

Example:
    >>> leads = sample_leads()  # duplicates, blanks, URLs, unknown handles
    >>> len(leads), int(leads["handle"].isna().sum()), OPTED_OUT in set(leads["handle"])
    (250, 5, True)

Example: ``run_demo(Path("lookup-demo"))`` enriches the 250 leads, then re-runs them for free.
"""

from __future__ import annotations

import time
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from .api import functions as api
from .api import listings
from .client.client import Client
from .enrichment.results import RARE_STATUSES, STATUSES
from .frames.overview import overview
from .frames.records import to_csv_cells

if TYPE_CHECKING:
    from .testing import FakeService

__all__ = ["OPTED_OUT", "run_demo", "sample_crm_path", "sample_leads", "sample_leads_path"]

#: The lead of the sample list the demo's emulator answers 403 "opted out" for (once in it).
OPTED_OUT = "linus-wilson-178"


def sample_leads_path() -> Path:
    """The bundled sample lead list: 250 rows with duplicates, blanks, URLs, unknown handles."""
    return Path(str(resources.files("lookup_pandas") / "data" / "sample_leads.csv"))


def sample_crm_path() -> Path:
    """The bundled CRM export: names, company websites and addresses as a CRM writes them
    (case variants, a duplicate, a gmail address, a role account, blanks, garbage)."""
    return Path(str(resources.files("lookup_pandas") / "data" / "sample_crm.csv"))


def sample_leads() -> pd.DataFrame:
    """The bundled sample lead list as a frame. Empty cells are missing, and nothing else is."""
    return pd.read_csv(sample_leads_path(), dtype=str, keep_default_na=False, na_values=[""])


def _fresh_cache(workdir: Path) -> Path:
    workdir.mkdir(parents=True, exist_ok=True)
    cache = workdir / "demo-cache.sqlite"
    for leftover in workdir.glob(cache.stem + "*"):  # the cache, its WAL and its job store
        leftover.unlink()
    return cache


def run_demo(
    workdir: Path = Path("lookup-demo"),
    *,
    progress: bool = True,
    latency: float = 0.02,
    rate_limit_per_minute: int = 3000,
    sparse: bool = False,
) -> int:
    """Run the demo. Returns 0, the exit code.

    The cache in ``workdir`` is emptied first, so every run starts from nothing. ``sparse=True``
    runs it against records that carry only some fields.

    Example: ``run_demo(Path("lookup-demo"), progress=False, sparse=True)`` -> ``0``
    """
    from .testing import FakeService

    cache = _fresh_cache(workdir)
    leads = sample_leads()
    with FakeService(
        latency=latency,
        rate_limit_per_minute=rate_limit_per_minute,
        sparse_records=sparse,
        opted_out=frozenset({OPTED_OUT}),
    ) as svc:
        print(
            f"Emulator at {svc.base_url}: {latency * 1000:.0f} ms latency, "
            f"{rate_limit_per_minute} calls/min enforced smoothly"
            + (", sparse records" if sparse else "")
            + ".\n"
        )
        with Client(api_key=svc.api_key, base_url=svc.base_url, cache=cache) as client:
            enriched = _first_run(client, leads, workdir, progress=progress)
        _rerun(svc, cache, leads, enriched)
        key, url = svc.api_key, svc.base_url
    _offline_run(key, url, cache, leads)  # the emulator is stopped: nothing could answer
    return 0


def _first_run(
    client: Client, leads: pd.DataFrame, workdir: Path, *, progress: bool
) -> pd.DataFrame:
    """Estimate, enrich, show and write the lead list, then two listings. Returns the frame."""
    est = leads.lookup.estimate_profiles("handle", client=client)
    how = f"by {est.method}" + (f" ({est.jobs} job, ~{est.polls} polls)" * bool(est.jobs))
    change = f"; tier {est.tier_change}" if est.tier_change else ""
    print(
        f"Lead list {sample_leads_path().name}: {est.rows} rows, {est.valid} valid "
        f"handles, {est.unique} distinct, {est.cached} cached -> {est.to_fetch} "
        f"billable calls, {how}: {est.credits:,.0f} credits of "
        + ("an unknown balance" if est.balance is None else f"a balance of {est.balance:,.0f}")
        + f"{change} (estimated without a billable call)."
    )
    enriched, summary = api.enrich_with_summary(leads, "handle", client=client, progress=progress)
    counts = enriched["lookup_status"].value_counts()
    print(
        f"\nEnriched {len(enriched)} rows in {summary.seconds:.1f}s, paced at "
        f"{client.rate_limit_per_minute:.0f} calls/min (95% of the advertised limit): "
        + ", ".join(
            f"{counts.get(s, 0)} {s}" for s in STATUSES if s not in RARE_STATUSES or counts.get(s)
        )
    )
    print(
        f"{summary.fetched} handles fetched through {summary.jobs} batch job(s): "
        f"{summary.requests} requests sent (free reads of the tier and the costs, submits "
        f"and polls), {summary.credits:g} credits, {summary.rate_limited} rate-limited."
    )
    forbidden = enriched[enriched["lookup_status"] == "forbidden"]
    for _, row in forbidden.iterrows():
        print(f"Forbidden, not billed: {row['handle']} ({row['lookup_error']}).")
    print()
    shown = overview(enriched, prefix="profile_").drop(columns="handle")
    table = enriched[["name", "handle"]].join(shown.add_prefix("profile "))
    table["lookup_status"] = enriched["lookup_status"]
    print(table.head(8).to_string(max_colwidth=30, na_rep=""))
    out_csv = workdir / "enriched_leads.csv"
    to_csv_cells(enriched).to_csv(out_csv, index=False)
    print(f"\nWrote {out_csv} ({len(enriched.columns)} columns).")

    employees = listings.company_employees("acme", client=client, progress=progress)
    people = listings.search_people(
        "data scientist", max_records=100, client=client, progress=progress
    )
    print(f"Employees of acme: {len(employees)} rows; search 'data scientist': {len(people)} rows.")
    return enriched


def _rerun(svc: FakeService, cache: Path, leads: pd.DataFrame, enriched: pd.DataFrame) -> None:
    """The same work with a new Client on the same cache: nothing billed, the same frame."""
    billed_before, sent_before = svc.billed(), svc.count()
    with Client(api_key=svc.api_key, base_url=svc.base_url, cache=cache) as again:
        started = time.perf_counter()
        rerun = leads.lookup.enrich_profiles("handle", client=again, progress=False)
        listings.company_employees("acme", client=again, progress=False)
        listings.search_people("data scientist", max_records=100, client=again, progress=False)
        elapsed = time.perf_counter() - started
        same = rerun.equals(enriched)
        print(
            f"\nRe-run with a new Client on the same cache: "
            f"{svc.billed() - billed_before} billable calls, "
            f"{svc.count() - sent_before} requests sent (free: the forbidden lead is asked "
            f"again, as it is never cached), {again.stats.cache_hits} answers "
            f"from the cache in {elapsed:.2f}s; result identical: {same}."
        )


def _offline_run(key: str, base_url: str, cache: Path, leads: pd.DataFrame) -> None:
    """The lead list again, offline, with the emulator gone: every row from the cache.

    The forbidden lead, never cached, is ``not_cached``. Each row says where and when its answer
    was bought.
    """
    with Client(api_key=key, base_url=base_url, cache=cache, offline=True) as offline:
        rows = leads.lookup.enrich_profiles("handle", client=offline, provenance=True)
        sent = offline.stats.sent
    counts = rows["lookup_status"].value_counts()
    sources = rows["lookup_source"].value_counts()
    first = rows["lookup_fetched_at"].min()
    print(
        f"\nOffline (Client(offline=True), the emulator stopped): {len(rows)} rows, "
        + ", ".join(f"{n} {status}" for status, n in counts.items())
        + f"; {sent} requests sent; sources: "
        + ", ".join(f"{n} {source}" for source, n in sources.items())
        + f", bought from {first:%Y-%m-%d %H:%M:%S} UTC."
    )
