"""The emulator's Email API over loopback, as production's reference (``email-api.md``) shapes it.

Every billed answer's ``X-Credits-Consumed`` is its route's cost (the ``route_costs`` knob) and
what the emulator's counters and balance say was spent; 400s, 403s, 404s and 422s are free and
carry no credit headers. Batch jobs resolve at once (``batch_resolve_rate=0``): no test waits.
"""

from __future__ import annotations

import pytest
import requests

from lookup_pandas.identifiers.handles import normalise_handle
from lookup_pandas.service.credits import ROUTE_COSTS_PATH
from lookup_pandas.service.endpoints import ENDPOINTS
from lookup_pandas.service.paths import PROFILE_PATH
from lookup_pandas.testing import ROUTE_COSTS, mailboxes

PATH = {
    name: e.path for name, e in ENDPOINTS.items() if name.startswith(("email", "verify", "find"))
}
VERIFY, FIND, PROFILE_FIND = PATH["email_verify"], PATH["email_find"], PATH["email_find_profile"]
REVERSE, PROSPECTS = PATH["email_reverse"], PATH["email_prospects"]
VERIFY_BATCH, FIND_BATCH = PATH["verify_batch"], PATH["find_batch"]
HEALTH = PATH["emails_health"]
ALAN = {"first_name": "Alan", "last_name": "Turing", "domain": "globex.example"}
ADA_AT_ACME = {"first_name": "Ada", "last_name": "Lovelace", "domain": "acme.example"}  # unfindable
CATCH_ALL = "umbrella.example"


def consumed(reply: requests.Response) -> float:
    return float(reply.headers["X-Credits-Consumed"])


def assert_free(reply: requests.Response, svc, status: int) -> dict:
    """``reply`` has ``status``, no credit headers, and nothing was spent."""
    assert reply.status_code == status, reply.text
    assert "X-Credits-Consumed" not in reply.headers and "X-Credits-Balance" not in reply.headers
    assert svc.stats()["credits"] == 0 and svc.balance == svc.knobs.balance
    return reply.json()


def spent(svc) -> float:
    stats = svc.stats()
    assert svc.knobs.balance - svc.balance == stats["credits"]
    return stats["credits"]


def test_health_is_free_and_needs_no_key(fake_service):
    reply = requests.get(fake_service.base_url + HEALTH, timeout=10)
    assert assert_free(reply, fake_service, 200)["data"] == {"status": "ok"}


CALLS = {  # a billed call and its cost, the route's (reverse with nothing found: 3)
    "verify": (VERIFY, {"email": "alan.turing@globex.example"}, 2),
    "verify invalid": (VERIFY, {"email": "not an address"}, 2),
    "find": (FIND, ALAN, 3),
    "find not found": (FIND, ADA_AT_ACME, 3),
    "find by profile": (PROFILE_FIND, {"url": "https://www.linkedin.com/in/ada/"}, 5),
    "find unknown profile": (PROFILE_FIND, {"url": "unknown-zed"}, 5),
    "reverse found": (REVERSE, {"email": "alan.turing@globex.example"}, 5),
    "reverse nothing found": (REVERSE, {"email": "jane.doe@nowhere-known.com"}, 3),
}


@pytest.mark.parametrize("case", CALLS)
def test_each_route_bills_its_cost_and_says_so(api, case):
    path, params, cost = CALLS[case]
    reply = api.get(path, **params)
    assert reply.status_code == 200 and reply.json()["success"] is True, reply.text
    assert consumed(reply) == cost == spent(api.svc)
    assert float(reply.headers["X-Credits-Balance"]) == api.svc.balance
    assert api.svc.stats()["billed_calls"] == 1


def test_the_route_costs_listing_has_the_email_routes(api):
    listed = {r["route"]: r["credits_cost"] for r in api.data(ROUTE_COSTS_PATH)["routes"]}
    assert {path: listed.get(path) for path in PATH.values()} == {
        VERIFY: 2, FIND: 3, PROFILE_FIND: 5, REVERSE: 5, PROSPECTS: None,  # 1: not listed
        VERIFY_BATCH: 0, FIND_BATCH: 0, HEALTH: 0,
    }  # fmt: skip


def test_costs_are_the_knobs_and_the_partial_reverse_at_most_the_full(api):
    api.svc.configure(route_costs={**ROUTE_COSTS, VERIFY: 7, REVERSE: 2})
    assert consumed(api.get(VERIFY, email="x@globex.example")) == 7
    assert consumed(api.get(REVERSE, email="jane.doe@nowhere-known.com")) == 2
    assert spent(api.svc) == 9


