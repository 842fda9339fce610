"""Unit tests for lookup_pandas.enrichment.aliases: ids held back until the names are answered."""

from __future__ import annotations

from lookup_pandas.enrichment.aliases import HeldIds
from lookup_pandas.enrichment.results import NOT_FOUND, OK, Outcome
from lookup_pandas.identifiers.kinds import COMPANIES, PEOPLE


def test_names_go_first_and_ids_after_each_in_their_order():
    held = HeldIds.of(["prsn_2", "bob", "prsn_1", "ada"], PEOPLE)
    assert held.phases() == [["bob", "ada"], ["prsn_2", "prsn_1"]]


def test_one_phase_when_the_values_are_all_names_or_all_ids():
    assert HeldIds.of(["org_1", "org_2"], COMPANIES).phases() == [["org_1", "org_2"]]
    held = HeldIds.of(["acme"], COMPANIES)
    held.note("acme", Outcome(OK, {"id": "org_1", "slug": "acme"}))
    assert held.named() == {}  # nothing is held, so nothing is kept


def test_only_the_answers_naming_a_held_id_are_kept_then_let_go():
    held = HeldIds.of(["ada", "bob", "gone", "prsn_1", "prsn_9"], PEOPLE)
    ada = Outcome(OK, {"id": "prsn_1", "handle": "ada"})
    held.note("ada", ada)
    held.note("bob", Outcome(OK, {"id": "prsn_2", "handle": "bob"}))  # names no held id
    held.note("gone", Outcome(NOT_FOUND, error="Profile not found"))
    assert held.named() == {"prsn_1": ("ada", ada)}
    assert held.named() == {}  # taken once


def test_the_first_answer_naming_an_id_is_the_one_kept():
    held = HeldIds.of(["ada", "ada-old", "prsn_1"], PEOPLE)
    first = Outcome(OK, {"id": "prsn_1", "handle": "ada"})
    held.note("ada", first)
    held.note("ada-old", Outcome(OK, {"id": "prsn_1", "handle": "ada"}))
    assert held.named() == {"prsn_1": ("ada", first)}
