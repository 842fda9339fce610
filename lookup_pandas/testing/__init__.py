"""The service emulator, shipped with the library: for tests, notebooks and demos.

Example::

    from lookup_pandas.testing import FakeService

    with FakeService(latency=0.02, rate_limit_per_minute=600, fault_rate=0.1) as svc:
        client = lp.Client(api_key=svc.api_key, base_url=svc.base_url, cache=False)
        client.profile("ada")                       # a deterministic person record
        client.profile("unknown-zed")               # None (200 + success=false + "1010")
        client.profile(data.person("ada")["id"])    # the same person, by her prsn_ id
        svc.count("/api/data/v1/people/profile")    # requests the emulator saw

It serves the whole Data API of :data:`lookup_pandas.service.endpoints.ENDPOINTS`: people (by
handle or id), companies (lookup, search, batch), institutions and alumni, skills, job changes;
and the Email API (verify, find, reverse, prospects, batch jobs).

Layout: ``data`` (synthetic people), ``careers`` (what a record shows of a career: tenure,
companies, function, its job changes), ``companies``, ``catalog`` (institutions, alumni, skills,
the job-change feed), ``moves`` (people who change jobs while it runs: ``svc.move("ada",
to="globex")``), ``names`` (reversible ids), ``state`` (knobs, keys, limiter, counters,
moves), ``batch`` (batch jobs, all four kinds), ``mailboxes`` (work addresses, verdicts,
reverse resolution), ``replies`` / ``filters`` / ``routes`` / ``data_routes`` /
``email_routes`` / ``panel_routes`` (request -> reply, pure; the route table is keyed by the
endpoints' paths), ``server`` (threaded loopback HTTP). Without sockets: ``mock``
(``MockTransport``, ``people_service``) and ``mock_service`` (``MockService``, the set-up of
the docstrings' examples). The pytest fixtures (``lookup_service``, ``fake_service``,
``fake_client``, ``isolated_default_client``) are in the
top-level module ``pytest_lookup_pandas``, so that loading them costs other projects nothing.
"""

from ..service.credits import BALANCE_PATH, ROUTE_COSTS_PATH, TIERS_PATH
from . import catalog, data, names
from . import company_records as companies
from .batch import BATCH, COMPANIES_BATCH
from .mock import MockTransport, envelope, people_service
from .mock_service import MockService
from .notebook import notebook_client, notebook_emulator
from .panel_routes import ENTERPRISE_BALANCE_PATH
from .replies import Reply, Request
from .routes import EMPLOYEES, HEALTH, PROFILE, SEARCH, TIER
from .server import FakeService
from .state import (
    EMULATOR_TIER,
    FAULT_KINDS,
    PRODUCTION_LADDER,
    ROUTE_COSTS,
    Knobs,
    LadderTier,
    RequestRecord,
)

__all__ = [
    "BALANCE_PATH",
    "BATCH",
    "COMPANIES_BATCH",
    "EMPLOYEES",
    "EMULATOR_TIER",
    "ENTERPRISE_BALANCE_PATH",
    "FAULT_KINDS",
    "FakeService",
    "HEALTH",
    "Knobs",
    "LadderTier",
    "MockService",
    "MockTransport",
    "PRODUCTION_LADDER",
    "PROFILE",
    "ROUTE_COSTS",
    "ROUTE_COSTS_PATH",
    "Reply",
    "Request",
    "RequestRecord",
    "SEARCH",
    "TIER",
    "TIERS_PATH",
    "catalog",
    "companies",
    "data",
    "envelope",
    "people_service",
    "names",
    "notebook_client",
    "notebook_emulator",
]
