"""Company values: turn what an account list holds into the slug or id the service wants.

>>> normalise_company("  https://www.linkedin.com/company/Acme/?trk=x ")
'acme'
>>> normalise_company("org_9F3a"), normalise_company("hp"), normalise_company("   ")
('org_9F3a', 'hp', None)
>>> company_invalid_reason("https://acme.com")
'a URL without /company/<slug>'
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
)


def normalise_company(value: object, *, fold_case: bool = True) -> str | None:
    """The slug or ``org_`` id to send for ``value``, or None when it is neither.

    >>> normalise_company("linkedin.com/company/Acme"), normalise_company("Acme", fold_case=False)
    ('acme', 'Acme')
    """
    return normalise_handle(value, fold_case=fold_case, rules=COMPANY_RULES)


def company_invalid_reason(value: object, *, fold_case: bool = True) -> str | None:
    """Why ``value`` is no company slug, id or page URL, or None when it is one.

    >>> company_invalid_reason(""), company_invalid_reason("acme")
    ('empty', None)
    """
    return invalid_reason(value, fold_case=fold_case, rules=COMPANY_RULES)


def checked_company(value: object, *, fold_case: bool = True) -> str:
    """The slug or id to send for ``value``, else a UsageError that names the reason.

    >>> checked_company("acme.com/about")
    Traceback (most recent call last):
    ...
    lookup_pandas.errors.UsageError: 'acme.com/about' is not a company slug, id or page URL: a
    path. Nothing was sent.
    """
    return checked_handle(value, fold_case=fold_case, rules=COMPANY_RULES)


def checked_companies(value: object, *, many: bool = True) -> list[str]:
    """Each company in ``value`` as :func:`checked_company` gives it, duplicates dropped.

    A UsageError for any that is no company, or for none at all.

    Args:
        value: one company, or with ``many`` a list of them or one string of comma-separated
            ones (as ``organization_slugs=acme,globex``). Blank pieces are skipped.

    >>> checked_companies("ACME, linkedin.com/company/globex"), checked_companies(["ACME", "acme"])
    (['acme', 'globex'], ['acme'])
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

    >>> is_company_id("org_9F3a"), is_company_id("acme")
    (True, False)
    """
    return value.startswith(COMPANY_RULES.ids)


def names_one_company(text: str) -> bool:
    """True when ``text`` is written as one company's address (a URL or an ``org_`` id).

    >>> names_one_company(" org_9F3a"), names_one_company("https://www.linkedin.com/company/acme")
    (True, True)
    >>> names_one_company("acme")  # a name or a slug: words to search for
    False
    """
    text = text.strip()
    return is_company_id(text) or looks_like_url(text, COMPANY_RULES.segment)
