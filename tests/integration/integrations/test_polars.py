"""pl_df.lookup.enrich_profiles / estimate_profiles and frame="polars", against the emulator.

What is tested: a polars run gives what a pandas run gives (columns, rows, statuses, every value)
on generated lead lists; the input columns come back untouched; lists stay lists, nested objects
are flattened, text / whole numbers / flags have their polars dtypes and missing values are null;
errors="raise", max_calls and column clashes behave as in pandas, refusing before anything is
sent; each distinct handle is fetched once and a re-run is free; batch jobs; the listing
functions' frame="polars", and a bad or unusable ``frame`` sending nothing; refresh="changed"
buys only the people who moved, and gives what pandas' refresh gives.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections import Counter

import pandas as pd
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lookup_pandas as lp
from lookup_pandas import (
    BudgetExceededError,
    ColumnError,
    ConfigurationError,
    NotFoundError,
    UsageError,
)
from lookup_pandas.identifiers.handles import normalise_handle
from lookup_pandas.integrations.polars import to_polars
from lookup_pandas.service.paths import (
    EMAIL_FIND_PATH,
    EMAIL_FIND_PROFILE_PATH,
    EMAIL_REVERSE_PATH,
    EMAIL_VERIFY_PATH,
)
from lookup_pandas.testing import BATCH, EMPLOYEES, PROFILE, SEARCH, data, mailboxes

from ..enrich_helpers import expected_status, lead_frame, person_id, spellings
from ..helpers import TIER, make_client
from ..refresh.world import Tally, move_every, spread_leads

STATUS, ERROR = "lookup_status", "lookup_error"


def enrich(frame: pl.DataFrame, client, **kwargs) -> pl.DataFrame:
    kwargs.setdefault("progress", False)
    return frame.lookup.enrich_profiles("handle", client=client, **kwargs)


def pl_leads(values: list) -> pl.DataFrame:
    """The polars twin of ``lead_frame``: the handle column plus columns of the user's own."""
    n = len(values)
    return pl.DataFrame(
        {
            "handle": pl.Series(values, dtype=pl.String),
            "company": [f"co{i}" for i in range(n)],
            "score": [float(i) / 2 for i in range(n)],
        }
    )


def plain(value):
    """A cell as plain Python: every missing value (None, NaN, pd.NA) is None; a dict loses the
    keys whose value is missing (a polars struct has every key of its type, null where an
    element lacked it); numpy scalars become Python's."""
    if isinstance(value, dict):
        return {k: p for k, v in value.items() if (p := plain(v)) is not None}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    return value.item() if hasattr(value, "item") else value


def assert_same_as_pandas(got: pl.DataFrame, want: pd.DataFrame) -> None:
    """Same column names in the same order, same rows, every value equal (lists as lists)."""
    assert got.columns == [str(c) for c in want.columns]
    assert got.height == len(want)
    for name in got.columns:
        polars_values = [plain(v) for v in got[name].to_list()]
        pandas_values = [plain(v) for v in want[name].tolist()]
        assert polars_values == pandas_values, name


# -- the same answer as pandas -----------------------------------------------------------------

_example_counter = itertools.count()

_BLANKS = st.sampled_from([None, "", "   ", "\t"])


def _values(n: int):
    pool = [f"pl{n}-p{i}" for i in range(5)] + [f"unknown-pl{n}-{i}" for i in range(2)]
    spelled = st.sampled_from(pool).flatmap(
        lambda h: st.sampled_from([*spellings(h), h.upper(), f"@{h.title()}"])
    )
    return pool, st.lists(st.one_of(spelled, spelled, _BLANKS), min_size=0, max_size=14)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.data())