BAD = {  # a refused request: the field the 400 names
    "verify, no email": (VERIFY, {}, "email"),
    "verify, blank email": (VERIFY, {"email": "  "}, "email"),
    "find, no first name": (FIND, {**ALAN, "first_name": ""}, "first_name"),
    "find, no last name": (FIND, {"first_name": "Alan", "domain": "globex.example"}, "last_name"),
    "find, no domain": (FIND, {"first_name": "Alan", "last_name": "Turing"}, "domain"),
    "find, a URL": (FIND, {**ALAN, "domain": "https://globex.example"}, "domain"),
    "find, an address": (FIND, {**ALAN, "domain": "alan@globex.example"}, "domain"),
    "find, no dot": (FIND, {**ALAN, "domain": "globex"}, "domain"),
    "find by profile, no url": (PROFILE_FIND, {"url": " "}, "url"),
    "find by profile, another page": (PROFILE_FIND, {"url": "https://x.com/company/a"}, "url"),
    "reverse, no email": (REVERSE, {}, "email"),
    "prospects, no domain": (PROSPECTS, {"kind": "full"}, "domain"),
    "prospects, no kind": (PROSPECTS, {"domain": "acme.example"}, "kind"),
    "prospects, another kind": (PROSPECTS, {"domain": "acme.example", "kind": "all"}, "kind"),
    "prospects, a bad cursor": (PROSPECTS, {"domain": "acme.example", "kind": "full",
                                            "cursor": "abc"}, "cursor"),
}  # fmt: skip


@pytest.mark.parametrize("case", BAD)
def test_a_bad_request_is_a_free_400_naming_the_field(api, case):
    path, params, field = BAD[case]
    body = assert_free(api.get(path, **params), api.svc, 400)
    assert body["error_code"] == "VALIDATION_ERROR" and field in body["errors"]


# -- verify ------------------------------------------------------------------------------------


def _no_mx_domain() -> str:
    return next(d for i in range(500) if mailboxes.verify(f"a@{(d := f'd{i}.com')}")["reason"]
                == "no_mx")  # fmt: skip


VERDICTS = {  # address -> (reason, deliverable, catch_all)
    "alan.turing@globex.example": ("mailbox_accepts", True, False),
    "ALAN.Turing@Globex.Example": ("mailbox_accepts", True, False),
    "aturing@globex.example": ("mailbox_rejected", False, False),  # not first.last
    f"anyone@{CATCH_ALL}": ("catch_all", False, True),
    "two@@globex.example": ("invalid_syntax", False, False),
    "x@mailinator.com": ("disposable", False, False),
    "x@privaterelay.appleid.com": ("relay", False, False),
}


@pytest.mark.parametrize("email", VERDICTS)
def test_verify_gives_the_verdict_of_the_data_rules(api, email):
    verdict = api.data(VERIFY, email=email)
    assert verdict["email"] == email
    assert (verdict["reason"], verdict["deliverable"], verdict["catch_all"]) == VERDICTS[email]
    assert isinstance(verdict["mx_hosts"], list)
    assert bool(verdict["mx_hosts"]) == (verdict["reason"] != "invalid_syntax")


def test_a_domain_without_mail_is_no_mx_and_has_no_hosts(api):
    verdict = api.data(VERIFY, email="jane@" + _no_mx_domain())
    assert (verdict["reason"], verdict["deliverable"], verdict["mx_hosts"]) == ("no_mx", False, [])


# -- find --------------------------------------------------------------------------------------


def test_find_gives_the_domains_pattern_address(api):
    assert api.data(FIND, **ALAN) == {"email": "alan.turing@globex.example", "found": True,
                                      "catch_all": False, "confidence": "high"}  # fmt: skip
    found = api.data(FIND, first_name=" Zoë ", last_name="Grant-Smith", domain="Initrode.com")
    assert found["found"] is True and found["confidence"] == "low"  # not a company's domain
    assert found["email"] == "zoe.grantsmith@initrode.com"


def test_find_misses_unfindable_people_and_catch_all_domains_billed(api):
    assert api.data(FIND, **ADA_AT_ACME) == {"email": "", "found": False, "catch_all": False,
                                             "confidence": "low"}  # fmt: skip
    at_catch_all = api.data(FIND, first_name="Alan", last_name="Turing", domain=CATCH_ALL)
    assert (at_catch_all["found"], at_catch_all["email"], at_catch_all["catch_all"]) == (
        False, "", True)  # fmt: skip
    assert spent(api.svc) == 6


