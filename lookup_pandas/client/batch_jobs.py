"""The batch-job protocol: submit, poll, store each result as the single call's answer.

:mod:`lookup_pandas.enrichment.batch_plan` plans the jobs and
:mod:`lookup_pandas.enrichment.batch_run` runs them. This module only speaks the protocol,
through the Client's send chain.

Example:
    >>> from lookup_pandas.identifiers.kinds import PEOPLE
    >>> from lookup_pandas.testing import MockService
    >>> with MockService({"id": "prsn_1", "handle": "ada"}) as service:
    ...     with service.client() as client:
    ...         batch = client.parts.batch
    ...         job_id = batch.submit(PEOPLE, ["ada"], None)
    ...         page = batch.status(PEOPLE, job_id, 0, None)  # one poll
    ...         stored = batch.result(PEOPLE, "ada", page["profiles"]["ada"], job_id)
    ...         again = client.profile("ada")  # a cache hit, as after a single call
    >>> page["status"], stored.data == again, service.count("/people/profile")
    ('completed', True, 0)
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any

from ..errors import (
    BatchUnavailableError,
    ConfigurationError,
    NotFoundError,
    ResponseError,
    ServiceError,
)
from ..http.decisions import Call, Requester
from ..http.sending import Wire
from ..http.stats import ClientStats
from ..identifiers.kinds import Kind
from ..service.answers import profile_answer_from_batch, read_answer
from ..service.envelope import Envelope
from ..service.paths import BATCH_PATH

__all__ = ["BatchCalls", "no_batch"]

logger = logging.getLogger(__name__)

#: How each audience is told to do without batch jobs (see :func:`no_batch`).
PYTHON_ADVICE = "use method='single' or 'auto'."
CLI_ADVICE = "use --method single or auto."


def no_batch(
    base_url: str,
    exc: ServiceError | None = None,
    *,
    cli_advice: str = CLI_ADVICE,
    path: str = BATCH_PATH,
    of: str = "",
) -> BatchUnavailableError:
    """The error that says this service has no batch jobs (``of`` a kind: none has any).
    ``exc`` is the answer that told. Its ``cli_message`` gives the command line's
    ``cli_advice`` instead of Python's.

    Example:
        >>> print(no_batch("http://x"))  # doctest: +ELLIPSIS
        The service at http://x has no batch jobs... use method='single' or 'auto'.
        >>> print(no_batch("http://x", of="skills"))  # doctest: +ELLIPSIS
        The service at http://x has no batch jobs of skills; use method='single' or 'auto'.
    """
    answer = f" (POST {path} answered {exc.status_code})" if exc is not None else ""
    told = f"The service at {base_url} has no batch jobs{f' of {of}' if of else ''}{answer};"
    return BatchUnavailableError(
        f"{told} {PYTHON_ADVICE}",
        cli_message=f"{told} {cli_advice}",
        status_code=exc.status_code if exc is not None else None,
        url=path,
    )


class BatchCalls:
    """One Client's batch calls, and what the first submit told of the service.

    Each call takes every value, ``kind`` first: the defaults are the Client's.
    """

    def __init__(self, request: Requester, wire: Wire) -> None:
        self._request = request
        self._wire = wire
        #: Whether the service has each batch path's jobs: absent until a submit tells.
        self._supported: dict[str, bool] = {}

    def supported_for(self, kind: Kind) -> bool | None:
        """Whether the service has ``kind``'s batch jobs (None: not told yet; False for a kind
        with no batch twin)."""
        return self._supported.get(kind.endpoint.batch) if kind.endpoint.batch else False

    def _set_supported(self, kind: Kind, value: bool | None) -> None:
        if value is None:
            self._supported.pop(_batch_path(kind), None)
        else:
            self._supported[_batch_path(kind)] = value

    def no_batch(self, kind: Kind, exc: ServiceError | None) -> BatchUnavailableError:
        """:func:`no_batch` for this Client's base URL. ``exc`` is the answer that told.

        Example: ``raise client.parts.batch.no_batch(PEOPLE, None)``
        """
        if kind.endpoint.batch is None:  # a kind bought by single calls only
            return no_batch(self._wire.settings.base_url, path=kind.endpoint.path, of=kind.nouns)
        return no_batch(self._wire.settings.base_url, exc, path=kind.endpoint.batch)

    def submit(
        self,
        kind: Kind,
        handles: Sequence[str],
        cancel: threading.Event | None,
        tally: ClientStats | None = None,
    ) -> str:
        """Submit one batch job of 1 to 1,000 values (the body is the lookup's ``batch_body``),
        and return its ``job_id``.

        Nothing is billed yet: each item is billed when it resolves. A submit takes a pacing slot.
        A 404 or 405 means the service has no batch jobs: BatchUnavailableError, and no further
        submit is sent. A submit whose answer was lost may have created a job, so its retry may pay
        for those items twice. ``tally``: a run's own counts, which the submit counts in too.

        Example: ``job_id = client.parts.batch.submit(PEOPLE, ["ada", "grace"], None)``
        """
        path = _batch_path(kind)
        if self.supported_for(kind) is False:
            raise self.no_batch(kind, None)
        body = kind.endpoint.batch_body(handles)
        try:
            env = self._request(
                Call(
                    path,
                    method="POST",
                    body=body,
                    cache=False,
                    cancel=cancel,
                    final_statuses=frozenset({404, 405}),
                    tally=tally,
                )
            )
        except ServiceError as exc:
            if exc.status_code in (404, 405):
                logger.info("no batch jobs: POST %s answered %s", path, exc.status_code)
                self._set_supported(kind, False)
                raise self.no_batch(kind, exc) from exc
            raise
        job_id = env.data.get("job_id")
        if not isinstance(job_id, str) or not job_id:
            raise ResponseError(
                f"The batch submit's answer has no job_id (data: {sorted(env.data)}).",
                status_code=env.status_code,
                request_id=env.request_id,
                url=path,
            )
        self._set_supported(kind, True)
        logger.info("batch job %s submitted: %d %s", job_id, len(handles), kind.nouns)
        return job_id

    def status(
        self,
        kind: Kind,
        job_id: str,
        after: int,
        cancel: threading.Event | None,
        tally: ClientStats | None = None,
    ) -> dict[str, Any]:
        """One poll of a batch job: the ``data`` of its answer, from result ``after`` on.

        That is ``status``, ``total``, ``resolved``, ``errors``, ``next_cursor``, the Data API's
        ``not_found``, and the results under the lookup's ``results`` (``profiles``; the Email
        API's ``results``). A poll is never cached and takes a pacing slot. An unknown or expired
        job raises NotFoundError (any 404). ``tally`` as for :meth:`submit`.

        Example: ``batch.status(PEOPLE, job_id, 0, None)["status"]`` -> ``"processing"``
        """
        try:
            env = self._request(
                Call(
                    _batch_path(kind),
                    {"job_id": job_id, "after": after},
                    cache=False,
                    cancel=cancel,
                    final_statuses=frozenset({404}),
                    tally=tally,
                )
            )
        except ConfigurationError as exc:
            if exc.status_code != 404:
                raise
            # A 404 without the job-not-found code (1090): the job is gone all the same.
            raise NotFoundError(
                exc.message, status_code=404, request_id=exc.request_id, url=_batch_path(kind)
            ) from None
        data: dict[str, Any] = env.data
        logger.debug(
            "batch job %s: %s, %s of %s resolved, results from %d",
            job_id,
            data.get("status"),
            data.get("resolved"),
            data.get("total"),
            after,
        )
        return data

    def result(
        self,
        kind: Kind,
        handle: str,
        record: dict[str, Any] | None,
        job_id: str,
        key: str | None = None,
    ) -> Envelope:
        """One batch job result as the single call's answer, cached exactly as that answer would be.

        ``record=None`` is the billed not-found, raised as the NotFoundError a single call raises.
        Afterwards ``client.profile(handle)`` and a re-run are free cache hits. ``key``: its
        request's cache key, if the run has worked it out.

        Example: ``batch.result(PEOPLE, "ada", page["profiles"]["ada"], job_id).data["id"]``
        """
        wire = self._wire
        path = kind.endpoint.path
        prepared = wire.prepare(path, kind.params(handle))
        code = kind.endpoint.not_found or "1010"
        response = profile_answer_from_batch(
            prepared, record, job_id, not_found=(code, kind.not_found_message)
        )
        answer = read_answer(response, path)
        if wire.cache_on:
            wire.save(response, key or wire.cache_key(prepared), answer)
        if isinstance(answer, ServiceError):
            raise answer
        return answer


def _batch_path(kind: Kind) -> str:
    """The batch path of ``kind``'s lookups (its Endpoint's ``batch``)."""
    if kind.endpoint.batch is None:  # pragma: no cover - every Kind has one
        raise ValueError(f"{kind.endpoint.name} has no batch jobs")
    return kind.endpoint.batch
