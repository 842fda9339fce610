"""People moving between companies while the emulator runs: the records and events moves make.

Example::

    world, record = Moves().moved("ada", to="globex", title="CTO", on=dt.date(2026, 11, 27))
    record["headline"]                               # "CTO at Globex"
    [e["event_type"] for e in world.events]          # ["left", "joined"]
    world.current(data.person("ada"))["headline"]    # "CTO at Globex": what every route shows

A move ends the person's current position (its ``end_date`` the month of the move), puts a new
current position at the company moved to first (starting that month, with the title given or
the old one), and the headline follows. The feed gains a ``left`` event at the old company and
a ``joined`` event at the new one, dated the day of the move; a move within one company under a
new title is one ``title_change`` event. :class:`Moves` is immutable: the emulator's state holds
the latest (:meth:`~lookup_pandas.testing.state.ServiceState.move`), and a route reads the one it
finds, whole. :func:`pick_move` draws a random move within the population, for ``serve
--move-rate``.
"""

from __future__ import annotations

import copy
import datetime as dt
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from . import catalog, data
from .company_records import company
from .people import organization

__all__ = ["MOVABLE", "Move", "Moves", "pick_move"]


@dataclass(frozen=True)
class Move:
    """One move: whose, from which company (None: between jobs) to which, under which titles
    (``previous_title`` None: no title before), on which day, and its place in the order."""

    handle: str
    origin: str | None
    to: str
    title: str
    previous_title: str | None
    on: dt.date
    seq: int


def _month(day: dt.date) -> dict[str, int]:
    return {"year": day.year, "month": day.month}


def _current(record: Mapping[str, Any]) -> dict[str, Any] | None:
    positions = record.get("positions") or []
    return positions[0] if positions and positions[0].get("is_current") else None


@dataclass(frozen=True)
class Moves:
    """The moves made so far: each mover's record now (``records``, by lower-case handle),
    every move in order (``made``), and the feed events they added (``events``)."""

    records: Mapping[str, dict[str, Any]] = field(default_factory=lambda: MappingProxyType({}))
    made: tuple[Move, ...] = ()
    events: tuple[dict[str, Any], ...] = ()

    def current(self, record: dict[str, Any] | None) -> dict[str, Any] | None:
        """``record`` as it is now: the mover's record if that person moved (shared: read it,
        never change it), else ``record`` itself."""
        if record is None or not self.records:
            return record
        now: dict[str, Any] = self.records.get(str(record.get("handle")), record)
        return now

    def joined(self, slug: str) -> frozenset[str]:
        """The handles of the people who moved to company ``slug``."""
        return frozenset(m.handle for m in self.made if m.to == slug)

    def moved(
        self, handle: str, *, to: str, title: str | None = None, on: dt.date
    ) -> tuple[Moves, dict[str, Any]]:
        """These moves and one more: ``handle`` moves to company ``to`` on ``on``. Returns the
        new :class:`Moves` and the person's new record (shared: read it, never change it).

        ``title``: the new position's (default: the title of the person's latest position). A
        ValueError for a person or company that does not exist, a person with no position to
        take a title from and none given, or a "move" to the position the person holds.
        """
        key = handle.strip().lower()
        before = self.records.get(key) or data.person(key)
        if before is None:
            raise ValueError(f"no person has the handle {handle!r}")
        slug = to.strip().lower()
        if company(slug) is None:
            raise ValueError(f"no company has the slug {to!r}")
        now = _current(before)
        positions = before.get("positions") or []
        previous = positions[0]["title"] if positions else None
        new_title = title or previous
        if new_title is None:
            raise ValueError(f"{key} holds no position to take a title from: pass title=")
        origin = now["organization"]["slug"] if now is not None else None
        if origin == slug and new_title == previous:
            raise ValueError(f"{key} already works at {slug} as {new_title}")
        move = Move(key, origin, slug, new_title, previous, on, len(self.made))
        after = _after(before, move)
        return (
            Moves(
                MappingProxyType({**self.records, key: after}),
                (*self.made, move),
                (*self.events, *_events(after, move)),
            ),
            after,
        )


def _after(record: dict[str, Any], move: Move) -> dict[str, Any]:
    """``record`` once ``move`` is made (a new record; ``record`` is untouched)."""
    out = copy.deepcopy(record)
    positions = out.setdefault("positions", [])
    now = _current(out)
    if now is not None:
        now["end_date"], now["is_current"] = _month(move.on), False
    org = organization(move.to)
    positions.insert(0, {"title": move.title, "organization": org, "start_date": _month(move.on),
                         "end_date": None, "is_current": True})  # fmt: skip
    out["headline"] = f"{move.title} at {org['name']}"
    if isinstance(out.get("localized_headline"), dict):
        out["localized_headline"] = dict.fromkeys(out["localized_headline"], out["headline"])
    return out


def _events(after: dict[str, Any], move: Move) -> list[dict[str, Any]]:
    """The feed events of ``move``, whose person's record is now ``after``."""
    key = ("move", str(move.seq))
    joined = after["positions"][0]
    if move.origin == move.to:
        return [catalog.event(after, "title_change", joined, move.on,
                              previous_title=move.previous_title, key=key)]  # fmt: skip
    out = [catalog.event(after, "joined", joined, move.on, key=key)]
    if move.origin is not None:
        out.append(catalog.event(after, "left", after["positions"][1], move.on, key=key))
    return out


#: Who may move at random: the search population (``person-NNNNN``) and the current employees of
#: the companies people's positions name (``<slug>-employee-NNNNN``), as (handle pattern, how
#: many) per group; they move among those companies.
MOVABLE: tuple[tuple[str, int], ...] = (
    ("person-{:05d}", data.SEARCH_POPULATION),
    *((slug + "-employee-{:05d}", data.head_count(slug)) for slug in data.ORGANIZATIONS),
)


def _movable(index: int) -> str:
    """The ``index``-th handle of :data:`MOVABLE`, counting group after group."""
    for pattern, n in MOVABLE:
        if index < n:
            return pattern.format(index)
        index -= n
    raise IndexError(index)


def pick_move(rng: random.Random, moves: Moves, tries: int = 100) -> tuple[str, str]:
    """A random move within the population: (a handle of :data:`MOVABLE` who holds a current
    position now, a company of ``data.ORGANIZATIONS`` other than theirs). A ValueError when
    ``tries`` draws find nobody (never, in the emulator's population).

    >>> pick_move(random.Random(0), Moves())
    ('globex-employee-00018', 'cyberdyne')
    """
    total = sum(n for _, n in MOVABLE)
    for _ in range(tries):
        handle = _movable(rng.randrange(total))
        now = _current(moves.current(data.person(handle)) or {})
        if now is None:
            continue
        here = now["organization"]["slug"]
        return handle, rng.choice([s for s in data.ORGANIZATIONS if s != here])
    raise ValueError(f"no one to move in {tries} draws")
