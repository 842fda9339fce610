"""lookup_pandas.testing.moves: the record a move makes, the events it adds, and random moves
within the population; no server."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from lookup_pandas.testing import company_records as companies
from lookup_pandas.testing import data
from lookup_pandas.testing.moves import MOVABLE, Moves, pick_move

ON = dt.date(2026, 11, 27)
MONTH = {"year": 2026, "month": 11}


def test_a_move_ends_the_old_position_and_puts_the_new_one_first():
    before = data.person("ada")
    world, after = Moves().moved("Ada", to="globex", title="CTO", on=ON)
    first, second = after["positions"][:2]
    assert first == {
        "title": "CTO",
        "organization": {**{k: companies.company("globex")[k] for k in ("id", "name", "slug")},
                         "url": companies.company("globex")["url"]},
        "start_date": MONTH,
        "end_date": None,
        "is_current": True,
    }  # fmt: skip
    assert second == {**before["positions"][0], "end_date": MONTH, "is_current": False}
    assert after["positions"][2:] == before["positions"][1:]
    assert after["headline"] == "CTO at Globex"
    assert set(after["localized_headline"].values()) == {"CTO at Globex"}
    assert data.person("ada") == before, "the emulator's own records are untouched"
    assert world.current(data.person("ada")) is after
    assert world.current(data.person("grace"))["headline"] == data.person("grace")["headline"]
    assert world.joined("globex") == {"ada"} and world.joined("acme") == frozenset()


def test_a_move_adds_a_left_and_a_joined_event_on_its_day():
    world, after = Moves().moved("ada", to="globex", on=ON)
    assert after["headline"] == data.person("ada")["positions"][0]["title"] + " at Globex"
    joined, left = world.events
    assert (joined["event_type"], left["event_type"]) == ("joined", "left")
    assert joined["detected_at"] == left["detected_at"] == "2026-11-27"
    assert joined["organization"]["slug"] == "globex" and left["organization"]["slug"] == "acme"
    for event in world.events:
        assert event["person"]["id"] == data.person("ada")["id"]
        assert event["person"]["handle"] == "ada"
        assert set(event["organization"]) == {"id", "name", "slug"}
    again, _ = world.moved("ada", to="acme", on=ON)
    back, _ = again.moved("ada", to="globex", on=ON)
    ids = [e["id"] for e in back.events]
    assert len(back.events) == 6 and len(set(ids)) == 6, "each event its own id"
    assert [m.origin for m in back.made] == ["acme", "globex", "acme"]


def test_a_new_title_within_the_company_is_a_title_change():
    world, after = Moves().moved("ada", to="acme", title="CTO", on=ON)
    (event,) = world.events
    assert event["event_type"] == "title_change" and event["title"] == "CTO"
    assert event["previous_title"] == data.person("ada")["positions"][0]["title"]
    assert after["headline"] == "CTO at Acme"


def test_what_cannot_move():
    with pytest.raises(ValueError, match="no person"):
        Moves().moved("unknown-bob", to="acme", on=ON)
    with pytest.raises(ValueError, match="no company"):
        Moves().moved("ada", to="no-such-co", on=ON)
    with pytest.raises(ValueError, match="already works at acme"):
        Moves().moved("ada", to="acme", on=ON)
    sparse = "person-00009"  # no positions at all
    assert data.is_sparse_person(sparse)
    with pytest.raises(ValueError, match="title="):
        Moves().moved(sparse, to="acme", on=ON)
    world, after = Moves().moved(sparse, to="acme", title="Designer", on=ON)
    assert [e["event_type"] for e in world.events] == ["joined"], "no position to leave"
    assert after["positions"][0]["organization"]["slug"] == "acme"


def test_random_moves_stay_within_the_population():
    rng, world = random.Random(7), Moves()
    for _ in range(40):
        handle, to = pick_move(rng, world)
        group = handle.rsplit("-", 1)[0]
        assert any(pattern.rsplit("-", 1)[0] == group for pattern, _ in MOVABLE), handle
        assert to in data.ORGANIZATIONS
        before = world.current(data.person(handle))["positions"][0]["organization"]["slug"]
        assert to != before
        world, _ = world.moved(handle, to=to, on=ON)
    assert pick_move(random.Random(3), Moves()) == pick_move(random.Random(3), Moves())
