"""df.lookup.enrich_profiles / estimate_profiles against the emulator over loopback."""

from __future__ import annotations

import copy
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lookup_pandas as lp  # noqa: F401  registers df.lookup
from lookup_pandas import (
    AuthenticationError,
    BudgetExceededError,
    ColumnError,
    NotFoundError,
    ServiceError,
)
from lookup_pandas.identifiers.handles import normalise_handle
from lookup_pandas.testing import data

from ..enrich_helpers import (
    AfterN,
    FailHandles,
    expected_status,
    lead_frame,
    person_id,
    profile_counts,
    spellings,
)
from ..helpers import PROFILE, TIER, data_count, make_client

STATUS, ERROR = "lookup_status", "lookup_error"


def enrich(frame, client, **kwargs):
    kwargs.setdefault("progress", False)
    return frame.lookup.enrich_profiles("handle", client=client, **kwargs)


def estimate(frame, client):
    return frame.lookup.estimate_profiles("handle", client=client)


def is_str_dtype(series: pd.Series) -> bool:
    return str(series.dtype) == "str"


# -- the shape of the result ---------------------------------------------------------------------


def test_result_is_a_new_frame_and_the_input_is_unchanged(fake_service, fake_client):
    frame = lead_frame(
        ["ada-shape", " grace-shape/ ", None, "unknown-shape", ""], index=[10, 20, 30, 40, 50]
    )
    before = frame.copy(deep=True)
    snapshot = copy.deepcopy(frame)

    out = enrich(frame, fake_client)

    assert out is not frame
    pd.testing.assert_frame_equal(frame, before)
    pd.testing.assert_frame_equal(frame, snapshot)
    assert list(frame.columns) == ["handle", "company", "score"]
    # Same index and order; the input columns untouched and first.
    assert out.index.equals(frame.index)
    assert list(out.columns[:3]) == ["handle", "company", "score"]
    pd.testing.assert_frame_equal(out[frame.columns], frame)


def test_new_columns_are_prefixed_flattened_and_typed(fake_service, fake_client):
    frame = lead_frame(["ada-cols", "unknown-cols", None, "grace-cols"])
    out = enrich(frame, fake_client)

    for col in (
        "profile_id",
        "profile_handle",
        "profile_first_name",
        "profile_geo.city",
        "profile_geo.country_code",
        "profile_follower_count",
        "profile_skills",
        "profile_positions",
        "profile_is_open_to_work",
        "profile_primary_locale.language",
        STATUS,
        ERROR,
    ):
        assert col in out.columns, col
    assert list(out.columns[-2:]) == [STATUS, ERROR]
    assert not any(c in out.columns for c in ("profile_geo", "profile_primary_locale", "id"))

    assert str(out["profile_follower_count"].dtype) == "Int64"
    assert str(out["profile_is_open_to_work"].dtype) == "boolean"
    assert is_str_dtype(out["profile_id"]) and is_str_dtype(out["profile_geo.city"])
    assert is_str_dtype(out[STATUS]) and is_str_dtype(out[ERROR])
    assert out["profile_skills"].dtype == object
    assert isinstance(out["profile_skills"].iloc[0], list)
    assert isinstance(out["profile_positions"].iloc[3], list)

    ada = data.person("ada-cols")
    row = out.iloc[0]
    assert row["profile_id"] == ada["id"]
    assert row["profile_handle"] == "ada-cols"
    assert row["profile_geo.city"] == ada["geo"]["city"]
    assert row["profile_follower_count"] == ada["follower_count"]
    assert row["profile_skills"] == ada["skills"]
    # No record: missing, not 0 / "" / False.
    for i in (1, 2):
        assert pd.isna(out["profile_id"].iloc[i])
        assert pd.isna(out["profile_follower_count"].iloc[i])
        assert pd.isna(out["profile_is_open_to_work"].iloc[i])
    # lookup_error is NaN exactly where there is no error.
    assert out[ERROR].isna().tolist() == [True, False, False, True]
    assert isinstance(out[ERROR].iloc[0], float) and math.isnan(out[ERROR].iloc[0])