def test_polars_result_equals_the_pandas_result(fake_service, tmp_path, data_):
    n = next(_example_counter)
    pool, values_strategy = _values(n)
    values = data_.draw(values_strategy)
    sparse = data_.draw(st.booleans())  # records with different keys, as production may send
    fake_service.configure(sparse_records=sparse)
    frame = pl_leads(values)
    snapshot = frame.clone()

    with make_client(fake_service, cache=tmp_path / f"cache-{n}.sqlite") as client:
        out = enrich(frame, client)
        want = lead_frame(values).lookup.enrich_profiles("handle", client=client, progress=False)

    assert frame.equals(snapshot)
    assert out.columns[:3] == ["handle", "company", "score"]
    assert out.columns[-2:] == [STATUS, ERROR]
    assert out[STATUS].to_list() == [expected_status(v) for v in values]
    assert_same_as_pandas(out, want)
    # The polars run fetched each distinct handle once; the pandas run after it was all cache.
    distinct = {normalise_handle(v) for v in values} - {None}
    for h in pool:
        assert fake_service.count(PROFILE, handle=h) == (1 if h in distinct else 0), h


# -- the shape of the result -------------------------------------------------------------------


def test_input_columns_come_back_untouched(fake_service, fake_client):
    frame = pl.DataFrame(
        {
            "id": [3, None, 1, 2],
            "handle": ["ada-plin", None, "unknown-plin", " Grace-Plin/ "],
            "tags": [["a"], [], None, ["b", "c"]],
            "meta": [{"x": 1}, {"x": None}, None, {"x": 4}],
            "when": pl.Series(["2024-01-02", None, "2024-03-04", "2024-05-06"]).str.to_date(),
            "cat": pl.Series(["u", "v", "u", None], dtype=pl.Categorical),
        }
    )
    snapshot = frame.clone()

    out = enrich(frame, fake_client)

    assert frame.equals(snapshot)  # not modified
    assert out.height == frame.height
    assert out.columns[: frame.width] == frame.columns
    assert out.select(frame.columns).schema == frame.schema
    assert out.select(frame.columns).equals(frame)
    # the input's "id" is the user's; the record's is profile_id
    assert out["profile_handle"].to_list() == ["ada-plin", None, None, "grace-plin"]
    assert out[STATUS].to_list() == ["ok", "invalid", "not_found", "ok"]


def test_new_columns_are_prefixed_flattened_typed_and_null_when_missing(fake_service, fake_client):
    frame = pl_leads(["ada-pltypes", "unknown-pltypes", None, "grace-pltypes"])
    out = enrich(frame, fake_client)
    schema = out.schema

    assert schema["profile_id"] == pl.String
    assert schema["profile_handle"] == pl.String
    assert schema["profile_geo.city"] == pl.String
    assert schema["profile_primary_locale.language"] == pl.String
    assert schema["profile_follower_count"] == pl.Int64
    assert schema["profile_connection_count"] == pl.Int64
    assert schema["profile_is_open_to_work"] == pl.Boolean
    assert schema["profile_is_creator"] == pl.Boolean
    assert schema[STATUS] == pl.String and schema[ERROR] == pl.String
    assert schema["profile_skills"] == pl.List(pl.String)
    positions = schema["profile_positions"]
    assert isinstance(positions, pl.List) and isinstance(positions.inner, pl.Struct)
    organization = {f.name: f.dtype for f in positions.inner.fields}["organization"]
    assert isinstance(organization, pl.Struct)  # inside a list, objects stay objects
    # Nested objects are flattened, never a struct column.
    assert not {"profile_geo", "profile_primary_locale"} & set(out.columns)

    ada = data.person("ada-pltypes")
    row = out.row(0, named=True)
    assert row["profile_id"] == ada["id"]
    assert row["profile_geo.city"] == ada["geo"]["city"]
    assert row["profile_follower_count"] == ada["follower_count"]
    assert row["profile_is_open_to_work"] is ada["is_open_to_work"]
    assert row["profile_skills"] == ada["skills"]
    assert [plain(p) for p in row["profile_positions"]] == plain(ada["positions"])

    # No record: null, never 0, "", False, NaN or "nan".
    for i in (1, 2):
        for name in ("profile_id", "profile_geo.city", "profile_follower_count"):
            assert out[name][i] is None, name
        assert out["profile_is_open_to_work"][i] is None
        assert out["profile_skills"][i] is None
    for name, dtype in schema.items():
        if dtype == pl.String:
            assert "nan" not in out[name].to_list(), name
        if dtype.is_float():
            assert not out[name].is_nan().any(), name
    assert out[ERROR].is_null().to_list() == [True, False, False, True]


