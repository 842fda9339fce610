"""``refresh="changed"``, pure: which answers can be checked, the feed's groups, and what each
group's first page decides.

A kept answer is checked by reading production's job-change feed for the organisations of its
current positions, since it was bought or last checked. Only the people with an event since
then are bought anew. docs/decisions.md (*Refreshing what changed*) says why the rule below
never spends more than buying the checked answers anew, plus one feed page per group.

>>> import datetime as dt
>>> now = dt.datetime(2026, 11, 27, 12, tzinfo=dt.UTC)
>>> ada = {"id": "prsn_1", "handle": "ada",
...        "positions": [{"organization": {"id": "org_1"}, "end_date": None}]}
>>> answer = checked_answer("ada", ada, since=now - dt.timedelta(days=7), cost=1.0, now=now)
>>> answer.organizations, answer.days_ago
(('org_1',), 7)
>>> [g.organizations for g in organizations([answer]).groups(FeedRate())]
[('org_1',)]
"""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..service.job_changes import MAX_DAYS_AGO, JobChange, days_ago

__all__ = [
    "FEED_PAGE",
    "MAX_IDS_PER_CALL",
    "CheckedAnswer",
    "Decision",
    "FeedRate",
    "Group",
    "Organizations",
    "checked_answer",
    "current_organizations",
    "decide",
    "movers",
    "organizations",
]

#: Events per feed page: production's largest ``limit``.
FEED_PAGE = 50
#: Organisation ids per feed call. An ``org_`` id and its encoded comma take about 30 characters,
#: so 50 ids keep the URL near 1,600 characters, under the 2,000 that every proxy passes.
MAX_IDS_PER_CALL = 50
#: A group is sized so that its events over its window are about this share of one page.
TARGET_SHARE = 0.8


@dataclass(frozen=True)
class CheckedAnswer:
    """A cached answer the feed can check: its value, whom it names, where they work, since when.

    ``cost`` is what buying it anew costs, in credits.
    """

    value: str
    person_id: str | None
    handle: str | None
    organizations: tuple[str, ...]
    since: dt.datetime
    days_ago: int
    cost: float