def test_find_by_profile_resolves_the_person_and_their_company(api):
    by_url = api.data(PROFILE_FIND, url="https://www.linkedin.com/in/Ada/?trk=x")
    assert api.data(PROFILE_FIND, url="ada") == by_url
    assert by_url == {
        "email": "gperlman@acme.example", "found": True, "catch_all": False,
        "confidence": "high", "first_name": "Guido", "last_name": "Perlman",
        "domain": "acme.example", "company": "Acme", "url": "https://www.example.com/in/ada",
    }  # fmt: skip
    unknown = api.data(PROFILE_FIND, url="unknown-zed")
    assert (unknown["found"], unknown["email"], unknown["domain"]) == (False, "", "")


# -- reverse -----------------------------------------------------------------------------------

UNSUPPORTED = {
    "jane@gmail.com": "public_provider",
    "jane@Outlook.com": "public_provider",
    "info@globex.example": "role_account",
    "noreply@globex.example": "role_account",
    "jane@mailinator.com": "disposable",
    "jane@privaterelay.appleid.com": "relay",
    "not-an-address": "invalid",
}


@pytest.mark.parametrize("email", UNSUPPORTED)
def test_an_unsupported_address_is_a_free_422_saying_why(api, email):
    body = assert_free(api.get(REVERSE, email=email), api.svc, 422)
    assert body["success"] is False and body["errors"] == {"email": UNSUPPORTED[email]}


def test_reverse_an_address_no_employee_has_gives_the_company_billed_in_full(api):
    reply = api.get(REVERSE, email="nobody.here@globex.example")
    answer = reply.json()["data"]
    assert (answer["found"], answer["confidence"], answer["person"]) == (True, "medium", None)
    company = answer["current_company"]
    assert (company["slug"], company["website"], company["staff_count"]) == (
        "globex", "https://www.globex.example", 50)  # fmt: skip
    assert "specialities" in company
    assert consumed(reply) == 5


def test_reverse_nothing_found_costs_three(api):
    reply = api.get(REVERSE, email="jane.doe@nowhere-known.com")
    assert reply.json()["data"] == {"email": "jane.doe@nowhere-known.com", "found": False,
                                    "confidence": "none", "person": None,
                                    "current_company": None}  # fmt: skip
    assert consumed(reply) == 3 and spent(api.svc) == 3


def _employees(api, slug: str) -> list[dict]:
    return api.walk("/api/data/v1/companies/employees", slug=slug)


def test_find_verify_reverse_round_trip_for_the_emulators_employees(api):
    domain = mailboxes.domain_of("globex")
    checked = 0
    for person in _employees(api, "globex")[:25]:
        first, last = person["first_name"], person["last_name"]
        found = api.data(FIND, first_name=first, last_name=last, domain=domain)
        if not found["found"]:
            continue  # one with no findable address
        assert api.data(VERIFY, email=found["email"])["reason"] == "mailbox_accepts"
        back = api.data(REVERSE, email=found["email"])
        assert (back["found"], back["confidence"]) == (True, "high")
        assert back["person"]["full_name"] == f"{first} {last}"
        assert back["current_company"]["slug"] == "globex"
        handle = normalise_handle(back["person"]["profile_url"])  # enrich_profiles reads it
        if handle == person["handle"]:  # not a namesake listed earlier
            assert api.data(PROFILE_PATH, handle=handle)["first_name"] == first
            checked += 1
    assert checked >= 10


# -- opt-outs ----------------------------------------------------------------------------------


def test_opted_out_people_and_addresses_are_a_free_403_on_find_and_reverse(api):
    alan = mailboxes.owner("alan.turing@globex.example")
    assert alan is not None
    for opted_out in ({alan["handle"]}, {alan["id"]}, {"alan.turing@globex.example"}):
        api.svc.configure(opted_out=opted_out)
        for path, params in ((FIND, ALAN), (REVERSE, {"email": "alan.turing@globex.example"}),
                             (PROFILE_FIND, {"url": alan["handle"]})):  # fmt: skip
            body = assert_free(api.get(path, **params), api.svc, 403)
            assert "error_code" not in body and "opted out" in body["message"]
    api.svc.configure(opted_out={"grace"})  # someone else: answered
    assert api.data(FIND, **ALAN)["found"] is True


# -- prospects ---------------------------------------------------------------------------------


def _pages(api, domain: str, kind: str) -> list[requests.Response]:
    replies, params = [], {"domain": domain, "kind": kind}
    for _ in range(100):
        reply = api.get(PROSPECTS, **params)
        assert reply.status_code == 200, reply.text
        replies.append(reply)
        cursor = reply.json()["data"]["next_cursor"]
        if not cursor:
            return replies
        params["cursor"] = cursor
    raise AssertionError("the prospects never ended")


