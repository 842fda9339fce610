"""The emulator's opaque ids: reversible, so any id maps back to the name it was made from.

Example::

    person_id("ada")               # "prsn_mfsge": the same id everywhere the person appears
    name_of("prsn_", "prsn_mfsge") # "ada"
    name_of("prsn_", "prsn_zz!")   # None: not an id this emulator issued (a billed not-found)
    org_id("acme"), company_name("stark-industries")   # "org_...", "Stark Industries"

Clients treat ids as opaque; the emulator derives them from the handle, slug or normalized name
(base32 of its UTF-8, lower case, no padding) so that it stores nothing and a lookup by id and
one by name answer the same record, in any process.
"""

from __future__ import annotations

import base64
import binascii

__all__ = ["company_name", "make_id", "name_of", "org_id", "person_id"]


def make_id(prefix: str, name: str) -> str:
    """``prefix`` + the reversible encoding of ``name`` (already in canonical case)."""
    encoded = base64.b32encode(name.encode("utf-8", "surrogatepass")).decode("ascii")
    return prefix + encoded.rstrip("=").lower()


def name_of(prefix: str, value: str) -> str | None:
    """The name ``value`` was made from by :func:`make_id`, or None when it is not such an id
    (another prefix, not base32, not UTF-8, or not in canonical form)."""
    if not value.startswith(prefix):
        return None
    body = value[len(prefix) :]
    if not body or body != body.lower():
        return None
    try:
        raw = base64.b32decode(body.upper() + "=" * (-len(body) % 8))
        name = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    return name if name and make_id(prefix, name) == value else None


def person_id(handle: str) -> str:
    """The ``prsn_`` id of the person whose (lower-case) handle is ``handle``."""
    return make_id("prsn_", handle)


def org_id(slug: str) -> str:
    """The ``org_`` id of the company whose (lower-case) slug is ``slug``."""
    return make_id("org_", slug)


def company_name(slug: str) -> str:
    """A company's display name, wherever it appears: ``"stark-industries"`` -> ``"Stark
    Industries"``."""
    return slug.replace("-", " ").title()
