"""A transcript's lines are read the same whatever the size of the blocks the file is read in:
each line's exact bytes (a CR before its newline dropped, blank lines skipped) at its offset, the
resume offset just past each, and an unfinished last line held back unless it is a whole object."""

from __future__ import annotations

from pathlib import Path

import pytest

from hansard.ingest import reader

LONG = b'{"b":"' + b"x" * 100 + b'"}'
DATA = b'{"a":1}\r\n\n  \n' + LONG + b'\n\t\r\n{"c":3}\n'


def _read(path: Path, start: int = 0, stop_at: int | None = None) -> tuple[list[tuple[int, bytes, int]], int, int]:
    """(offset, bytes, resume offset when it was given) of each record, then the end and the unfinished tail."""
    res = reader.ReadResult(start)
    out = [(r.offset, r.data, res.end) for r in reader.iter_jsonl(str(path), start, res, stop_at=stop_at)]
    return out, res.end, res.partial_tail


@pytest.mark.parametrize("block", [1, 2, 3, 7, 64, 1 << 20])
@pytest.mark.parametrize("tail", [b"", b'{"d":', b'{"d":4}'])
def test_lines_are_the_same_whatever_the_block_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int,
                                                    tail: bytes) -> None:
    monkeypatch.setattr(reader, "BLOCK", block)
    p = tmp_path / "t.jsonl"
    p.write_bytes(DATA + tail)
    b_at = DATA.index(LONG)
    c_at = DATA.index(b'{"c":3}')
    expected = [(0, b'{"a":1}', 9), (b_at, LONG, b_at + len(LONG) + 1), (c_at, b'{"c":3}', len(DATA))]
    if tail == b'{"d":4}':
        assert _read(p) == (expected + [(len(DATA), tail, len(DATA) + len(tail))], len(DATA) + len(tail), 0)
    else:
        assert _read(p) == (expected, len(DATA), len(tail))
    # from the offset after the first line, and stopping inside the long one
    whole, end, partial = _read(p)
    assert _read(p, 9) == (whole[1:], end, partial)
    assert _read(p, 0, b_at + 10) == (expected[:1], b_at, 10)