@pytest.mark.parametrize(("kind", "price"), [("full", 1), ("verified_only", 2)])
def test_prospects_page_to_the_end_billed_per_address(api, kind, price):
    pages = _pages(api, "acme.example", kind)
    everyone = [p for r in pages for p in r.json()["data"]["prospects"]]
    assert len(pages) > 2 and all(r.json()["data"]["count"] <= 20 for r in pages)
    assert [r.json()["data"]["count"] for r in pages[:-1]] == [20] * (len(pages) - 1)
    assert [consumed(r) for r in pages] == [r.json()["data"]["count"] * price for r in pages]
    assert spent(api.svc) == len(everyone) * price
    assert len({p["email"] for p in everyone}) == len(everyone)
    assert all(p["email"].endswith("@acme.example") and p["first_name"] for p in everyone)
    verdicts = {api.data(VERIFY, email=p["email"])["deliverable"] for p in everyone[:5]}
    assert verdicts == {True}


def test_an_empty_prospects_page_is_free_but_says_so(api):
    for domain, kind in (("nowhere-known.com", "full"), (CATCH_ALL, "verified_only")):
        reply = api.get(PROSPECTS, domain=domain, kind=kind)
        data = reply.json()["data"]
        assert (data["count"], data["prospects"], data["next_cursor"]) == (0, [], "")
        assert consumed(reply) == 0
    assert spent(api.svc) == 0


def test_a_prospects_page_the_balance_cannot_cover_is_a_402(api):
    api.svc.configure(balance=19)
    reply = api.get(PROSPECTS, domain="acme.example", kind="full")
    assert reply.status_code == 402 and reply.json()["error_code"] == "1080"
    assert api.svc.balance == 19 and "X-Credits-Consumed" not in reply.headers


# -- free repeats, and a service without the Email API ---------------------------------------


def test_free_repeats_cover_the_email_routes(api):
    api.svc.configure(free_repeat_seconds=60)
    for path, params in ((VERIFY, {"email": "a@b.com"}), (FIND, ALAN),
                         (PROSPECTS, {"domain": "acme.example", "kind": "full"})):  # fmt: skip
        first, again = api.get(path, **params), api.get(path, **params)
        assert consumed(first) > 0 and consumed(again) == 0 and again.json() == first.json()
    assert spent(api.svc) == 2 + 3 + 20


def test_without_the_email_api_every_path_is_a_404(api):
    api.svc.configure(emails=False)
    for path in PATH.values():
        reply = api.get(path, email="a@b.com") if path != HEALTH else requests.get(
            api.svc.base_url + path, timeout=10)  # fmt: skip
        body = assert_free(reply, api.svc, 404)
        assert body["message"] == f"No endpoint at {path}"
    assert api.post(VERIFY_BATCH, {"emails": ["a@b.com"]}).status_code == 404
    listed = {r["route"] for r in api.data(ROUTE_COSTS_PATH)["routes"]}
    assert not listed & set(PATH.values()) and "/api/data/v1/companies/company" in listed


# -- batch jobs --------------------------------------------------------------------------------


def _poll(api, path: str, job_id: str, after: int = 0) -> dict:
    return api.data(path, job_id=job_id, after=after)


def test_a_verify_batch_bills_each_distinct_address_a_verify(api):
    api.svc.configure(batch_resolve_rate=0)
    emails = ["alan.turing@globex.example", " ", "x@mailinator.com", "alan.turing@globex.example"]
    reply = api.post(VERIFY_BATCH, {"emails": emails})
    assert reply.status_code == 202 and "X-Credits-Consumed" not in reply.headers
    job = _poll(api, VERIFY_BATCH, reply.json()["data"]["job_id"])
    assert {k: job[k] for k in ("status", "error", "total", "resolved", "errors", "next_cursor")} \
        == {"status": "completed", "error": None, "total": 2, "resolved": 2, "errors": 0,
            "next_cursor": 2}  # fmt: skip
    assert job["results"] == {
        "alan.turing@globex.example": {"email": "alan.turing@globex.example",
                                       "deliverable": True, "reason": "mailbox_accepts",
                                       "catch_all": False},
        "x@mailinator.com": {"email": "x@mailinator.com", "deliverable": False,
                             "reason": "disposable", "catch_all": False},
    }  # fmt: skip
    assert spent(api.svc) == 4 and api.svc.stats()["billed_batch_items"] == 2


