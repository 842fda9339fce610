"""Enriched frames saved and read back, and enrichments chained on one frame, over loopback.

What is tested: an enriched frame, one filtered from it and one concatenated from two of its
parts write to parquet, feather and pickle with no warning and read back with the same values
and dtypes, and ``df.lookup.summary`` gives the run's JobSummary again; CSV and Excel (nested
cells as JSON text, ``to_csv_cells``) read back with the same values and keep no summary.
People, then companies, then people again on one frame: each run's statuses (and provenance)
under names that say which run they belong to, the earlier columns untouched; a run whose
prefix would overwrite columns is refused before anything is sent, with advice that helps.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.frames.records import to_csv_cells
from lookup_pandas.service.paths import COMPANY_PATH
from lookup_pandas.testing import PROFILE, FakeService

from ..enrich_helpers import plain
from ..helpers import make_client

HANDLES = ["ada-saved", "grace-saved", "ADA-SAVED", "unknown-saved", "", None, "linus-saved"]
COMPANIES = ["acme", "globex", "acme", "unknown-co", "initech", None, "https://acme.com"]


def leads() -> pd.DataFrame:
    return pd.DataFrame({"lead": range(len(HANDLES)), "handle": HANDLES, "company": COMPANIES})


@pytest.fixture
def enriched(fake_service: FakeService, tmp_path: Path) -> Iterator[pd.DataFrame]:
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        yield leads().lookup.enrich_profiles(
            "handle", client=client, progress=False, provenance=True
        )


def assert_same_values(got: pd.DataFrame, want: pd.DataFrame) -> None:
    assert list(got.columns) == list(want.columns)
    for name in want.columns:
        assert [plain(v) for v in got[name]] == [plain(v) for v in want[name]], name


@pytest.mark.parametrize("fmt", ["parquet", "feather", "pickle"])
def test_a_frame_saved_in_a_format_that_keeps_attrs_comes_back_with_its_summary(
    enriched: pd.DataFrame, tmp_path: Path, fmt: str
) -> None:
    summary = enriched.lookup.summary
    assert isinstance(summary, lp.JobSummary) and summary.fetched == 4
    ok = enriched[enriched["lookup_status"] == "ok"]
    joined = pd.concat([enriched.iloc[:3], enriched.iloc[3:]])
    for frame in (enriched, ok, joined):
        path = tmp_path / f"enriched.{fmt}"
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            getattr(frame, f"to_{fmt}")(path)
            back: pd.DataFrame = getattr(pd, f"read_{fmt}")(path)
        assert back.lookup.summary == summary
        nested = [c for c in frame.columns if frame[c].dtype == object]
        assert "profile_positions" in nested and "profile_skills" in nested
        flat = frame.drop(columns=nested)
        pd.testing.assert_frame_equal(back.drop(columns=nested), flat)  # values and dtypes
        assert_same_values(back[nested], frame[nested])  # lists of dicts (arrays from arrow)


@pytest.mark.parametrize("fmt", ["csv", "excel"])
def test_a_frame_saved_as_text_cells_comes_back_with_the_same_values(
    fake_service: FakeService, tmp_path: Path, fmt: str
) -> None:
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        enriched = leads().lookup.enrich_profiles("handle", client=client, progress=False)
    path = tmp_path / ("enriched.xlsx" if fmt == "excel" else "enriched.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(to_csv_cells(enriched), f"to_{fmt}")(path, index=False)
        if fmt == "csv":
            back = pd.read_csv(path, keep_default_na=False, na_values=[""])
        else:
            back = pd.read_excel(path, keep_default_na=False, na_values=[""])
    assert back.lookup.summary is None  # CSV and Excel keep no attrs
    nested = [c for c in enriched.columns if enriched[c].dtype == object]
    parsed = back[nested].map(lambda v: json.loads(v) if isinstance(v, str) else v)
    assert_same_values(parsed, enriched[nested])
    flat = [c for c in enriched.columns if c not in nested]
    assert_same_values(back[flat], enriched[flat].replace("", None))  # text has no "" apart


def test_people_then_companies_then_people_again_on_one_frame(
    fake_service: FakeService, tmp_path: Path
) -> None:
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        people = leads().lookup.enrich_profiles("handle", client=client, progress=False)
        both = people.lookup.enrich_companies(
            "company", prefix="acct_", client=client, progress=False, provenance=True
        )
        again = both.lookup.enrich_profiles(
            "handle", prefix="again_", client=client, progress=False, provenance=True
        )
    pd.testing.assert_frame_equal(both[people.columns], people)  # the first run's, untouched
    pd.testing.assert_frame_equal(again[both.columns], both)
    assert people.columns[-2:].tolist() == ["lookup_status", "lookup_error"]
    added = [c for c in both.columns if c not in people.columns]
    assert added[-5:] == [
        "acct_lookup_status",
        "acct_lookup_error",
        "acct_lookup_source",
        "acct_lookup_fetched_at",
        "acct_lookup_expired",
    ]
    assert all(c.startswith("acct_") for c in added)
    assert both["lookup_status"].tolist() == ["ok", "ok", "ok", "not_found"] + ["invalid"] * 2 + [
        "ok"
    ]
    assert (
        both["acct_lookup_status"].tolist()
        == ["ok", "ok", "ok", "not_found", "ok"] + ["invalid"] * 2
    )
    assert both.loc[0, "acct_name"] == "Acme" and both.loc[0, "acct_lookup_source"] == "single"
    assert fake_service.count(COMPANY_PATH) == 4  # each distinct company bought once
    assert again.lookup.summary is not None and again.lookup.summary.credits == 0
    assert set(again["again_lookup_source"].dropna()) == {"cache"}
    assert (again["again_lookup_status"] == both["lookup_status"]).all()
    assert both.lookup.summary is not None and both.lookup.summary.fetched == 4  # the last run's


def test_a_run_whose_prefix_would_overwrite_columns_is_refused_before_sending(
    fake_service: FakeService, tmp_path: Path
) -> None:
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        people = leads().lookup.enrich_profiles("handle", client=client, progress=False)
        both = people.lookup.enrich_companies("company", prefix="acct_", client=client)
        sent = fake_service.count()
        for frame, enrich, column, prefix in (
            (both, "enrich_companies", "company", "acct_"),
            (people, "enrich_profiles", "handle", "profile_"),
        ):
            with pytest.raises(lp.ColumnError, match=f"start with '{prefix}'") as info:
                getattr(frame.lookup, enrich)(column, prefix=prefix, client=client)
            assert "Pass another prefix=" in str(info.value)
            assert "--prefix" in info.value.cli_message
            assert "lookup_status" not in str(info.value)  # not among what would be overwritten
    assert fake_service.count() == sent  # nothing was sent
    assert fake_service.count(PROFILE) == 4
