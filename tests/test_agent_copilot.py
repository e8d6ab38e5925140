"""GitHub Copilot CLI event logs."""

from __future__ import annotations

from agent_helpers import AGENT_SAMPLES, edits, kinds, parse_lines, skips

from hansard.agents.copilot import events as copilot
from hansard.values.models import SessionInfo, ToolResultItem

SAMPLE = AGENT_SAMPLES / "copilot_events.jsonl"


def test_sniff():
    assert copilot.PROVIDER.sniff(SAMPLE, SAMPLE.read_bytes())
    assert not copilot.PROVIDER.sniff(SAMPLE, b'{"type":"user","message":{}}\n')


def test_written_sample(tmp_path):
    d = tmp_path / "session-state" / "5b0d8c1e-2f3a-4b5c-9d6e-7f8091a2b3c4"
    d.mkdir(parents=True)
    (d / "events.jsonl").write_bytes(SAMPLE.read_bytes())
    items, _ = parse_lines(copilot.PROVIDER, d / "events.jsonl")
    info = [i for i in items if isinstance(i, SessionInfo)]
    assert {i.session_id for i in info} == {"5b0d8c1e-2f3a-4b5c-9d6e-7f8091a2b3c4"}
    assert any(i.cwd == "/home/dev/shop" and i.version == "0.0.410" and i.git_branch == "main" for i in info)
    assert any(i.title == "reject zero quantities in add_item" for i in info)
    applied = edits(items, "applied")
    assert len(applied) == 1
    e = applied[0]
    assert (e.call_id, e.path, e.tool) == ("toolu_01", "/home/dev/shop/cart.py", "edit")
    assert e.added == ("    if qty <= 0:", '        raise ValueError("quantity must be positive")')
    assert e.hunks and e.hunks[0].new_start == 1
    assert [x.path for x in edits(items, "failed")] == ["/home/dev/shop/notes.md"]
    assert {r.call_id: r.status for r in items if isinstance(r, ToolResultItem)} == {"toolu_01": "ok", "toolu_02": "error"}
    assert kinds(items)["ToolCallItem"] == 2
    assert skips(items) == {"unused_event": 2}


def test_resume_mid_call(tmp_path):
    f = tmp_path / "s.jsonl"
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    f.write_bytes(b"".join(lines[:6]))
    first, state = parse_lines(copilot.PROVIDER, f)
    n = f.stat().st_size
    f.write_bytes(b"".join(lines))
    second, _ = parse_lines(copilot.PROVIDER, f, state, n)
    assert not edits(first) and [e.call_id for e in edits(second, "applied")] == ["toolu_01"]


def test_state_stays_json_when_arguments_nest_too_deep():
    """Found by scripts/fuzz.py: a call's arguments nested past JSON's depth limit are kept
    out of the state (the state must always be JSON); the call's edit becomes a skip."""
    import orjson

    from hansard.values.models import RawRecord

    deep: object = "x"
    for _ in range(300):
        deep = {"a": deep}
    parser = copilot.PROVIDER.new_parser("/s/events.jsonl")
    # As tool.execution_start leaves it (such a record parses with a JSON reader that allows the depth).
    parser.pending["t1"] = {"msg": "e1#tool", "name": "edit", "args": {"path": "/a.py", "deep": deep}, "ts": None}
    state = parser.state()
    orjson.loads(orjson.dumps(state))
    resumed = copilot.PROVIDER.new_parser("/s/events.jsonl", state)
    done = {"type": "tool.execution_complete", "id": "e2", "timestamp": "2026-03-03T09:00:01.000Z",
            "data": {"toolCallId": "t1", "success": True, "result": {"content": "ok"}}}
    items = resumed.feed(RawRecord("/s/events.jsonl", 10, orjson.dumps(done)))
    assert not edits(items) and skips(items)
