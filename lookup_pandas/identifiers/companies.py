"""Company values: turn what an account list holds into the slug or id the service wants.

Example::

    normalise_company("  https://www.linkedin.com/company/Acme/?trk=x ")   # "acme"
    normalise_company("linkedin.com/company/acme")                         # "acme"
    normalise_company("org_9F3a")                                          # "org_9F3a" (an id)
    normalise_company("   ")                                               # None
    company_invalid_reason("https://acme.com")              # "a URL without /company/<slug>"
    checked_companies("ACME, linkedin.com/company/globex")  # ["acme", "globex"]
    is_company_id("org_9F3a")                               # True: sent as an id
    names_one_company("https://www.linkedin.com/company/acme")  # True; "acme labs": False

The rules are :mod:`lookup_pandas.identifiers.handles`' (missing values, whitespace,
percent-encoding,
trailing slashes, the grammar), with a company page URL (``.../company/<slug>``) in place of a
profile URL, slugs of 2 characters or more (``hp``), and ``org_`` ids kept exactly as written
(ids are opaque; slugs fold case unless ``fold_case=False``). A website is not a slug: find a
company by its website with ``lp.search_companies(website=...)``.

Every function that takes a company reads it through these rules: enrichment
(:mod:`lookup_pandas.identifiers.kinds`), ``client.company``, and the listings' company parameters
(:data:`lookup_pandas.service.endpoints.CompanyParam`: ``company_employees``' slug,
``search_people``'
``organization_slugs``, ``job_changes``' ``organization_ids``, the SearchPanel, the CLI).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import UsageError
from .handles import Rules, checked_handle, invalid_reason, looks_like_url, normalise_handle

__all__ = [
    "COMPANY_RULES",
    "checked_companies",
    "checked_company",
    "company_invalid_reason",
    "is_company_id",
    "names_one_company",
    "normalise_company",
]

#: Companies: slugs, company page URLs and ``org_`` ids.
COMPANY_RULES = Rules(
    segment="company",
    min_length=2,
    ids=("org_",),
    what="a company slug, id or page URL",
    noun="company",
)


def normalise_company(value: object, *, fold_case: bool = True) -> str | None:
    """The slug or ``org_`` id to send for ``value``; None when it is neither.

    Example: ``normalise_company("https://www.linkedin.com/company/Acme/")`` -> ``"acme"``
    """
    return normalise_handle(value, fold_case=fold_case, rules=COMPANY_RULES)


def company_invalid_reason(value: object, *, fold_case: bool = True) -> str | None:
    """Why ``value`` is no company slug, id or page URL; None when it is one.

    Example: ``company_invalid_reason("")`` -> ``"empty"``
    """
    return invalid_reason(value, fold_case=fold_case, rules=COMPANY_RULES)


def checked_company(value: object, *, fold_case: bool = True) -> str:
    """The slug or id to send for ``value``; a UsageError naming the reason otherwise, before
    anything is sent.

    Example: ``checked_company("acme.com/about")`` raises UsageError.
    """
    return checked_handle(value, fold_case=fold_case, rules=COMPANY_RULES)


def checked_companies(value: object, *, many: bool = True) -> list[str]:
    """Each company in ``value`` as :func:`checked_company` gives it, duplicates dropped; a
    UsageError for any that is no company, or for none at all, before anything is sent.

    ``value`` is one company, or with ``many`` a list of them or one string of comma-separated
    ones (what production's list parameters take, ``organization_slugs=acme,globex``; blank
    pieces between commas are skipped).

    Example: ``checked_companies(["ACME", " acme "])`` -> ``["acme"]``
    """
    if not many:
        return [checked_company(value)]
    items: Iterable[object] = (
        [piece.strip() for piece in value.split(",") if piece.strip()]
        if isinstance(value, str)
        else _items(value)
    )
    checked = list(dict.fromkeys(checked_company(item) for item in items))
    if not checked:
        raise UsageError(f"{value!r} names no company. Nothing was sent.")
    return checked


def _items(value: object) -> Iterable[object]:
    if isinstance(value, list | tuple | set | frozenset):
        return sorted(value, key=str) if isinstance(value, set | frozenset) else value
    return [value]


def is_company_id(value: str) -> bool:
    """True for an ``org_`` id (as :func:`checked_company` gives it), False for a slug.

    Example: ``is_company_id("org_9F3a")`` -> True; ``is_company_id("acme")`` -> False
    """
    return value.startswith(COMPANY_RULES.ids)


def names_one_company(text: str) -> bool:
    """True when ``text`` is written as one company's address (a URL or an ``org_`` id) rather
    than words to search for: a name and a bare slug look alike (``acme``), these do not.

    Example: ``names_one_company(" org_9F3a")`` -> True; ``names_one_company("acme")`` -> False
    """
    text = text.strip()
    return is_company_id(text) or looks_like_url(text, COMPANY_RULES.segment)