def test_non_unique_index_is_kept_in_order(fake_service, fake_client):
    frame = lead_frame(["b-dup", "a-dup", "b-dup", None, "c-dup"], index=[7, 7, 3, 7, 0])
    out = enrich(frame, fake_client)
    assert out.index.tolist() == [7, 7, 3, 7, 0]
    assert out["handle"].tolist()[:3] == ["b-dup", "a-dup", "b-dup"]
    assert out["profile_handle"].iloc[:3].tolist() == ["b-dup", "a-dup", "b-dup"]
    assert out["company"].tolist() == frame["company"].tolist()
    assert out[STATUS].tolist() == ["ok", "ok", "ok", "invalid", "ok"]
    assert fake_service.count(PROFILE, handle="b-dup") == 1


def test_multiindex_is_kept(fake_service, fake_client):
    index = pd.MultiIndex.from_tuples(
        [("eu", 2), ("us", 1), ("eu", 2), ("eu", 1)], names=["region", "batch"]
    )
    frame = lead_frame(["x-multi", "https://www.example.com/in/y-multi/", "", "x-multi"], index)
    before = frame.copy(deep=True)
    out = enrich(frame, fake_client)
    pd.testing.assert_frame_equal(frame, before)
    assert out.index.equals(index)
    assert out.index.names == ["region", "batch"]
    assert out["profile_handle"].tolist()[:2] == ["x-multi", "y-multi"]
    assert out[STATUS].tolist() == ["ok", "ok", "invalid", "ok"]
    pd.testing.assert_frame_equal(out[frame.columns], frame)


def test_string_dtype_input_column(fake_service, fake_client):
    frame = pd.DataFrame({"handle": pd.array(["ada-str", None, "  "], dtype="str")})
    out = enrich(frame, fake_client)
    assert out[STATUS].tolist() == ["ok", "invalid", "invalid"]
    pd.testing.assert_series_equal(out["handle"], frame["handle"])


def test_unknown_column_is_a_column_error(fake_service, fake_client):
    frame = lead_frame(["ada"])
    with pytest.raises(ColumnError, match="nope"):
        frame.lookup.enrich_profiles("nope", client=fake_client, progress=False)
    assert fake_service.count() == 0


# -- statuses --------------------------------------------------------------------------------------


def test_statuses_ok_not_found_invalid_error(fake_service, tmp_path):
    fake_service.override(PROFILE, FailHandles({"broken-st"}))
    values = ["ada-st", "unknown-st", None, float("nan"), "", "  ", "broken-st", pd.NA]
    with make_client(fake_service, cache=tmp_path / "c.sqlite", max_retries=1) as client:
        out = enrich(lead_frame(values), client)

    assert out[STATUS].tolist() == [
        "ok",
        "not_found",
        "invalid",
        "invalid",
        "invalid",
        "invalid",
        "error",
        "invalid",
    ]
    errors = out[ERROR].tolist()
    assert pd.isna(errors[0])
    assert "not found" in errors[1].lower()
    assert errors[2] == "invalid handle: missing" and errors[3] == "invalid handle: missing"
    assert errors[4] == "invalid handle: empty" and errors[5] == "invalid handle: empty"
    assert "500" in errors[6] or "server error" in errors[6].lower()
    assert errors[7] == "invalid handle: missing"
    # The error row has no record.
    assert pd.isna(out["profile_id"].iloc[6]) and pd.isna(out["profile_id"].iloc[1])
    # max_retries=1: two attempts for the failing handle, one for each other; nothing else.
    assert fake_service.count(PROFILE, handle="broken-st") == 2
    assert fake_service.count(PROFILE) == 4


def test_invalid_values_are_never_sent(fake_service, fake_client):
    out = enrich(
        lead_frame(
            [
                None,
                float("nan"),
                "",
                "   ",
                "\t",
                pd.NA,
                "https://www.example.com/company/acme",
                "a b",
            ]
        ),
        fake_client,
    )
    assert set(out[STATUS]) == {"invalid"}
    assert out[ERROR].notna().all()
    assert fake_service.count(PROFILE) == 0
    assert fake_service.count() == 0  # nothing to fetch: not even the tier request


