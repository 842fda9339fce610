"""The Email API as columns, against the emulator over loopback (issue 41).

What is tested: ``find_emails`` by name and domain over a CRM's spellings (names in any case,
a domain as a host, a website URL or an address) buys each distinct query once at the route's
cost, garbage never sent, a re-run free; by profile, a URL and its handle are one lookup;
``verify_emails`` and ``reverse_emails`` (an unsupported address a free ``unsupported`` row, a
reversal that finds nobody billed its partial price, a reversed person enriched next); an
opted-out person a ``forbidden`` row, not billed; estimates equal to what the run bills;
``max_credits`` refused before anything is sent; ``email_prospects`` paged to the end; a
service without the Email API told in one line, nothing billed.
"""

from __future__ import annotations

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.errors import BudgetExceededError, ConfigurationError
from lookup_pandas.service.endpoints import (
    EMAIL_FIND_PATH,
    EMAIL_FIND_PROFILE_PATH,
    EMAIL_PROSPECTS_PATH,
    EMAIL_REVERSE_PATH,
    EMAIL_VERIFY_PATH,
    PROFILE_PATH,
)
from lookup_pandas.testing import mailboxes

STATUS, ERROR = "lookup_status", "lookup_error"


def _employees(slug: str, n: int) -> list[dict]:
    """The first ``n`` current employees of ``slug`` with a findable address at its domain."""
    domain = f"{slug}.example"
    found = []
    for record in mailboxes.prospects(domain, "full"):
        found.append({**record, "domain": domain})
        if len(found) == n:
            break
    assert len(found) == n
    return found


def _crm_export() -> pd.DataFrame:
    """Three people, each in several spellings, and the garbage a CRM holds."""
    people = _employees("acme", 3)
    rows = []
    for p in people:
        first, last, domain = p["first_name"], p["last_name"], p["domain"]
        rows += [
            (first, last, domain),
            (f" {first.upper()} ", last.lower(), f"https://www.{domain}/about"),
            (first.lower(), last, f"{first.lower()}@{domain}"),
        ]
    rows += [("Jane", "", "acme.example"), (None, "Doe", "acme.example"), ("Jane", "Doe", "acme")]
    return pd.DataFrame(rows, columns=["first", "last", "website"])


def test_a_crm_export_s_spellings_are_one_find_each_garbage_never_sent(fake_service, fake_client):
    leads = _crm_export()
    estimate = leads.lookup.estimate_find_emails("first", "last", "website", client=fake_client)
    assert (estimate.rows, estimate.valid, estimate.unique, estimate.to_fetch) == (12, 9, 3, 3)

    out = leads.lookup.find_emails("first", "last", "website", client=fake_client, progress=False)

    assert fake_service.count(EMAIL_FIND_PATH) == 3  # one call per distinct query
    assert fake_service.stats()["credits"] == estimate.credits == 3 * 3  # find costs 3
    assert out.lookup.summary.credits == 9
    assert out[STATUS].tolist() == ["ok"] * 9 + ["invalid"] * 3
    assert out[ERROR].tolist()[9:] == [
        "invalid query: last name: empty",
        "invalid query: first name: empty",
        "invalid query: domain: a domain without a dot",
    ]
    found = out[out[STATUS] == "ok"]
    assert found["email_found"].all()
    for p in _employees("acme", 3):
        mine = found[found["first"].str.strip().str.lower() == p["first_name"].lower()]
        assert set(mine["email_address"]) == {p["email"]}
    assert list(out.columns[:3]) == ["first", "last", "website"]  # the input untouched
    assert leads.columns.tolist() == ["first", "last", "website"]

    again = leads.lookup.find_emails("first", "last", "website", client=fake_client)
    assert fake_service.count(EMAIL_FIND_PATH) == 3  # the re-run bought nothing
    assert again.lookup.summary.credits == 0
    pd.testing.assert_frame_equal(again, out, check_like=False)


