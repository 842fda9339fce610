"""Pagination plans: given what a page answered, decide the next request or stop.

:class:`PagePlan` is pure logic. :func:`read_page` and :func:`walk` run the loop over a page
reader. Every page is billed, so anything that could loop raises PaginationError.

Example:
    >>> plan = PagePlan(style=None)  # page- or cursor-based: told by the first answer
    >>> params = plan.first({"slug": "acme", "limit": 50})
    >>> plan.next(params, {"page": 1, "limit": 50, "has_more": True}, n_records=50)
    {'slug': 'acme', 'limit': 50, 'page': 2}
    >>> plan.next(params, {"page": 1, "limit": 50, "has_more": False}, n_records=50) is None
    True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

from ..display.progress import Progress
from ..errors import PaginationError, UsageError
from ..http.decisions import Call, Requester
from ..http.stats import ClientStats
from ..service.endpoints import checked_data

__all__ = ["Page", "PagePlan", "Style", "check_max_records", "read_page", "walk"]

Style = Literal["page", "cursor", "offset"]
_STYLES = ("page", "cursor", "offset")


class PagePlan:
    """The state of one walk: its style (detected or chosen) and the cursors seen so far.

    ``has_more`` is authoritative. Page-based walks count 1, 2, 3... Cursor-based passes
    ``next_cursor`` back unchanged. Offset-based, which only the caller can choose, advances
    ``start`` by the records received.

    Example:
        >>> plan = PagePlan()
        >>> plan.next({}, {"limit": 2, "has_more": True, "next_cursor": "c1"}, n_records=2)
        {'cursor': 'c1'}
        >>> plan.next({"cursor": "c1"}, {"limit": 2, "has_more": True, "next_cursor": "c1"}, 2)
        ... # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        lookup_pandas.errors.PaginationError: The service returned a cursor it had already ...
    """

    def __init__(self, style: Style | None = None, *, offset_param: str = "start") -> None:
        if style is not None and style not in _STYLES:
            raise ValueError(f"style must be one of {_STYLES} or None, not {style!r}")
        self.style: Style | None = style
        self.offset_param = offset_param
        self.pages = 0
        self._seen_cursors: set[str] = set()
        # The (sent, pagination) pair last checked, held so that ``is`` cannot be fooled by a
        # reused address: next() does not check the same page twice.
        self._checked: tuple[Mapping[str, Any], Mapping[str, Any]] | None = None
        # The position asked for last and the records it answered (page and offset styles).
        self._last_page: tuple[Any, tuple[Any, ...]] | None = None

    def first(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Parameters of the first request: page 1, offset 0, or no cursor.

        Example:
            >>> PagePlan("offset").first({"limit": 50, "cursor": "old"})
            {'limit': 50, 'start': 0}
        """
        out = {k: v for k, v in params.items() if k != "cursor"}
        if self.style == "page":
            out.setdefault("page", 1)
        elif self.style == "offset":
            out.setdefault(self.offset_param, 0)
        return out

    def next(
        self,
        sent: Mapping[str, Any],
        pagination: Mapping[str, Any] | None,
        n_records: int,
    ) -> dict[str, Any] | None:
        """Parameters of the next request, or None when the walk is over."""
        self.pages += 1
        if pagination is None:
            if self.style is None:
                return None  # not a paginated answer: one page is all there is
            raise PaginationError(f"Expected a pagination block for {self.style}-based paging.")
        has_more = pagination.get("has_more")
        if not isinstance(has_more, bool):
            raise PaginationError(f"pagination.has_more is missing or not a boolean: {has_more!r}")
        checked = self._checked
        already = checked is not None and checked[0] is sent and checked[1] is pagination
        style = self.style if already else self.check(sent, pagination)
        if not has_more:
            return None
        if n_records == 0:
            raise PaginationError(
                "The service said has_more=true but sent an empty page; stopping rather than "
                "paying for pages that cannot advance."
            )
        base = {k: v for k, v in sent.items() if k != "cursor"}
        if style == "cursor":
            return {**base, "cursor": self._next_cursor(pagination)}
        if style == "page":
            return {**base, "page": _as_int(sent.get("page", 1)) + 1}
        return {**base, self.offset_param: _as_int(sent.get(self.offset_param, 0)) + n_records}

    def check(
        self,
        sent: Mapping[str, Any],
        pagination: Mapping[str, Any] | None,
        records: Sequence[Mapping[str, Any]] = (),
    ) -> Style | None:
        """Whether this page is the one asked for: call it before using its records.

        Returns the style. A page or offset echoed back that differs from the one sent raises
        PaginationError, so the records of a page that went back are never handed out twice. So
        does a page or offset that answers the very ``records`` of the position asked before it
        (a service that ignores the position and echoes none, which would loop, billing).

        Example:
            >>> plan = PagePlan("offset")
            >>> plan.check({"start": 0}, {"has_more": True}, [{"id": "p1"}])
            'offset'
            >>> plan.check({"start": 1}, {"has_more": True}, [{"id": "p1"}])
            Traceback (most recent call last):
            ...
            lookup_pandas.errors.PaginationError: start 1 answered the records of start 0: ...
        """
        if pagination is None:
            return self.style
        self._checked = (sent, pagination)
        style = self._detect(pagination)
        if style == "page":
            self._check_position(sent, pagination, "page", default=1)
            self._check_advance(sent.get("page", 1), "page", records)
        elif style == "offset":
            self._check_position(sent, pagination, self.offset_param, default=0)
            self._check_advance(sent.get(self.offset_param, 0), self.offset_param, records)
        return style

    def _check_advance(
        self, position: Any, name: str, records: Sequence[Mapping[str, Any]]
    ) -> None:
        if not records:
            return
        seen = tuple(r.get("id") or r.get("handle") or repr(sorted(r.items())) for r in records)
        last = self._last_page
        if last is not None and last[0] != position and last[1] == seen:
            raise PaginationError(
                f"{name} {position} answered the records of {name} {last[0]}: the service "
                "ignores the position asked for; stopping instead of paying for pages that "
                "cannot advance."
            )
        self._last_page = (position, seen)

    def _detect(self, pagination: Mapping[str, Any]) -> Style:
        if self.style is not None:
            return self.style
        if "next_cursor" in pagination:
            self.style = "cursor"
        elif "page" in pagination:
            self.style = "page"
        else:
            raise PaginationError(
                f"Cannot tell page- from cursor-based paging from {sorted(pagination)!r}; "
                "pass style='offset' if the endpoint takes an offset."
            )
        return self.style

    def _next_cursor(self, pagination: Mapping[str, Any]) -> str:
        cursor = pagination.get("next_cursor")
        if not isinstance(cursor, str) or not cursor:
            raise PaginationError("The service said has_more=true but gave no next_cursor.")
        if cursor in self._seen_cursors:
            raise PaginationError(
                f"The service returned a cursor it had already returned (after {self.pages} "
                "pages); stopping instead of looping."
            )
        self._seen_cursors.add(cursor)
        return cursor

    def _check_position(
        self, sent: Mapping[str, Any], pagination: Mapping[str, Any], name: str, default: int
    ) -> None:
        """The page number or offset the service echoes must be the one asked for."""
        got = pagination.get(name)
        if got is None:
            return
        asked = _as_int(sent.get(name, default))
        if _as_int(got) != asked:
            raise PaginationError(
                f"Asked for {name} {asked} but the service answered {name} {got}; stopping "
                "instead of reading the same records again."
            )