def test_failed_answers_are_not_cached_and_retried_next_run(fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    fake_service.override(PROFILE, FailHandles({"flaky-st"}))
    with make_client(fake_service, cache=cache, max_retries=0) as client:
        first = enrich(lead_frame(["flaky-st", "ok-st"]), client)
    assert first[STATUS].tolist() == ["error", "ok"]
    fake_service.override(PROFILE, None)
    with make_client(fake_service, cache=cache) as client:
        assert estimate(lead_frame(["flaky-st", "ok-st"]), client).to_fetch == 1
        second = enrich(lead_frame(["flaky-st", "ok-st"]), client)
    assert second[STATUS].tolist() == ["ok", "ok"]
    assert fake_service.count(PROFILE, handle="ok-st") == 1
    assert fake_service.count(PROFILE, handle="flaky-st") == 2


# -- each distinct handle once ---------------------------------------------------------------------


def test_each_distinct_handle_requested_once_across_spellings(fake_service, fake_client):
    fake_service.configure(latency=0.05)
    handles = [f"sp{i}-once" for i in range(6)] + ["unknown-sp-once"]
    values = [s for h in handles for s in spellings(h)]
    rng = np.random.default_rng(7)
    values = [values[i] for i in rng.permutation(len(values))]

    out = enrich(lead_frame(values), fake_client)

    assert profile_counts(fake_service, handles) == {h: 1 for h in handles}
    assert fake_service.count(PROFILE) == len(handles)
    for h in handles:
        assert fake_service.max_in_flight(PROFILE, handle=h) == 1
    # Joined to every row holding it.
    for value, (_, row) in zip(values, out.iterrows(), strict=True):
        h = normalise_handle(value)
        if h.startswith("unknown"):
            assert row[STATUS] == "not_found" and pd.isna(row["profile_id"])
        else:
            assert row[STATUS] == "ok"
            assert row["profile_handle"] == h
            assert row["profile_id"] == person_id(h)


def test_second_enrichment_is_free(fake_service, fake_client):
    frame = lead_frame(["a-free", "b-free", "unknown-free", "a-free"])
    first = enrich(frame, fake_client)
    sent = fake_service.count()
    second = enrich(frame, fake_client)
    pd.testing.assert_frame_equal(first, second)
    assert fake_service.count() == sent
    assert fake_service.count(PROFILE) == 3


_example_counter = itertools.count()

_BLANKS = st.sampled_from([None, float("nan"), "", "   ", "\t"])


def _frames(n: int):
    pool = [f"hyp{n}-p{i}" for i in range(5)] + [f"unknown-hyp{n}-{i}" for i in range(2)]
    spelled = st.sampled_from(pool).flatmap(lambda h: st.sampled_from(spellings(h)))
    values = st.lists(st.one_of(spelled, spelled, _BLANKS), min_size=0, max_size=14)

    def with_index(vals):
        k = len(vals)
        index = st.one_of(
            st.just(None),
            st.lists(st.integers(0, 3), min_size=k, max_size=k),  # non-unique, usually
            st.lists(st.sampled_from(["a", "b", "c"]), min_size=k, max_size=k),
            st.lists(
                st.tuples(st.sampled_from(["x", "y"]), st.integers(0, 1)), min_size=k, max_size=k
            ).map(lambda ts: pd.MultiIndex.from_tuples(ts) if ts else None),
        )
        return index.map(lambda ix: (vals, ix))

    return pool, values.flatmap(with_index)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.data())