def test_a_find_batch_lists_its_queries_and_an_opted_out_one_in_errors(api):
    alan = mailboxes.owner("alan.turing@globex.example")
    api.svc.configure(batch_resolve_rate=0, opted_out={alan["handle"]})
    queries = [
        ADA_AT_ACME,
        ALAN,
        {"first_name": "Grace", "last_name": "Hopper", "domain": "globex.example"},
        {"first_name": "No", "last_name": "Domain"},
        ALAN,
    ]
    job_id = api.post(FIND_BATCH, {"queries": queries}).json()["data"]["job_id"]
    job = _poll(api, FIND_BATCH, job_id)
    assert (job["status"], job["total"], job["resolved"], job["errors"]) == ("completed", 3, 2, 1)
    assert job["results"] == [
        {"query": ADA_AT_ACME, "found": False, "email": ""},
        {"query": {"first_name": "Grace", "last_name": "Hopper", "domain": "globex.example"},
         "found": True, "email": "grace.hopper@globex.example"},
    ]  # fmt: skip
    assert spent(api.svc) == 2 * 3  # found or not; the opted-out query not billed


def test_batch_results_page_by_an_integer_offset(api):
    api.svc.configure(batch_resolve_rate=0, batch_page_size=2)
    emails = [f"p{i}@globex.example" for i in range(5)]
    job_id = api.post(VERIFY_BATCH, {"emails": emails}).json()["data"]["job_id"]
    seen, after = {}, 0
    while True:
        page = _poll(api, VERIFY_BATCH, job_id, after)
        seen.update(page["results"])
        if page["next_cursor"] == after:
            break
        after = page["next_cursor"]
    assert list(seen) == emails and spent(api.svc) == 10


BAD_SUBMITS = {
    "no emails": (VERIFY_BATCH, {"emails": []}, "emails"),
    "only blanks": (VERIFY_BATCH, {"emails": [" ", ""]}, "emails"),
    "not a list": (VERIFY_BATCH, {"emails": "a@b.com"}, "emails"),
    "too many": (VERIFY_BATCH, {"emails": [f"a{i}@b.com" for i in range(1001)]}, "emails"),
    "only incomplete queries": (FIND_BATCH, {"queries": [{"first_name": "A"}]}, "queries"),
}


@pytest.mark.parametrize("case", BAD_SUBMITS)
def test_a_bad_submit_is_a_free_400(api, case):
    path, body, field = BAD_SUBMITS[case]
    assert field in assert_free(api.post(path, body), api.svc, 400)["errors"]
    assert api.svc.batch_jobs == {}


def test_the_submit_pre_checks_the_whole_job(api):
    api.svc.configure(balance=5)  # two verifies are 4, three 6
    reply = api.post(VERIFY_BATCH, {"emails": ["a@b.com", "c@d.com", "e@f.com"]})
    assert reply.status_code == 402 and reply.json()["error_code"] == "1080"
    assert api.svc.batch_jobs == {} and api.svc.balance == 5
    assert api.post(VERIFY_BATCH, {"emails": ["a@b.com", "c@d.com"]}).status_code == 202


def test_a_job_the_balance_runs_out_in_stops_in_error_keeping_what_resolved(api):
    api.svc.configure(batch_resolve_rate=0.001)  # nothing resolves until the balance drops
    emails = ["a@b.com", "c@d.com", "e@f.com"]
    job_id = api.post(VERIFY_BATCH, {"emails": emails}).json()["data"]["job_id"]
    api.svc.configure(balance=4, batch_resolve_rate=0)  # two verifies' worth
    job = _poll(api, VERIFY_BATCH, job_id)
    assert (job["status"], job["resolved"], job["next_cursor"]) == ("error", 2, 2)
    assert job["error"] and list(job["results"]) == emails[:2]
    assert api.svc.balance == 0


def test_a_job_is_tracked_on_its_own_path_only(api):
    api.svc.configure(batch_resolve_rate=0)
    verify_job = api.post(VERIFY_BATCH, {"emails": ["a@b.com"]}).json()["data"]["job_id"]
    find_job = api.post(FIND_BATCH, {"queries": [ALAN]}).json()["data"]["job_id"]
    for path, job_id in ((FIND_BATCH, verify_job), (VERIFY_BATCH, find_job),
                         (VERIFY_BATCH, "job_unknown"),
                         ("/api/data/v1/people/batch/enrich", verify_job)):  # fmt: skip
        body = api.get(path, job_id=job_id, after=0).json()
        assert (body["success"], body["error_code"]) == (False, "1090"), path
    assert api.get(VERIFY_BATCH, job_id=verify_job, after=0).status_code == 200
