"""The emulator's mailboxes: deterministic work addresses, verdicts and reverse resolutions.

Example::

    find("Alan", "Turing", "globex.example")  # {"email": "alan.turing@globex.example", "found":
                                              #  True, "catch_all": False, "confidence": "high"}
    verify("alan.turing@globex.example")["reason"]     # "mailbox_accepts"
    unsupported("info@globex.example")                 # "role_account": reverse answers 422
    reverse("alan.turing@globex.example")["person"]    # the Globex employee of that address

The rules (everything derives from a hash: no clock, no randomness, nothing stored):

- A company's domain is its website's host without ``www.``: ``acme.example`` is company
  ``acme`` (any ``<slug>.example`` whose slug exists, :func:`company_of`). Every other host is
  "another domain".
- Each domain has an address pattern picked by its digest (``PATTERNS``: first.last, flast,
  first, ...), built from the names lower-cased, accents and everything but letters dropped.
  About 10% of domains are catch-all (:func:`is_catch_all`); about 8% of other domains have no
  mail exchanger (company domains always have one).
- :func:`find` gives anyone's pattern address at any domain (confidence high at a company
  domain, low elsewhere), except for the ~15% of (name, domain) pairs that have no findable
  address (:func:`findable`), at catch-all domains (production "skips unresolvable catch-all
  domains rather than spend budget") and at domains without mail: found false, email "".
- :func:`verify`: an address that cannot be one is ``invalid_syntax``; a disposable or relay
  domain gets its reason; no mail exchanger ``no_mx``; a catch-all domain ``catch_all`` (not
  deliverable: the server accepts any address, so none is proven); at a company domain an
  address whose local part fits the pattern's shape (:func:`fits`) ``mailbox_accepts``, any
  other ``mailbox_rejected``; at another domain mostly ``mailbox_accepts``, some ``risky`` or
  ``mailbox_rejected`` by the address's digest. Only ``mailbox_accepts`` is deliverable.
- :func:`reverse`: the company of the address's domain, and among its current employees the
  first (in the employees list's order) whose pattern address it is: person and company,
  found, confidence high (low at a catch-all domain); the company alone: found (something was
  resolved, so it is billed in full), confidence medium; another domain: nothing, found false,
  confidence none. ``found`` is true exactly when a person or a company is returned.
- :func:`prospects`: a company's current employees with findable addresses, one per address,
  in the employees list's order; ``verified_only`` keeps the deliverable ones.

People who moved (``world``, :mod:`.moves`) are read as they are now: a mover is reversed and
listed at the company they moved to.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from . import company_records as companies
from .lists import employee_records
from .moves import Moves
from .people import company_url, is_unknown, person

__all__ = [
    "DISPOSABLE",
    "PATTERNS",
    "PUBLIC_PROVIDERS",
    "RELAY",
    "ROLE_ACCOUNTS",
    "address",
    "company_of",
    "domain_of",
    "find",
    "find_by_profile",
    "findable",
    "fits",
    "is_catch_all",
    "owner",
    "pattern_of",
    "profile_handle",
    "profile_url",
    "prospects",
    "reverse",
    "unsupported",
    "verify",
]

#: The address patterns a domain may use, as the local part of Ada Lovelace's address shows.
PATTERNS = ("first.last", "flast", "first", "firstlast", "first_last", "f.last", "firstl")
#: The shape of a local part each pattern makes (letters only, lower case).
_SHAPES = {
    "first.last": r"[a-z]+\.[a-z]+",
    "flast": r"[a-z]{2,}",
    "first": r"[a-z]+",
    "firstlast": r"[a-z]{2,}",
    "first_last": r"[a-z]+_[a-z]+",
    "f.last": r"[a-z]\.[a-z]+",
    "firstl": r"[a-z]{2,}",
}
PUBLIC_PROVIDERS = frozenset(
    [
        "gmail.com",
        "googlemail.com",
        "outlook.com",
        "hotmail.com",
        "live.com",
        "msn.com",
        "yahoo.com",
        "ymail.com",
        "icloud.com",
        "me.com",
        "aol.com",
        "proton.me",
        "protonmail.com",
        "gmx.com",
        "gmx.de",
        "mail.com",
        "yandex.com",
        "zoho.com",
    ]
)
ROLE_ACCOUNTS = frozenset(
    [
        "info",
        "support",
        "sales",
        "admin",
        "contact",
        "hello",
        "noreply",
        "no-reply",
        "help",
        "office",
        "team",
        "billing",
        "careers",
        "jobs",
        "marketing",
        "press",
        "webmaster",
        "postmaster",
        "hr",
        "enquiries",
    ]
)
DISPOSABLE = frozenset(
    [
        "mailinator.com",
        "guerrillamail.com",
        "10minutemail.com",
        "yopmail.com",
        "trashmail.com",
        "tempmail.com",
        "sharklasers.com",
    ]
)
RELAY = frozenset(["privaterelay.appleid.com", "duck.com", "mozmail.com", "simplelogin.com"])
_LISTED = PUBLIC_PROVIDERS | DISPOSABLE | RELAY
#: The host of the people routes' profile pages (what ``lp.enrich_profiles`` reads back).
PROFILE_BASE = "https://www.example.com/in/"
COMPANY_SUFFIX = ".example"

_LOCAL = re.compile(r"^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$")
_HOST = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$")


def _byte(*parts: str) -> int:
    return hashlib.sha256("\x1f".join(("mailbox", *parts)).encode()).digest()[0]


def is_host(domain: str) -> bool:
    """Whether ``domain`` is a bare host with a dot (lower case): what ``find`` takes.

    >>> is_host("acme.com"), is_host("https://acme.com"), is_host("jane@acme.com"), is_host("acme")
    (True, False, False, False)
    """
    return bool(_HOST.match(domain))


def company_of(domain: str) -> str | None:
    """The slug of the company whose domain ``domain`` is (``acme.example``: ``acme``), else None.

    >>> company_of("acme.example"), company_of("acme.com"), company_of("unknown-co.example")
    ('acme', None, None)
    """
    label = domain.lower().removesuffix(COMPANY_SUFFIX)
    if label == domain.lower() or not label or "." in label or is_unknown(label):
        return None
    return label if is_host(domain.lower()) else None


def domain_of(slug: str) -> str:
    """The domain of company ``slug``'s mailboxes: its website's host without ``www.``."""
    return slug + COMPANY_SUFFIX


def pattern_of(domain: str) -> str:
    """The address pattern ``domain`` uses (one of ``PATTERNS``, by its digest)."""
    return PATTERNS[_byte("pattern", domain.lower()) % len(PATTERNS)]


def is_catch_all(domain: str) -> bool:
    """Whether ``domain``'s server accepts every address (about one domain in ten; never a
    public provider's, a disposable or a relay domain)."""
    domain = domain.lower()
    return domain not in _LISTED and _byte("catch-all", domain) < 26