def test_enrichment_invariants(fake_service, tmp_path, data_):
    n = next(_example_counter)
    pool, frames = _frames(n)
    values, index = data_.draw(frames)
    frame = lead_frame(values, index=index)
    snapshot = copy.deepcopy(frame)

    with make_client(fake_service, cache=tmp_path / f"cache-{n}.sqlite") as client:
        out = enrich(frame, client)

    pd.testing.assert_frame_equal(frame, snapshot)  # input untouched
    assert out.index.equals(frame.index)
    assert len(out) == len(frame)
    assert list(out.columns[: frame.shape[1]]) == list(frame.columns)
    pd.testing.assert_frame_equal(out[frame.columns], frame)
    assert out[STATUS].tolist() == [expected_status(v) for v in values]
    for value, status, error, got_handle, got_id in zip(
        values, out[STATUS], out[ERROR], out["profile_handle"], out["profile_id"], strict=True
    ):
        if status == "ok":
            h = normalise_handle(value)
            assert got_handle == h and got_id == person_id(h)
            assert pd.isna(error)
        else:
            assert isinstance(error, str) and error
            assert pd.isna(got_id)

    distinct = {normalise_handle(v) for v in values} - {None}
    for h in pool:
        assert fake_service.billed(PROFILE, handle=h) == (1 if h in distinct else 0), h
        assert fake_service.count(PROFILE, handle=h) == (1 if h in distinct else 0), h


# -- errors="raise" --------------------------------------------------------------------------------


def test_raise_mode_not_found_raises(fake_service, fake_client):
    frame = lead_frame(["ada-raise", "unknown-raise"])
    with pytest.raises(NotFoundError) as info:
        enrich(frame, fake_client, errors="raise")
    assert "unknown-raise" in str(info.value)


def test_raise_mode_persistent_server_error_raises(fake_service, tmp_path):
    fake_service.override(PROFILE, FailHandles({"broken-raise"}))
    with (
        make_client(fake_service, cache=tmp_path / "c.sqlite", max_retries=1) as client,
        pytest.raises(ServiceError) as info,
    ):
        enrich(lead_frame(["broken-raise"]), client, errors="raise")
    assert not isinstance(info.value, NotFoundError)
    assert "broken-raise" in str(info.value)
    assert fake_service.count(PROFILE, handle="broken-raise") == 2


def test_raise_mode_cached_not_found_raises_without_sending(fake_service, fake_client):
    frame = lead_frame(["unknown-cached-raise", "ok-cached-raise"])
    coerced = enrich(frame, fake_client)
    assert coerced[STATUS].tolist() == ["not_found", "ok"]
    sent = fake_service.count()
    with pytest.raises(NotFoundError):
        enrich(frame, fake_client, errors="raise")
    assert fake_service.count() == sent


def test_raise_mode_invalid_rows_do_not_raise(fake_service, fake_client):
    out = enrich(lead_frame(["ada-inv", None, "", "  ", float("nan")]), fake_client, errors="raise")
    assert out[STATUS].tolist() == ["ok", "invalid", "invalid", "invalid", "invalid"]


def test_coerce_mode_records_failures_and_goes_on(fake_service, tmp_path):
    fake_service.override(PROFILE, FailHandles({"broken-co"}))
    values = ["broken-co", "unknown-co-x", "a-co", "b-co"]
    with make_client(fake_service, cache=tmp_path / "c.sqlite", max_retries=0) as client:
        out = enrich(lead_frame(values), client, errors="coerce")
    assert out[STATUS].tolist() == ["error", "not_found", "ok", "ok"]
    assert profile_counts(fake_service, values) == {h: 1 for h in values}


def test_bad_errors_argument_is_refused(fake_service, fake_client):
    with pytest.raises(ValueError, match="errors"):
        enrich(lead_frame(["ada"]), fake_client, errors="ignore")
    assert fake_service.count() == 0


# -- max_calls ------------------------------------------------------------------------------------


def test_max_calls_refuses_before_sending_anything(fake_service, fake_client):
    frame = lead_frame(["a-budget", "b-budget", "c-budget", "a-budget/", None])
    before = frame.copy(deep=True)
    with pytest.raises(BudgetExceededError) as info:
        enrich(frame, fake_client, max_calls=2)
    assert info.value.needed == 3
    assert info.value.allowed == 2
    assert isinstance(info.value, ServiceError)
    assert fake_service.count() == 0  # no profile request, not even the tier request
    assert fake_service.count(TIER) == 0
    pd.testing.assert_frame_equal(frame, before)


def test_max_calls_zero_refuses_any_fetch(fake_service, fake_client):
    with pytest.raises(BudgetExceededError) as info:
        enrich(lead_frame(["z-budget"]), fake_client, max_calls=0)
    assert (info.value.needed, info.value.allowed) == (1, 0)
    assert fake_service.count() == 0