def test_a_find_that_finds_nothing_is_billed_once_and_cached(fake_service, fake_client):
    leads = pd.DataFrame({"first_name": ["Nobody"], "last_name": ["Known"], "domain": ["x.io"]})
    unknown = mailboxes.find("nobody", "known", "x.io")
    out = leads.lookup.find_emails(client=fake_client, progress=False)
    assert out["email_found"].tolist() == [unknown["found"]]
    assert out[STATUS].tolist() == ["ok"]
    leads.lookup.find_emails(client=fake_client, progress=False)
    assert fake_service.billed(EMAIL_FIND_PATH) == 1


def test_a_profile_url_and_its_handle_are_one_find(fake_service, fake_client):
    leads = pd.DataFrame(
        {"linkedin_url": ["https://www.linkedin.com/in/ada/", "ada", "@Ada", "prsn_1a2b", ""]}
    )
    out = leads.lookup.find_emails(profile="linkedin_url", client=fake_client, progress=False)
    assert fake_service.count(EMAIL_FIND_PROFILE_PATH) == 1
    assert fake_service.stats()["credits"] == 5
    assert out[STATUS].tolist() == ["ok"] * 3 + ["invalid"] * 2
    assert out["email_url"].notna()[:3].all()
    with pytest.raises(lp.errors.UsageError, match="not both"):
        leads.lookup.find_emails("a", profile="linkedin_url", client=fake_client)


def test_verify_buys_each_address_once_whatever_the_verdict(fake_service, fake_client):
    person = _employees("globex", 1)[0]
    good, bad = person["email"], "zz.not.a.pattern.q@globex.example"
    leads = pd.DataFrame({"email": [good, f" {good.upper()} ", bad, "no-at-sign", good]})
    estimate = leads.lookup.estimate_verify_emails("email", client=fake_client)
    out = leads.lookup.verify_emails("email", client=fake_client, progress=False)
    # the mailbox keeps its case: an upper-cased local part is another address
    distinct = {good, good.upper().rsplit("@", 1)[0] + "@globex.example", bad}
    assert fake_service.count(EMAIL_VERIFY_PATH) == len(distinct) == estimate.to_fetch
    assert fake_service.stats()["credits"] == 2 * len(distinct) == estimate.credits
    assert out["verify_reason"][0] == "mailbox_accepts" and bool(out["verify_deliverable"][0])
    assert out["verify_reason"][2] == mailboxes.verify(bad)["reason"]
    assert out[STATUS].tolist() == ["ok", "ok", "ok", "invalid", "ok"]
    assert out[ERROR][3] == "invalid address: no @"


def test_reverse_resolves_people_free_when_unsupported_partial_when_nobody(
    fake_service, fake_client
):
    person = _employees("acme", 1)[0]
    leads = pd.DataFrame(
        {"email": [person["email"], "jane@gmail.com", "info@acme.example", "who@nowhere.io"]}
    )
    estimate = leads.lookup.estimate_reverse_emails("email", client=fake_client)
    assert estimate.credits == 5 * 4  # the most: each at the full cost (the service judges 422s)
    out = leads.lookup.reverse_emails("email", client=fake_client, progress=False)
    assert out[STATUS].tolist() == ["ok", "unsupported", "unsupported", "ok"]
    assert out[ERROR][:1].isna().all() and out[ERROR][1:3].notna().all()
    assert bool(out["reverse_found"][0]) and not bool(out["reverse_found"][3])
    assert out["reverse_person.full_name"][0] == f"{person['first_name']} {person['last_name']}"
    assert out["reverse_current_company.slug"][0] == "acme"
    billed = fake_service.stats()["credits"]
    assert billed == 5 + 3 == out.lookup.summary.credits  # a full and a partial reversal

    sent = fake_service.count(EMAIL_REVERSE_PATH)
    again = leads.lookup.reverse_emails("email", client=fake_client, progress=False)
    assert again.lookup.summary.credits == 0 and fake_service.stats()["credits"] == billed
    assert fake_service.count(EMAIL_REVERSE_PATH) == sent  # the 422s are kept as answers too
    assert again[STATUS].tolist() == out[STATUS].tolist()
    assert leads.lookup.estimate_reverse_emails("email", client=fake_client).to_fetch == 0

    # the person behind the address is enriched next, by the profile URL the reversal gave
    people = out.lookup.enrich_profiles(
        "reverse_person.profile_url", client=fake_client, progress=False
    )
    assert people["profile_lookup_status"][0] == "ok"
    assert fake_service.billed(PROFILE_PATH) == 1


