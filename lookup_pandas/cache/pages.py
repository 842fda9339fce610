"""Rows read straight from a SQLite file's pages: those a damaged b-tree no longer reaches.

Only rows the table's key index still lists are taken, and only with the key it lists, so an
old copy of a row left on a free page never comes back. The file format is SQLite's
(https://sqlite.org/fileformat2.html); the write-ahead log is not read.

Example:
    >>> import sqlite3, tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "t.sqlite")
    ...     conn = sqlite3.connect(path)
    ...     _ = conn.execute("CREATE TABLE t (key TEXT PRIMARY KEY, value BLOB, expires INTEGER)")
    ...     _ = conn.execute("INSERT INTO t VALUES ('a', x'0102', NULL)")
    ...     conn.commit()
    ...     conn.close()
    ...     scan(path, {1: "a"})
    {1: (1, 'a', b'\\x01\\x02', None)}
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = ["cells", "record", "scan", "varint"]

LEAF_TABLE = 0x0D  # the page type of a table b-tree's leaf
Row = tuple[int, str, object, object]  # rowid, key, value, expires


def varint(data: bytes, at: int) -> tuple[int, int]:
    """SQLite's variable-length integer at ``at``: ``(value, where the next field starts)``.

    Example:
        >>> varint(bytes([0x81, 0x00]), 0)
        (128, 2)
    """
    value = 0
    for i in range(8):
        byte = data[at + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    return (value << 8) | data[at + 8], at + 9


def record(payload: bytes) -> list[object]:
    """The values of a record (the columns of a row). A ValueError or IndexError if damaged.

    Example:
        >>> record(bytes([4, 0x0F, 0x10, 1, ord("k"), 0xAB, 0xCD, 7]))
        ['k', b'\\xab\\xcd', 7]
    """
    size, at = varint(payload, 0)
    types = []
    while at < size:
        serial, at = varint(payload, at)
        types.append(serial)
    values: list[object] = []
    at = size
    for serial in types:
        n = {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8, 7: 8}.get(serial, 0)
        if serial >= 12:
            n = (serial - 12) // 2
        field = payload[at : at + n]
        if len(field) < n:
            raise ValueError("record cut short")
        at += n
        if serial == 0:
            values.append(None)
        elif serial in (8, 9):
            values.append(serial - 8)
        elif serial <= 6:
            values.append(int.from_bytes(field, "big", signed=True))
        elif serial >= 13 and serial % 2:
            values.append(field.decode())
        elif serial >= 12:
            values.append(bytes(field))
        else:
            raise ValueError(f"serial type {serial} is not one a cache row holds")
    return values


def cells(page: bytes, usable: int, header_at: int = 0) -> Iterator[tuple[int, bytes, int, int]]:
    """Each cell of a table leaf page: ``(rowid, local payload, total size, first overflow
    page)`` (0: none). Nothing for another kind of page; a damaged cell ends the page.

    Example:
        >>> list(cells(bytes(4096), 4096))  # zeros: no leaf
        []
    """
    if page[header_at] != LEAF_TABLE:
        return
    count = int.from_bytes(page[header_at + 3 : header_at + 5], "big")
    limit = usable - 35
    least = (usable - 12) * 32 // 255 - 23
    with contextlib.suppress(IndexError, ValueError):
        for i in range(count):
            pointer = header_at + 8 + 2 * i
            at = int.from_bytes(page[pointer : pointer + 2], "big")
            total, at = varint(page, at)
            rowid, at = varint(page, at)
            local = total
            if total > limit:
                k = least + (total - least) % (usable - 4)
                local = k if k <= limit else least
            overflow = 0
            if local < total:
                overflow = int.from_bytes(page[at + local : at + local + 4], "big")
            yield rowid, page[at : at + local], total, overflow


def scan(path: Path, wanted: dict[int, str]) -> dict[int, Row]:
    """The rows of ``wanted`` (rowid -> the key its index lists) found on any page of ``path``.

    A row is taken only when its key is the one listed, and its record reads whole.
    """
    found: dict[int, Row] = {}
    if not wanted:
        return found
    with path.open("rb") as f:
        header = f.read(100)
        size = int.from_bytes(header[16:18], "big")
        size = 65536 if size == 1 else size
        usable = size - header[20]
        most = path.stat().st_size  # no payload is larger than the file

        def page(number: int) -> bytes:
            f.seek((number - 1) * size)
            return f.read(size)

        number = 0
        while len(data := page(number := number + 1)) == size:
            for rowid, local, total, overflow in cells(data, usable, 100 if number == 1 else 0):
                if rowid not in wanted or rowid in found or total > most:
                    continue  # a size beyond the file's: a damaged cell
                payload = _whole(local, total, overflow, page, usable)
                with contextlib.suppress(IndexError, ValueError, UnicodeDecodeError):
                    key, value, expires = record(payload)
                    if key == wanted[rowid]:
                        found[rowid] = (rowid, key, value, expires)
    return found


def _whole(
    local: bytes, total: int, overflow: int, page: Callable[[int], bytes], usable: int
) -> bytes:
    """The payload, its overflow pages followed: never more pages than its size needs."""
    parts = [local]
    have = len(local)
    while overflow and have < total:
        data = page(overflow)
        part = data[4 : 4 + min(usable - 4, total - have)]
        if not part:
            break
        overflow = int.from_bytes(data[:4], "big")
        parts.append(part)
        have += len(part)
    return b"".join(parts)