def _as_int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError) as exc:
        raise PaginationError(f"Not a page number or offset: {value!r}") from exc


Page = tuple[list[dict[str, Any]], Mapping[str, Any] | None]


def read_page(
    request: Requester,
    path: str,
    params: Mapping[str, Any],
    plan: PagePlan,
    *,
    refresh: bool = False,
    tally: ClientStats | None = None,
) -> Page:
    """One page: its records and its pagination block, checked by ``plan`` before anyone uses them.

    ``request`` is the send chain's (``client.parts.sender.request``); ``tally``, a run's.
    Example: ``records, pagination = read_page(request, path, params, plan)``
    """
    env = request(Call(path, params, refresh=refresh, tally=tally))
    records: list[dict[str, Any]] = checked_data(env, path, list)
    plan.check(params, env.pagination, records)
    return records, env.pagination


def walk(
    page: Callable[[Mapping[str, Any], PagePlan], Page],
    path: str,
    params: Mapping[str, Any] | None = None,
    new_plan: Callable[[], PagePlan] = PagePlan,
    *,
    max_records: int | None = None,
    progress: bool | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield every record of a list endpoint, reading pages with ``page(params, plan)``.

    ``new_plan()`` makes the walk's :class:`PagePlan` when the first record is asked for.
    ``max_records`` stops without reading another page.

    Example:
        >>> pages = {None: ([{"id": 1}, {"id": 2}], {"has_more": True, "next_cursor": "c1"}),
        ...          "c1": ([{"id": 3}], {"has_more": False, "next_cursor": None})}
        >>> def page(params, plan):  # stands for read_page
        ...     records, pagination = pages[params.get("cursor")]
        ...     plan.check(params, pagination)
        ...     return records, pagination
        >>> [r["id"] for r in walk(page, "/people/search", {"limit": 2}, progress=False)]
        [1, 2, 3]
        >>> [r["id"] for r in walk(page, "/people/search", max_records=1, progress=False)]
        [1]
    """
    check_max_records(max_records)
    if max_records == 0:
        return
    plan = new_plan()
    next_params: dict[str, Any] | None = plan.first(dict(params or {}))
    yielded = 0
    name = path.rstrip("/").rsplit("/", 1)[-1]
    with Progress(progress, desc=name, unit=" rec", total=max_records) as bar:
        while next_params is not None:
            records, pagination = page(next_params, plan)
            kept = records if max_records is None else records[: max_records - yielded]
            bar.update(len(kept), pages=plan.pages + 1)
            yield from kept
            yielded += len(kept)
            if max_records is not None and yielded >= max_records:
                return
            next_params = plan.next(next_params, pagination, len(records))
        bar.set_total(yielded)  # a list shorter than max_records ends at what it held


def check_max_records(max_records: int | None) -> None:
    """``max_records`` must be None or a whole number >= 0. Else a UsageError, and nothing is sent.

    Example:
        >>> check_max_records(-1)
        Traceback (most recent call last):
        ...
        lookup_pandas.errors.UsageError: max_records must be a whole number >= 0 or None, not -1.
    """
    if max_records is None:
        return
    if isinstance(max_records, bool) or not isinstance(max_records, int) or max_records < 0:
        raise UsageError(f"max_records must be a whole number >= 0 or None, not {max_records!r}.")