def test_an_empty_frame_gives_every_column(fake_service, fake_client):
    out = enrich(pl_leads([]), fake_client)
    want = lead_frame([]).lookup.enrich_profiles("handle", client=fake_client, progress=False)
    assert out.height == 0
    assert out.columns == [str(c) for c in want.columns]
    assert out.schema["profile_id"] == pl.String
    assert out.schema["profile_follower_count"] == pl.Int64
    assert out.schema["profile_skills"] == pl.List(pl.String)  # no row has one: its type
    assert out.schema["profile_positions"] == pl.List(pl.Struct)  # the fields production gives
    assert fake_service.count() == 0


def test_another_prefix(fake_service, fake_client):
    out = enrich(pl_leads(["ada-plprefix"]), fake_client, prefix="p.")
    assert {"p.id", "p.handle", "p.geo.city", STATUS, ERROR} <= set(out.columns)
    assert out["p.handle"].to_list() == ["ada-plprefix"]


# -- refusals and errors -----------------------------------------------------------------------


def test_raise_mode_raises_not_found(fake_service, fake_client):
    with pytest.raises(NotFoundError) as info:
        enrich(pl_leads(["ada-plraise", "unknown-plraise"]), fake_client, errors="raise")
    assert "unknown-plraise" in str(info.value)


def test_max_calls_refuses_before_sending_anything(fake_service, fake_client):
    frame = pl_leads(["a-plbudget", "b-plbudget", "c-plbudget", "A-PLBUDGET/", None])
    with pytest.raises(BudgetExceededError) as info:
        enrich(frame, fake_client, max_calls=2)
    assert info.value.needed == 3 and info.value.allowed == 2
    assert fake_service.count() == 0  # not even the tier request
    out = enrich(frame, fake_client, max_calls=3)
    assert out[STATUS].to_list() == ["ok", "ok", "ok", "ok", "invalid"]


@pytest.mark.parametrize("existing", ["profile_headline", "profile_anything"])
def test_clashing_columns_are_refused_before_anything_is_sent(fake_service, fake_client, existing):
    frame = pl_leads(["ada-plclash"]).with_columns(pl.lit("mine").alias(existing))
    with pytest.raises(ColumnError, match=existing):
        enrich(frame, fake_client)
    assert fake_service.count() == 0


def test_people_then_companies_on_one_frame_written_to_parquet_and_back(
    fake_service, fake_client, tmp_path
):
    people = enrich(pl_leads(["ada-plchain", "grace-plchain", None]), fake_client)
    both = people.lookup.enrich_companies(
        "company", prefix="acct_", client=fake_client, progress=False
    )
    assert both.select(people.columns).equals(people)  # the first run's columns, untouched
    assert both.columns[-2:] == ["acct_lookup_status", "acct_lookup_error"]
    assert both[STATUS].to_list() == ["ok", "ok", "invalid"]
    assert both["acct_lookup_status"].to_list() == ["ok", "ok", "ok"]
    path = tmp_path / "both.parquet"
    both.write_parquet(path)
    back = pl.read_parquet(path)
    assert back.equals(both) and back.schema == both.schema
    assert back.schema["profile_skills"] == pl.List(pl.String)
    assert back.schema["acct_specialties"] == pl.List(pl.String)
    # rows without a record: the nested columns have their types all the same, not Null
    none = enrich(pl_leads([None, ""]), fake_client)
    for name in ("profile_positions", "profile_skills", "profile_education"):
        assert none.schema[name] == both.schema[name], name
    none.write_parquet(tmp_path / "none.parquet")
    shared = [c for c in none.columns if c in both.columns]
    assert pl.concat([both.select(shared), none.select(shared)]).height == 5


