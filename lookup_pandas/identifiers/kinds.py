"""The kinds of record the enrichment engine buys by value: people and companies.

A :class:`Kind` is everything the engine needs of one: its endpoint (the route, the parameter
each value is sent as, the code of a billed not-found, the batch twin and the key of its
results), how a value is normalised, the columns of its records, and its words. The engine
(plan, run, estimate, refresh), the adapters and the CLI read it and name no kind: adding one is
its declaration, its normaliser and the service's route
(``tests/integration/enrichment/test_kinds.py`` adds skills by id, which cost 0).

>>> PEOPLE.params("prsn_1a2b"), COMPANIES.params("acme")
({'id': 'prsn_1a2b'}, {'slug': 'acme'})
>>> COMPANIES.normalise("https://www.linkedin.com/company/Acme/"), COMPANIES.invalid_error("")
('acme', 'invalid company: empty')

The Email API's lookups are kinds too (issue 41): an address verified (VERIFY), reversed to its
person and company (REVERSE), and a work email found by name and domain (FIND: a row's three
columns are one value) or by profile (FIND_BY_PROFILE).

>>> FIND.params(FIND.normalise(("Jane", "Doe", "www.acme.com")))
{'first_name': 'jane', 'last_name': 'doe', 'domain': 'acme.com'}
>>> VERIFY.invalid_error("jane.acme.com"), REVERSE.nouns
('invalid address: no @', 'addresses')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

from ..frames.records import (
    COMPANY_FIELDS,
    FIND_FIELDS,
    FIND_PROFILE_FIELDS,
    PERSON_FIELDS,
    REVERSE_FIELDS,
    VERIFY_FIELDS,
)
from ..service.endpoints import ENDPOINTS, Endpoint
from . import emails
from .companies import COMPANY_RULES
from .handles import PERSON_RULES, cleaned, refused

__all__ = [
    "BY_PATH",
    "COMPANIES",
    "FIND",
    "FIND_BY_PROFILE",
    "PEOPLE",
    "REVERSE",
    "VERIFY",
    "Kind",
    "Normaliser",
]


class Normaliser(Protocol):
    """How one kind's values are read: ``(the value to send, None)``, else ``(None, why not)``.

    >>> normaliser: Normaliser = partial(cleaned, rules=PERSON_RULES)
    >>> normaliser("@Ada"), normaliser("Ada", fold_case=False), normaliser("")
    (('ada', None), ('Ada', None), (None, 'empty'))
    """

    def __call__(
        self, value: object, *, fold_case: bool = True
    ) -> tuple[str | None, str | None]: ...


@dataclass(frozen=True)
class Kind:
    """One kind of record bought by value, declared once (see the module).

    >>> PEOPLE.endpoint.path, PEOPLE.endpoint.batch, PEOPLE.endpoint.results
    ('/api/data/v1/people/profile', '/api/data/v1/people/batch/enrich', 'profiles')
    >>> COMPANIES.desc, list(COMPANIES.fields)[:3], COMPANIES.changes_feed
    ('companies', ['id', 'slug', 'name'], False)
    """

    #: Its lookup route: the parameter each value is sent as (its ``ids`` prefixes, else its
    #: ``key``), its billed not-found's code, its batch twin (None: none) and their ``results``.
    endpoint: Endpoint
    normaliser: Normaliser
    fields: Mapping[str, str]  # the columns every result has (PERSON_FIELDS...)
    noun: str  # how one value is named in messages: "handle"
    what: str  # what a value should be, in a refusal: "a handle or profile URL"
    desc: str  # the progress bar's label: "profiles"
    #: The message of a not-found made from a batch result (a single call's words).
    not_found_message: str
    tag: str = ""  # what the job store puts before this kind's batch inputs ("company:")
    #: Whether ``refresh="changed"`` can check its answers in the job-change feed.
    changes_feed: bool = False
    #: The answer's fields that a column names otherwise: ``{"email": "address"}`` (so a
    #: column reads ``email_address``, not ``email_email``).
    renamed: Mapping[str, str] = field(default_factory=dict)

    @property
    def nouns(self) -> str:
        """The plural of :attr:`noun`.

        >>> PEOPLE.nouns, COMPANIES.nouns
        ('handles', 'companies')
        """
        if self.noun.endswith("y"):
            return f"{self.noun[:-1]}ies"
        return f"{self.noun}es" if self.noun.endswith("s") else f"{self.noun}s"

    def params(self, value: str) -> dict[str, str]:
        """The query of ``value``'s lookup.

        >>> PEOPLE.params("ada")
        {'handle': 'ada'}
        """
        return self.endpoint.query(value)

    def normalise(self, value: object, fold_case: bool = True) -> str | None:
        """The value to send for ``value``, or None when it is not one.

        >>> PEOPLE.normalise("@Ada"), PEOPLE.normalise("N/A")
        ('ada', None)
        """
        return self.normaliser(value, fold_case=fold_case)[0]

    def invalid_error(self, value: Any, fold_case: bool = True) -> str:
        """The ``lookup_error`` of a row whose value is not one.

        >>> PEOPLE.invalid_error(" ")
        'invalid handle: empty'
        """
        return self._error(self.normaliser(value, fold_case=fold_case)[1])

    def clean(self, value: object, fold_case: bool = True) -> tuple[str | None, str | None]:
        """``(the value to send, None)``, or ``(None, the row's lookup_error)``.

        >>> PEOPLE.clean("@Ada"), PEOPLE.clean("")
        (('ada', None), (None, 'invalid handle: empty'))
        """
        sent, reason = self.normaliser(value, fold_case=fold_case)
        return (sent, None) if sent is not None else (None, self._error(reason))

    def checked(self, value: object, fold_case: bool = True) -> str:
        """The value to send for ``value``, else a UsageError naming it and the reason.

        >>> COMPANIES.checked("https://acme.com")
        Traceback (most recent call last):
        ...
        lookup_pandas.errors.UsageError: 'https://acme.com' is not a company slug, id or page URL:
        a URL without /company/<slug>. Nothing was sent.
        """
        sent, reason = self.normaliser(value, fold_case=fold_case)
        if sent is None:
            raise refused(value, self.what, reason)
        return sent

    def names(self, record: Mapping[str, Any]) -> tuple[str, ...]:
        """The values that name ``record`` in a lookup: its id and its handle (or slug), each as
        :meth:`normalise` gives it. A field that is missing or no valid value is left out.

        >>> PEOPLE.names({"id": "prsn_1a2b", "handle": "Ada"}), COMPANIES.names({"slug": "acme"})
        (('prsn_1a2b', 'ada'), ('acme',))
        """
        fields = ("id", self.endpoint.key or "")
        values = (self.normalise(record.get(name)) for name in fields if name)
        return tuple(dict.fromkeys(v for v in values if v is not None))

    def record(self, data: dict[str, Any]) -> dict[str, Any]:
        """``data`` (an answer's) with its fields named as the columns name them (``renamed``).

        >>> VERIFY.record({"email": "jane@acme.com", "deliverable": True})
        {'address': 'jane@acme.com', 'deliverable': True}
        """
        if not self.renamed:
            return data
        return {self.renamed.get(name, name): value for name, value in data.items()}

    def is_id(self, value: str) -> bool:
        """Whether ``value`` (as :meth:`normalise` gives it) is an opaque id, not a name.

        >>> PEOPLE.is_id("prsn_1a2b"), PEOPLE.is_id("ada"), COMPANIES.is_id("org_9")
        (True, False, True)
        """
        return value.startswith(tuple(prefix for prefix, _ in self.endpoint.ids))

    def _error(self, reason: str | None) -> str:
        return f"invalid {self.noun}: {reason}"


PEOPLE = Kind(
    ENDPOINTS["profile"],
    partial(cleaned, rules=PERSON_RULES),
    PERSON_FIELDS,
    noun="handle",
    what=PERSON_RULES.what,
    desc="profiles",
    not_found_message="Profile not found",
    changes_feed=True,
)
COMPANIES = Kind(
    ENDPOINTS["company"],
    partial(cleaned, rules=COMPANY_RULES),
    COMPANY_FIELDS,
    noun="company",
    what=COMPANY_RULES.what,
    desc="companies",
    not_found_message="Company not found",
    tag="company:",
)
_ADDRESS = {"email": "address"}
VERIFY = Kind(
    ENDPOINTS["email_verify"],
    emails.address,
    VERIFY_FIELDS,
    noun="address",
    what="an email address",
    desc="addresses verified",
    not_found_message="",  # a verdict is always given
    tag="email-verify:",
    renamed=_ADDRESS,
)
REVERSE = Kind(
    ENDPOINTS["email_reverse"],
    emails.address,
    REVERSE_FIELDS,
    noun="address",
    what="a business email address",
    desc="addresses reversed",
    not_found_message="",  # nothing found is an answer: found false
    tag="email-reverse:",
    renamed=_ADDRESS,
)
FIND = Kind(
    ENDPOINTS["email_find"],
    emails.query,
    FIND_FIELDS,
    noun="query",
    what="a first name, last name and company domain",
    desc="emails found",
    not_found_message="",  # none found is an answer: found false
    tag="email-find:",
    renamed=_ADDRESS,
)
FIND_BY_PROFILE = Kind(
    ENDPOINTS["email_find_profile"],
    emails.profile,
    FIND_PROFILE_FIELDS,
    noun="profile",
    what="a profile URL or handle",
    desc="emails found",
    not_found_message="",
    tag="email-profile:",
    renamed=_ADDRESS,
)
#: The kinds bought by value, by their endpoint's path.
BY_PATH: dict[str, Kind] = {
    kind.endpoint.path: kind for kind in (PEOPLE, COMPANIES, VERIFY, REVERSE, FIND, FIND_BY_PROFILE)
}
