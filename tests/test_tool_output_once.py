"""A tool call's output that is word for word its tool-result message's text is stored once
(hansard/store/sqlite/writer.py, migration m027), and every reader still gets it back: after a
rewind between the call and its result, after the result message is rewritten, and when the
call came from another source.

Every test runs twice: each record's items applied and finished on their own, and a whole
file's records written before one ``finish``, as the index does (the writer then holds a call
back until its result comes, and writes both in one row)."""

from __future__ import annotations

import pytest

from hansard.ingest import redact
from hansard.store import as_store
from hansard.store.sqlite.db import connect
from hansard.values.models import MessageItem, Rewind, ToolCallItem, ToolResultItem
from tests.helpers import dump

OUT = "collected 3 items\n\ntests/test_retry.py ...  [100%]\n3 passed in 0.02s"


def _call(sid: str = "s1", call: str = "c1") -> list:
    return [MessageItem(sid, f"{call}-use", "assistant", "", kind="tool_use"),
            ToolCallItem(sid, call, "Bash", {"command": "pytest -q"}, f"{call}-use")]


def _result(sid: str = "s1", call: str = "c1", text: str = OUT, replace: bool = False) -> list:
    return [MessageItem(sid, f"{call}-result", "tool", text, kind="tool_result", replace=replace),
            ToolResultItem(sid, call, "ok", text, exit_code=0, message_key=f"{call}-result")]


_FINISH_ONCE = False


@pytest.fixture(autouse=True, params=["record by record", "one finish a file"])
def _mode(request: pytest.FixtureRequest) -> None:
    global _FINISH_ONCE
    _FINISH_ONCE = request.param == "one finish a file"


def _write(store, source: str, records: list[list]) -> None:
    once = _FINISH_ONCE
    with store.archive.transaction():
        sid = store.archive.add_source(source, "claude_code")
        w = store.items.writer(sid, "claude_code", redact)
        for offset, items in enumerate(records):
            if once:
                w.write(store.items.preparer()(items, redact), offset)
            else:
                w.apply(items, offset)
        w.finish()
        store.items.index_text()


def _stored(store) -> list[tuple]:
    return store.db.execute("SELECT call_id, output, output_message_id IS NOT NULL FROM tool_calls ORDER BY id").fetchall()


def _outputs(store) -> list[str | None]:
    (row,) = store.db.execute("SELECT id FROM sessions WHERE session_id='s1'").fetchall()
    return [r["output"] for r in store.evidence.session_tool_calls(row[0], ["Bash"])]


def test_output_equal_to_its_result_message_is_stored_once_and_read_back() -> None:
    store = as_store(connect())
    _write(store, "/t/a.jsonl", [[MessageItem("s1", "u1", "user", "run the tests")], _call(), _result()])
    assert [tuple(r) for r in _stored(store)] == [("c1", None, 1)]
    assert _outputs(store) == [OUT]
    (calls,) = [v for k, v in dump(store.db).items() if k == "tool_calls"]
    assert [c[5] for c in calls] == [OUT]


def test_a_different_output_keeps_its_own_copy() -> None:
    store = as_store(connect())
    items = _result()
    items[1] = ToolResultItem("s1", "c1", "ok", OUT + "\n(exit 0)", exit_code=0, message_key="c1-result")
    _write(store, "/t/a.jsonl", [_call(), items])
    assert [tuple(r) for r in _stored(store)] == [("c1", OUT + "\n(exit 0)", 0)]


def test_rewind_between_call_and_result_keeps_the_output() -> None:
    store = as_store(connect())
    _write(store, "/t/a.jsonl", [_call(), _result(), [MessageItem("s1", "after", "user", "next")]])
    # Rewinding to the result message removes it, while the call before it stays.
    _write(store, "/t/a.jsonl.2", [[Rewind("s1", "c1-result")]])
    assert [tuple(r) for r in _stored(store)] == [("c1", OUT, 0)]
    assert _outputs(store) == [OUT]


def test_rewritten_result_message_leaves_the_calls_output_as_it_was() -> None:
    store = as_store(connect())
    _write(store, "/t/a.jsonl", [_call(), _result()])
    _write(store, "/t/a.jsonl.2", [[_result(text="rewritten", replace=True)[0]]])
    assert store.db.execute("SELECT text FROM messages WHERE key='c1-result'").fetchone()[0] == "rewritten"
    assert _outputs(store) == [OUT]


def test_a_call_from_another_source_keeps_its_own_copy() -> None:
    store = as_store(connect())
    _write(store, "/t/a.jsonl", [_call()])
    _write(store, "/t/b.jsonl", [_result()])
    assert [tuple(r) for r in _stored(store)] == [("c1", OUT, 0)]
    store.items.clear_source(2)
    assert _outputs(store) == [OUT]


def test_one_message_is_the_output_of_one_call_only() -> None:
    store = as_store(connect())
    result = [MessageItem("s1", "r", "tool", OUT, kind="tool_result"),
              ToolResultItem("s1", "c1", "ok", OUT, message_key="r"),
              ToolResultItem("s1", "c2", "ok", OUT, message_key="r")]
    _write(store, "/t/a.jsonl", [_call("s1", "c1") + _call("s1", "c2"), result])
    assert sorted(tuple(r) for r in _stored(store)) == [("c1", None, 1), ("c2", OUT, 0)]
    assert _outputs(store) == [OUT, OUT]


def test_a_call_already_stored_gets_its_result_from_a_later_read() -> None:
    """The call's row is there from an earlier read of the same source; the file read again
    repeats the call and adds its result (the held-back call is not inserted again, and the
    result reaches the row already there, and is stored once: the row is this source's)."""
    store = as_store(connect())
    _write(store, "/t/a.jsonl", [_call()])
    with store.archive.transaction():
        w = store.items.writer(1, "claude_code", redact)
        prep = store.items.preparer()
        w.write(prep(_call(), redact), 5)
        w.write(prep(_result(), redact), 6)
        w.finish()
        store.items.index_text()
    assert [tuple(r) for r in _stored(store)] == [("c1", None, 1)]
    assert w.counts["tool_calls"] == 0
    assert _outputs(store) == [OUT]


def test_a_result_without_its_call_is_a_counted_skip() -> None:
    store = as_store(connect())
    _write(store, "/t/a.jsonl", [[ToolResultItem("s1", "nowhere", "ok", "x", message_key=None)]])
    assert store.db.execute("SELECT reason FROM skips").fetchall()[0][0] == "orphan_tool_result"
    assert _stored(store) == []
