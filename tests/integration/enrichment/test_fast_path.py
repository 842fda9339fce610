"""The default method against a service without batch jobs is as fast as single calls (issue
22, item 2): the claims a refused submit took are let go of as "nothing bought", so a single
call buys at once instead of looking in the cache again and again for an answer not coming."""

from __future__ import annotations

import pandas as pd

import lookup_pandas as lp  # noqa: F401  registers df.lookup
from lookup_pandas.testing import BATCH

from ..helpers import cache_reads, make_client

HANDLES = [f"fast{i:03d}-lead" for i in range(60)]


def test_auto_without_batch_jobs_reads_each_answer_from_the_cache_at_most_twice(
    fake_service, tmp_path
):
    fake_service.configure(batch=False)
    with (
        make_client(fake_service, cache=tmp_path / "c.sqlite") as client,
        cache_reads(client) as reads,
    ):
        out = pd.DataFrame({"handle": HANDLES}).lookup.enrich_profiles(
            "handle", client=client, progress=False
        )
    assert out["lookup_status"].tolist() == ["ok"] * len(HANDLES)
    assert fake_service.count(BATCH, method="POST") == 1  # the one refused submit
    # once before the submit (what is cached?), once by the single call: not 1 + 5 looks
    assert len(reads) <= 2 * len(HANDLES), len(reads)
    assert fake_service.billed_handles() == {h: 1 for h in HANDLES}


def test_an_answer_bought_elsewhere_after_the_read_ahead_is_not_bought_again(
    fake_service, tmp_path
):
    # A value the read-ahead missed is looked up once more by its single call, right before it
    # claims: an answer another process bought in between is found, not bought twice.
    cache = tmp_path / "c.sqlite"
    handles = HANDLES[:3]
    with (
        make_client(fake_service, cache=cache) as client,
        make_client(fake_service, cache=cache) as other,
    ):
        client.parts.contact.learn_pace()
        original = client.parts.cache.read_ahead

        def read_ahead(keys, kind, tally=None):
            answers = original(keys, kind, tally)
            other.profile(handles[0])  # bought by "another process" right after the read
            return answers

        client.parts.cache.read_ahead = read_ahead  # type: ignore[method-assign]
        out = pd.DataFrame({"handle": handles}).lookup.enrich_profiles(
            "handle", client=client, progress=False, max_calls=10, method="single"
        )
    assert out["lookup_status"].tolist() == ["ok"] * 3
    assert fake_service.billed_handles() == {h: 1 for h in handles}
