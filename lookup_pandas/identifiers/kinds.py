"""The kinds of record the enrichment engine buys by value: people and companies.

>>> PEOPLE.params("prsn_1a2b"), COMPANIES.params("acme")
({'id': 'prsn_1a2b'}, {'slug': 'acme'})
>>> COMPANIES.normalise("https://www.linkedin.com/company/Acme/"), COMPANIES.invalid_error("")
('acme', 'invalid company: empty')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..frames.records import COMPANY_FIELDS, PERSON_FIELDS
from ..service.endpoints import ENDPOINTS, Endpoint
from .companies import COMPANY_RULES
from .handles import PERSON_RULES, Rules, cleaned, invalid_reason, normalise_handle

__all__ = ["BY_PATH", "COMPANIES", "PEOPLE", "Kind"]


@dataclass(frozen=True)
class Kind:
    """One kind of record bought by value: its endpoint, its rules, its columns and its words.

    >>> PEOPLE.endpoint.path, PEOPLE.desc, list(COMPANIES.fields)[:3]
    ('/api/data/v1/people/profile', 'profiles', ['id', 'slug', 'name'])
    """

    endpoint: Endpoint
    rules: Rules
    fields: Mapping[str, str]  # the columns every result has (PERSON_FIELDS...)
    desc: str  # the progress bar's label: "profiles"
    #: The message of a not-found made from a batch result (a single call's words).
    not_found_message: str

    @property
    def noun(self) -> str:
        """How one value is named in messages.

        >>> PEOPLE.noun, COMPANIES.noun
        ('handle', 'company')
        """
        return self.rules.noun

    @property
    def nouns(self) -> str:
        """The plural of :attr:`noun`.

        >>> PEOPLE.nouns, COMPANIES.nouns
        ('handles', 'companies')
        """
        return f"{self.noun[:-1]}ies" if self.noun.endswith("y") else f"{self.noun}s"

    @property
    def tag(self) -> str:
        """What the job store puts before this kind's batch inputs (none for people).

        >>> PEOPLE.tag, COMPANIES.tag
        ('', 'company:')
        """
        return "" if self.endpoint.kind == "person" else f"{self.endpoint.kind}:"

    def params(self, value: str) -> dict[str, str]:
        """The query of ``value``'s lookup.

        >>> PEOPLE.params("ada")
        {'handle': 'ada'}
        """
        return dict([self.endpoint.param_for(value)])

    def normalise(self, value: object, fold_case: bool = True) -> str | None:
        """The value to send for ``value``, or None when it is not one.

        >>> PEOPLE.normalise("@Ada"), PEOPLE.normalise("N/A")
        ('ada', None)
        """
        return normalise_handle(value, fold_case=fold_case, rules=self.rules)

    def invalid_error(self, value: Any, fold_case: bool = True) -> str:
        """The ``lookup_error`` of a row whose value is not one.

        >>> PEOPLE.invalid_error(" ")
        'invalid handle: empty'
        """
        return self._error(invalid_reason(value, fold_case=fold_case, rules=self.rules))

    def clean(self, value: object, fold_case: bool = True) -> tuple[str | None, str | None]:
        """``(the value to send, None)``, or ``(None, the row's lookup_error)``.

        >>> PEOPLE.clean("@Ada"), PEOPLE.clean("")
        (('ada', None), (None, 'invalid handle: empty'))
        """
        handle, reason = cleaned(value, fold_case=fold_case, rules=self.rules)
        return (handle, None) if handle is not None else (None, self._error(reason))

    def names(self, record: Mapping[str, Any]) -> tuple[str, ...]:
        """The values that name ``record`` in a lookup: its id and its handle (or slug), each as
        :meth:`normalise` gives it. A field that is missing or no valid value is left out.

        >>> PEOPLE.names({"id": "prsn_1a2b", "handle": "Ada"}), COMPANIES.names({"slug": "acme"})
        (('prsn_1a2b', 'ada'), ('acme',))
        """
        fields = ("id", self.endpoint.key or "")
        values = (self.normalise(record.get(name)) for name in fields if name)
        return tuple(dict.fromkeys(v for v in values if v is not None))

    def is_id(self, value: str) -> bool:
        """Whether ``value`` (as :meth:`normalise` gives it) is an opaque id, not a name.

        >>> PEOPLE.is_id("prsn_1a2b"), PEOPLE.is_id("ada"), COMPANIES.is_id("org_9")
        (True, False, True)
        """
        return value.startswith(self.rules.ids)

    def _error(self, reason: str | None) -> str:
        return f"invalid {self.noun}: {reason}"


PEOPLE = Kind(ENDPOINTS["profile"], PERSON_RULES, PERSON_FIELDS, "profiles", "Profile not found")
COMPANIES = Kind(
    ENDPOINTS["company"], COMPANY_RULES, COMPANY_FIELDS, "companies", "Company not found"
)
#: The kinds bought by value, by their endpoint's path.
BY_PATH: dict[str, Kind] = {kind.endpoint.path: kind for kind in (PEOPLE, COMPANIES)}