def current_organizations(record: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The ``org_`` ids of ``record``'s current positions (no end date), the first first.

    >>> current_organizations({"positions": [
    ...     {"organization": {"id": "org_2"}, "end_date": None},
    ...     {"organization": {"id": "org_1"}, "end_date": {"year": 2020, "month": 1}}]})
    ('org_2',)
    """
    if not isinstance(record, Mapping):
        return ()
    found: list[str] = []
    for position in record.get("positions") or ():
        if not isinstance(position, Mapping) or position.get("end_date"):
            continue
        organization = position.get("organization")
        org = organization.get("id") if isinstance(organization, Mapping) else None
        if isinstance(org, str) and org.strip() and org.strip() not in found:
            found.append(org.strip())
    return tuple(found)


def checked_answer(
    value: str,
    record: Mapping[str, Any] | None,
    *,
    since: dt.datetime,
    cost: float,
    now: dt.datetime,
) -> CheckedAnswer | None:
    """The answer to check, or None when the feed cannot check it.

    It cannot when the record names no current organisation, or when it was bought or last
    checked more than 365 days ago (the feed's widest window). See the module's example.
    """
    organizations = current_organizations(record)
    if not organizations or (now.date() - since.date()).days > MAX_DAYS_AGO:
        return None
    assert record is not None
    person_id, handle = record.get("id"), record.get("handle")
    return CheckedAnswer(
        value=value,
        person_id=person_id if isinstance(person_id, str) else None,
        handle=handle.strip().lower() if isinstance(handle, str) else None,
        organizations=organizations,
        since=since,
        days_ago=days_ago(since.date(), now.date()),
        cost=cost,
    )


@dataclass
class FeedRate:
    """Events per organisation and day, learnt from the first pages read so far.

    Before any page it assumes one event per organisation a week, a prior that the pages
    soon outweigh.

    >>> rate = FeedRate()
    >>> rate.learn(events=50, organizations=10, days=2)  # (1 + 50) / (7 + 10 x 2)
    >>> round(rate.per_day, 2)
    1.89
    """

    events: float = 1.0
    organization_days: float = 7.0

    @property
    def per_day(self) -> float:
        """Events per organisation and day."""
        return self.events / self.organization_days

    def learn(self, *, events: int, organizations: int, days: float) -> None:
        """Count a first page: ``events`` over ``organizations`` and ``days`` (at least 1)."""
        self.events += events
        self.organization_days += organizations * max(1.0, days)


@dataclass(frozen=True)
class Group:
    """One feed query: organisations read together, over ``days_ago``, and the answers they check.

    ``by_org`` holds each organisation's answers with their share of their cost: an answer read
    in ``k`` organisations counts ``1/k`` of its cost in each, so the groups add up to the
    checked answers once.
    """

    organizations: tuple[str, ...]
    days_ago: int
    by_org: Mapping[str, Mapping[str, float]] = field(default_factory=dict, repr=False)

    @property
    def shares(self) -> dict[str, float]:
        """Each answer of the group, with its share of its cost here."""
        shares: dict[str, float] = defaultdict(float)
        for org in self.organizations:
            for value, share in self.by_org.get(org, {}).items():
                shares[value] += share
        return dict(shares)

    @property
    def window_days(self) -> int:
        """The calendar days the query covers: ``days_ago`` back, and today."""
        return self.days_ago + 1


@dataclass(frozen=True)
class Organizations:
    """The organisations the checked answers work at, in the order they are queried.

    ``window``: each one's ``days_ago`` (its answers' widest). ``by_org``: its answers, with
    their shares. The order is widest window first, then most answers.
    """

    order: tuple[str, ...]
    window: Mapping[str, int]
    by_org: Mapping[str, Mapping[str, float]]

    def groups(
        self,
        rate: FeedRate | Mapping[str, float],
        *,
        start: int = 0,
        max_ids: int = MAX_IDS_PER_CALL,
    ) -> list[Group]:
        """The organisations from ``start`` on, packed into feed queries in order.

        ``rate`` is the learnt :class:`FeedRate`, or each organisation's expected events per
        day. A group closes when one more organisation would take its expected events past
        :data:`TARGET_SHARE` of a page, or its ids past ``max_ids``.

        >>> orgs = Organizations(("org_1", "org_2", "org_3"), dict.fromkeys(["org_1", "org_2",
        ...     "org_3"], 7), {"org_1": {"a": 1.0}, "org_2": {"b": 1.0}, "org_3": {"c": 1.0}})
        >>> orgs.groups({"org_1": 5.0, "org_2": 0.1, "org_3": 0.1})
        ... # doctest: +NORMALIZE_WHITESPACE
        [Group(organizations=('org_1',), days_ago=7),
         Group(organizations=('org_2', 'org_3'), days_ago=7)]
        """
        groups: list[Group] = []
        current: list[str] = []
        expected = 0.0

        def per_day(org: str) -> float:
            return rate.per_day if isinstance(rate, FeedRate) else rate.get(org, 0.0)

        def close() -> None:
            if current:
                days = max(self.window[o] for o in current)
                groups.append(Group(tuple(current), days, {o: self.by_org[o] for o in current}))

        for org in self.order[start:]:
            events = per_day(org) * (self.window[org] + 1)
            full = expected + events > TARGET_SHARE * FEED_PAGE or len(current) >= max_ids
            if current and full:
                close()
                current, expected = [], 0.0
            current.append(org)
            expected += events
        close()
        return groups


def organizations(answers: Sequence[CheckedAnswer]) -> Organizations:
    """The organisations of ``answers``' current positions, ordered to be queried.

    Their :meth:`~Organizations.groups` are the feed queries, packed while a group's expected
    events over its window stay within about one page. See the module's example.

    >>> import datetime as dt
    >>> now = dt.datetime(2026, 11, 27, tzinfo=dt.UTC)
    >>> a = CheckedAnswer("ada", "prsn_1", "ada", ("org_1", "org_2"), now, 3, 1.0)
    >>> organizations([a]).by_org["org_2"]
    {'ada': 0.5}
    """
    by_org: dict[str, dict[str, float]] = defaultdict(dict)
    window: dict[str, int] = {}
    for a in answers:
        for org in a.organizations:
            by_org[org][a.value] = a.cost / len(a.organizations)
            window[org] = max(window.get(org, 1), a.days_ago)
    order = sorted(by_org, key=lambda o: (-window[o], -len(by_org[o]), o))
    return Organizations(tuple(order), window, by_org)


def movers(
    events: Iterable[JobChange],
    answers: Mapping[str, CheckedAnswer],
    acted: frozenset[str] | set[str],
) -> dict[str, set[str]]:
    """The checked answers with an event since their ``since`` day, and those events' keys.

    An event is matched by the person's ``prsn_`` id, else by the handle (case folded). An
    event on the day the answer was bought counts, unless it was already acted on (``acted``)
    or the answer already shows it: on that day, a ``joined`` event at one of its current
    organisations, or a ``left`` event at another (an answer bought after the move).

    >>> import datetime as dt
    >>> now = dt.datetime(2026, 11, 27, tzinfo=dt.UTC)
    >>> ada = CheckedAnswer("ada", "prsn_1", "ada", ("org_1",), now, 1, 1.0)
    >>> event = JobChange("jce_1", None, "Ada", "org_1", now.date())
    >>> movers([event], {"ada": ada}, set()), movers([event], {"ada": ada}, {"jce_1"})
    ({'ada': {'jce_1'}}, {})
    >>> joined = JobChange("jce_2", None, "ada", "org_1", now.date(), "joined")
    >>> movers([joined], {"ada": ada}, set())  # the answer shows it already
    {}
    """
    by_id: dict[str, list[CheckedAnswer]] = defaultdict(list)
    by_handle: dict[str, list[CheckedAnswer]] = defaultdict(list)
    for a in answers.values():
        if a.person_id:
            by_id[a.person_id].append(a)
        if a.handle:
            by_handle[a.handle].append(a)
    found: dict[str, set[str]] = defaultdict(set)
    for event in events:
        if event.key in acted:
            continue
        named = by_id.get(event.person_id or "") or by_handle.get((event.handle or "").lower(), [])
        for a in named:
            if event.day > a.since.date() or (event.day == a.since.date() and not _shown(event, a)):
                found[a.value].add(event.key)
    return dict(found)


def _shown(event: JobChange, answer: CheckedAnswer) -> bool:
    """Whether ``answer`` already shows ``event``: it joined one of the answer's current
    organisations, or left one the answer does not hold as current."""
    current = event.organization_id in answer.organizations
    return (event.kind == "joined" and current) or (event.kind == "left" and not current)


@dataclass(frozen=True)
class Decision:
    """What a group's first page decides.

    - ``"done"``: it was the last page; its movers are all there is.
    - ``"read"``: read ``pages`` more pages (foretold by the first page's dates).
    - ``"buy"``: buy the group's answers anew, reading no more.
    - ``"split"``: query ``groups`` instead, and buy the answers of ``buy`` (busy organisations).
    """

    action: Literal["done", "read", "buy", "split"]
    pages: int = 0
    groups: tuple[Group, ...] = ()
    buy: tuple[str, ...] = ()


def _per_day(events: Sequence[JobChange]) -> float:
    """Events per day that a page foretells, or infinity when it cannot tell.

    The page's oldest day may be cut by the page's end, so only the days after it count. A full
    page of one day says only that the day holds more than a page.

    >>> today = dt.date(2026, 11, 27)
    >>> page = [JobChange(f"e{i}", None, None, None, today - dt.timedelta(days=i // 10))
    ...         for i in range(50)]
    >>> _per_day(page), _per_day(page[:10])
    (10.0, inf)
    """
    days = [e.day for e in events]
    if not days:
        return 0.0
    oldest, newest = min(days), max(days)
    if oldest == newest:
        return math.inf
    return sum(d > oldest for d in days) / (newest - oldest).days


def decide(
    group: Group,
    events: Sequence[JobChange],
    *,
    last: bool,
    moved: Iterable[str],
    page_cost: float,
    rate: FeedRate,
    max_ids: int = MAX_IDS_PER_CALL,
) -> Decision:
    """Decide from ``group``'s first page (``events``, newest first) how to check the rest.

    ``moved``: the answers already known to have moved (bought whatever is decided).
    The first page foretells the feed: its events spread over the window as its dates show.
    Reading ``R`` more pages is chosen only when ``R`` pages plus the most they can add to the
    purchase (a page names at most :data:`FEED_PAGE` people) cost less than buying the group's
    other answers. Else a group of several organisations is split, when the dates say that is
    cheaper, or its answers are bought.

    >>> g = Group(("org_1",), 1, {"org_1": {f"p{i}": 1.0 for i in range(50)}})
    >>> today = dt.date(2026, 11, 27)
    >>> busy = [JobChange(f"e{i}", None, f"x{i}", "org_1", today) for i in range(50)]
    >>> decide(g, busy, last=False, moved=[], page_cost=1.0, rate=FeedRate()).action
    'buy'
    >>> decide(g, busy[:3], last=True, moved=[], page_cost=1.0, rate=FeedRate()).action
    'done'
    """
    per_day = _per_day(events)
    span = len(events) / per_day if 0 < per_day < math.inf else 1.0
    rate.learn(events=len(events), organizations=len(group.organizations), days=span)
    if last:
        return Decision("done")
    moved, shares = set(moved), group.shares
    rest = [v for v in shares if v not in moved]
    rest_cost = sum(shares[v] for v in rest)
    per_lead = max((shares[v] for v in rest), default=0.0)
    if per_day < math.inf:
        expected = per_day * group.window_days - len(events)
        pages = max(1, math.ceil(expected / FEED_PAGE))
        worst = pages * page_cost + min(len(rest), FEED_PAGE * pages) * per_lead
        if worst <= rest_cost:
            return Decision("read", pages=pages)
    if len(group.organizations) > 1:
        split = _split(group, events, span, rest, page_cost, max_ids=max_ids)
        if split is not None:
            return split
    return Decision("buy", buy=tuple(rest))


def _split(
    group: Group,
    events: Sequence[JobChange],
    span: float,
    rest: Sequence[str],
    page_cost: float,
    *,
    max_ids: int,
) -> Decision | None:
    """The split of ``group`` by its first page's events per organisation, if it is cheaper.

    An organisation whose own feed would take more than a page is bought; the others are
    regrouped. The split is taken when its first pages plus the busy organisations' answers cost
    less than buying the group's answers (``rest``).
    """
    per_org = Counter(e.organization_id for e in events)
    per_day = {o: per_org[o] / span for o in group.organizations}
    busy = {o for o in group.organizations if per_day[o] * group.window_days > FEED_PAGE}
    quiet = [o for o in group.organizations if o not in busy]
    if not quiet:
        return None
    window = dict.fromkeys(quiet, group.days_ago)
    quiet_groups = Organizations(tuple(quiet), window, group.by_org).groups(
        per_day, max_ids=max_ids
    )
    kept = {v for g in quiet_groups for v in g.shares}
    shares = group.shares
    bought = tuple(v for v in rest if v not in kept)
    cost = len(quiet_groups) * page_cost + sum(shares[v] for v in bought)
    if cost >= sum(shares[v] for v in rest):
        return None
    return Decision("split", groups=tuple(quiet_groups), buy=bought)
