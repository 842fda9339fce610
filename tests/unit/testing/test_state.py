"""lookup_pandas.testing.state: the moves held for the life of the emulator, and the job-change
feed's knobs; no server."""

from __future__ import annotations

import pytest

from lookup_pandas.testing import catalog, data
from lookup_pandas.testing.state import Knobs, ServiceState


def test_moves_last_until_reset_and_configure_keeps_them():
    state = ServiceState(Knobs())
    record = state.move("ada", "globex", "CTO")
    assert record["headline"] == "CTO at Globex"
    record["headline"] = "changed by the caller"  # a copy: the state's is untouched
    assert state.world.current(data.person("ada"))["headline"] == "CTO at Globex"
    assert len(state.world.events) == 2
    assert state.world.events[0]["detected_at"] == catalog.today().isoformat()
    state.configure(job_change_rate=10)
    assert len(state.world.made) == 1
    state.reset()
    assert state.world.made == () and state.world.events == ()
    assert state.world.current(data.person("ada")) == data.person("ada")


def test_job_change_knobs():
    knobs = Knobs()
    assert knobs.job_change_rate == catalog.JOB_CHANGE_RATE == 3.0
    assert dict(knobs.job_change_rates) == {}
    assert dict(Knobs(job_change_rates={" Hooli ": 500}).job_change_rates) == {"hooli": 500.0}
    assert Knobs(job_change_rates={"hooli": 5}) == Knobs(job_change_rates={"hooli": 5.0})
    for bad in ({"job_change_rate": -1}, {"job_change_rates": {"acme": -0.5}}):
        with pytest.raises(ValueError, match="at least 0"):
            Knobs(**bad)
