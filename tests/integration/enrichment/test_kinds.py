"""A kind of value bought is one declaration: a new one runs through the whole engine.

What is tested: a kind the package does not have, skills by ``skl_`` id (``GET
/skills/skill``, 0 credits in the emulator's route costs, no batch twin), declared here as a
:class:`~lookup_pandas.identifiers.kinds.Kind` with its normaliser and nothing else. Through
the engine as the public functions call it (``get_frame``, ``enriched``, ``estimate_values``),
against the emulator over loopback: each distinct id is bought once, a billed not-found and
garbage get their statuses, the summary's credits are what the emulator billed, a re-run sends
nothing, the estimate prices it at the route's cost, ``method="batch"`` and
``refresh="changed"`` are refused before anything is sent (the kind declares neither a batch
twin nor a feed), and ``method="auto"`` over many values buys by single calls.
"""

from __future__ import annotations

import pandas as pd
import pytest

from lookup_pandas.api.enriched_frames import EnrichRequest, enriched, get_frame
from lookup_pandas.enrichment.lookup import estimate_values
from lookup_pandas.enrichment.plan import Options
from lookup_pandas.errors import BatchUnavailableError, UsageError
from lookup_pandas.identifiers.kinds import Kind
from lookup_pandas.service.endpoints import ENDPOINTS
from lookup_pandas.service.paths import SKILL_PATH
from lookup_pandas.testing.catalog import search_skills

QUIET = Options(progress=False)


def skill_id(value: object, *, fold_case: bool = True) -> tuple[str | None, str | None]:
    """A skill id as written (ids are opaque: case is kept), else why the value is none."""
    text = value.strip() if isinstance(value, str) else ""
    if not text:
        return None, "empty"
    if not text.startswith("skl_") or len(text) == len("skl_"):
        return None, "not a skl_ id"
    return text, None


#: The whole declaration of the new kind.
SKILLS = Kind(
    ENDPOINTS["skill"],
    skill_id,
    {"id": "str", "name": "str", "normalized_name": "str"},
    noun="skill",
    what="a skill id",
    desc="skills",
    not_found_message="Skill not found",
)


@pytest.fixture
def known() -> list[str]:
    ids = [skill["id"] for skill in search_skills("py")]
    assert len(ids) >= 2
    return ids[:2]


def test_a_new_kind_buys_each_distinct_value_once_and_says_what_each_row_got(
    fake_service, fake_client, known
):
    values = [known[0], f"  {known[0]} ", known[1], "skl_nobody", "python", ""]
    frame = get_frame(values, client=fake_client, kind=SKILLS, options=QUIET)

    assert frame["lookup_status"].tolist() == ["ok", "ok", "ok", "not_found", "invalid", "invalid"]
    assert frame["id"].tolist()[:3] == [known[0], known[0], known[1]]
    assert frame["name"].tolist()[0] == search_skills("py")[0]["name"]
    assert frame["lookup_error"].tolist()[3:] == [
        "Skill not found",
        "invalid skill: not a skl_ id",
        "invalid skill: empty",
    ]
    assert fake_service.count(SKILL_PATH) == 3  # two skills and the not-found, each once
    assert fake_service.count(SKILL_PATH, id=known[0]) == 1
    summary = frame.attrs["lookup_summary"]
    assert summary["fetched"] == 3 and summary["requests"] == fake_service.count()  # free ones too
    assert summary["credits"] == fake_service.stats()["credits"] == 0  # the route costs 0

    again = get_frame(values, client=fake_client, kind=SKILLS, options=QUIET)
    assert again["lookup_status"].tolist() == frame["lookup_status"].tolist()
    assert fake_service.count(SKILL_PATH) == 3  # the not-found too was kept: nothing sent
    assert again.attrs["lookup_summary"]["cached"] == 3


def test_a_new_kind_enriches_a_frame_and_is_estimated_at_its_routes_cost(
    fake_service, fake_client, known
):
    frame = pd.DataFrame({"skill": [known[1], "skl_nobody", None]})
    est = estimate_values(frame["skill"], client=fake_client, kind=SKILLS)
    assert (est.rows, est.valid, est.unique, est.to_fetch, est.credits) == (3, 2, 2, 2, 0)
    assert fake_service.count(SKILL_PATH) == 0  # the estimate sent nothing billable

    out, summary = enriched(EnrichRequest(frame, "skill", "skill_", fake_client, SKILLS, QUIET))
    assert out["skill_name"].tolist()[0] == next(
        s["name"] for s in search_skills("py") if s["id"] == known[1]
    )
    assert out["lookup_status"].tolist() == ["ok", "not_found", "invalid"]
    assert frame.columns.tolist() == ["skill"]  # the caller's frame is not touched
    assert summary.fetched == est.to_fetch == fake_service.count(SKILL_PATH)


def test_what_a_kind_does_not_declare_is_refused_before_anything_is_sent(
    fake_service, fake_client, known
):
    with pytest.raises(BatchUnavailableError, match="no batch jobs of skills"):
        get_frame(known, client=fake_client, kind=SKILLS, options=Options(method="batch"))
    with pytest.raises(UsageError, match='refresh="changed" .* not for skills'):
        get_frame(known, client=fake_client, kind=SKILLS, options=Options(refresh="changed"))
    assert fake_service.count() == 0

    many = [f"skl_x{i}" for i in range(30)]  # more than a batch job's threshold
    frame = get_frame(many, client=fake_client, kind=SKILLS, options=QUIET)
    assert set(frame["lookup_status"]) == {"not_found"}
    assert fake_service.count(SKILL_PATH) == 30  # one single call each
    assert not fake_service.batch_jobs