def test_an_opted_out_person_is_forbidden_and_not_billed(fake_service, fake_client):
    person = _employees("acme", 2)
    opted = mailboxes.owner(person[0]["email"])
    assert opted is not None
    fake_service.configure(opted_out={opted["handle"]})
    leads = pd.DataFrame({"email": [p["email"] for p in person]})
    out = leads.lookup.reverse_emails("email", client=fake_client, progress=False)
    assert out[STATUS].tolist() == ["forbidden", "ok"]
    assert fake_service.stats()["credits"] == 5


def test_max_credits_refuses_before_anything_is_sent(fake_service, fake_client):
    leads = pd.DataFrame({"email": [p["email"] for p in _employees("acme", 4)]})
    with pytest.raises(BudgetExceededError, match="8 credits"):
        leads.lookup.verify_emails("email", max_credits=7, client=fake_client, progress=False)
    assert fake_service.count(EMAIL_VERIFY_PATH) == 0


def test_prospects_are_read_to_the_last_page_and_billed_per_address(fake_service, fake_client):
    known = mailboxes.prospects("acme.example", "full")
    assert len(known) > 20  # more than one page
    out = lp.email_prospects("https://www.acme.example/team", client=fake_client, progress=False)
    assert out["email"].tolist() == [p["email"] for p in known]
    pages = fake_service.count(EMAIL_PROSPECTS_PATH)
    assert pages == -(-len(known) // 20)
    assert fake_service.stats()["credits"] == len(known)
    lp.email_prospects("acme.example", client=fake_client, progress=False)
    assert fake_service.count(EMAIL_PROSPECTS_PATH) == pages  # each page cached

    verified = lp.email_prospects(
        "acme.example", kind="verified_only", client=fake_client, progress=False
    )
    assert fake_service.stats()["credits"] == len(known) + 2 * len(verified)
    assert len(lp.email_prospects("acme.example", max_records=3, client=fake_client)) == 3


def test_a_service_without_the_email_api_is_told_in_one_line(fake_service, fake_client):
    fake_service.configure(emails=False)
    leads = pd.DataFrame({"email": ["jane@acme.example", "bob@acme.example"]})
    with pytest.raises(ConfigurationError, match="no Email API") as caught:
        leads.lookup.verify_emails("email", client=fake_client, progress=False)
    assert "\n" not in str(caught.value)
    assert fake_service.stats()["credits"] == 0
    assert fake_service.count(EMAIL_REVERSE_PATH) == 0


def test_a_machine_sharing_a_redis_cache_buys_no_email_answer_again(fake_service, redis_url):
    """Two machines on one Redis cache: the second's verify, find and reversal are all read from
    what the first bought; the key is in none of Redis's keys or values."""
    import redis

    people = _employees("globex", 3)
    leads = pd.DataFrame(
        {
            "first": [p["first_name"] for p in people],
            "last": [p["last_name"] for p in people],
            "domain": [p["domain"] for p in people],
            "email": [p["email"] for p in people],
        }
    )

    def run(client: lp.Client) -> float:
        spent = [
            leads.lookup.verify_emails("email", client=client, progress=False),
            leads.lookup.find_emails("first", "last", "domain", client=client, progress=False),
            leads.lookup.reverse_emails("email", client=client, progress=False),
        ]
        return sum(out.lookup.summary.credits for out in spent)

    key, url = fake_service.api_key, fake_service.base_url
    with lp.Client(api_key=key, base_url=url, cache=redis_url) as first:
        bought = run(first)
    assert bought == 3 * (2 + 3 + 5) == fake_service.stats()["credits"]
    with lp.Client(api_key=key, base_url=url, cache=redis_url) as second:
        assert run(second) == 0
    assert fake_service.stats()["credits"] == bought
    store = redis.Redis.from_url(redis_url)
    assert not any(
        key.encode() in k or key.encode() in (store.dump(k) or b"") for k in store.scan_iter()
    )