def test_max_calls_equal_to_what_is_needed_works(fake_service, fake_client):
    frame = lead_frame(["a-eq", "b-eq", "unknown-eq", "a-eq"])
    out = enrich(frame, fake_client, max_calls=3)
    assert out[STATUS].tolist() == ["ok", "ok", "not_found", "ok"]
    assert fake_service.count(PROFILE) == 3


def test_cached_handles_do_not_count_against_max_calls(fake_service, fake_client):
    enrich(lead_frame(["a-cc", "b-cc", "unknown-cc"]), fake_client)
    assert fake_service.count(PROFILE) == 3
    bigger = lead_frame(["a-cc", "b-cc", "unknown-cc", "c-cc", "d-cc"])
    sent = fake_service.count()
    with pytest.raises(BudgetExceededError) as info:
        enrich(bigger, fake_client, max_calls=1)
    assert (info.value.needed, info.value.allowed) == (2, 1)
    assert fake_service.count() == sent
    out = enrich(bigger, fake_client, max_calls=2)
    assert out[STATUS].tolist() == ["ok", "ok", "not_found", "ok", "ok"]
    assert fake_service.count(PROFILE) == 5
    # Everything cached: max_calls=0 is enough.
    again = enrich(bigger, fake_client, max_calls=0)
    pd.testing.assert_frame_equal(again, out)
    assert fake_service.count(PROFILE) == 5


def test_negative_max_calls_is_refused(fake_service, fake_client):
    with pytest.raises(ValueError):
        enrich(lead_frame(["ada"]), fake_client, max_calls=-1)
    assert fake_service.count() == 0


# -- estimate_profiles ---------------------------------------------------------------------------


def test_estimate_before_and_after_a_partial_enrichment(fake_service, fake_client):
    values = [
        "a-est",
        " a-est/ ",
        "b-est",
        "c-est",
        "unknown-est",
        None,
        "",
        "   ",
        "https://www.example.com/in/c-est/",
    ]
    frame = lead_frame(values)
    before = frame.copy(deep=True)

    first = estimate(frame, fake_client)
    assert first == lp.Estimate(
        rows=9,
        valid=6,
        unique=4,
        cached=0,
        to_fetch=4,
        method="single",
        seconds=pytest.approx(4 * 60 / (0.95 * 6000)),
        credits=4.0,
        balance=fake_service.balance,
    )  # 4 to fetch: too few for a batch job; at the pace of the tier read for the balance
    assert (first.rows, first.valid, first.unique, first.cached, first.to_fetch) == (9, 6, 4, 0, 4)
    # A brand-new client: nothing billable; only free account reads for the credits: the tier
    # (it says which balance route is the account's, and teaches the pace), the balance, the
    # route costs and the ladder.
    assert data_count(fake_service) == 0 and fake_service.count(TIER) == 1

    enrich(lead_frame(["b-est", "unknown-est"]), fake_client)
    sent_data = data_count(fake_service)

    second = estimate(frame, fake_client)
    assert (second.rows, second.valid, second.unique, second.cached, second.to_fetch) == (
        9,
        6,
        4,
        2,
        2,
    )
    assert data_count(fake_service) == sent_data  # the balance is read again, nothing billable
    pd.testing.assert_frame_equal(frame, before)

    enrich(frame, fake_client)
    assert fake_service.count(PROFILE) == 4
    third = estimate(frame, fake_client)
    assert (third.cached, third.to_fetch) == (4, 0)


def test_estimate_matches_what_enrich_then_sends(fake_service, fake_client):
    enrich(lead_frame(["m1-est", "m2-est"]), fake_client)
    frame = lead_frame(["m1-est", "m2-est", "m3-est", "m4-est", "unknown-m-est", "m3-est"])
    est = estimate(frame, fake_client)
    sent = fake_service.count(PROFILE)
    enrich(frame, fake_client)
    assert fake_service.count(PROFILE) - sent == est.to_fetch == 3