def test_a_missing_column_is_refused_before_anything_is_sent(fake_service, fake_client):
    frame = pl.DataFrame({"url": ["ada-plmissing"]})
    with pytest.raises(ColumnError, match="handle"):
        enrich(frame, fake_client)
    with pytest.raises(ColumnError, match="handle"):
        frame.lookup.estimate_profiles("handle", client=fake_client)
    with pytest.raises(UsageError, match="prefix"):
        frame.lookup.enrich_profiles("url", prefix="", client=fake_client, progress=False)
    assert fake_service.count() == 0


# -- paying once -------------------------------------------------------------------------------


def test_each_distinct_handle_is_fetched_once_and_a_rerun_is_free(fake_service, fake_client):
    values = [*spellings("ada-plonce"), "ADA-PLONCE", "grace-plonce", "unknown-plonce", ""]
    frame = pl_leads(values)

    first = enrich(frame, fake_client)
    assert fake_service.count(PROFILE, handle="ada-plonce") == 1
    assert fake_service.count(PROFILE, handle="grace-plonce") == 1
    assert fake_service.count(PROFILE, handle="unknown-plonce") == 1
    assert fake_service.count(PROFILE) == 3
    assert first["profile_id"].to_list()[:7] == [person_id("ada-plonce")] * 7

    sent = fake_service.count()
    second = enrich(frame, fake_client)
    assert fake_service.count() == sent
    assert second.equals(first)


def test_estimate_is_the_pandas_estimate(fake_service, fake_client):
    values = ["a-plest", "b-plest", "A-PLEST/", None, "", "unknown-plest"]
    before = pl_leads(values).lookup.estimate_profiles("handle", client=fake_client)
    assert before == lead_frame(values).lookup.estimate_profiles("handle", client=fake_client)
    assert (before.rows, before.valid, before.unique, before.to_fetch) == (6, 4, 3, 3)
    assert fake_service.count(PROFILE) == 0

    enrich(pl_leads(values[:1]), fake_client)
    after = pl_leads(values).lookup.estimate_profiles("handle", client=fake_client)
    assert (after.cached, after.to_fetch) == (1, 2)


def test_batch_method_gives_the_single_result(fake_service, tmp_path):
    found = [f"plbatch{i:03d}" for i in range(30)]
    values = [*found, *found[:5], "unknown-plbatch", None, " PLBATCH001/ "]
    frame = pl_leads(values)

    with make_client(fake_service, cache=tmp_path / "batch.sqlite") as client:
        batch = enrich(frame, client, method="batch")
    assert fake_service.count(BATCH, method="POST") == 1
    assert fake_service.count(PROFILE) == 0
    assert fake_service.billed_handles() == {h: 1 for h in [*found, "unknown-plbatch"]}

    with make_client(fake_service, cache=tmp_path / "single.sqlite") as client:
        single = enrich(frame, client, method="single")
    assert fake_service.count(PROFILE) == len(found) + 1
    assert batch.equals(single)
    assert batch[STATUS].to_list() == [expected_status(v) for v in values]


# -- frame="polars" on the listing functions ---------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda **kw: lp.search_people("engineer", max_records=120, **kw),
        lambda **kw: lp.company_employees("acme", **kw),
        lambda **kw: lp.company_employees("initech", **kw),  # no employees: an empty frame
    ],
    ids=["search_people", "company_employees", "no_employees"],
)
def test_listing_as_polars_equals_the_pandas_frame(fake_service, fake_client, call):
    want = call(client=fake_client, progress=False)
    sent = fake_service.count()
    got = call(client=fake_client, progress=False, frame="polars")

    assert isinstance(got, pl.DataFrame)
    assert fake_service.count() == sent  # the same pages, from the cache
    assert got.equals(to_polars(want))
    assert_same_as_pandas(got, want)
    if got.height:
        assert got.schema["id"] == pl.String
        assert isinstance(got.schema["positions"], pl.List)  # lists stay lists


def test_listing_default_is_still_pandas(fake_service, fake_client):
    frame = lp.search_people("engineer", max_records=5, client=fake_client, progress=False)
    assert isinstance(frame, pd.DataFrame)
    assert isinstance(
        lp.search_people(
            "engineer", max_records=5, client=fake_client, progress=False, frame="pandas"
        ),
        pd.DataFrame,
    )


