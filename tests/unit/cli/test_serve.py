"""lookup_pandas.cli.serve's ``--move-rate``: the moves due at each tick of the serve loop, at
most a hundred a tick, printed; an emulator that is never started, so no socket."""

from __future__ import annotations

from lookup_pandas.cli.serve import _Mover
from lookup_pandas.testing import FakeService, data
from lookup_pandas.testing.names import company_name


def test_the_moves_due_at_each_tick_and_no_burst_after_a_stall(capsys):
    svc = FakeService()
    mover = _Mover(svc, per_minute=60, start=100.0)  # one a second
    mover.tick(100.5)
    assert svc.state.world.made == ()
    mover.tick(110.2)
    assert len(svc.state.world.made) == 10
    mover.tick(110.9)
    assert len(svc.state.world.made) == 10, "nothing more is due"
    mover.tick(100.0 + 3600)  # the loop stalled for an hour: 3,590 due
    assert len(svc.state.world.made) == 10 + _Mover.MOST
    mover.tick(100.0 + 3601)
    assert len(svc.state.world.made) == 10 + _Mover.MOST + 1, "the missed moves are skipped"
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(svc.state.world.made)
    for line, move in zip(lines, svc.state.world.made, strict=True):
        assert line == f"  moved {move.handle}: {move.title} at {company_name(move.to)}"
        assert move.origin != move.to and data.person(move.handle) is not None
