"""The service's endpoints: their paths, the surface each is on, and the data each answers with.

>>> is_panel(TIER_PATH)
True
>>> expected_data(PROFILE_PATH)
<class 'dict'>
>>> ENDPOINTS["company"].param_for("acme")
('slug', 'acme')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ResponseError
from .listings import (
    ALUMNI,
    COMPANY_SEARCH,
    EMPLOYEES,
    INSTITUTION_SEARCH,
    JOB_CHANGES,
    SEARCH,
    SKILL_SEARCH,
    Listing,
)
from .paths import (
    ALUMNI_PATH,
    BATCH_PATH,
    COMPANY_BATCH_PATH,
    COMPANY_PATH,
    COMPANY_SEARCH_PATH,
    EMAIL_FIND_PATH,
    EMAIL_FIND_PROFILE_PATH,
    EMAIL_PROSPECTS_PATH,
    EMAIL_REVERSE_PATH,
    EMAIL_VERIFY_PATH,
    EMAILS_HEALTH_PATH,
    EMPLOYEES_PATH,
    FIND_BATCH_PATH,
    HEALTH_PATH,
    INSTITUTION_PATH,
    INSTITUTION_SEARCH_PATH,
    JOB_CHANGES_PATH,
    PANEL_PREFIX,
    PROFILE_PATH,
    SEARCH_PATH,
    SKILL_PATH,
    SKILL_SEARCH_PATH,
    TIER_PATH,
    VERIFY_BATCH_PATH,
)

if TYPE_CHECKING:
    from .envelope import Envelope

__all__ = [
    "ENDPOINTS",
    "Endpoint",
    "PART_SEPARATOR",
    "checked_data",
    "expected_data",
    "is_batch",
    "is_panel",
]


#: What joins the parts of a value sent as several parameters (``find``'s first name, last name
#: and domain): a tab, which no part holds once normalised (inner whitespace is one space).
PART_SEPARATOR = "\t"


@dataclass(frozen=True)
class Endpoint:
    """One endpoint of the Data API, declared once for the Client, the CLI and the emulator.

    >>> profile = ENDPOINTS["profile"]
    >>> profile.kind, profile.not_found, profile.results
    ('person', '1010', 'profiles')
    >>> ENDPOINTS["people_search"].pages
    'cursor'
    """

    name: str
    path: str
    #: The record kind: person, company, institution, skill, job_change; the Email API's
    #: verdict, email (a find's answer), reverse, prospect.
    kind: str
    data: type | None = dict  # dict: one record, list: a page of them, None: not checked
    ids: tuple[tuple[str, str], ...] = ()  # opaque id prefixes and the parameter each goes as
    key: str | None = None  # the parameter for any value that is no id
    pages: str | None = None  # a list's paging: "cursor" or "page"
    not_found: str | None = None  # the error_code of a billed not-found
    listing: Listing | None = None  # a list endpoint's query
    batch: str | None = None  # the batch path that resolves this lookup's values in bulk
    results: str | None = None  # the key of the results in that batch job's poll
    #: The key of a batch submit's items, each the value or its parts by name (the Email API's:
    #: ``emails``, ``queries``). None: the Data API's ``ids`` and ``handles`` apart.
    batch_items: str | None = None
    #: Whether each batch item costs this route's single call as it resolves (the Email API's);
    #: else 1 credit (the Data API's).
    batch_priced: bool = False
    #: The parameters a value of several parts is sent as, in order (``find``: first_name,
    #: last_name, domain); the parts are joined by PART_SEPARATOR.
    parts: tuple[str, ...] = ()

    def query(self, value: str) -> dict[str, str]:
        """The query a lookup of ``value`` sends: its parts by name, else :meth:`param_for`.

        >>> ENDPOINTS["email_find"].query("jane\\tdoe\\tacme.com")
        {'first_name': 'jane', 'last_name': 'doe', 'domain': 'acme.com'}
        >>> ENDPOINTS["email_verify"].query("jane@acme.com")
        {'email': 'jane@acme.com'}
        """
        if self.parts:
            return dict(zip(self.parts, value.split(PART_SEPARATOR), strict=True))
        return dict([self.param_for(value)])

    def batch_body(self, values: Sequence[str]) -> dict[str, Any]:
        """The body of a batch submit of ``values``.

        >>> ENDPOINTS["profile"].batch_body(["ada", "prsn_1"])
        {'ids': ['prsn_1'], 'handles': ['ada'], 'enrich_live': False}
        >>> ENDPOINTS["email_find"].batch_body(["jane\\tdoe\\tacme.com"])
        {'queries': [{'first_name': 'jane', 'last_name': 'doe', 'domain': 'acme.com'}]}
        """
        if self.batch_items is not None:
            items = [self.query(v) for v in values] if self.parts else list(values)
            return {self.batch_items: items}
        ids = [v for v in values if self.param_for(v)[0] == "id"]
        rest = [v for v in values if self.param_for(v)[0] != "id"]
        return {"ids": ids, "handles": rest, "enrich_live": False}

    def param_for(self, value: str) -> tuple[str, str]:
        """The parameter a value is sent as: its id prefix's, else ``key``.

        >>> ENDPOINTS["profile"].param_for("prsn_1a2b")
        ('id', 'prsn_1a2b')
        >>> ENDPOINTS["profile"].param_for("ada")
        ('handle', 'ada')
        """
        for prefix, param in self.ids:
            if value.startswith(prefix):
                return param, value
        if self.key is None:
            raise ValueError(f"{self.name} takes only ids ({', '.join(p for p, _ in self.ids)})")
        return self.key, value


#: Every endpoint of the Data API (production's 16 routes, the two batch pairs counted once each)
#: and of the Email API (its 10, the same way: 8).
ENDPOINTS: dict[str, Endpoint] = {
    e.name: e
    for e in (
        Endpoint("profile", PROFILE_PATH, "person", ids=(("prsn_", "id"),), key="handle",
                 not_found="1010", batch=BATCH_PATH, results="profiles"),
        Endpoint("people_search", SEARCH_PATH, "person", list, pages="cursor", listing=SEARCH),
        Endpoint("company", COMPANY_PATH, "company", ids=(("org_", "id"),), key="slug",
                 not_found="1020", batch=COMPANY_BATCH_PATH, results="companies"),
        Endpoint("companies_search", COMPANY_SEARCH_PATH, "company", list, pages="cursor",
                 listing=COMPANY_SEARCH),
        Endpoint("employees", EMPLOYEES_PATH, "person", list, pages="cursor", listing=EMPLOYEES),
        Endpoint("institution", INSTITUTION_PATH, "institution", key="normalized_name",
                 not_found="1040"),
        Endpoint("institutions_search", INSTITUTION_SEARCH_PATH, "institution", list,
                 pages="page", listing=INSTITUTION_SEARCH),
        Endpoint("alumni", ALUMNI_PATH, "person", list, pages="page", listing=ALUMNI),
        Endpoint("skill", SKILL_PATH, "skill", ids=(("skl_", "id"),), not_found="1030"),
        Endpoint("skills_search", SKILL_SEARCH_PATH, "skill", list, pages="page",
                 listing=SKILL_SEARCH),
        Endpoint("job_changes", JOB_CHANGES_PATH, "job_change", list, pages="page",
                 listing=JOB_CHANGES),
        Endpoint("people_batch", BATCH_PATH, "batch"),
        Endpoint("companies_batch", COMPANY_BATCH_PATH, "batch"),
        Endpoint("health", HEALTH_PATH, "health", None),
        Endpoint("email_verify", EMAIL_VERIFY_PATH, "verdict", key="email",
                 batch=VERIFY_BATCH_PATH, results="results", batch_items="emails",
                 batch_priced=True),
        Endpoint("email_find", EMAIL_FIND_PATH, "email",
                 parts=("first_name", "last_name", "domain"), batch=FIND_BATCH_PATH,
                 results="results", batch_items="queries", batch_priced=True),
        Endpoint("email_find_profile", EMAIL_FIND_PROFILE_PATH, "email", key="url"),
        Endpoint("email_reverse", EMAIL_REVERSE_PATH, "reverse", key="email"),
        Endpoint("email_prospects", EMAIL_PROSPECTS_PATH, "prospect", pages="cursor"),
        Endpoint("verify_batch", VERIFY_BATCH_PATH, "batch"),
        Endpoint("find_batch", FIND_BATCH_PATH, "batch"),
        Endpoint("emails_health", EMAILS_HEALTH_PATH, "health", None),
    )
}  # fmt: skip

#: The type of ``data`` each known endpoint answers with.
_DATA: dict[str, type] = {e.path: e.data for e in ENDPOINTS.values() if e.data is not None}
_DATA[TIER_PATH] = dict
_NAMES: dict[type, str] = {dict: "an object", list: "a list"}


#: The batch paths (submit and poll), read from the table: a new batch route counts at once.
_BATCH_PATHS = tuple(e.path.rstrip("/") for e in ENDPOINTS.values() if e.kind == "batch")


def is_batch(path: str) -> bool:
    """True for a batch job's path (any kind's submit or poll), wherever the base URL puts it.

    >>> is_batch(COMPANY_BATCH_PATH), is_batch("/prefix" + BATCH_PATH + "/job_1")
    (True, True)
    >>> is_batch(PROFILE_PATH)
    False
    """
    trimmed = path.rstrip("/")
    return any(trimmed.endswith(p) or p + "/" in trimmed for p in _BATCH_PATHS)


def is_panel(path: str) -> bool:
    """True for the panel surface (``/api/panel/...``), wherever the base URL puts it.

    >>> is_panel("/prefix/api/panel/credits/tier/k/"), is_panel(PROFILE_PATH)
    (True, False)
    """
    return PANEL_PREFIX in path


def expected_data(path: str) -> type | None:
    """The type of ``data`` the endpoint at ``path`` answers with, None for an unknown one.

    ``path`` may start with the base URL's own path (a service behind a path prefix).

    >>> expected_data("/gateway" + SEARCH_PATH)
    <class 'list'>
    >>> expected_data("/api/data/v1/nothing") is None
    True
    """
    trimmed = path.rstrip("/")
    return next(
        (kind for known, kind in _DATA.items() if trimmed.endswith(known.rstrip("/"))), None
    )


def checked_data(env: Envelope, path: str, kind: type | None = None) -> Any:
    """``env.data`` when it is of the kind the endpoint answers with, else a ResponseError.

    >>> from lookup_pandas.service.envelope import Envelope
    >>> env = Envelope(data=[], message="ok", pagination=None, request_id=None, body={})
    >>> checked_data(env, SEARCH_PATH)
    []
    >>> checked_data(env, PROFILE_PATH)
    Traceback (most recent call last):
    ...
    lookup_pandas.errors.ResponseError: The answer's data for ... is list, not an object. (HTTP 200)
    """
    kind = kind or expected_data(path)
    if kind is None or isinstance(env.data, kind):
        return env.data
    wanted = _NAMES.get(kind, kind.__name__)
    raise ResponseError(
        f"The answer's data for {path} is {type(env.data).__name__}, not {wanted}.",
        request_id=env.request_id,
        status_code=env.status_code,
        url=path,
    )