@pytest.mark.parametrize("frame", ["bogus", "Polars", "", None, pl.DataFrame])
def test_an_unknown_frame_is_a_usage_error_and_sends_nothing(fake_service, fake_client, frame):
    with pytest.raises(UsageError, match="frame"):
        lp.search_people("engineer", client=fake_client, progress=False, frame=frame)
    with pytest.raises(UsageError, match="frame"):
        lp.company_employees("acme", client=fake_client, progress=False, frame=frame)
    assert fake_service.count() == 0
    assert fake_service.count(SEARCH) == fake_service.count(EMPLOYEES) == 0


def test_polars_frame_without_polars_names_the_extra_and_sends_nothing(
    fake_service, fake_client, monkeypatch
):
    monkeypatch.setitem(sys.modules, "polars", None)  # as if it were not installed
    for call in (lp.search_people, lp.company_employees):
        with pytest.raises(ConfigurationError, match=r"pip install 'lookup-pandas\[polars\]'"):
            call("acme", client=fake_client, progress=False, frame="polars")
    assert fake_service.count() == 0 and fake_service.count(TIER) == 0


def test_without_pyarrow_nothing_is_sent(fake_service, fake_client, monkeypatch):
    # Converting needs pyarrow: its absence is found before any answer is paid for.
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ConfigurationError, match=r"lookup-pandas\[polars\]"):
        enrich(pl_leads(["ada-plnoarrow"]), fake_client)
    with pytest.raises(ConfigurationError, match="pyarrow"):
        lp.search_people("engineer", client=fake_client, progress=False, frame="polars")
    assert fake_service.count() == 0


def test_background_is_refused_on_polars_and_provenance_comes_as_polars_types(
    fake_service, fake_client
):
    frame = pl.DataFrame({"handle": ["ada-lovelace", None]})
    with pytest.raises(lp.UsageError, match="background=True is for pandas frames"):
        frame.lookup.enrich_profiles("handle", client=fake_client, background=True)
    assert fake_service.count() == 0  # refused before anything was sent
    out = frame.lookup.enrich_profiles("handle", client=fake_client, provenance=True)
    assert out["lookup_source"].to_list() == ["single", None]
    assert out.schema["lookup_fetched_at"] == pl.Datetime("us", "UTC")
    assert out["lookup_fetched_at"].null_count() == 1
    assert out["lookup_expired"].to_list() == [False, None]


# -- refresh="changed" -------------------------------------------------------------------------


def test_refresh_changed_rebuys_the_movers_and_gives_the_pandas_frame(fake_service, tmp_path):
    """40 leads at 8 companies, bought into a cache for polars and one for pandas; 5 move. The
    polars refresh buys exactly the 5, keeps the others' rows, and gives what the pandas refresh
    of the other cache gives; its provenance says which answers the feed checked, and when."""
    svc = fake_service
    leads = spread_leads(companies=8, each=5)
    polars_cache, pandas_cache = tmp_path / "polars.sqlite", tmp_path / "pandas.sqlite"
    with make_client(svc, cache=polars_cache) as client:
        first = enrich(pl_leads(leads), client)
    with make_client(svc, cache=pandas_cache) as client:
        lead_frame(leads).lookup.enrich_profiles("handle", client=client, progress=False)
    assert svc.billed_handles() == Counter(leads * 2)
    movers = move_every(svc, leads, 8)

    before = Tally.of(svc)
    with make_client(svc, cache=polars_cache) as client:
        out = enrich(pl_leads(leads), client, refresh="changed", provenance=True)
    by_polars = Tally.of(svc) - before
    with make_client(svc, cache=pandas_cache) as client:
        want = lead_frame(leads).lookup.enrich_profiles(
            "handle", client=client, progress=False, refresh="changed", provenance=True
        )
    by_pandas = Tally.of(svc) - before - by_polars

    assert by_polars.billed == Counter(list(movers))  # the 5, once each; nobody else
    assert by_pandas.billed == Counter(list(movers))
    assert by_polars.pages >= 1 and by_polars.credits == len(movers) + by_polars.pages
    when = ["lookup_source", "lookup_fetched_at", "lookup_expired", "lookup_checked_at"]
    assert out.columns[-len(when) :] == when
    assert_same_as_pandas(out.drop(when), want.drop(columns=when))
    moved = pl.col("handle").is_in(list(movers))
    assert out.filter(~moved).drop(when).equals(first.filter(~moved))
    headlines = dict(zip(out["handle"], out["profile_headline"], strict=True))
    assert {h: headlines[h] for h in movers} == {h: r["headline"] for h, r in movers.items()}
    assert out.schema["lookup_checked_at"] == pl.Datetime("us", "UTC")
    source = dict(zip(out["handle"], out["lookup_source"], strict=True))
    assert {h for h, s in source.items() if s == "checked"} == set(leads) - set(movers)
    assert out.filter(moved)["lookup_checked_at"].null_count() == len(movers)
    assert out.filter(~moved)["lookup_checked_at"].null_count() == 0


