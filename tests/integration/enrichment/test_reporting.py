"""What a job tells the user: bar and summary agree, no stray bars, stable columns, checks first.

A recording tqdm (a real ``tqdm.std.tqdm`` writing to a buffer) stands in for the display only;
every request goes to the emulator over loopback.
"""

from __future__ import annotations

import inspect
import io

import pandas as pd
import pytest
import tqdm.auto
import tqdm.std

import lookup_pandas as lp
from lookup_pandas.accessor import LookupAccessor
from lookup_pandas.api import functions as api
from lookup_pandas.errors import (
    AuthenticationError,
    BudgetExceededError,
    ColumnError,
    UsageError,
)
from lookup_pandas.frames.records import PERSON_FIELDS
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.testing import envelope

from ..helpers import PROFILE, SEARCH, cache_reads, make_client


class RecordingBar(tqdm.std.tqdm):
    """A real text bar into a buffer, remembering every bar made and how it was closed."""

    made: list[RecordingBar] = []

    def __init__(self, *args, **kwargs):
        kwargs["file"] = io.StringIO()
        super().__init__(*args, **kwargs)
        self.postfixes: list[dict] = []
        self.closed_leaving: bool | None = None
        RecordingBar.made.append(self)

    def set_postfix_str(self, s="", refresh=True):
        # lookup_pandas.display.progress fits "name=value, ..." to the terminal (all of it here)
        self.postfixes.append(dict(part.split("=", 1) for part in s.split(", ") if part))
        super().set_postfix_str(s, refresh=refresh)

    def close(self):
        if self.closed_leaving is None:
            self.closed_leaving = self.leave
        super().close()


@pytest.fixture
def bars(monkeypatch):
    RecordingBar.made = []
    monkeypatch.setattr(tqdm.auto, "tqdm", RecordingBar)
    return RecordingBar.made


def _production_record(handle: str) -> dict:
    """A record with exactly production's documented fields
    (lookup_pandas.frames.records.PERSON_FIELDS)."""
    return {
        "id": f"prsn_{handle}",
        "handle": handle,
        "first_name": "Jo",
        "last_name": "Doe",
        "headline": "Engineer",
        "summary": "Builds things.",
        "positions": [
            {
                "title": "Engineer",
                "organization": {"id": "org_1", "name": "Acme", "slug": "acme", "url": "u"},
            }
        ],
        "education": [],
        "skills": ["python"],
        "certifications": [],
        "languages": [],
        "geo": {"city": "Berlin", "country_code": "DE"},
        "follower_count": 10,
        "connection_count": 20,
        "is_creator": False,
        "is_premium": True,
        "is_open_to_work": False,
        "is_hiring": False,
    }


# -- 7. truthful progress and summary ------------------------------------------------------------


def test_the_bar_and_the_summary_count_the_same(fake_service, tmp_path, bars):
    frame = pd.DataFrame({"handle": ["ada", "grace", "unknown-x", "ada", "", "linus"]})
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        client.profile("linus")  # one answer already cached
        _, summary = api.enrich_with_summary(frame, "handle", client=client)
    last = bars[-1].postfixes[-1]
    assert (summary.cached, summary.fetched, summary.failed) == (1, 3, 0)
    assert last == {"cached": "1", "fetched": "3", "failed": "0", "credits": "3"}
    assert summary.credits == 3 == fake_service.billed() - 1
    assert summary.statuses == {"ok": 4, "not_found": 1, "forbidden": 0, "invalid": 1, "error": 0}
    # 3 fetched, and the route costs read once by the Client (free) for the job's credits
    assert summary.requests == 4 and summary.rate_limited == 0 and summary.retries == 0
    assert "0 answered 429, 0 retries" in str(summary)


def test_each_handle_is_read_ahead_once_and_each_miss_once_more_by_its_call(
    fake_service, tmp_path, bars
):
    # The run reads every handle in one batched read; a miss is read once more by its call,
    # right before it claims (so an answer another process stored meanwhile is read, not
    # bought again). Spy on requests-cache's reads, as the emulator cannot see them.
    handles = [f"person-{i:03d}" for i in range(12)]
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        for h in handles[:4]:
            client.profile(h)  # four already paid for
        with cache_reads(client) as reads:
            _, summary = api.enrich_with_summary(
                pd.DataFrame({"handle": handles * 2}), "handle", client=client
            )
    keys = client.parts.cache.keys(handles, PEOPLE)
    assert sorted(map(reads.count, keys.values())) == [1] * 4 + [2] * 8
    assert len(reads) == len(handles) + 8
    assert (summary.cached, summary.fetched) == (4, 8)
    assert bars[-1].postfixes[-1] == {"cached": "4", "fetched": "8", "failed": "0", "credits": "8"}