def test_estimate_of_an_empty_frame(fake_service, fake_client):
    est = estimate(lead_frame([]), fake_client)
    assert (est.rows, est.valid, est.unique, est.cached, est.to_fetch) == (0, 0, 0, 0, 0)
    assert fake_service.count() == 0


# -- refresh ---------------------------------------------------------------------------------------


def test_refresh_fetches_every_handle_again(fake_service, fake_client):
    handles = ["a-ref", "b-ref", "unknown-ref"]
    frame = lead_frame(handles + ["a-ref/", None])
    first = enrich(frame, fake_client)
    assert profile_counts(fake_service, handles) == {h: 1 for h in handles}
    second = enrich(frame, fake_client, refresh=True)
    assert profile_counts(fake_service, handles) == {h: 2 for h in handles}
    pd.testing.assert_frame_equal(first, second)
    # And the refreshed answers are cached again: a plain run sends nothing.
    enrich(frame, fake_client)
    assert profile_counts(fake_service, handles) == {h: 2 for h in handles}


# -- column collisions -----------------------------------------------------------------------------


@pytest.mark.parametrize("existing", ["profile_id", "lookup_status", "lookup_error"])
def test_existing_column_is_not_overwritten(fake_service, fake_client, existing):
    frame = lead_frame(["a-clash", "b-clash"])
    frame[existing] = ["mine", "mine too"]
    before = frame.copy(deep=True)
    if existing == "profile_id":  # the run's prefix: refused
        with pytest.raises(ValueError, match=existing):
            enrich(frame, fake_client)
    else:  # a status name taken: the run's statuses take its prefix
        out = enrich(frame, fake_client)
        assert out[existing].tolist() == ["mine", "mine too"]
        assert out["profile_lookup_status"].tolist() == ["ok", "ok"]
    pd.testing.assert_frame_equal(frame, before)


def test_another_prefix_avoids_the_clash_without_paying_again(fake_service, fake_client):
    frame = lead_frame(["a-prefix", "b-prefix"])
    frame["profile_id"] = ["crm-1", "crm-2"]
    with pytest.raises(ValueError, match="profile_id"):
        enrich(frame, fake_client)
    assert fake_service.count(PROFILE) == 0  # refused before paying for anything
    out = enrich(frame, fake_client, prefix="person_")
    assert out["profile_id"].tolist() == ["crm-1", "crm-2"]
    assert out["person_id"].tolist() == [person_id("a-prefix"), person_id("b-prefix")]
    assert "person_geo.city" in out.columns
    assert fake_service.count(PROFILE) == 2


# -- authentication failure mid-run ---------------------------------------------------------------


def test_authentication_failure_stops_the_run_and_resume_pays_once(fake_service, tmp_path):
    cache = tmp_path / "auth.sqlite"
    workers, n_ok = 4, 8
    handles = [f"auth{i:02d}-mid" for i in range(24)]
    frame = lead_frame(handles + handles[:5])
    fake_service.configure(latency=0.02)
    fake_service.override(PROFILE, AfterN(n_ok, fake_service.revoke_key))

    with (
        make_client(fake_service, cache=cache, max_workers=workers) as client,
        pytest.raises(AuthenticationError),
    ):
        enrich(frame, client, method="single")  # errors="coerce": authentication still raises

    forbidden = fake_service.count(PROFILE, status=403)
    answered = fake_service.count(PROFILE, status=200)
    assert 1 <= forbidden <= workers  # only the calls already in flight
    assert answered >= n_ok
    assert answered + forbidden == fake_service.count(PROFILE)
    assert answered < len(handles)

    fake_service.override(PROFILE, None)
    new_key = fake_service.issue_key()
    with make_client(fake_service, api_key=new_key, cache=cache) as client:
        est = estimate(frame, client)
        assert est.cached == answered  # every paid answer was kept
        assert est.to_fetch == len(handles) - answered
        sent = fake_service.count(PROFILE)
        out = enrich(frame, client, method="single")
    assert fake_service.count(PROFILE) - sent == est.to_fetch
    assert set(out[STATUS]) == {"ok"}
    assert {h: fake_service.billed(PROFILE, handle=h) for h in handles} == {h: 1 for h in handles}


