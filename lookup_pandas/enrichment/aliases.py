"""One record, one price within a run: the names are bought first, then only the ids their
records did not carry.

A column may name one person by handle and by ``prsn_`` id (a company by slug and ``org_`` id).
Across runs the cache's aliases answer the other name (:mod:`lookup_pandas.cache.aliases`);
within one run, and without a cache, the records this run was answered already do.

>>> from lookup_pandas.identifiers.kinds import PEOPLE
>>> later = HeldIds.of(["prsn_1", "ada", "prsn_2", "grace"], PEOPLE)
>>> later.names, later.ids
(['ada', 'grace'], ['prsn_1', 'prsn_2'])
>>> later.note("ada", Outcome("ok", {"id": "prsn_1", "handle": "ada"}))
>>> {held: (name, outcome.status) for held, (name, outcome) in later.named().items()}
{'prsn_1': ('ada', 'ok')}
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..identifiers.kinds import Kind
from .results import OK, Outcome

__all__ = ["HeldIds"]


@dataclass
class HeldIds:
    """The ids of a run held back until its names are answered, and the answers naming them.

    Only the answers that name a held id are kept (their records), until the ids are taken.
    """

    kind: Kind
    names: list[str]
    ids: list[str]
    _held: frozenset[str] = frozenset()
    _named: dict[str, tuple[str, Outcome]] = field(default_factory=dict)

    @classmethod
    def of(cls, values: Iterable[str], kind: Kind) -> HeldIds:
        """``values`` parted into names and ids, each in their order (see the module)."""
        names: list[str] = []
        ids: list[str] = []
        for value in values:
            (ids if kind.is_id(value) else names).append(value)
        return cls(kind, names, ids, frozenset(ids) if names else frozenset())

    def phases(self) -> list[list[str]]:
        """What is bought in turn: the names, then the ids (one phase when either is none).

        >>> from lookup_pandas.identifiers.kinds import COMPANIES
        >>> HeldIds.of(["org_1", "acme"], COMPANIES).phases()
        [['acme'], ['org_1']]
        >>> HeldIds.of(["acme", "globex"], COMPANIES).phases()  # no id: one phase
        [['acme', 'globex']]
        """
        return [self.names, self.ids] if self.names and self.ids else [self.names + self.ids]

    def note(self, value: str, outcome: Outcome) -> None:
        """Keep ``value``'s answer if its record names a held id other than ``value``."""
        if not self._held or outcome.status != OK or outcome.record is None:
            return
        for name in self.kind.names(outcome.record):
            if name in self._held and name != value:
                self._named.setdefault(name, (value, outcome))

    def named(self) -> dict[str, tuple[str, Outcome]]:
        """Each held id a record answered names, with that answer's value and outcome; then
        forgotten."""
        named, self._named, self._held = self._named, {}, frozenset()
        return named