def _has_mx(domain: str) -> bool:
    domain = domain.lower()
    if company_of(domain) or domain in _LISTED:
        return True
    return _byte("mx", domain) >= 20


def _mx_hosts(domain: str) -> list[str]:
    return [f"mx1.{domain}", f"mx2.{domain}"] if _has_mx(domain) else []


def _letters(name: str) -> str:
    """``name`` as an address spells it: ASCII letters only, lower case (``"Zoë-Ann"``: zoeann)."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return "".join(c for c in folded.lower() if "a" <= c <= "z")


def address(first: str, last: str, domain: str) -> str | None:
    """The address ``domain``'s pattern gives this person (None: a name without letters).

    >>> address("Ada", "Lovelace", "globex.example"), address("Ada", "Lovelace", "acme.example")
    ('ada.lovelace@globex.example', 'alovelace@acme.example')
    """
    f, lst = _letters(first), _letters(last)
    if not f or not lst:
        return None
    local = {
        "first.last": f"{f}.{lst}",
        "flast": f[0] + lst,
        "first": f,
        "firstlast": f + lst,
        "first_last": f"{f}_{lst}",
        "f.last": f"{f[0]}.{lst}",
        "firstl": f + lst[0],
    }[pattern_of(domain)]
    return f"{local}@{domain.lower()}"


def findable(first: str, last: str, domain: str) -> bool:
    """Whether the finder knows this person's address (about 85% of (name, domain) pairs)."""
    return _byte("findable", _letters(first), _letters(last), domain.lower()) >= 38


def fits(local: str, domain: str) -> bool:
    """Whether ``local`` has the shape ``domain``'s pattern makes.

    >>> fits("ada.lovelace", "globex.example"), fits("alovelace", "globex.example")
    (True, False)
    """
    return re.fullmatch(_SHAPES[pattern_of(domain)], local.lower()) is not None