def test_authentication_failure_at_the_start_sends_no_profile_request(fake_service, tmp_path):
    # The key is refused by the first request (the credits-tier lookup that sets the pace):
    # every further call would fail the same way, so the run raises without sending them.
    fake_service.revoke_key()
    fake_service.configure(latency=0.2)  # both workers are waiting when the refusal arrives
    with (
        make_client(fake_service, cache=tmp_path / "c.sqlite", max_workers=2) as client,
        pytest.raises(AuthenticationError),
    ):
        enrich(lead_frame(["a-auth0", "b-auth0"]), client)
    assert fake_service.count(TIER, status=403) == 1
    assert fake_service.count(PROFILE) == 0


# -- progress --------------------------------------------------------------------------------------


def test_progress_bar_on(fake_service, fake_client, capsys):
    frame = lead_frame(["a-prog", "b-prog", "unknown-prog", None])
    out = enrich(frame, fake_client, progress=True)
    assert out[STATUS].tolist() == ["ok", "ok", "not_found", "invalid"]
    assert "profiles" in capsys.readouterr().err
    quiet = enrich(frame, fake_client, progress=False)
    pd.testing.assert_frame_equal(out, quiet)


def test_broken_tqdm_does_not_break_enrichment(fake_service, fake_client, monkeypatch):
    import tqdm.auto

    def broken(*args, **kwargs):
        raise RuntimeError("no display")

    monkeypatch.setattr(tqdm.auto, "tqdm", broken)
    frame = lead_frame(["a-brk", "unknown-brk", ""])
    out = enrich(frame, fake_client, progress=True)
    assert out[STATUS].tolist() == ["ok", "not_found", "invalid"]
    assert out["profile_id"].iloc[0] == person_id("a-brk")
    assert fake_service.count(PROFILE) == 2


def test_tqdm_failing_mid_run_does_not_break_enrichment(fake_service, fake_client, monkeypatch):
    import tqdm.auto

    class Flaky:
        def __init__(self, *args, **kwargs):
            pass

        def update(self, n=1):
            raise OSError("stderr closed")

        def set_postfix(self, *args, **kwargs):
            raise OSError("stderr closed")

        def close(self):
            raise OSError("stderr closed")

    monkeypatch.setattr(tqdm.auto, "tqdm", Flaky)
    handles = [f"f{i}-flaky-bar" for i in range(6)]
    out = enrich(lead_frame(handles), fake_client, progress=True)
    assert out[STATUS].tolist() == ["ok"] * 6
    assert out["profile_id"].tolist() == [person_id(h) for h in handles]


def test_a_malformed_url_cell_is_invalid_and_does_not_abort_the_run(fake_service, fake_client):
    frame = lead_frame(["a-malformed", "https://[broken/in/b-malformed", "c-malformed"])
    out = enrich(frame, fake_client)
    assert out[STATUS].tolist() == ["ok", "invalid", "ok"]
    assert fake_service.count(PROFILE) == 2


def test_refresh_counts_every_handle_against_max_calls(fake_service, fake_client):
    # With refresh=True every distinct handle is billed again, cached or not, so the budget
    # applies to all of them, and it is refused before anything is sent.
    frame = pd.DataFrame({"handle": ["budget-a", "budget-b", "budget-c", "budget-a"]})
    frame.lookup.enrich_profiles("handle", client=fake_client, progress=False)
    before = fake_service.count()
    with pytest.raises(lp.BudgetExceededError) as info:
        frame.lookup.enrich_profiles(
            "handle", client=fake_client, refresh=True, max_calls=2, progress=False
        )
    assert (info.value.needed, info.value.allowed) == (3, 2)
    assert fake_service.count() == before
    out = frame.lookup.enrich_profiles(
        "handle", client=fake_client, refresh=True, max_calls=3, progress=False
    )
    assert out["lookup_status"].eq("ok").all()
    assert fake_service.count() - before == 3
    assert {h: fake_service.billed(PROFILE, handle=h) for h in ("budget-a", "budget-b")} == {
        "budget-a": 2,
        "budget-b": 2,
    }
