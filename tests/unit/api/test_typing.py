"""What a type checker sees of the public functions and the accessor: mypy run on typed code.

``enrich_profiles`` and ``enrich_companies`` return a frame, or with ``background=True`` a job;
their overloads say so, and the accessor's methods (made by ``frame_method``) keep them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mypy import api as mypy_api

import lookup_pandas

ROOT = Path(lookup_pandas.__file__).resolve().parents[1]

FRAME = "pandas.core.frame.DataFrame"
JOB = "lookup_pandas.enrichment.background.EnrichmentJob"

#: Each line a caller may write, and the type mypy must reveal for it.
REVEALED = {
    'api.enrich_profiles(leads, "handle")': FRAME,
    'api.enrich_profiles(leads, "handle", max_calls=10, background=False)': FRAME,
    'api.enrich_profiles(leads, "handle", background=True)': JOB,
    'api.enrich_profiles(leads, "handle", background=flag)': f"{FRAME} | {JOB}",
    'api.enrich_companies(leads, "slug", max_credits=5.0)': FRAME,
    'api.enrich_companies(leads, "slug", background=True)': JOB,
    'accessor.enrich_profiles("handle")': FRAME,
    'accessor.enrich_profiles("handle", refresh=True)': FRAME,
    'accessor.enrich_profiles("handle", background=True)': JOB,
    'accessor.enrich_companies("slug")': FRAME,
    'accessor.enrich_companies("slug", background=True)': JOB,
    'accessor.estimate_profiles("handle")': "lookup_pandas.enrichment.results.Estimate",
}

SNIPPET = """\
import pandas as pd

from lookup_pandas.accessor import LookupAccessor
from lookup_pandas.api import functions as api
from lookup_pandas.enrichment.background import EnrichmentJob

leads = pd.DataFrame({{"handle": ["ada"], "slug": ["acme"]}})
accessor = LookupAccessor(leads)  # what leads.lookup is
flag = bool(len(leads))

enriched: pd.DataFrame = accessor.enrich_profiles("handle")
job: EnrichmentJob = api.enrich_companies(leads, "slug", background=True)
wrong: EnrichmentJob = api.enrich_profiles(leads, "handle")  # error: a DataFrame
api.enrich_companies(leads, "slug", max_calls="ten")  # error: the overloads type the keywords
{reveals}
"""


@pytest.fixture(scope="module")
def mypy_output(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """mypy --strict (the project's settings) on the snippet, against this checkout."""
    folder = tmp_path_factory.mktemp("typed")
    reveals = "\n".join(f"reveal_type({line})" for line in REVEALED)
    (folder / "snippet.py").write_text(SNIPPET.format(reveals=reveals))
    kept = getattr(request.config, "cache", None)  # pytest's cache: warm after the first run
    cache = kept.mkdir("mypy") if kept is not None else folder / "cache"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MYPYPATH", str(ROOT))  # this checkout's lookup_pandas, not an installed one
        patch.chdir(folder)
        stdout, stderr, _ = mypy_api.run(
            ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(cache)]
            + ["--no-error-summary", "snippet.py"]
        )
    assert not stderr, stderr
    return stdout


def _snippet_lines(output: str, kind: str) -> dict[int, str]:
    """The snippet's notes or errors by line number."""
    found = re.findall(rf"^snippet\.py:(\d+): {kind}: (.*)$", output, re.MULTILINE)
    return {int(line): text for line, text in found}


def _line_of(start: str) -> int:
    """The number of the snippet's line that starts with ``start``."""
    lines = SNIPPET.splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.startswith(start))


def test_the_overloads_and_the_accessor_give_a_frame_or_a_job(mypy_output):
    first = _line_of("{reveals}")
    notes = _snippet_lines(mypy_output, "note")
    revealed = {line: notes.get(first + i, "") for i, line in enumerate(REVEALED)}
    assert revealed == {
        line: f'Revealed type is "{expected}"' for line, expected in REVEALED.items()
    }, mypy_output


def test_a_frame_is_not_taken_for_a_job_nor_a_wrong_keyword(mypy_output):
    errors = _snippet_lines(mypy_output, "error")
    wrong = _line_of("wrong: EnrichmentJob")
    typo = _line_of('api.enrich_companies(leads, "slug", max_calls="ten")')
    assert list(errors) == [wrong, typo], mypy_output  # the other lines type-check
    assert 'expression has type "DataFrame"' in errors[wrong]
    assert "No overload variant" in errors[typo] or '"max_calls"' in errors[typo], errors[typo]
