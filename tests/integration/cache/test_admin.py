"""Cache management against the emulator, on SQLite: forget erases every byte, prune, clear, info.

What is tested: a person enriched by single calls and by a batch job, listed on a search page
and an employees page, and held by a stored batch job, is ``forget``-ed; afterwards no byte of
the cache file, the store file or their ``-wal``/``-shm`` holds their name, headline, id or
handle (the same scan finds them before, and runs where SQLite does not zero deleted rows by
default, with an old copy left behind by a refresh: ``secure_delete``, ``VACUUM`` and the
checkpoint each matter); everyone else stays cached (re-runs send nothing but the one dropped
page), their next lookup is billed again; a reader holding the file open makes the erasure
report itself incomplete, with a warning; a stored job loses the handle and resuming it does
not cache them, nor does a job being collected when they are erased; prune drops only what
expired; info reports entries, bytes, oldest, newest, expired, and clear empties everything.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.cache import sqlite
from lookup_pandas.enrichment.batch_run import BatchRun
from lookup_pandas.errors import IncompleteErasureWarning
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.store import StoredJob, store_path
from lookup_pandas.testing import BATCH, FakeService, catalog, data

from ..enrich_helpers import lead_frame
from ..helpers import EMPLOYEES, PROFILE, SEARCH, make_client

#: The run's one pool, as ``lookup_values`` makes it (one per test module here).
POOL = ThreadPoolExecutor(4, "test-run")
pytestmark = pytest.mark.timeout(180)

STATUS = "lookup_status"
TITLE, SLUG = "engineer", "acme"
#: The person on a search page (and enriched by a single call), and the one on an employees
#: page (and enriched by a batch job, and held by a stored job): both 13th on their list.
SEARCHED = data.search(title=TITLE)[12]["handle"]
EMPLOYED = data.employees(SLUG)[12]["handle"]
SINGLES = [SEARCHED] + [f"person-{i:05d}" for i in range(100, 110)]
BATCHED = [EMPLOYED] + [f"person-{i:05d}" for i in range(200, 225)]
JOB_REST = ("person-00300", "person-00301", "person-00302")


# -- helpers (the Redis and CLI tests use them too) ----------------------------------------------


def needles(handle: str) -> list[str]:
    """What a byte scan looks for: the record's id, its name with its headline as stored, its
    summary, and the handle itself."""
    record = data.person(handle)
    assert record is not None
    return [
        record["id"],
        f'"first_name": "{record["first_name"]}", "last_name": "{record["last_name"]}", '
        f'"headline": "{record["headline"]}"',
        record["summary"],
        handle,
    ]


def others() -> list[str]:
    """Everyone else the scenario caches."""
    listed = [r["handle"] for r in data.search(title=TITLE)[:30] + data.employees(SLUG)[:30]]
    everyone = listed + SINGLES + BATCHED + list(JOB_REST)
    return sorted(set(everyone) - {SEARCHED, EMPLOYED})


def test_the_needles_are_the_two_peoples_alone():
    """A guard: nothing else cached holds them, so a find after forget is theirs."""
    text = "\n".join(json.dumps(data.person(h)) for h in others())
    for handle in (SEARCHED, EMPLOYED):
        for needle in needles(handle):
            assert needle not in text, needle


def enrich(frame: pd.DataFrame, client: lp.Client, **kwargs: Any) -> pd.DataFrame:
    kwargs.setdefault("progress", False)
    return frame.lookup.enrich_profiles("handle", client=client, **kwargs)


def listings(client: lp.Client) -> None:
    """Three pages of a search and of an employees listing (the people are on the second)."""
    lp.search_people(TITLE, limit=10, max_records=30, client=client, progress=False)
    lp.company_employees(SLUG, limit=10, max_records=30, client=client, progress=False)


def wait_until(condition: Any, *, within: float = 30.0, step: float = 0.02) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return bool(condition())


def wait_resolved(svc: FakeService, job_id: str) -> None:
    """Until every item of the job resolved (and so was billed, collected or not)."""

    def resolved() -> bool:
        svc.state.settle_jobs()
        job = svc.state.jobs[job_id]
        return job.settled >= job.total

    assert wait_until(resolved)


def store_job(svc: FakeService, client: lp.Client, handles: Iterable[str]) -> str:
    """What an interrupted run leaves: a job submitted, resolved (billed) and stored."""
    inputs = tuple(handles)
    job_id = client.parts.batch.submit(PEOPLE, inputs, None)
    client.parts.store.remember(StoredJob(job_id, inputs, time.time()))
    wait_resolved(svc, job_id)
    return job_id


def fill(svc: FakeService, client: lp.Client) -> str:
    """The scenario: single calls, a batch job, listings, a stored job; its job id."""
    out = enrich(lead_frame(SINGLES), client, method="single")
    assert (out[STATUS] == "ok").all()
    out = enrich(lead_frame(BATCHED), client, method="batch")
    assert (out[STATUS] == "ok").all()
    listings(client)
    return store_job(svc, client, (EMPLOYED, *JOB_REST))


def sqlite_files(cache: Path) -> list[Path]:
    """The cache file and the store file, each with its -wal and -shm."""
    return [
        base.with_name(base.name + suffix)
        for base in (cache, store_path(cache))
        for suffix in ("", "-wal", "-shm")
    ]


def found_in(files: Iterable[Path], wanted: Iterable[str]) -> dict[str, list[str]]:
    """Each file that holds any of ``wanted`` (as UTF-8 bytes), with what it holds."""
    found = {}
    for path in files:
        if not path.exists():
            continue
        content = path.read_bytes()
        hits = [w for w in wanted if w.encode() in content]
        if hits:
            found[path.name] = hits
    return found


def keep_deleted_bytes(client: lp.Client) -> None:
    """Make the client's connections delete as SQLite builds whose ``secure_delete`` is off by
    default do (macOS, python.org): deleted rows stay in the file until overwritten."""
    cache = client.session.cache
    for table in (cache.responses, cache.redirects):
        with table.connection() as conn:
            conn.execute("PRAGMA secure_delete = OFF")
    client.parts.store._connection().execute("PRAGMA secure_delete = OFF")


# -- forget ---------------------------------------------------------------------------------------


def test_forget_leaves_no_byte_of_them_and_everyone_else_cached(fake_service, tmp_path):
    svc = fake_service
    cache = tmp_path / "c.sqlite"
    with make_client(svc, cache=cache) as client:
        keep_deleted_bytes(client)
        job_id = fill(svc, client)
        client.profile(SEARCHED, refresh=True)  # an old copy, freed and not overwritten
    files = sqlite_files(cache)
    wanted = needles(SEARCHED) + needles(EMPLOYED)
    before = found_in(files, wanted)
    assert set(before["c.sqlite"]) == set(wanted)  # the scan finds all of it, in the main file
    assert EMPLOYED in before["c.store.sqlite"]  # the stored job's inputs
    sent = {p: svc.count(p) for p in (PROFILE, SEARCH, EMPLOYEES)}
    posts = svc.count(BATCH, method="POST")

    with make_client(svc, cache=cache) as client:
        keep_deleted_bytes(client)
        result = client.forget([SEARCHED, f"https://www.example.com/in/{EMPLOYED.upper()}/"])
        assert result.handles == result.matched == (SEARCHED, EMPLOYED)
        assert (result.profiles, result.jobs, result.unreadable, result.complete) == (
            2,
            1,
            0,
            True,
        )
        # a search page and an employees page, and the batch job's poll answers holding them
        assert result.pages >= 2
        assert found_in(files, wanted) == {}

        # everyone else is still cached: a re-run sends nothing
        rest = [h for h in SINGLES if h != SEARCHED]
        assert (enrich(lead_frame(rest), client, method="single")[STATUS] == "ok").all()
        assert svc.count(PROFILE) == sent[PROFILE]

        # the stored job lost the handle; resuming it caches no answer of theirs
        (stored,) = client.parts.store.jobs()
        assert (stored.job_id, stored.inputs) == (job_id, JOB_REST)
        out = enrich(lead_frame(list(JOB_REST)), client, method="batch")
        assert (out[STATUS] == "ok").all()
        assert svc.count(BATCH, method="POST") == posts and client.parts.store.jobs() == []
        assert not client.parts.cache.is_cached(PROFILE, {"handle": EMPLOYED})

        # the listings send only the two pages that were dropped (which, fetched again,
        # list them again: the service still does)
        listings(client)
        assert svc.count(SEARCH) == sent[SEARCH] + 1
        assert svc.count(EMPLOYEES) == sent[EMPLOYEES] + 1

        # their next lookup is fetched, and billed, again
        billed = svc.billed(PROFILE, handle=SEARCHED)
        assert client.profile(SEARCHED)["handle"] == SEARCHED
        assert svc.billed(PROFILE, handle=SEARCHED) == billed + 1


def test_resuming_a_job_after_forget_stores_no_byte_of_the_erased_person(fake_service, tmp_path):
    svc = fake_service
    cache = tmp_path / "c.sqlite"
    with make_client(svc, cache=cache) as client:
        store_job(svc, client, (EMPLOYED, *JOB_REST))
        client.forget([EMPLOYED])
        assert found_in(sqlite_files(cache), needles(EMPLOYED)) == {}
        enrich(lead_frame(list(JOB_REST)), client, method="batch")
    assert found_in(sqlite_files(cache), needles(EMPLOYED)) == {}


def test_forget_while_another_process_reads_reports_itself_incomplete(
    fake_service, tmp_path, monkeypatch
):
    monkeypatch.setattr(sqlite, "CHECKPOINT_ATTEMPTS", 2)
    cache = tmp_path / "c.sqlite"
    with make_client(fake_service, cache=cache) as client:
        client.profile(SEARCHED)
        client.profile("person-00001")
        reader = sqlite3.connect(cache, isolation_level=None)
        try:
            reader.execute("BEGIN")
            reader.execute("SELECT COUNT(*) FROM responses").fetchone()  # a snapshot, held
            with pytest.warns(IncompleteErasureWarning, match=r"c\.sqlite-wal"):
                result = client.forget([SEARCHED])
            assert result.profiles == 1 and not result.complete
        finally:
            reader.close()
        again = client.forget([SEARCHED])  # nothing left to match, but the log is emptied now
        assert again.complete and again.matched == ()
        assert found_in(sqlite_files(cache), needles(SEARCHED)) == {}
        assert client.parts.cache.is_cached(PROFILE, {"handle": "person-00001"})


@pytest.mark.parametrize("forgotten", [True, False])
def test_resuming_a_job_after_forget_never_caches_the_erased_handle(
    fake_service, tmp_path, forgotten
):
    svc = fake_service
    cache = tmp_path / "c.sqlite"
    handles = [f"person-{i:05d}" for i in range(400, 410)]
    gone = handles[4]
    with make_client(svc, cache=cache) as client:
        job_id = store_job(svc, client, handles)
    with make_client(svc, cache=cache) as client:
        if forgotten:
            result = client.forget([gone])
            assert (result.jobs, result.matched) == (1, (gone,))
            assert client.parts.store.jobs()[0].inputs == tuple(h for h in handles if h != gone)
        rest = [h for h in handles if h != gone]
        out = enrich(lead_frame(rest), client, method="batch")
        assert (out[STATUS] == "ok").all()
        assert client.parts.store.jobs() == []
        # every result of a resumed job is cached (each was billed): but not an erased one
        assert client.parts.cache.is_cached(PROFILE, {"handle": gone}) is not forgotten
    assert svc.count(BATCH, method="POST") == 1  # the job was resumed, not submitted again
    assert list(svc.batch_jobs) == [job_id]
    assert svc.count(PROFILE) == 0
    assert svc.billed_handles()[gone] == 1  # when it resolved; never again


def test_a_handle_erased_while_its_job_is_collected_is_not_cached(fake_service, tmp_path):
    # 30 items at 100/s, 5 results a poll: far from done after the first result
    fake_service.configure(batch_resolve_rate=100, batch_page_size=5)
    handles = [f"person-{i:05d}" for i in range(500, 530)]
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        run = BatchRun(
            client, handles, submit=True, stored=client.parts.store.jobs(), kind=PEOPLE, pool=POOL
        )
        results = iter(run)
        first, _ = next(results)
        waiting = [h for h in handles if not client.parts.cache.is_cached(PROFILE, {"handle": h})]
        gone = waiting[-1]
        assert client.forget([gone]).jobs == 1
        later = [handle for handle, _ in results]
        assert gone not in later and gone != first
        assert gone in run.fallback  # this run needs it: the single calls would fetch it
        assert not client.parts.cache.is_cached(PROFILE, {"handle": gone})
        assert sorted([first, *later]) == sorted(h for h in handles if h != gone)
        assert all(
            client.parts.cache.is_cached(PROFILE, {"handle": h}) for h in handles if h != gone
        )


# -- prune, clear, info ---------------------------------------------------------------------------


def test_prune_after_the_expiry_drops_only_what_expired(fake_service, tmp_path):
    svc = fake_service
    cache = tmp_path / "c.sqlite"
    brief = [f"person-{i:05d}" for i in range(600, 603)]
    lasting = [f"person-{i:05d}" for i in range(610, 614)]
    with make_client(svc, cache=cache, expire_after=1) as client:
        enrich(lead_frame(brief), client, method="single")
    with make_client(svc, cache=cache) as client:
        enrich(lead_frame(lasting), client, method="single")
        assert client.cache_info().entries == 7
        assert wait_until(lambda: client.cache_info().expired == 3)
        assert client.prune() == 3
        info = client.cache_info()
        assert (info.entries, info.expired) == (4, 0)
        sent = svc.count(PROFILE)
        enrich(lead_frame(lasting), client, method="single")
        assert svc.count(PROFILE) == sent  # still cached
        enrich(lead_frame(brief), client, method="single")
        assert all(svc.billed(PROFILE, handle=h) == 2 for h in brief)  # fetched again
        assert client.prune() == 0


def files_size(cache: Path) -> int:
    return sum(f.stat().st_size for f in sqlite_files(cache) if f.exists())


def test_info_reports_the_cache_and_clear_empties_it(fake_service, tmp_path):
    svc = fake_service
    cache = tmp_path / "c.sqlite"
    handles = [f"person-{i:05d}" for i in range(700, 705)]
    with make_client(svc, cache=cache) as client:
        empty = client.cache_info()
        assert (empty.entries, empty.expired, empty.oldest, empty.newest, empty.jobs) == (
            0,
            0,
            None,
            None,
            0,
        )
        assert empty.location == str(cache) and empty.bytes == files_size(cache)

        started = datetime.now(UTC)
        enrich(lead_frame(handles), client, method="single")
        lp.search_people(TITLE, limit=10, max_records=20, client=client, progress=False)
        client.parts.store.remember(StoredJob("job_kept", ("ada",), time.time()))
        client.parts.store.claim_many(["a-claim"], 60)
        keys = list(client.parts.cache.keys(handles, PEOPLE).values())
        client.parts.store.mark_checked(keys, time.time())
        client.parts.store.mark_acted(["an-event-acted-on"])
        finished = datetime.now(UTC)
        info = client.cache_info()
        assert (info.entries, info.expired, info.jobs) == (7, 0, 1)
        assert info.oldest is not None and info.newest is not None
        assert started <= info.oldest <= info.newest <= finished
        assert info.bytes == files_size(cache) > empty.bytes
        assert "answers:    7" in str(info) and str(cache) in str(info)

        assert client.clear() == 7
        after = client.cache_info()
        assert (after.entries, after.expired, after.oldest, after.newest, after.jobs) == (
            0,
            0,
            None,
            None,
            0,
        )
        assert after.bytes == files_size(cache) < info.bytes
        with sqlite3.connect(store_path(cache)) as conn:
            assert conn.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0
            assert conn.execute("SELECT COUNT(*) FROM marks").fetchone()[0] == 0
        assert client.parts.store.checked_at(keys) == {}
        wanted = [n for h in handles for n in needles(h)]
        assert found_in(sqlite_files(cache), wanted) == {}

        billed = svc.billed(PROFILE)
        enrich(lead_frame(handles), client, method="single")
        assert svc.billed(PROFILE) == billed + len(handles)  # paid for again


def test_forget_by_id_or_handle_erases_the_person_bought_either_way(fake_service, tmp_path):
    """Forgetting a person by id erases the answer bought by their id (and the alias their
    handle leads by), and the job-change pages that list them; forgetting by handle erases the
    answer bought by id. Nothing is sent."""
    svc = fake_service
    svc.configure(rate_burst=10_000)
    cache = tmp_path / "c.sqlite"
    listed = catalog.job_changes(event_type="joined")[:5]  # the first page of 5
    by_id = listed[0]["person"]  # on the page, and looked up by id and by handle
    by_handle = data.person("person-00042")  # looked up by id, then forgotten by handle
    assert by_handle is not None
    with make_client(svc, cache=cache) as client:
        keep_deleted_bytes(client)
        client.profile(by_id["id"])
        client.profile(by_id["handle"])  # bought by id: its handle is a cache hit (an alias)
        client.profile(by_handle["id"])
        assert svc.count(PROFILE) == 2
        pages = lp.job_changes(event_type="joined", limit=5, max_records=5, client=client)
        assert pages["person.id"].iloc[0] == by_id["id"]
    files = sqlite_files(cache)
    first, second = needles(by_id["handle"]), needles(by_handle["handle"])
    assert found_in(files, first) and found_in(files, second)
    sent = svc.count()

    with make_client(svc, cache=cache) as client:
        keep_deleted_bytes(client)
        result = client.forget([by_id["id"].upper(), by_handle["handle"]])
        assert result.handles == result.matched == (by_id["id"], by_handle["handle"])
        assert (result.profiles, result.pages, result.complete) == (2, 1, True)
        assert found_in(files, first + second) == {}
        assert not client.parts.cache.is_cached(PROFILE, {"id": by_id["id"]})
        assert not client.parts.cache.is_cached(PROFILE, {"handle": by_id["handle"]})
        assert not client.parts.cache.is_cached(PROFILE, {"id": by_handle["id"]})
    assert svc.count() == sent  # forgetting sends nothing


# -- forget: the Email API's answers (issue 41, item 7) ----------------------------------------


def test_forget_erases_a_person_s_email_answers_by_address_by_name_and_by_profile(
    fake_service, tmp_path
):
    from lookup_pandas.service.endpoints import (
        EMAIL_FIND_PATH,
        EMAIL_FIND_PROFILE_PATH,
        EMAIL_PROSPECTS_PATH,
        EMAIL_REVERSE_PATH,
        EMAIL_VERIFY_PATH,
    )
    from lookup_pandas.testing import mailboxes

    svc = fake_service
    cache = tmp_path / "c.sqlite"
    jane, other = mailboxes.prospects("acme.example", "full")[:2]
    names = {p["email"]: (p["first_name"], p["last_name"], "acme.example") for p in (jane, other)}
    handle = mailboxes.owner(jane["email"])["handle"]
    crm = pd.DataFrame(
        {
            "first": [n[0] for n in names.values()],
            "last": [n[1] for n in names.values()],
            "domain": ["acme.example"] * 2,
            "email": list(names),
            "profile": [handle, mailboxes.owner(other["email"])["handle"]],
        }
    )

    def buy(client: lp.Client) -> None:
        crm.lookup.find_emails("first", "last", "domain", client=client, progress=False)
        crm.lookup.find_emails(profile="profile", client=client, progress=False)
        crm.lookup.verify_emails("email", client=client, progress=False)
        crm.lookup.reverse_emails("email", client=client, progress=False)
        lp.email_prospects("acme.example", client=client, progress=False)

    paths = (EMAIL_FIND_PATH, EMAIL_FIND_PROFILE_PATH, EMAIL_VERIFY_PATH, EMAIL_REVERSE_PATH)
    with make_client(svc, cache=cache) as client:
        keep_deleted_bytes(client)
        buy(client)
    sent = {p: svc.count(p) for p in (*paths, EMAIL_PROSPECTS_PATH)}
    assert found_in(sqlite_files(cache), [jane["email"]])  # stored before the erasure

    with make_client(svc, cache=cache) as client:
        keep_deleted_bytes(client)
        result = client.forget([handle, f" {jane['email']} ", names[jane["email"]]])
        assert result.matched == result.handles and len(result.handles) == 3
        # her find by name, by profile, verdict and reversal; the prospects pages listing her
        assert (result.emails, result.complete) == (4, True)
        assert result.pages >= 1
        assert found_in(sqlite_files(cache), [jane["email"]]) == {}

        buy(client)  # only what was erased is bought again: hers, and the pages that held her
        assert {p: svc.count(p) - sent[p] for p in paths} == dict.fromkeys(paths, 1)
        assert svc.count(EMAIL_PROSPECTS_PATH) - sent[EMAIL_PROSPECTS_PATH] == result.pages
