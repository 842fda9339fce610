"""``lookup_pandas.spark`` on a real local Spark (``local[2]``), against the emulator.

The session's ``SparkSession`` starts once, its executors given ``LOOKUP_API_KEY`` through
``spark.executorEnv`` (as the docs tell users), and stops at the end. Without pyspark or Java the
tests skip with the reason, unless ``LOOKUP_REQUIRE_SPARK=1`` (set by .ci/run): then they fail.
What is checked: the rows and values are pandas' for a messy column; each distinct handle is
billed once across partitions, and a re-run sends nothing; nothing is billed before an action;
budgets are refused on the driver with nothing sent; the key is neither in the plan nor in the
pickled functions; ``fields=``; companies; estimates; with Redis, two Spark applications at once
(this session's and a process of its own) pay once.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pandas as pd
import pytest

REQUIRE_ENV = "LOOKUP_REQUIRE_SPARK"


def _missing() -> str | None:
    if importlib.util.find_spec("pyspark") is None:
        return "pyspark is not installed (pip install 'lookup-pandas[spark]')"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "Java is not installed (apt-get install openjdk-17-jre-headless)"
    return None


if (_MISSING := _missing()) is not None:
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{REQUIRE_ENV}=1 but {_MISSING}", pytrace=False)
    pytest.skip(_MISSING, allow_module_level=True)

import cloudpickle  # noqa: E402
import pyspark  # noqa: E402
from pyspark.sql import DataFrame, SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

import lookup_pandas as lp  # noqa: E402
from lookup_pandas.enrichment.plan import Options  # noqa: E402
from lookup_pandas.frames.records import FIND_FIELDS, REVERSE_FIELDS, VERIFY_FIELDS  # noqa: E402
from lookup_pandas.integrations import spark as lps  # noqa: E402
from lookup_pandas.service.paths import (  # noqa: E402
    EMAIL_FIND_PATH,
    EMAIL_REVERSE_PATH,
    EMAIL_VERIFY_PATH,
)
from lookup_pandas.testing import PROFILE, FakeService, mailboxes  # noqa: E402

from ..enrich_helpers import spellings  # noqa: E402
from ..helpers import make_client  # noqa: E402

pytestmark = pytest.mark.timeout(300)

#: 40 people spelled four ways each (URLs, case, blanks around), an unknown one, invalid values.
PEOPLE = [f"person-{i:05d}" for i in range(40)]
VALUES = [s for h in PEOPLE for s in spellings(h)[:3] + [h.upper()]]
VALUES += ["unknown-spark", "", None, "N/A", "  ", "prsn_missing"] * 2


@pytest.fixture(scope="session")
def spark(lookup_service: FakeService) -> Iterator[SparkSession]:
    """One ``local[2]`` session for the test session, quiet, its executors given the key."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the executors' Python is ours
    session = (
        SparkSession.builder.master("local[2]")
        .appName("lookup_pandas-tests")
        .config("spark.executorEnv.LOOKUP_API_KEY", lookup_service.api_key)
        .config("spark.pyspark.python", sys.executable)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.network.timeout", "120s")
        .config("spark.driver.extraJavaOptions", "-Dlog4j2.rootLogger.level=error")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()


def leads(spark: SparkSession, partitions: int = 3) -> DataFrame:
    frame = pd.DataFrame({"lead": range(len(VALUES)), "url": pd.Series(VALUES, dtype=object)})
    return spark.createDataFrame(frame, "lead long, url string").repartition(partitions, "lead")


def client_on(svc: FakeService, tmp_path: Path, **kwargs: object) -> lp.Client:
    return make_client(svc, cache=tmp_path / "cache.sqlite", **kwargs)


def values(column: pd.Series) -> list[object]:
    """The column's values, any missing one as None (pandas and Spark spell it differently)."""
    return [None if pd.isna(v) else v for v in column.tolist()]


def in_order(sdf: DataFrame) -> pd.DataFrame:
    """The rows with their partition and position in it (as Spark gives them)."""
    tagged = sdf.withColumn("__part", F.spark_partition_id())
    return tagged.toPandas()


def test_nothing_is_billed_before_an_action_and_the_key_is_in_no_plan_or_function(
    spark: SparkSession, fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    out = leads(spark).transform(
        lambda d: lp.spark.enrich_profiles(d, "url", client=client, fields=["headline"])
    )
    assert fake_service.count() == 0
    key = fake_service.api_key
    plan = out._jdf.queryExecution().toString()
    assert "mapInPandas" in plan.replace("MapInPandas", "mapInPandas") and key not in plan
    assert key not in repr(out.schema)
    spec = lps._spec(client, "local[2]")
    run = lps.LazyRun("url", "profile_", "", lps.PEOPLE, Options(progress=False), spec)
    fetch = lps._fetcher(run, lps._named(["headline"], "profile_", lps.PEOPLE))
    for function in (fetch, lps._normaliser(run), run):  # run: all the budget check ships
        assert key.encode() not in cloudpickle.dumps(function)
    assert fake_service.count() == 0  # planning and pickling sent nothing
    assert out.count() == len(VALUES)  # an action runs it
    assert fake_service.count(PROFILE) + fake_service.count() > 0


def test_same_rows_and_values_as_pandas_each_handle_billed_once_rerun_sends_nothing(
    spark: SparkSession, fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    sdf = leads(spark)
    before = in_order(sdf)
    out = lps.enrich_profiles(sdf, "url", client=client, fields=["headline", "geo.city"])
    result = in_order(out)

    billed = fake_service.billed_handles()
    assert set(billed) == {*PEOPLE, "unknown-spark", "prsn_missing"}
    assert set(billed.values()) == {1}  # each handle paid once, whatever partition held it
    # Rows, partitions, order within them and the input columns are the input's.
    pd.testing.assert_frame_equal(result[list(before.columns)], before)
    assert list(out.columns) == [
        "lead", "url", "profile_id", "profile_handle", "profile_headline", "profile_geo.city",
        "profile_json", "lookup_status", "lookup_error",
    ]  # fmt: skip

    expected = before[["lead", "url"]].lookup.enrich_profiles("url", client=client)
    for column in ["profile_id", "profile_handle", "profile_headline", "profile_geo.city"]:
        assert values(result[column]) == values(expected[column]), column
    assert values(result["lookup_status"]) == values(expected["lookup_status"])
    assert values(result["lookup_error"]) == values(expected["lookup_error"])
    ok = result[result["lookup_status"] == "ok"]
    records = ok["profile_json"].map(json.loads)
    assert (records.map(lambda r: r["id"]) == ok["profile_id"]).all()
    assert result["lookup_status"].value_counts().to_dict() == {
        "ok": 160, "invalid": 8, "not_found": 4,
    }  # fmt: skip

    sent = fake_service.count()
    again = in_order(lps.enrich_profiles(sdf, "url", client=client, fields=["headline"]))
    assert fake_service.count() == sent  # a re-run over the warm cache sends nothing
    assert again["profile_json"].tolist() == result["profile_json"].tolist()


def test_its_own_pandas_calls_do_not_warn_of_pandas_3_and_the_users_still_do(
    spark: SparkSession, fake_service: FakeService, tmp_path: Path
) -> None:
    # pyspark 4 warns (FutureWarning) at each pandas call that it "does not yet fully support
    # pandas >= 3.0.0"; this module's calls are tested on pandas 3 with pyspark 4 and 3.5 (CI)
    client = client_on(fake_service, tmp_path)
    sdf = leads(spark)  # from a pandas frame: pyspark's warning, if it has one, is the test's
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = lps.enrich_profiles(sdf, "url", client=client, max_calls=1000)
        estimate = lps.estimate_profiles(sdf, "url", client=client)
        assert out.count() == len(VALUES) and estimate.rows == len(VALUES)
        ours = [str(w.message) for w in seen if "fully support pandas" in str(w.message)]
        assert ours == []
        out.toPandas()  # the user's own call: pyspark's warning, if it has one, is theirs
    users = [w for w in seen if "fully support pandas" in str(w.message)]
    assert len(users) == (_major(pd.__version__) >= 3 and _major(pyspark.__version__) >= 4)


def _major(version: str) -> int:
    return int(version.split(".")[0])


def test_fields_missing_ones_are_null_and_typed(
    spark: SparkSession, fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    fields = ["geo.city", "follower_count", "is_premium", "skills", "no.such_field"]
    out = lps.enrich_profiles(leads(spark), "url", client=client, fields=fields)
    types = {f.name: f.dataType.simpleString() for f in out.schema.fields}
    assert types["profile_follower_count"] == "bigint"
    assert types["profile_is_premium"] == "boolean"
    assert types["profile_no.such_field"] == types["profile_skills"] == "string"
    rows = out.where(F.col("lookup_status") == "ok").toPandas()
    assert rows["profile_no.such_field"].isna().all()  # a missing field is null, not an error
    by_json = out.select(
        F.get_json_object("profile_json", "$.geo.city").alias("city"), F.col("`profile_geo.city`")
    ).toPandas()
    assert by_json["city"].tolist() == by_json["profile_geo.city"].tolist()
    skills = rows["profile_skills"].dropna().map(json.loads)
    assert len(skills) and all(isinstance(s, list) for s in skills)


def test_provenance_tells_each_rows_source_and_time(
    spark: SparkSession, fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    first = in_order(lps.enrich_profiles(leads(spark), "url", client=client, provenance=True))
    assert list(first.columns)[-5:-1] == [  # then __part
        "lookup_error", "lookup_source", "lookup_fetched_at", "lookup_expired",
    ]  # fmt: skip
    answered = first[first["lookup_status"].isin(["ok", "not_found"])]
    assert set(answered["lookup_source"]) == {"batch"}  # 42 to buy: batch jobs
    assert answered["lookup_fetched_at"].notna().all()
    invalid = first[first["lookup_status"] == "invalid"]
    assert invalid[["lookup_source", "lookup_fetched_at", "lookup_expired"]].isna().all().all()
    again = in_order(lps.enrich_profiles(leads(spark), "url", client=client, provenance=True))
    assert set(again.loc[answered.index, "lookup_source"]) == {"cache"}
    assert (again["lookup_fetched_at"] == first["lookup_fetched_at"])[answered.index].all()
    expected = first[["lead", "url"]].lookup.enrich_profiles("url", client=client, provenance=True)
    assert values(expected["lookup_source"]) == values(again["lookup_source"])


def test_a_fetch_longer_than_the_broadcast_timeout_completes(
    spark: SparkSession, fake_service: FakeService, tmp_path: Path
) -> None:
    # With adaptive execution (Spark's default), the fetch is a stage of its own, which
    # spark.sql.broadcastTimeout does not bound: here each executor's part (about 10 handles,
    # 2 at a time, 0.3 s each) takes longer than the 1 s allowed.
    fake_service.configure(latency=0.3)
    spark.conf.set("spark.sql.broadcastTimeout", "1")
    try:
        client = client_on(fake_service, tmp_path, max_workers=2)
        out = lps.enrich_profiles(leads(spark), "url", client=client, method="single")
        assert out.where(F.col("lookup_status") == "ok").count() == 160
    finally:
        spark.conf.unset("spark.sql.broadcastTimeout")


def test_errors_raise_fails_the_action_naming_the_handle(
    spark: SparkSession, fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    out = lps.enrich_profiles(leads(spark), "url", client=client, errors="raise", method="single")
    with pytest.raises(Exception, match=r"NotFoundError[\s\S]*(unknown-spark|prsn_missing)"):
        out.count()


def test_budgets_are_refused_on_the_driver_with_nothing_sent(
    spark: SparkSession, fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    with pytest.raises(lp.BudgetExceededError, match="needs 42 billable calls"):
        lps.enrich_profiles(leads(spark), "url", client=client, max_calls=10)
    assert fake_service.count() == 0
    with pytest.raises(lp.BudgetExceededError, match="needs 42 credits"):
        lps.enrich_profiles(leads(spark), "url", client=client, max_credits=10)
    assert fake_service.stats()["credits"] == 0
    fits = lps.enrich_profiles(leads(spark), "url", client=client, max_calls=42)
    assert fits.where(F.col("lookup_status") == "ok").count() == 160


def test_companies_and_estimates(
    spark: SparkSession, fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    accounts = spark.createDataFrame(
        pd.DataFrame(
            {"slug": ["acme", "ACME", "https://www.linkedin.com/company/acme/", "", None]}
        ),
        "slug string",
    )
    estimate = lps.estimate_companies(accounts, "slug", client=client)
    assert (estimate.rows, estimate.valid, estimate.unique, estimate.to_fetch) == (5, 3, 1, 1)
    out = lps.enrich_companies(accounts, "slug", client=client, fields=["name"]).toPandas()
    assert "company_slug" in out.columns and "company_json" in out.columns
    assert out["lookup_status"].tolist()[3:] == ["invalid", "invalid"]
    expected = accounts.toPandas().lookup.enrich_companies("slug", client=client)
    assert out["lookup_status"].tolist() == expected["lookup_status"].tolist()
    assert out["company_name"].tolist()[:3] == expected["company_name"].tolist()[:3]
    assert lps.estimate_companies(accounts, "slug", client=client).to_fetch == 0
    people = lps.estimate_profiles(leads(spark), "url", client=client)
    assert (people.rows, people.valid, people.unique) == (len(VALUES), 164, 42)


def _crm(spark: SparkSession) -> DataFrame:
    """Three findable people at acme.example spelled as a CRM does, and garbage."""
    rows = []
    for p in mailboxes.prospects("acme.example", "full")[:3]:
        first, last, email = p["first_name"], p["last_name"], p["email"]
        rows += [(first, last, "acme.example", email), (first.upper(), last, email, f" {email}")]
    rows += [("Jane", "", "acme.example", "no-at-sign"), (None, "Doe", "acme", None)]
    frame = pd.DataFrame(rows, columns=["first", "last", "website", "email"], dtype=object)
    schema = "first string, last string, website string, email string"
    return spark.createDataFrame(frame, schema).repartition(2)


def _plain(value: object) -> object:
    """A cell as Spark gives it: a list as its JSON text, a missing value as None."""
    if isinstance(value, list):
        return json.dumps(value)
    return None if not isinstance(value, str | bool | int) and pd.isna(value) else value


@pytest.mark.parametrize(
    ("function", "args", "path", "prefix", "fields"),
    [
        ("find_emails", ("first", "last", "website"), EMAIL_FIND_PATH, "email_", FIND_FIELDS),
        ("verify_emails", ("email",), EMAIL_VERIFY_PATH, "verify_", VERIFY_FIELDS),
        ("reverse_emails", ("email",), EMAIL_REVERSE_PATH, "reverse_", REVERSE_FIELDS),
    ],
)
def test_the_email_functions_are_pandas_billed_once_under_the_budget(
    spark: SparkSession,
    fake_service: FakeService,
    tmp_path: Path,
    function,
    args,
    path,
    prefix,
    fields,
) -> None:
    client = client_on(fake_service, tmp_path)
    sdf = _crm(spark)
    estimate = getattr(lps, f"estimate_{function}")(sdf, *args, client=client)
    assert (estimate.rows, estimate.valid, estimate.to_fetch) == (8, 6, 3)
    with pytest.raises(lp.BudgetExceededError, match="credits"):
        getattr(lps, function)(sdf, *args, client=client, max_credits=estimate.credits - 1)
    assert fake_service.count(path) == 0

    out = getattr(lps, function)(sdf, *args, client=client).toPandas()
    assert fake_service.count(path) == 3  # each person once, whatever partition held them
    assert fake_service.stats()["credits"] == estimate.credits
    expected = getattr(out[list(sdf.columns)].lookup, function)(*args, client=client)
    assert fake_service.count(path) == 3  # pandas read the executors' answers
    added = [c for c in out.columns if c.startswith(prefix) and c != f"{prefix}json"]
    assert [c.removeprefix(prefix) for c in added] == list(fields)  # every field, then the JSON
    assert list(out.columns[-3:]) == [f"{prefix}json", "lookup_status", "lookup_error"]
    for column in [*added, "lookup_status", "lookup_error"]:
        assert list(map(_plain, out[column])) == list(map(_plain, expected[column])), column
    assert out["lookup_status"].tolist().count("invalid") == 2
    again = getattr(lps, function)(sdf, *args, client=client).count()
    assert again == 8 and fake_service.count(path) == 3  # a re-run is free


def test_people_then_companies_on_one_spark_frame(
    spark: SparkSession, fake_service: FakeService, tmp_path: Path
) -> None:
    client = client_on(fake_service, tmp_path)
    people = lps.enrich_profiles(leads(spark).withColumn("company", F.lit("acme")), "url",
                                 client=client)  # fmt: skip
    both = lps.enrich_companies(
        people, "company", prefix="acct_", client=client, fields=["name"], provenance=True
    )
    added = [c for c in both.columns if c not in people.columns]
    assert added[-5:] == ["acct_lookup_status", "acct_lookup_error", "acct_lookup_source",
                          "acct_lookup_fetched_at", "acct_lookup_expired"]  # fmt: skip
    out = both.toPandas()
    assert set(out["acct_lookup_status"]) == {"ok"} and set(out["acct_name"]) == {"Acme"}
    assert out["lookup_status"].value_counts().to_dict() == (
        people.toPandas()["lookup_status"].value_counts().to_dict()
    )
    with pytest.raises(lp.ColumnError, match="start with 'acct_'"):
        lps.enrich_companies(both, "company", prefix="acct_", client=client)


#: A second Spark application (a process with its own JVM): it plans the leads' enrichment
#: through the Redis cache, says so, and once the test's own application has planned too (a line
#: on its stdin) fetches them and prints its statuses.
APPLICATION = """
import json, sys
import pandas as pd
from pyspark.sql import SparkSession
import lookup_pandas as lp

base_url, cache, values = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "4").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
client = lp.Client(base_url=base_url, cache=cache, backoff_base=0.01, backoff_max=0.2)
sdf = spark.createDataFrame(pd.DataFrame({"url": values}), "url string").repartition(3)
out = lp.spark.enrich_profiles(sdf, "url", client=client, method="single")
print("planned", flush=True)
sys.stdin.readline()
print(json.dumps(sorted(out.toPandas()["lookup_status"].tolist())))
spark.stop()
"""


def test_two_spark_applications_at_once_pay_once_through_redis(
    spark: SparkSession, fake_service: FakeService, redis_url: str, tmp_path: Path
) -> None:
    # this test's session is one application, a process of its own the other (a JVM each): a
    # third JVM would cost as much CPU as the rest of this file's set-up
    fake_service.configure(latency=0.02)
    env = {**os.environ, "LOOKUP_API_KEY": fake_service.api_key, "PYSPARK_PYTHON": sys.executable}
    args = [APPLICATION, fake_service.base_url, redis_url, json.dumps(VALUES)]
    with (tmp_path / "other.err").open("w+") as err:
        other = subprocess.Popen(
            [sys.executable, "-c", *args], env=env, text=True, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=err,
        )  # fmt: skip
        try:
            client = make_client(fake_service, cache=redis_url)
            out = lps.enrich_profiles(leads(spark), "url", client=client, method="single")
            assert other.stdout is not None
            assert other.stdout.readline() == "planned\n", _end_of(err)
            assert other.stdin is not None
            other.stdin.write("go\n")  # this one has planned too: both fetch at once
            other.stdin.flush()
            mine = sorted(out.toPandas()["lookup_status"].tolist())
            theirs, _ = other.communicate(timeout=240)
            assert other.returncode == 0, _end_of(err)
        finally:
            if other.poll() is None:
                other.kill()
                other.wait(timeout=30)
    billed = fake_service.billed_handles()
    assert set(billed) == {*PEOPLE, "unknown-spark", "prsn_missing"}
    assert set(billed.values()) == {1}  # both applications ran; each handle was paid once
    assert json.loads(theirs.strip().splitlines()[-1]) == mine and mine.count("ok") == 160


def _end_of(err: IO[str]) -> str:
    err.seek(0)
    return err.read()[-3000:]
