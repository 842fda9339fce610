"""The Email API's list functions against the emulator: ``get_email_verdicts``,
``get_email_owners``, ``get_work_emails`` (by query, by a frame's columns, by profile).

What is tested: one row per input in order, the value as sent first, then the kind's fields
unprefixed, then the statuses; the same values and statuses as the DataFrame function on the
same input; each distinct input billed once; a re-run free; garbage never sent.
"""

from __future__ import annotations

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.frames.records import FIND_FIELDS, REVERSE_FIELDS, VERIFY_FIELDS
from lookup_pandas.service.paths import (
    EMAIL_FIND_PATH,
    EMAIL_FIND_PROFILE_PATH,
    EMAIL_REVERSE_PATH,
    EMAIL_VERIFY_PATH,
)
from lookup_pandas.testing import mailboxes

STATUSES = ["lookup_status", "lookup_error"]


def _people(domain: str, n: int) -> list[dict]:
    return mailboxes.prospects(domain, "full")[:n]


def _as_pandas_would(listed: pd.DataFrame, enriched: pd.DataFrame, prefix: str) -> None:
    """``listed``'s fields and statuses are ``enriched``'s prefixed columns, row for row."""
    fields = [c for c in listed.columns if prefix + c in enriched.columns]
    theirs = enriched[[prefix + c for c in fields] + STATUSES].set_axis(fields + STATUSES, axis=1)
    pd.testing.assert_frame_equal(listed[fields + STATUSES], theirs)


def test_get_email_verdicts_one_row_per_address_as_verify_emails(fake_service, fake_client):
    good = [p["email"] for p in _people("globex.example", 2)]
    addresses = [good[0], f" {good[0]} ", "no-at-sign", good[1], None, good[0]]
    out = lp.get_email_verdicts(addresses, client=fake_client, progress=False)

    assert fake_service.count(EMAIL_VERIFY_PATH) == 2  # each distinct address once
    assert list(out.columns) == ["email", *VERIFY_FIELDS, *STATUSES]
    assert out["email"].tolist()[:4] == [good[0], good[0], out["email"][2], good[1]]
    assert out["email"].isna().tolist() == [False, False, True, False, True, False]
    assert out["lookup_status"].tolist() == ["ok", "ok", "invalid", "ok", "invalid", "ok"]
    assert out["lookup_error"][2] == "invalid address: no @"
    enriched = pd.DataFrame({"email": addresses}).lookup.verify_emails(
        "email", client=fake_client, progress=False
    )
    _as_pandas_would(out, enriched, "verify_")
    assert fake_service.count(EMAIL_VERIFY_PATH) == 2  # the frame's run read the cache

    series = pd.Series(good, index=["a", "b"])
    again = lp.get_email_verdicts(series, client=fake_client, progress=False)
    assert again.index.tolist() == ["a", "b"] and again.lookup.summary.credits == 0
    with pytest.raises(lp.UsageError, match="no @"):
        lp.get_email_verdicts("no-at-sign", client=fake_client)
    assert fake_service.count(EMAIL_VERIFY_PATH) == 2


def test_get_email_owners_as_reverse_emails_unsupported_free(fake_service, fake_client):
    person = _people("acme.example", 1)[0]
    addresses = [person["email"], "jane@gmail.com", person["email"]]
    out = lp.get_email_owners(addresses, client=fake_client, progress=False)

    assert fake_service.count(EMAIL_REVERSE_PATH) == 2  # the unsupported one answers 422
    assert list(out.columns[: 1 + len(REVERSE_FIELDS)]) == ["email", *REVERSE_FIELDS]
    assert list(out.columns[-2:]) == STATUSES
    assert out["lookup_status"].tolist() == ["ok", "unsupported", "ok"]
    assert out["person.full_name"][0] == f"{person['first_name']} {person['last_name']}"
    assert out.lookup.summary.credits == fake_service.stats()["credits"] == 5
    enriched = pd.DataFrame({"email": addresses}).lookup.reverse_emails(
        "email", client=fake_client, progress=False
    )
    _as_pandas_would(out, enriched, "reverse_")


def test_get_work_emails_by_query_and_by_frame_bills_each_query_once(fake_service, fake_client):
    people = _people("acme.example", 2)
    queries = [(p["first_name"], p["last_name"], "acme.example") for p in people]
    queries += [
        (people[0]["first_name"].upper(), people[0]["last_name"], "https://www.acme.example/")
    ]
    queries += [("Jane", "", "acme.example")]
    out = lp.get_work_emails(queries, client=fake_client, progress=False)

    assert fake_service.count(EMAIL_FIND_PATH) == 2
    assert list(out.columns) == ["first_name", "last_name", "domain", *FIND_FIELDS, *STATUSES]
    assert out["address"].tolist()[:3] == [
        people[0]["email"],
        people[1]["email"],
        people[0]["email"],
    ]
    assert out["domain"].tolist()[:3] == ["acme.example"] * 3  # as sent
    assert out["lookup_status"].tolist() == ["ok", "ok", "ok", "invalid"]
    assert out["lookup_error"][3] == "invalid query: last name: empty"

    frame = pd.DataFrame(queries, columns=["first_name", "last_name", "domain"], index=list("wxyz"))
    by_frame = lp.get_work_emails(frame, client=fake_client, progress=False)
    assert by_frame.index.tolist() == list("wxyz") and by_frame.lookup.summary.credits == 0
    pd.testing.assert_frame_equal(by_frame.reset_index(drop=True), out, check_like=False)
    _as_pandas_would(
        by_frame, frame.lookup.find_emails(client=fake_client, progress=False), "email_"
    )
    assert fake_service.count(EMAIL_FIND_PATH) == 2


def test_get_work_emails_by_profile(fake_service, fake_client):
    profiles = ["https://www.linkedin.com/in/ada/", "ada", "prsn_1a2b"]
    out = lp.get_work_emails(profiles=profiles, client=fake_client, progress=False)
    assert fake_service.count(EMAIL_FIND_PROFILE_PATH) == 1
    assert out.columns[0] == "url" and out["url"].tolist()[:2] == ["ada", "ada"]
    assert out["lookup_status"].tolist() == ["ok", "ok", "invalid"]
    enriched = pd.DataFrame({"linkedin_url": profiles}).lookup.find_emails(
        profile="linkedin_url", client=fake_client, progress=False
    )
    # the row's url is the handle sent; the rest is the find's
    _as_pandas_would(out.drop(columns="url"), enriched, "email_")
    with pytest.raises(lp.UsageError, match="queries or profiles"):
        lp.get_work_emails([("Ada", "L", "acme.example")], profiles=profiles, client=fake_client)
    with pytest.raises(lp.UsageError, match="queries or profiles"):
        lp.get_work_emails(client=fake_client)
    assert fake_service.count(EMAIL_FIND_PROFILE_PATH) == 1
