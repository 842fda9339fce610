"""Values that cannot be a public handle are never sent (issue 21), over loopback to the emulator.

In production each of these was sent and billed as a not-found (``1010``). The emulator
answers (and bills) anything it is asked, so what it billed is exactly what the client sent.
"""

from __future__ import annotations

import functools
from collections import Counter

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.client.fetching import fetched
from lookup_pandas.enrichment.single import SingleCalls, fetch_one
from lookup_pandas.errors import UsageError
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.testing import data

from ..enrich_helpers import lead_frame
from ..helpers import PROFILE

STATUS, ERROR = "lookup_status", "lookup_error"

#: The values of issue 21 and why each is no handle.
GARBAGE = {
    "0": "invalid handle: no letters",
    "-1": "invalid handle: no letters",
    "3.14": "invalid handle: no letters",
    "?": "invalid handle: contains '?' (letters, digits, '-', '_', '.' only)",
    "-": "invalid handle: no letters",
    "😀🔥": "invalid handle: contains '😀🔥' (letters, digits, '-', '_', '.' only)",
    "mailto:ada@example.com": "invalid handle: an e-mail address",
    "ada@example.com": "invalid handle: an e-mail address",
    "<script>alert(1)</script>": "invalid handle: markup",
    "../../etc/passwd": "invalid handle: a path",
    "a" * 5000: "invalid handle: too long (max 100 characters)",
}
#: Two people of the emulator's data set, one pasted as a profile URL.
REAL = ["ada-lovelace-042", "https://www.example.com/in/grace-hopper-007/"]
REAL_HANDLES = ["ada-lovelace-042", "grace-hopper-007"]


def _profile_handles_sent(svc) -> list[str | None]:
    return [r.param("handle") for r in svc.requests if r.path == PROFILE]


def test_enrichment_bills_only_the_real_handles(fake_service, fake_client):
    values = [REAL[0], *GARBAGE, REAL[1]]
    frame = lead_frame(values)
    before = frame.copy(deep=True)

    out = frame.lookup.enrich_profiles(
        "handle", method="single", client=fake_client, progress=False
    )

    pd.testing.assert_frame_equal(frame, before)
    assert fake_service.billed_handles() == Counter({h: 1 for h in REAL_HANDLES})
    assert fake_service.billed(PROFILE) == 2
    assert sorted(h for h in _profile_handles_sent(fake_service) if h) == REAL_HANDLES
    assert out[STATUS].tolist() == ["ok", *["invalid"] * len(GARBAGE), "ok"]
    assert out[ERROR].iloc[1:-1].tolist() == list(GARBAGE.values())
    assert out[ERROR].iloc[[0, -1]].isna().all()
    assert out["profile_handle"].iloc[[0, -1]].tolist() == REAL_HANDLES
    assert out["profile_id"].iloc[1:-1].isna().all()


def test_the_estimate_counts_only_the_real_handles(fake_service, fake_client):
    est = lead_frame([*GARBAGE, *REAL]).lookup.estimate_profiles("handle", client=fake_client)
    assert (est.rows, est.valid, est.unique, est.to_fetch) == (len(GARBAGE) + 2, 2, 2, 2)
    assert fake_service.billed() == 0


def test_a_profile_url_sends_its_handle(fake_service, fake_client):
    real = REAL_HANDLES[1]
    record = fake_client.profile(f"https://www.example.com/in/{real}/")

    assert record is not None and record["id"] == data.person(real)["id"]
    assert _profile_handles_sent(fake_service) == [real]
    assert fake_service.count(PROFILE, handle=real) == 1
    # Any spelling of the same person is the same handle: a free cache hit, nothing sent.
    assert fake_client.profile(f"WWW.EXAMPLE.COM/IN/{real.upper()}?utm_source=x") == record
    request = fake_client.parts.sender.request
    assert fetched(request, f"@{real}/", PEOPLE) == record
    assert (
        fetched(request, f"https://www.example.com/in/{real}/", PEOPLE, fold_case=False) == record
    )
    assert fake_service.count(PROFILE) == 1


def test_a_single_call_keeps_case_as_enrichment_normalised_it(fake_service, fake_client):
    # enrichment with fold_case=False hands "Ada-Lovelace-042" to its single calls: sent so
    fetch_one(SingleCalls(fake_client.parts.sender.request, PEOPLE), "Ada-Lovelace-042")
    fake_client.profile("Ada-Lovelace-042", fold_case=False)
    assert _profile_handles_sent(fake_service) == ["Ada-Lovelace-042"]


@pytest.mark.parametrize("raw", list(GARBAGE), ids=lambda v: repr(v)[:20])
def test_the_client_refuses_garbage_and_sends_nothing(fake_service, fake_client, raw):
    reason = GARBAGE[raw].removeprefix("invalid handle: ")
    raising = functools.partial(fetched, fake_client.parts.sender.request, kind=PEOPLE)
    unfolded = functools.partial(raising, fold_case=False)
    for call in (fake_client.profile, raising, unfolded):
        with pytest.raises(UsageError) as caught:
            call(raw)
        assert reason in str(caught.value) and "Nothing was sent" in str(caught.value)
    assert fake_service.count() == 0  # not even the first contact


def test_get_profiles_normalises_and_marks_garbage_invalid(fake_service, fake_client):
    out = lp.get_profiles([*GARBAGE, *REAL], client=fake_client, progress=False, method="single")
    assert out["handle"].iloc[-2:].tolist() == REAL_HANDLES
    assert out[STATUS].tolist() == [*["invalid"] * len(GARBAGE), "ok", "ok"]
    assert out[ERROR].iloc[: len(GARBAGE)].tolist() == list(GARBAGE.values())
    assert fake_service.billed_handles() == Counter({h: 1 for h in REAL_HANDLES})


def test_get_profiles_of_one_string_is_one_row_not_its_characters(fake_service, fake_client):
    out = lp.get_profiles(REAL[1], client=fake_client, progress=False)
    assert out["handle"].tolist() == [REAL_HANDLES[1]]
    assert out[STATUS].tolist() == ["ok"]
    with pytest.raises(UsageError, match="an e-mail address"):
        lp.get_profiles("ada@example.com", client=fake_client, progress=False)
    assert fake_service.billed_handles() == Counter({REAL_HANDLES[1]: 1})
