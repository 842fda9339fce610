"""Waiting for answers another live process is buying shows on the bar, and nothing is bought
twice (issue 21, item 2)."""

from __future__ import annotations

import threading

import pandas as pd

import lookup_pandas as lp  # noqa: F401  registers df.lookup
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.store import namespace, store_path
from lookup_pandas.store.local import LocalStore

from ..helpers import make_client

HANDLES = ["ada-lovelace", "grace-hopper", "alan-turing"]


def test_the_bar_says_how_many_handles_another_process_is_buying(fake_service, tmp_path, capsys):
    cache = tmp_path / "c.sqlite"
    with make_client(fake_service, cache=cache) as client:
        keys = client.parts.cache.keys(HANDLES[:2], PEOPLE)
        # Another holder (a live one: this process) is buying two of the three.
        other = LocalStore(
            store_path(cache), namespace(fake_service.api_key, fake_service.base_url)
        )
        assert set(other.claim_many(list(keys.values()), ttl=60.0).values()) == {"mine"}
        let_go = threading.Timer(1.5, lambda: other.release_many(list(keys.values())))
        let_go.start()
        try:
            out = pd.DataFrame({"handle": HANDLES}).lookup.enrich_profiles(
                "handle", client=client, method="single"
            )
        finally:
            let_go.cancel()
            other.close()
    err = capsys.readouterr().err
    assert "waiting=2 handles another process is buying" in err, err[-2000:]
    assert out["lookup_status"].tolist() == ["ok"] * 3
    # It let go without buying them (a failure, say): each is bought once, here.
    assert fake_service.billed_handles() == {h: 1 for h in HANDLES}
