"""People by id (``prsn_…``), against the emulator over loopback.

What is tested: ``client.profile`` sends an id as ``id=`` (its case kept), a handle as
``handle=``; a column mixing ids and handles is enriched with each person bought once (the
handle first; the id its record names is not bought) and a re-run free; batch
jobs take the ids in ``ids`` and the handles in ``handles`` (a job of the handles first, then
one of the ids their records did not name), results keyed by the exact input.
"""

from __future__ import annotations

import pandas as pd

import lookup_pandas as lp  # noqa: F401  registers df.lookup
from lookup_pandas.testing import BATCH, PROFILE

from ..enrich_helpers import person_id

STATUS = "lookup_status"


def test_profile_sends_an_id_as_id(fake_service, fake_client):
    ada = person_id("ada-lovelace")
    record = fake_client.profile(ada)
    assert record is not None and record["id"] == ada
    assert record["handle"] == "ada-lovelace"
    assert fake_service.count(PROFILE, id=ada) == 1
    assert fake_service.count(PROFILE, handle=ada) == 0
    assert fake_client.profile(ada) == record  # cached
    assert fake_service.count(PROFILE) == 1


def test_an_unknown_id_is_none_billed_once(fake_service, fake_client):
    assert fake_client.profile("prsn_doesNotExist") is None
    assert fake_client.profile("prsn_doesNotExist") is None
    assert fake_service.count(PROFILE, id="prsn_doesNotExist") == 1


def test_a_column_mixing_ids_and_handles(fake_service, fake_client):
    ada, grace = person_id("ada-lovelace"), person_id("grace-hopper")
    values = ["ada-lovelace", ada, "Ada-Lovelace", ada, grace, "prsn_unknownQ", ""]
    frame = pd.DataFrame({"handle": values})

    out = frame.lookup.enrich_profiles("handle", client=fake_client, progress=False)

    assert out[STATUS].tolist() == ["ok"] * 5 + ["not_found", "invalid"]
    assert out["profile_id"][:4].tolist() == [ada] * 4
    assert out["profile_handle"][:4].tolist() == ["ada-lovelace"] * 4
    assert out["profile_handle"][4] == "grace-hopper"
    # an id and a handle of one person: bought once, by the handle
    assert fake_service.count(PROFILE, handle="ada-lovelace") == 1
    assert fake_service.count(PROFILE, id=ada) == 0
    assert fake_service.count(PROFILE, id=grace) == 1
    assert fake_service.count(PROFILE, id="prsn_unknownQ") == 1
    assert fake_service.count(PROFILE) == 3

    again = frame.lookup.enrich_profiles("handle", client=fake_client, progress=False)
    assert fake_service.count(PROFILE) == 3  # a re-run buys nothing
    pd.testing.assert_frame_equal(again, out)


def test_get_profiles_by_id_keeps_the_records_handle(fake_service, fake_client):
    ada = person_id("ada-lovelace")
    out = lp.get_profiles([ada, "prsn_unknownZ"], client=fake_client, progress=False)
    assert out["id"].tolist() == [ada, "prsn_unknownZ"]
    assert out["handle"][0] == "ada-lovelace"
    assert out[STATUS].tolist() == ["ok", "not_found"]


def test_batch_jobs_take_ids_in_ids(fake_service, fake_client):
    handles = [f"idbatch{i:03d}" for i in range(30)]
    ids = [person_id(h) for h in handles[:15]]
    values = ids + handles[15:]
    frame = pd.DataFrame({"handle": values})

    out = frame.lookup.enrich_profiles("handle", client=fake_client, progress=False)

    # the handles' job first, then the ids none of its records named
    assert fake_service.count(BATCH, method="POST") == 2
    assert fake_service.count(PROFILE) == 0
    assert out[STATUS].eq("ok").all()
    assert out["profile_handle"].tolist() == handles
    first, second = fake_service.batch_jobs.values()
    assert sorted(first) == sorted(handles[15:]) and sorted(second) == sorted(ids)
    # each result cached as the single answer for its exact input
    assert fake_client.profile(ids[0])["handle"] == handles[0]
    assert fake_service.count(PROFILE) == 0
