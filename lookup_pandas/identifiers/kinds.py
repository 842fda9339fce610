"""The kinds of record the enrichment engine buys: people and companies, each declared once.

Example::

    PEOPLE.params("prsn_1a2b")          # {"id": "prsn_1a2b"}: its Endpoint's param_for
    COMPANIES.params("acme")            # {"slug": "acme"}
    COMPANIES.normalise("https://www.linkedin.com/company/Acme/")   # "acme"
    COMPANIES.invalid_error("")         # "invalid company: empty"

A Kind is what the engine (:mod:`lookup_pandas.enrichment.values`,
:mod:`lookup_pandas.enrichment.run`,
:mod:`lookup_pandas.enrichment.batch_run`) is generalised over: its
:class:`~lookup_pandas.service.endpoints.Endpoint`
(lookup path, id parameters, not-found code, batch path and results key), how values are
normalised (:class:`~lookup_pandas.identifiers.handles.Rules`), the columns every result has, and
the words
a progress bar and an error use.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..frames.records import COMPANY_FIELDS, PERSON_FIELDS
from ..service.endpoints import ENDPOINTS, Endpoint
from .companies import COMPANY_RULES
from .handles import PERSON_RULES, Rules, cleaned, invalid_reason, normalise_handle

__all__ = ["COMPANIES", "PEOPLE", "Kind"]


@dataclass(frozen=True)
class Kind:
    """One kind of record bought by value. Example: ``PEOPLE.endpoint.path``."""

    endpoint: Endpoint
    rules: Rules
    fields: Mapping[str, str]  # the columns every result has (PERSON_FIELDS...)
    desc: str  # the progress bar's label: "profiles"
    #: The message of a not-found made from a batch result (a single call's words).
    not_found_message: str

    @property
    def noun(self) -> str:
        """How one value is named in messages: ``"handle"``, ``"company"``."""
        return self.rules.noun

    @property
    def nouns(self) -> str:
        """The plural: ``"handles"``, ``"companies"``."""
        return f"{self.noun[:-1]}ies" if self.noun.endswith("y") else f"{self.noun}s"

    @property
    def tag(self) -> str:
        """What the job store puts before this kind's batch inputs: ``""`` for people (as
        ever), ``"company:"`` for companies (:func:`lookup_pandas.enrichment.batch_plan.tagged`)."""
        return "" if self.endpoint.kind == "person" else f"{self.endpoint.kind}:"

    def params(self, value: str) -> dict[str, str]:
        """The query of ``value``'s lookup. Example: ``PEOPLE.params("ada")`` -> ``{"handle":
        "ada"}``."""
        return dict([self.endpoint.param_for(value)])

    def normalise(self, value: object, fold_case: bool = True) -> str | None:
        """The value to send for ``value``, or None when it is not one."""
        return normalise_handle(value, fold_case=fold_case, rules=self.rules)

    def invalid_error(self, value: Any, fold_case: bool = True) -> str:
        """The ``lookup_error`` of a row whose value is not one: ``"invalid handle: empty"``."""
        return self._error(invalid_reason(value, fold_case=fold_case, rules=self.rules))

    def clean(self, value: object, fold_case: bool = True) -> tuple[str | None, str | None]:
        """``(the value to send, None)``, or ``(None, the row's lookup_error)``, from one
        cleaning. Example: ``PEOPLE.clean("")`` -> ``(None, "invalid handle: empty")``."""
        handle, reason = cleaned(value, fold_case=fold_case, rules=self.rules)
        return (handle, None) if handle is not None else (None, self._error(reason))

    def _error(self, reason: str | None) -> str:
        return f"invalid {self.noun}: {reason}"


PEOPLE = Kind(ENDPOINTS["profile"], PERSON_RULES, PERSON_FIELDS, "profiles", "Profile not found")
COMPANIES = Kind(
    ENDPOINTS["company"], COMPANY_RULES, COMPANY_FIELDS, "companies", "Company not found"
)