# -- the Email API -----------------------------------------------------------------------------


def _crm(domain: str = "acme.example") -> tuple[list[dict], pl.DataFrame]:
    """Three findable people at ``domain``, spelled as a CRM does, and garbage."""
    people = mailboxes.prospects(domain, "full")[:3]
    rows = [(p["first_name"], p["last_name"], domain, p["email"]) for p in people]
    rows += [
        (p["first_name"].upper(), p["last_name"], f"https://www.{domain}/", p["email"])
        for p in people
    ]
    rows += [("Jane", "", domain, "no-at-sign"), (None, "Doe", "x", None)]
    columns = ["first", "last", "website", "email"]
    return people, pl.DataFrame(rows, schema=columns, orient="row")


@pytest.mark.parametrize(
    ("method", "args", "path", "prefix"),
    [
        ("find_emails", ("first", "last", "website"), EMAIL_FIND_PATH, "email_"),
        ("verify_emails", ("email",), EMAIL_VERIFY_PATH, "verify_"),
        ("reverse_emails", ("email",), EMAIL_REVERSE_PATH, "reverse_"),
    ],
)
def test_the_email_functions_on_polars_are_pandas_billed_once(
    fake_service, fake_client, method, args, path, prefix
):
    people, frame = _crm()
    estimate = getattr(frame.lookup, f"estimate_{method}")(*args, client=fake_client)
    out = getattr(frame.lookup, method)(*args, client=fake_client, progress=False)

    assert fake_service.count(path) == len(people) == estimate.to_fetch  # each person once
    assert fake_service.stats()["credits"] == estimate.credits
    assert out.columns[:4] == frame.columns and out[:, :4].equals(frame)
    assert out[STATUS].to_list() == ["ok"] * 6 + ["invalid"] * 2
    want = getattr(frame.to_pandas().lookup, method)(*args, client=fake_client, progress=False)
    assert_same_as_pandas(out, want)  # read from the cache: the same columns and values
    assert fake_service.count(path) == len(people)
    assert out.select(pl.col(f"^{prefix}.*$")).width == len(want.columns) - 6
    again = getattr(frame.lookup, method)(*args, client=fake_client, progress=False)
    assert fake_service.count(path) == len(people) and again.equals(out)  # a re-run is free


def test_find_emails_by_profile_and_verified_hosts_on_polars(fake_service, fake_client):
    frame = pl.DataFrame({"url": ["https://www.linkedin.com/in/ada/", "ada", ""]})
    out = frame.lookup.find_emails(profile="url", client=fake_client, progress=False)
    assert fake_service.count(EMAIL_FIND_PROFILE_PATH) == 1
    assert out[STATUS].to_list() == ["ok", "ok", "invalid"]
    checked = out.lookup.verify_emails("email_address", client=fake_client, progress=False)
    assert checked.schema["verify_mx_hosts"] == pl.List(pl.String)
    assert checked.schema["verify_deliverable"] == pl.Boolean
