"""Company values: turn what an account list holds into the slug or id the service wants.

Example::

    normalise_company("  https://www.linkedin.com/company/Acme/?trk=x ")   # "acme"
    normalise_company("linkedin.com/company/acme")                         # "acme"
    normalise_company("org_9F3a")                                          # "org_9F3a" (an id)
    normalise_company("   ")                                               # None
    company_invalid_reason("https://acme.com")              # "a URL without /company/<slug>"

The rules are :mod:`lookup_pandas.handles`' (missing values, whitespace, percent-encoding,
trailing slashes, the grammar), with a company page URL (``.../company/<slug>``) in place of a
profile URL, slugs of 2 characters or more (``hp``), and ``org_`` ids kept exactly as written
(ids are opaque; slugs fold case unless ``fold_case=False``). A website is not a slug: find a
company by its website with ``lp.search_companies(website=...)``.
"""

from __future__ import annotations

from .handles import Rules, checked_handle, invalid_reason, normalise_handle

__all__ = ["COMPANY_RULES", "checked_company", "company_invalid_reason", "normalise_company"]

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