@pytest.mark.parametrize("method", ["single", "batch"])
def test_each_handle_s_cache_key_is_worked_out_once_a_run(
    fake_service, tmp_path, method, keys_made
):
    # Read ahead, claimed, submitted or sent, and stored: one key of each handle's request for
    # all of it. (A record's aliases, its id, are keys of other requests.)
    handles = [f"person-{i:03d}" for i in range(12)]
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        made = keys_made(client)
        out = pd.DataFrame({"handle": handles * 2}).lookup.enrich_profiles(
            "handle", client=client, progress=False, method=method
        )
    assert out["lookup_status"].eq("ok").all()
    by_handle = [url for url in made if "handle=" in url]
    assert sorted(by_handle) == sorted(set(by_handle)) and len(by_handle) == len(handles)


def test_a_refresh_works_each_handle_s_key_out_once_too(fake_service, tmp_path, keys_made):
    # refresh="changed" reads the cache and the store by the keys, then reads the feed, then
    # runs: the run takes the keys the refresh worked out.
    handles = [f"person-{i:03d}" for i in range(12)]
    frame = pd.DataFrame({"handle": handles})
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        frame.lookup.enrich_profiles("handle", client=client, progress=False)
        made = keys_made(client)
        out = frame.lookup.enrich_profiles(
            "handle", client=client, progress=False, refresh="changed"
        )
    assert out["lookup_status"].eq("ok").all()
    by_handle = [url for url in made if "handle=" in url]
    assert sorted(by_handle) == sorted(set(by_handle)) and len(by_handle) == len(handles)


def test_a_refused_budget_draws_no_bar(fake_service, fake_client, bars):
    frame = pd.DataFrame({"handle": [f"person-{i}" for i in range(5)]})
    with pytest.raises(BudgetExceededError):
        frame.lookup.enrich_profiles("handle", client=fake_client, max_calls=2)
    assert bars == [] and fake_service.count(PROFILE) == 0


def test_a_job_ended_by_an_exception_removes_its_bar(fake_service, tmp_path, bars):
    frame = pd.DataFrame({"handle": [f"person-{i}" for i in range(5)]})
    revoked = {"success": False, "message": "API key revoked", "errors": None, "data": None}
    fake_service.override(PROFILE, lambda req: (403, revoked))  # mid-job, after the tier read
    with make_client(fake_service) as client, pytest.raises(AuthenticationError):
        frame.lookup.enrich_profiles("handle", client=client)
    assert len(bars) == 1 and bars[0].closed_leaving is False


def test_a_finished_job_leaves_its_bar(fake_service, fake_client, bars):
    pd.DataFrame({"handle": ["ada"]}).lookup.enrich_profiles("handle", client=fake_client)
    assert bars[0].closed_leaving is True and bars[0].n == bars[0].total == 1


def test_a_list_shorter_than_max_records_ends_its_bar_at_what_it_held(
    fake_service, fake_client, bars
):
    people = lp.search_people("cto", max_records=5000, client=fake_client)
    assert 0 < len(people) < 5000
    assert bars[-1].total == bars[-1].n == len(people)


@pytest.mark.parametrize("max_records", [-5, -1, 1.5, True])
def test_a_bad_max_records_is_refused_before_sending(fake_service, fake_client, max_records):
    with pytest.raises(UsageError, match="max_records"):
        lp.search_people("engineer", max_records=max_records, client=fake_client)
    with pytest.raises(ValueError, match="max_records"):  # a UsageError is a ValueError too
        lp.company_employees("acme", max_records=max_records, client=fake_client)
    assert fake_service.count() == 0


def test_max_records_zero_sends_nothing(fake_service, fake_client):
    assert lp.search_people("engineer", max_records=0, client=fake_client).empty
    assert fake_service.count(SEARCH) == 0


# -- 4. clashes are refused before paying ------------------------------------------------------


@pytest.mark.parametrize("existing", ["profile_headline", "profile_anything"])
def test_a_clash_is_refused_before_anything_is_sent(fake_service, fake_client, existing):
    frame = pd.DataFrame({"handle": [f"person-{i}" for i in range(150)], existing: "x"})
    with pytest.raises(ColumnError, match=existing):
        frame.lookup.enrich_profiles("handle", client=fake_client)
    assert fake_service.count() == 0


@pytest.mark.parametrize("existing", ["lookup_status", "lookup_error"])
def test_a_taken_status_name_is_kept_and_the_runs_statuses_carry_its_prefix(
    fake_service, fake_client, existing
):
    frame = pd.DataFrame({"handle": ["ada", ""], existing: "mine"})
    out = frame.lookup.enrich_profiles("handle", client=fake_client, progress=False)
    assert out[existing].tolist() == ["mine", "mine"]
    assert out["profile_lookup_status"].tolist() == ["ok", "invalid"]
    assert out.columns[-2:].tolist() == ["profile_lookup_status", "profile_lookup_error"]


