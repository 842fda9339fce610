"""Unit tests for lookup_pandas.csv_chunks.part_file: a file that appears under its name only when
committed."""

from __future__ import annotations

import stat

import pytest

from lookup_pandas.csv_chunks.part_file import PartFile

# -- the part file -------------------------------------------------------------------------------


def test_part_file_appears_only_when_committed(tmp_path):
    target = tmp_path / "out.csv"
    with PartFile(target) as part:
        part.handle.write("a\n")
        (made,) = tmp_path.glob(".out.csv.*.part")
        assert not target.exists()
        part.commit()
    assert target.read_text() == "a\n" and not made.exists()
    assert list(tmp_path.iterdir()) == [target]


def test_part_file_is_removed_on_failure_and_the_old_file_kept(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    for error in (RuntimeError, KeyboardInterrupt):
        with pytest.raises(error), PartFile(target) as part:
            part.handle.write("half")
            raise error()
        assert target.read_text() == "old\n"
        assert list(tmp_path.iterdir()) == [target]


def test_part_file_keeps_the_mode_of_the_file_it_replaces_and_follows_a_link(tmp_path):
    real = tmp_path / "real.csv"
    real.write_text("old\n")
    real.chmod(0o640)
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    with PartFile(link) as part:
        assert part.path.parent == tmp_path and part.path.name.startswith(".real.csv.")
        part.handle.write("new\n")
        part.commit()
    assert link.is_symlink() and real.read_text() == "new\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640


def test_part_file_writes_utf8_without_newline_translation(tmp_path):
    target = tmp_path / "out.csv"
    with PartFile(target) as part:
        part.handle.write("é,\r\n")
        part.commit()
    assert target.read_bytes() == "é,\r\n".encode()


def test_a_part_file_no_process_writes_is_removed_by_the_next_one_of_its_target(tmp_path):
    # Issue 39: a kill -9 left a hidden part file (45 MB) that no later run removed
    target = tmp_path / "out.csv"
    abandoned = tmp_path / ".out.csv.0badf00d.part"  # its writer died: nothing holds it
    abandoned.write_text("half a file\n")
    others = [tmp_path / n for n in (".other.csv.0badf00d.part", ".out.csv.keep", "x.part")]
    for other in others:
        other.write_text("not ours\n")
    with PartFile(target) as writing:  # a live writer: locked while it writes
        assert not abandoned.exists()
        with PartFile(target) as second:
            assert writing.path.exists() and second.path.exists()
            second.discard()
        writing.handle.write("a\n")
        writing.commit()
    assert target.read_text() == "a\n"
    assert sorted(tmp_path.iterdir()) == sorted([target, *others])
