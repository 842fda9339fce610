"""``provenance=True``: where each row's answer came from, and when it was bought.

Against the emulator, with a SQLite cache in tmp_path: a first run by single calls says
``single`` with a time between just before and just after the run; a batch run says ``batch``;
a second run says ``cache`` with exactly the first run's times, row by row; invalid rows have
missing values (NaN, NaT, <NA>) and a failed call its source and no time; ``get_profiles``,
``get_companies`` and ``enrich_companies`` take it too; without it no such column appears, and a
frame that already has one of its columns keeps it, the run's own named with its prefix.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.api import functions as api
from lookup_pandas.testing import FakeService

from ..enrich_helpers import FailHandles, lead_frame
from ..helpers import PROFILE, make_client

pytestmark = pytest.mark.timeout(120)

STATUS = "lookup_status"
SOURCE, FETCHED, EXPIRED = "lookup_source", "lookup_fetched_at", "lookup_expired"
COLUMNS = [SOURCE, FETCHED, EXPIRED]


def enrich(frame: pd.DataFrame, client: lp.Client, **kwargs: Any) -> pd.DataFrame:
    kwargs.setdefault("progress", False)
    return frame.lookup.enrich_profiles("handle", client=client, **kwargs)


def check_dtypes(out: pd.DataFrame) -> None:
    assert isinstance(out[FETCHED].dtype, pd.DatetimeTZDtype)
    assert str(out[FETCHED].dt.tz) == "UTC"
    assert out[EXPIRED].dtype == "boolean"


def fetched_by_handle(out: pd.DataFrame) -> dict[str, pd.Timestamp]:
    valid = out[out[STATUS].isin(["ok", "not_found"])]
    return dict(zip(valid["handle"].str.strip(), valid[FETCHED], strict=True))


def test_single_then_cache_keeps_the_first_runs_times(fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    values = ["ada-prov", "grace-prov", None, "unknown-prov", "ada-prov", "not a handle!"]
    leads = lead_frame(values)
    before = datetime.now(UTC)
    with make_client(fake_service, cache=cache) as client:
        first = enrich(leads, client, method="single", provenance=True)
    after = datetime.now(UTC)
    assert first[STATUS].tolist() == ["ok", "ok", "invalid", "not_found", "ok", "invalid"]
    check_dtypes(first)
    # the input columns, the profile, status and error, then the three, in this order
    assert first.columns[-3:].tolist() == COLUMNS
    assert first.columns[:3].tolist() == ["handle", "company", "score"]

    answered = [0, 1, 3, 4]
    assert first.loc[answered, SOURCE].tolist() == ["single"] * 4
    assert first.loc[answered, EXPIRED].tolist() == [False] * 4
    for when in first.loc[answered, FETCHED]:
        assert before <= when.to_pydatetime() <= after
    assert first.loc[0, FETCHED] == first.loc[4, FETCHED]  # one answer for both rows
    # invalid rows: missing values
    for row in (2, 5):
        assert pd.isna(first.loc[row, SOURCE])
        assert first.loc[row, FETCHED] is pd.NaT
        assert first.loc[row, EXPIRED] is pd.NA

    sent = fake_service.count()
    with make_client(fake_service, cache=cache) as client:
        second = enrich(leads, client, method="single", provenance=True)
    assert fake_service.count() == sent  # all from the cache
    assert second.loc[answered, SOURCE].tolist() == ["cache"] * 4
    assert second.loc[answered, EXPIRED].tolist() == [False] * 4
    assert fetched_by_handle(second) == fetched_by_handle(first)
    pd.testing.assert_series_equal(second[FETCHED], first[FETCHED])
    # everything else is what the first run gave
    rest = [c for c in first.columns if c not in COLUMNS]
    pd.testing.assert_frame_equal(second[rest], first[rest])


def test_a_batch_run_says_batch_and_its_rerun_cache(fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    handles = [f"person-{i:05d}" for i in range(500, 525)] + ["unknown-prov-batch"]
    leads = lead_frame([*handles, "", handles[0]])
    before = datetime.now(UTC)
    with make_client(fake_service, cache=cache) as client:
        first = enrich(leads, client, method="batch", provenance=True)
    after = datetime.now(UTC)
    assert fake_service.batch_jobs  # it went through a batch job
    assert fake_service.count(PROFILE) == 0
    assert first[STATUS].tolist() == ["ok"] * 25 + ["not_found", "invalid", "ok"]
    check_dtypes(first)
    answered = first[first[STATUS] != "invalid"]
    assert (answered[SOURCE] == "batch").all()
    assert (~answered[EXPIRED]).all()
    assert all(before <= t.to_pydatetime() <= after for t in answered[FETCHED])
    assert pd.isna(first.loc[26, SOURCE]) and first.loc[26, FETCHED] is pd.NaT

    sent = fake_service.count()
    with make_client(fake_service, cache=cache) as client:
        second = enrich(leads, client, method="batch", provenance=True)
    assert fake_service.count() == sent
    assert (second.loc[answered.index, SOURCE] == "cache").all()
    assert fetched_by_handle(second) == fetched_by_handle(first)


def test_a_failed_call_has_its_source_and_no_time(fake_service, tmp_path):
    fake_service.override(PROFILE, FailHandles({"broken-prov"}))
    with make_client(fake_service, cache=tmp_path / "c.sqlite", max_retries=1) as client:
        out = enrich(lead_frame(["ada-prov2", "broken-prov"]), client, provenance=True)
    assert out[STATUS].tolist() == ["ok", "error"]
    assert out[SOURCE].tolist() == ["single", "single"]
    assert out.loc[0, FETCHED] is not pd.NaT
    assert out.loc[1, FETCHED] is pd.NaT  # nothing was bought


def test_get_profiles_with_provenance(fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    handles = pd.Series(["ada-get", "", "unknown-get"], index=["a", "b", "c"])
    with make_client(fake_service, cache=cache) as client:
        first = lp.get_profiles(handles, client=client, progress=False, provenance=True)
        second = lp.get_profiles(handles, client=client, progress=False, provenance=True)
        plain = lp.get_profiles(handles, client=client, progress=False)
    assert first.index.tolist() == ["a", "b", "c"]
    assert first[STATUS].tolist() == ["ok", "invalid", "not_found"]
    assert first.columns[-3:].tolist() == COLUMNS
    check_dtypes(first)
    assert first[SOURCE].tolist()[::2] == ["single", "single"]
    assert pd.isna(first.loc["b", SOURCE]) and first.loc["b", FETCHED] is pd.NaT
    assert second[SOURCE].tolist()[::2] == ["cache", "cache"]
    pd.testing.assert_series_equal(second[FETCHED], first[FETCHED])
    assert not set(COLUMNS) & set(plain.columns)
    assert fake_service.billed() == 2


def test_companies_with_provenance(fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    accounts = pd.DataFrame({"slug": ["acme", "ACME", None, "unknown-co"]})
    with make_client(fake_service, cache=cache) as client:
        first = accounts.lookup.enrich_companies(
            "slug", client=client, progress=False, provenance=True
        )
        got = lp.get_companies(["acme", "unknown-co"], client=client, provenance=True)
    assert first[STATUS].tolist() == ["ok", "ok", "invalid", "not_found"]
    assert first[SOURCE].tolist()[:2] == ["single", "single"]
    assert first.loc[0, FETCHED] == first.loc[1, FETCHED]
    assert pd.isna(first.loc[2, SOURCE])
    assert got[SOURCE].tolist() == ["cache", "cache"]
    assert got[FETCHED].tolist() == [first.loc[0, FETCHED], first.loc[3, FETCHED]]


def test_default_has_no_provenance_columns(fake_service, tmp_path):
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        out = enrich(lead_frame(["ada-plain", None]), client)
        frame, _ = api.enrich_with_summary(
            lead_frame(["ada-plain"]), "handle", client=client, progress=False
        )
    for each in (out, frame):
        assert not set(COLUMNS) & set(each.columns)
        assert each.columns[-2:].tolist() == ["lookup_status", "lookup_error"]


def test_a_frame_with_a_provenance_column_keeps_it(fake_service: FakeService, tmp_path):
    leads = lead_frame(["ada-clash", "grace-clash"]).assign(lookup_source=["crm", "crm"])
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        # the run's own columns take its prefix: the user's column is not overwritten
        kept = enrich(leads, client, provenance=True)
        job = enrich(leads, client, provenance=True, background=True)
        assert isinstance(job, lp.EnrichmentJob)
        later = job.result()
        # without provenance, the user's own column is just a column
        out = enrich(leads, client)
    for each in (kept, later):
        assert each["lookup_source"].tolist() == ["crm", "crm"]
        assert each["profile_lookup_status"].tolist() == ["ok", "ok"]
        assert each["profile_lookup_source"].notna().all() and STATUS not in each.columns
    assert out["lookup_source"].tolist() == ["crm", "crm"]
    assert out[STATUS].tolist() == ["ok", "ok"]


@pytest.mark.parametrize("method", ["single", "batch"])
def test_a_refused_record_has_no_source_since_nothing_was_bought(fake_service, tmp_path, method):
    # An opted-out or premium-gated person is answered 403 and never billed (issue 39, item
    # 11): no source, as for an invalid row, where it said "single".
    handles = [f"prov-refused-{i:02d}" for i in range(25)]
    fake_service.configure(opted_out={handles[3]}, premium_gated={handles[7]})
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        out = enrich(pd.DataFrame({"handle": handles}), client, provenance=True, method=method)
    refused = out[STATUS] == "forbidden"
    assert out.loc[refused, "handle"].tolist() == [handles[3], handles[7]]
    assert out.loc[refused, SOURCE].isna().all() and out.loc[refused, FETCHED].isna().all()
    assert out.loc[refused, EXPIRED].isna().all()
    assert (out.loc[~refused, SOURCE] == method).all()
    assert fake_service.billed() == len(handles) - 2