def test_an_empty_prefix_is_refused(fake_service, fake_client):
    with pytest.raises(UsageError, match="prefix"):
        pd.DataFrame({"handle": ["ada"]}).lookup.enrich_profiles(
            "handle", prefix="", client=fake_client
        )
    assert fake_service.count() == 0


# -- 8. frames ---------------------------------------------------------------------------------


def test_a_field_that_starts_with_the_prefix_is_not_prefixed_twice(fake_service, fake_client):
    # Production promises no such field; a record may still carry one (the emulator's did).
    record = {**_production_record("ada"), "profile_url": "https://www.example.com/in/ada"}
    fake_service.override(
        PROFILE,
        lambda req: (200, envelope(record)),
    )
    out = pd.DataFrame({"handle": ["ada"]}).lookup.enrich_profiles("handle", client=fake_client)
    assert out.loc[0, "profile_url"] == "https://www.example.com/in/ada"
    assert not any(c.startswith("profile_profile_") for c in out.columns)


def test_header_only_all_invalid_and_normal_runs_have_the_same_columns(fake_service, fake_client):
    fake_service.override(
        PROFILE,
        lambda req: (200, envelope(_production_record(req.param("handle")))),
    )

    def columns(handles):
        frame = pd.DataFrame(
            {"name": ["n"] * len(handles), "handle": pd.Series(handles, dtype="str")}
        )
        return list(frame.lookup.enrich_profiles("handle", client=fake_client).columns)

    normal, header_only, invalid = columns(["ada", "grace"]), columns([]), columns(["", None])
    expected = [
        "name",
        "handle",
        *("profile_" + f for f in PERSON_FIELDS),
        "lookup_status",
        "lookup_error",
    ]
    assert normal == header_only == invalid == expected


def test_get_profiles_always_has_the_person_fields(fake_service, fake_client):
    frame = lp.get_profiles(["unknown-x", ""], client=fake_client)
    assert list(frame.columns)[: len(PERSON_FIELDS)] == list(PERSON_FIELDS)
    assert frame["lookup_status"].tolist() == ["not_found", "invalid"]


def test_handles_differing_in_case_or_at_sign_are_one_person_paid_once(fake_service, fake_client):
    values = [
        "HTTPS://WWW.EXAMPLE.COM/IN/JOSE-TANAKA-067/",
        "jose-tanaka-067",
        "@Jose-Tanaka-067",
        " @jose-tanaka-067/ ",
    ]
    frame = lp.get_profiles(values, client=fake_client)
    assert frame["handle"].tolist() == ["jose-tanaka-067"] * 4
    assert (frame["lookup_status"] == "ok").all()
    assert fake_service.billed(PROFILE) == 1


def test_fold_case_false_sends_each_spelling(fake_service):
    # No cache: with one, the record bought for one spelling names the other (an alias), and
    # the other's call, reading the cache right before it claims, may find it there.
    with make_client(fake_service) as client:
        frame = lp.get_profiles(
            ["Jose-Tanaka-067", "jose-tanaka-067", "@jose-tanaka-067"],
            client=client,
            fold_case=False,
        )
    assert frame["handle"].tolist() == ["Jose-Tanaka-067", "jose-tanaka-067", "jose-tanaka-067"]
    assert fake_service.count(PROFILE, handle="Jose-Tanaka-067") == 1  # sent as typed
    assert fake_service.billed(PROFILE) == 2


# -- docstrings: help() tells everything --------------------------------------------------------


@pytest.mark.parametrize("name", ["enrich_profiles", "estimate_profiles"])
def test_accessor_methods_carry_the_whole_documentation(name):
    method = getattr(LookupAccessor, name)
    assert method.__doc__ == getattr(api, name).__doc__
    for param in inspect.signature(method).parameters:
        if param != "self":
            assert f"``{param}``" in method.__doc__, param


def test_the_client_docstring_explains_every_keyword():
    for param in inspect.signature(lp.Client.__init__).parameters:
        if param != "self":
            assert f"``{param}``" in lp.Client.__doc__, param


def test_the_bar_shows_a_company_run_s_credits_at_the_route_s_cost(fake_service, tmp_path, bars):
    # companies cost 2 credits a call in the emulator: the bar must not cap them at 1 a row
    frame = pd.DataFrame({"slug": ["acme", "globex", "ACME", "unknown-co"]})
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        frame.lookup.enrich_companies("slug", client=client, method="single", progress=True)
        spent = client.stats.credits_consumed
    assert spent == 6  # 3 distinct, 2 each (the not-found billed too)
    assert bars[-1].postfixes[-1]["credits"] == "6"
