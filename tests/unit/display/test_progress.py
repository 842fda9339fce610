"""Unit tests for lookup_pandas.display.progress.Progress: optional, never a reason for a call to
fail."""

from __future__ import annotations

import pytest
import tqdm.auto

from lookup_pandas.display.progress import Progress


class RecordingBar:
    instances: list[RecordingBar] = []

    def __init__(self, **kwargs):
        self.kwargs = kwargs
        self.n = 0
        self.total = kwargs.get("total")
        self.postfix = None
        self.closed = False
        self.refreshed = 0
        RecordingBar.instances.append(self)

    def update(self, n=1):
        self.n += n

    def set_postfix_str(self, postfix, refresh=True):
        self.postfix = postfix

    def refresh(self):
        self.refreshed += 1

    def close(self):
        self.closed = True


class BrokenBar:
    """A bar whose display is gone: every call raises."""

    calls: list[str] = []

    def __init__(self, **kwargs):
        BrokenBar.calls.append("init")

    def update(self, n=1):
        BrokenBar.calls.append("update")
        raise OSError("stderr closed")

    def set_postfix_str(self, *a, **k):
        BrokenBar.calls.append("set_postfix")
        raise RuntimeError("no widgets")

    def refresh(self):
        BrokenBar.calls.append("refresh")
        raise OSError("stderr closed")

    def close(self):
        BrokenBar.calls.append("close")
        raise ValueError("I/O operation on closed file")

    def __setattr__(self, name, value):
        if name == "total":
            BrokenBar.calls.append("total")
            raise AttributeError("read-only")
        object.__setattr__(self, name, value)


class ExplodingConstructor:
    attempts = 0

    def __init__(self, **kwargs):
        ExplodingConstructor.attempts += 1
        raise ImportError("IProgress not found. Please update jupyter and ipywidgets.")


@pytest.fixture(autouse=True)
def reset():
    RecordingBar.instances.clear()
    BrokenBar.calls.clear()


def test_progress_false_creates_no_bar(monkeypatch):
    monkeypatch.setattr(tqdm.auto, "tqdm", RecordingBar)
    with Progress(progress=False, desc="x") as bar:
        bar.update(5, pages=1)
        bar.set_total(10)
    assert RecordingBar.instances == []


@pytest.mark.parametrize("flag", [None, True])
def test_progress_none_or_true_creates_a_bar_and_forwards_updates(monkeypatch, flag):
    monkeypatch.setattr(tqdm.auto, "tqdm", RecordingBar)
    with Progress(progress=flag, desc="employees", unit="rec") as bar:
        bar.update(50, pages=1)
        bar.update(20, pages=2)
        bar.set_total(70)
    assert len(RecordingBar.instances) == 1
    made = RecordingBar.instances[0]
    assert made.kwargs["desc"] == "employees"
    assert made.kwargs["unit"] == "rec"
    assert made.n == 70
    assert made.postfix == "pages=2"  # no terminal here: every count is shown
    assert made.total == 70
    assert made.refreshed == 1
    assert made.closed is True


def test_close_twice_is_harmless(monkeypatch):
    monkeypatch.setattr(tqdm.auto, "tqdm", RecordingBar)
    p = Progress()
    p.close()
    p.close()
    p.update(3)  # after close: ignored, no error
    assert RecordingBar.instances[0].n == 0


def test_broken_bar_never_propagates(monkeypatch):
    monkeypatch.setattr(tqdm.auto, "tqdm", BrokenBar)
    with Progress(desc="x") as bar:
        bar.set_total(5)
        bar.update(1)
        bar.update(1, pages=1)
        bar.set_total(9)
    # the broken bar really was used, and its failures were swallowed
    assert {"init", "total", "update"} <= set(BrokenBar.calls)


def test_broken_bar_close_never_propagates(monkeypatch):
    monkeypatch.setattr(tqdm.auto, "tqdm", BrokenBar)
    p = Progress()
    p.close()
    assert BrokenBar.calls == ["init", "close"]


def test_broken_update_without_postfix_never_propagates(monkeypatch):
    monkeypatch.setattr(tqdm.auto, "tqdm", BrokenBar)
    p = Progress()
    p.update(2)
    p.update(2)
    p.close()
    assert "update" in BrokenBar.calls


def test_broken_bar_inside_with_block_does_not_mask_the_callers_exception(monkeypatch):
    monkeypatch.setattr(tqdm.auto, "tqdm", BrokenBar)
    with pytest.raises(KeyError), Progress() as bar:
        bar.update(1)
        raise KeyError("the caller's own error")


def test_constructor_failure_never_propagates(monkeypatch):
    monkeypatch.setattr(tqdm.auto, "tqdm", ExplodingConstructor)
    before = ExplodingConstructor.attempts
    with Progress(desc="x") as bar:
        bar.update(1, pages=1)
        bar.set_total(3)
    assert ExplodingConstructor.attempts == before + 1


# -- fitting the counts into a terminal line (issue 21, item 5) --------------------------------


def test_fit_postfix_keeps_the_most_important_counts_that_fit():
    from lookup_pandas.display.progress import fit_postfix

    fields = {"fetched": 48, "credits": 48, "jobs": "1/1", "failed": 0}
    assert fit_postfix(fields, None) == "fetched=48, credits=48, jobs=1/1, failed=0"
    assert fit_postfix(fields, 22) == "fetched=48, credits=48"
    assert fit_postfix(fields, 21) == "fetched=48"
    assert fit_postfix(fields, 3) == ""
    assert fit_postfix({}, 80) == ""


def test_fit_postfix_never_cuts_a_field_in_half():
    from hypothesis import given
    from hypothesis import strategies as st

    from lookup_pandas.display.progress import fit_postfix

    @given(
        st.dictionaries(st.sampled_from(["fetched", "credits", "cached"]), st.integers(0, 10**6)),
        st.integers(0, 120),
    )
    def check(fields, room):
        text = fit_postfix(fields, room)
        assert len(text) <= room
        shown = text.split(", ") if text else []
        assert shown == [f"{k}={v}" for k, v in fields.items()][: len(shown)]

    check()
