"""The service's endpoints: their paths, the surface each is on, and the data each answers with.

Example::

    is_panel(TIER_PATH)                  # True: the panel surface (its own key header, never
                                         # cached, not paced: it is how the pace is learned)
    expected_data(PROFILE_PATH)          # dict: a profile answers with one record
    checked_data(env, SEARCH_PATH)       # env.data, or ResponseError if it is not a list

The one table of endpoint paths: the Client, the cache policy and the emulator's tests read it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import ResponseError

if TYPE_CHECKING:
    from .envelope import Envelope

__all__ = [
    "BATCH_PATH",
    "EMPLOYEES_PATH",
    "PANEL_PREFIX",
    "PROFILE_PATH",
    "SEARCH_PATH",
    "TIER_PATH",
    "checked_data",
    "expected_data",
    "is_panel",
]

PROFILE_PATH = "/api/data/v1/people/profile"
EMPLOYEES_PATH = "/api/data/v1/companies/employees"
SEARCH_PATH = "/api/data/v1/people/search"
TIER_PATH = "/api/panel/credits/tier/k/"
#: Bulk enrichment: POST submits a job, GET with ``job_id`` and ``after`` tracks it.
BATCH_PATH = "/api/data/v1/people/batch/enrich"
PANEL_PREFIX = "/api/panel/"

#: The type of ``data`` each known endpoint answers with.
_DATA: dict[str, type] = {
    PROFILE_PATH: dict,
    EMPLOYEES_PATH: list,
    SEARCH_PATH: list,
    TIER_PATH: dict,
    BATCH_PATH: dict,
}
_NAMES: dict[type, str] = {dict: "an object", list: "a list"}


def is_panel(path: str) -> bool:
    """True for the panel surface (``/api/panel/...``), wherever the base URL puts it."""
    return PANEL_PREFIX in path


def expected_data(path: str) -> type | None:
    """The type of ``data`` the endpoint at ``path`` answers with; None for one we do not know.

    ``path`` may carry the base URL's own path in front (a service behind a path prefix).
    """
    trimmed = path.rstrip("/")
    return next(
        (kind for known, kind in _DATA.items() if trimmed.endswith(known.rstrip("/"))), None
    )


def checked_data(env: Envelope, path: str, kind: type | None = None) -> Any:
    """``env.data``, when it is of the kind the endpoint answers with, else a ResponseError."""
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
