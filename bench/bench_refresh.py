"""Refresh: a weekly refresh="changed" of 5,000 leads over 1,000 companies, 3% of them moved.

Figures: the credits the refresh spent / the credits of buying the 5,000 anew (goal <= 0.10),
and its elapsed time / (the calls it made / the rate limit) (goal <= 1.15). The leads are
bought, a week passes (time-machine moves the clock of this process, the emulator's included),
150 of them move, and the refresh runs with single calls, at the emulator's default feed (3
events per 1,000 employees a day at every company), under production's fastest tier (550
calls a minute). About 5% of the emulator's people have no position: the feed cannot check
them, and their answers, a week old, have expired (``expire_after``): they are bought anew
(``not checkable``). Also shown: the feed pages read, and that
every mover shows its new title.
"""

from __future__ import annotations

import datetime as dt
import tempfile
import time
from pathlib import Path

import pandas as pd
import time_machine
from common import goal

from lookup_pandas import Client
from lookup_pandas.api.functions import enrich_with_summary
from lookup_pandas.testing import FakeService

COMPANIES, PER_COMPANY, MOVED_SHARE, LIMIT = 1000, 5, 0.03, 550  # production's fastest tier


def main() -> None:
    slugs = [f"co-{i:04d}" for i in range(COMPANIES)]
    handles = [f"{s}-employee-{j:05d}" for s in slugs for j in range(PER_COMPANY)]
    frame = pd.DataFrame({"handle": handles})
    moved = handles[:: round(1 / MOVED_SHARE)]
    with FakeService(rate_limit_per_minute=LIMIT) as svc, tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "c.sqlite"
        with Client(api_key=svc.api_key, base_url=svc.base_url, cache=cache) as client:
            enrich_with_summary(frame, "handle", client=client, progress=False)
        full = svc.billed()
        full_profiles = svc.billed("/api/data/v1/people/profile")
        for i, handle in enumerate(moved):
            svc.move(handle, to=slugs[(i * 7 + 3) % COMPANIES], title="Head of Data")
        week_later = dt.datetime.now(dt.UTC) + dt.timedelta(days=7)
        with time_machine.travel(week_later, tick=True):
            before = svc.billed()
            with Client(api_key=svc.api_key, base_url=svc.base_url, cache=cache) as client:
                client.parts.contact.learn_pace()
                started = time.perf_counter()
                out, summary = enrich_with_summary(
                    frame, "handle", client=client, progress=False, refresh="changed",
                    method="single",
                )  # fmt: skip
                elapsed = time.perf_counter() - started
                calls = client.stats.sent
        spent = svc.billed() - before
        counts = summary.refresh
        assert counts is not None
        ratio = spent / full
        bound = calls / (LIMIT / 60)
        headline = out.set_index("handle")["profile_headline"]
        new_titles = int(headline.loc[moved].str.startswith("Head of Data").sum())
        rebought = counts.moved + counts.busy + counts.uncheckable
        print(
            f"   {len(handles)} leads at {COMPANIES} companies, {len(moved)} moved: "
            f"{spent:g} credits for a full re-buy of {full:g}; ratio {ratio:.3f} "
            f"{goal(ratio <= 0.10)} (goal <= 0.10); feed pages {counts.feed_pages}; "
            f"moved and bought {counts.moved}, kept {counts.unchanged}, not checkable (no "
            f"position, expired: bought) {counts.uncheckable}, busy {counts.busy}; movers "
            f"showing their new title {new_titles} of {len(moved)}; bought {rebought} = billed "
            f"profiles {svc.billed('/api/data/v1/people/profile') - full_profiles}"
        )
        print(
            f"   elapsed {elapsed:.2f} s for {calls} calls at {LIMIT}/min; bound {bound:.2f} s; "
            f"ratio {elapsed / bound:.3f} {goal(elapsed / bound <= 1.15)} (goal <= 1.15); "
            f"ok rows {int((out['lookup_status'] == 'ok').sum())}"
        )


if __name__ == "__main__":
    main()
