"""A world that changes, over loopback: ``FakeService.move`` changes what every people route
answers, and the job-change feed lists each move among its background, billed page by page."""

from __future__ import annotations

import pytest

import lookup_pandas as lp
from lookup_pandas.service.endpoints import ENDPOINTS
from lookup_pandas.testing import catalog, data
from lookup_pandas.testing.names import org_id, person_id

JOB_CHANGES = ENDPOINTS["job_changes"].path
QUIET = {"progress": False}
P = "acme-employee-00007"  # one of acme's 137
Q = "person-00001"  # of the search population, a Principal Data Engineer at Initech


@pytest.fixture
def client(fake_service):
    """A client that caches nothing: every answer is the emulator's of the moment."""
    fake_service.configure(rate_burst=10_000, batch_resolve_rate=0)
    with lp.Client(api_key=fake_service.api_key, base_url=fake_service.base_url, cache=False,
                   batch_poll_interval=0.01) as made:  # fmt: skip
        yield made


def _month() -> dict[str, int]:
    today = catalog.today()
    return {"year": today.year, "month": today.month}


def test_people_work_at_the_companies_client_company_finds(client, fake_service):
    fake_service.move(Q, to="hooli", title="Chief Data Officer")
    for handle in ("ada", "grace", "linus", P, "person-00042", Q):
        current = client.profile(handle)["positions"][0]
        org = current["organization"]
        found = client.company(org["slug"])
        assert (found["id"], found["slug"], found["name"]) == (org["id"], org["slug"], org["name"])
        assert current["is_current"] and current["end_date"] is None
    assert client.profile(Q)["positions"][0]["organization"]["slug"] == "hooli"


def test_a_move_changes_the_profile_by_handle_and_by_id_and_in_batch_jobs(client, fake_service):
    before = client.profile(P)
    assert before["positions"][0]["organization"]["slug"] == "acme"
    moved = fake_service.move(P, to="globex")
    title = before["positions"][0]["title"]
    assert moved["headline"] == f"{title} at Globex"
    now = client.profile(P)
    assert now == moved == client.profile(person_id(P))
    assert [p["organization"]["slug"] for p in now["positions"][:2]] == ["globex", "acme"]
    assert now["positions"][0]["start_date"] == now["positions"][1]["end_date"] == _month()
    assert now["positions"][2:] == before["positions"][1:]
    frame = lp.get_profiles([P, "ada"], method="batch", client=client, **QUIET)
    assert fake_service.batch_jobs, "bought through a batch job"
    assert frame.set_index("handle").loc[P, "headline"] == f"{title} at Globex"


def test_a_move_changes_people_search(client, fake_service):
    at_initech = {"title": "data engineer", "organization_slugs": "initech", "current_only": True}
    assert Q in set(lp.search_people(client=client, **at_initech, **QUIET)["handle"])
    assert lp.search_people("chief data", client=client, **QUIET).empty
    fake_service.move(Q, to="hooli", title="Chief Data Officer")
    assert Q not in set(lp.search_people(client=client, **at_initech, **QUIET)["handle"])
    found = lp.search_people("chief data", client=client, **QUIET)
    assert found["handle"].tolist() == [Q]
    assert found["headline"].tolist() == ["Chief Data Officer at Hooli"]
    anywhere = lp.search_people("data engineer", organization_slugs="initech", client=client,
                                **QUIET)  # fmt: skip
    assert Q in set(anywhere["handle"]), "current_only=False: the position held before"


def test_a_move_changes_the_employees_of_both_companies(client, fake_service):
    def handles(slug: str, **filters) -> list[str]:
        frame = lp.company_employees(slug, client=client, **filters, **QUIET)
        return frame["handle"].tolist()

    acme, globex = handles("acme"), handles("globex")
    assert P in acme and len(acme) == 137 and len(globex) == 50
    fake_service.move(P, to="globex")
    assert P not in handles("acme") and len(handles("acme")) == 136
    assert handles("acme", current_only=False, sort="recently_left")[0] == P
    assert handles("globex") == sorted([*globex, P])
    assert handles("globex", sort="newest")[0] == P


def test_the_feed_lists_the_move_today_with_its_person_and_organisations(client, fake_service):
    fake_service.move(P, to="globex", title="Staff Recruiter")
    events = lp.job_changes(organization_ids=[org_id("acme"), org_id("globex")], days_ago=1,
                            client=client, **QUIET)  # fmt: skip
    mine = events[events["person.handle"] == P]
    assert sorted(zip(mine["event_type"], mine["organization.slug"], strict=True)) == [
        ("joined", "globex"), ("left", "acme"),
    ]  # fmt: skip
    assert set(mine["detected_at"]) == {catalog.today().isoformat()}
    assert set(mine["person.id"]) == {person_id(P)}
    assert set(mine["organization.id"]) == {org_id("acme"), org_id("globex")}
    assert set(mine["organization.name"]) == {"Acme", "Globex"}
    assert mine["id"].is_unique and mine["id"].str.startswith("jce_").all()
    assert mine.set_index("event_type").loc["joined", "title"] == "Staff Recruiter"
    others = events[events["person.handle"] != P]
    assert others["person.handle"].str.startswith(("bg-acme-", "bg-globex-")).all()
    only_hooli = lp.job_changes(organization_ids=[org_id("hooli")], days_ago=1, client=client,
                                **QUIET)  # fmt: skip
    assert P not in set(only_hooli["person.handle"])


def test_reset_forgets_the_moves(client, fake_service):
    fake_service.move(P, to="globex")
    fake_service.reset()
    assert client.profile(P) == data.person(P)
    events = lp.job_changes(organization_ids=[org_id("globex")], days_ago=1, client=client,
                            **QUIET)  # fmt: skip
    assert P not in set(events["person.handle"])


def test_a_move_that_cannot_be_made_changes_nothing(fake_service):
    with pytest.raises(ValueError, match="no company"):
        fake_service.move("ada", to="unknown-co")
    with pytest.raises(ValueError, match="no person"):
        fake_service.move("unknown-zed", to="acme")
    assert fake_service.state.world.made == ()
