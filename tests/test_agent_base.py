"""hansard.agents.base.glued_records: a line of JSON objects glued together (a write that lost
its newline) is split into records at the byte offset of each object's first byte."""

from __future__ import annotations

import orjson

from hansard.agents.base import glued_records
from hansard.values.models import RawRecord


def test_glued_objects_keep_their_byte_offsets() -> None:
    objs = [{"type": "user", "text": "café ☕"}, {"type": "assistant", "text": "naïve 𝄞"}, {"type": "summary"}]
    parts = [orjson.dumps(o) for o in objs]
    got = glued_records(RawRecord("t.jsonl", 100, b"".join(parts)))
    assert got is not None
    assert [r.data for r in got] == parts
    assert [r.offset for r in got] == [100, 100 + len(parts[0]), 100 + len(parts[0]) + len(parts[1])]
    assert all(r.source_path == "t.jsonl" for r in got)


def test_what_is_not_a_run_of_whole_objects_is_none() -> None:
    for data in (b'{"a": 1}', b'{"a": 1}{"b":', b'{"a": 1} {"b": 2}', b'{"a": 1}[1]', b'{"a": "\xff"}{"b": 2}'):
        assert glued_records(RawRecord("t.jsonl", 0, data)) is None, data


def test_many_glued_objects_are_all_read() -> None:
    data = b'{"a":"\xc3\xa9"}' * 50_000  # each split once: the line is not re-encoded per object
    got = glued_records(RawRecord("t.jsonl", 7, data))
    assert got is not None and len(got) == 50_000
    assert got[-1].offset == 7 + len(data) - len(b'{"a":"\xc3\xa9"}')