def find(first: str, last: str, domain: str) -> dict[str, Any]:
    """What ``/find`` answers for a person at ``domain`` (a bare host): see the module's rules."""
    domain = domain.lower()
    catch_all = is_catch_all(domain)
    found = address(first, last, domain)
    if catch_all or not _has_mx(domain) or not findable(first, last, domain):
        found = None
    confidence = "high" if found and company_of(domain) else "low"
    return {"email": found or "", "found": found is not None, "catch_all": catch_all,
            "confidence": confidence}  # fmt: skip


def _split(email: str) -> tuple[str, str] | None:
    """(local part, domain), both lower case, of an address; None when it cannot be one."""
    local, at, domain = email.strip().lower().rpartition("@")
    if not at or not _LOCAL.match(local) or not is_host(domain):
        return None
    return local, domain


def verify(email: str) -> dict[str, Any]:
    """What ``/verify`` answers for ``email`` (never a not-found): see the module's rules.

    >>> verify("not an address")["reason"], verify("x@mailinator.com")["reason"]
    ('invalid_syntax', 'disposable')
    """
    parts = _split(email)
    local, domain = parts or ("", "")
    catch_all = bool(parts) and is_catch_all(domain)
    if parts is None:
        reason = "invalid_syntax"
    elif domain in DISPOSABLE:
        reason = "disposable"
    elif domain in RELAY:
        reason = "relay"
    elif not _has_mx(domain):
        reason = "no_mx"
    elif catch_all:
        reason = "catch_all"
    elif company_of(domain):
        reason = "mailbox_accepts" if fits(local, domain) else "mailbox_rejected"
    else:
        draw = _byte("verdict", local, domain)
        reason = "risky" if draw < 13 else "mailbox_rejected" if draw < 38 else "mailbox_accepts"
    return {
        "email": email.strip(),
        "deliverable": reason == "mailbox_accepts",
        "reason": reason,
        "catch_all": catch_all,
        "mx_hosts": _mx_hosts(domain) if parts else [],
    }


def unsupported(email: str) -> str | None:
    """Why ``/reverse`` refuses ``email`` (422, free): invalid, disposable, relay,
    public_provider or role_account; None for a business mailbox.

    >>> unsupported("jane@gmail.com"), unsupported("jane.doe@acme.example")
    ('public_provider', None)
    """
    parts = _split(email)
    if parts is None:
        return "invalid"
    local, domain = parts
    if domain in DISPOSABLE:
        return "disposable"
    if domain in RELAY:
        return "relay"
    if domain in PUBLIC_PROVIDERS:
        return "public_provider"
    return "role_account" if local in ROLE_ACCOUNTS else None


# -- people at their companies' domains --------------------------------------------------------


def _roster(slug: str, world: Moves) -> list[dict[str, Any]]:
    """Company ``slug``'s current employees now, as its employees list gives them."""
    return employee_records(slug, moved=world.records, joined=world.joined(slug)) or []


def _index(slug: str, world: Moves) -> dict[str, dict[str, Any]]:
    """Company ``slug``'s current employees by their pattern address, the first of each address."""
    if not world.records:
        return _static_index(slug)
    return _build_index(slug, world)


@lru_cache(maxsize=64)
def _static_index(slug: str) -> dict[str, dict[str, Any]]:
    return _build_index(slug, Moves())


def _build_index(slug: str, world: Moves) -> dict[str, dict[str, Any]]:
    domain = domain_of(slug)
    out: dict[str, dict[str, Any]] = {}
    for record in _roster(slug, world):
        mailbox = address(record["first_name"], record["last_name"], domain)
        if mailbox is not None:
            out.setdefault(mailbox, record)
    return out


def owner(email: str, world: Moves | None = None) -> dict[str, Any] | None:
    """The current employee whose address ``email`` is (the shared record: read it only)."""
    parts = _split(email)
    slug = company_of(parts[1]) if parts else None
    if parts is None or slug is None:
        return None
    return _index(slug, world or Moves()).get("@".join(parts))


def _current_company(slug: str) -> dict[str, Any] | None:
    record = companies.company(slug)
    if record is None:
        return None
    hq = record["hq"]
    return {
        "name": record["name"],
        "slug": slug,
        "website": record["website"],
        "profile_url": company_url(slug),
        "logo_url": record["logo_url"],
        "description": record.get("description"),
        "industry": record["industry"],
        "size": record["employee_count_range"],
        "staff_count": record["employee_count"],
        "follower_count": record["follower_count"],
        "location": f"{hq['city']}, {hq['country_code']}",
        "specialities": record.get("specialties", []),  # production's spelling
    }


def profile_url(handle: str) -> str:
    """A person's profile page, as the people routes take it back (``PROFILE_BASE`` + handle)."""
    return PROFILE_BASE + handle


def _person(record: Mapping[str, Any], industry: str | None) -> dict[str, Any]:
    positions = record.get("positions") or []
    geo = record.get("geo")
    handle = record["handle"]
    return {
        "full_name": f"{record['first_name']} {record['last_name']}",
        "headline": record.get("headline"),
        "summary": record.get("summary"),
        "title": positions[0]["title"] if positions and positions[0]["is_current"] else None,
        "profile_url": profile_url(handle),
        "picture_url": f"https://media.example.com/people/{handle}.jpg",
        "location": f"{geo['city']}, {geo['country']}" if geo else None,
        "industry": industry,
        "follower_count": record.get("follower_count"),
        "is_premium": record.get("is_premium"),
        "is_open_to_work": record.get("is_open_to_work"),
        "experience": [
            {
                "title": p["title"],
                "company": p["organization"]["name"],
                "company_slug": p["organization"]["slug"],
                "start_date": p["start_date"],
                "end_date": p["end_date"],
                "is_current": p["is_current"],
            }
            for p in positions
        ],  # fmt: skip
        "education": [
            {
                "school": e["school"]["name"],
                "degree": e["degree"],
                "field_of_study": e["field_of_study"],
                "start_year": e["start_year"],
                "end_year": e["end_year"],
            }
            for e in record.get("education", [])
        ],  # fmt: skip
    }


def reverse(email: str, world: Moves | None = None) -> dict[str, Any]:
    """What ``/reverse`` answers for a business address (check :func:`unsupported` first)."""
    parts = _split(email)
    slug = company_of(parts[1]) if parts else None
    company = _current_company(slug) if slug else None
    record = owner(email, world)
    if record is None:
        confidence = "medium" if company else "none"
    else:
        confidence = "low" if is_catch_all(parts[1] if parts else "") else "high"
    return {
        "email": email.strip(),
        "found": company is not None,
        "confidence": confidence,
        "person": _person(record, company["industry"] if company else None) if record else None,
        "current_company": company,
    }


def prospects(domain: str, verified_only: bool, world: Moves | None = None) -> list[dict[str, Any]]:
    """Every prospect ``/prospects`` pages for ``domain``: ``{email, first_name, last_name}``
    of its company's current employees with findable addresses (none for another domain)."""
    slug = company_of(domain)
    if slug is None:
        return []
    out = []
    for mailbox, record in _index(slug, world or Moves()).items():
        first, last = record["first_name"], record["last_name"]
        if not findable(first, last, domain_of(slug)):
            continue
        if verified_only and not verify(mailbox)["deliverable"]:
            continue
        out.append({"email": mailbox, "first_name": first, "last_name": last})
    return out


# -- profiles ------------------------------------------------------------------------------------


def profile_handle(url: str) -> str:
    """The handle a profile URL (or a bare handle) names, lower case ("" when none).

    >>> profile_handle("https://www.linkedin.com/in/Ada-Lovelace/?trk=x"), profile_handle(" ada ")
    ('ada-lovelace', 'ada')
    """
    text = url.strip().split("?", 1)[0].split("#", 1)[0].rstrip("/")
    if "/in/" in text:
        text = text.split("/in/", 1)[1]
    elif "/" in text:
        return ""
    return text.split("/", 1)[0].lower()


def find_by_profile(
    handle: str, world: Moves | None = None
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """What ``/find/linkedin`` answers for ``handle``, and the person it resolved (None: an
    unknown handle, found false): their current company's domain, then :func:`find` there."""
    record = (world or Moves()).current(person(handle))
    positions = (record or {}).get("positions") or []
    slug = positions[0]["organization"]["slug"] if positions and positions[0]["is_current"] else ""
    company = companies.company(slug) if slug else None
    first, last = (record["first_name"], record["last_name"]) if record else ("", "")
    domain = domain_of(slug) if company else ""
    answer = find(first, last, domain) if record and company else {
        "email": "", "found": False, "catch_all": False, "confidence": "low"}  # fmt: skip
    answer.update(first_name=first, last_name=last, domain=domain,
                  company=company["name"] if company else "", url=profile_url(handle))  # fmt: skip
    return answer, record
