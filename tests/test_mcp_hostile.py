"""`hansard mcp serve` under hostile but realistic input: invalid
JSON and UTF-8, lone surrogates, wrong types, unknown tools, huge integers and strings; every
one gets a typed answer and the server keeps serving; it exits when its client goes away."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from hansard.mcp import limits
from tests.hostile import RawClient, add_filler, make_world, tool_error, wait_for


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Any]:
    return make_world(tmp_path)


def serve(world: dict[str, Any], *args: str) -> RawClient:
    return RawClient(world["a"], world["env"], *args)


def alive(c: RawClient) -> None:
    r = c.call("get_past_session", {"session_id": "aaaaaaaa", "limit": 1})
    assert "result" in r and not r["result"].get("isError"), r


def test_invalid_json_and_utf8_get_parse_errors(world: dict[str, Any]) -> None:
    with serve(world) as c:
        for raw in (b'{"jsonrpc": "2.0", "id": 7, "method": "tools/list"', b"not json at all",
                    b'{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"x":"\xff\xfe"}}', b"[1, NaN]"):
            c.send_raw(raw)
            r = c.reply(20)
            assert r["id"] is None and r["error"]["code"] == -32700, (raw, r)
        c.send_raw(b"[]")
        assert c.reply(20)["error"]["code"] == -32600
        c.send_raw(b'{"jsonrpc": "2.0", "id": 9, "method": 5}')
        r = c.reply(20)
        assert r["id"] == 9 and r["error"]["code"] == -32600
        alive(c)


def test_lone_surrogates_get_an_answer(world: dict[str, Any]) -> None:
    with serve(world) as c:
        # Written by hand: json.dumps would escape it the same way, but be explicit.
        c.send_raw(b'{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"search_past_sessions",'
                   b'"arguments":{"query":"abc \\ud800 def"}}}')
        r = c.reply(20)
        assert r["id"] == 41
        err = tool_error(r)
        assert err["code"] == "invalid_argument" and err["field"] == "query" and "surrogate" in err["message"]
        c.send_raw(b'{"jsonrpc":"2.0","id":42,"method":"tools/list","params":{"cursor":"\\udc80"}}')
        r = c.reply(20)
        assert r["id"] == 42 and r["error"]["code"] == -32602
        alive(c)


def test_wrong_types_huge_numbers_and_strings_are_invalid_argument(world: dict[str, Any]) -> None:
    big = "x" * (50 * 1024 * 1024)
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("get_past_session", {"session_id": 5}, "session_id"),
        ("get_past_session", {"session_id": "aaaaaaaa", "around": "ten"}, "around"),
        ("get_past_session", {"session_id": "aaaaaaaa", "around": 10**20}, "around"),
        ("get_past_session", {"session_id": "aaaaaaaa", "limit": 1.5}, "limit"),
        ("search_past_sessions", {"query": "x", "roles": "user"}, "roles"),
        ("search_past_sessions", {"query": "x", "limit": 10**30}, "limit"),
        ("search_past_sessions", {"query": "x", "mode": "telepathy"}, "mode"),
        ("search_past_sessions", {}, "query"),
        ("code_history", {"path": "app.py", "token_budget": -(10**40)}, "token_budget"),
        ("code_history", {"path": ["app.py"]}, "path"),
        ("get_memory", {"memory_id": "m", "line": True}, "line"),
        ("code_history", {"path": "app\u0000.py"}, "path"),
        ("search_past_sessions", {"query": "x", "file": "a\u0000b"}, "file"),
        ("search_past_sessions", {"query": " ".join(["word"] * (limits.MAX_QUERY_TERMS + 1))}, "query"),
        ("get_past_session", {"session_id": big}, "session_id"),
        ("code_history", {"path": big}, "path"),
        ("search_past_sessions", {"query": big}, "query"),
    ]
    with serve(world) as c:
        for tool, args, field in cases:
            r = c.call(tool, args, timeout=60)
            err = tool_error(r)
            assert err["code"] == "invalid_argument" and err["field"] == field and err["retryable"] is False, (tool, r)
            # Never echoed back: the answer stays small whatever was sent.
            assert len(json.dumps(r)) < 2000, (tool, len(json.dumps(r)))
        # A huge line is answered too, by id.
        c.send_raw(b'{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"search_past_sessions",'
                   b'"arguments":{"query":"' + b"y" * (limits.MAX_MESSAGE_BYTES + 10) + b'"}}}')
        r = c.reply(60)
        assert r["id"] == 77 and r["error"]["code"] == -32600
        alive(c)
    db = sqlite3.connect(Path(world["env"]["HANSARD_HOME"]) / "hansard.db")
    rows = db.execute("SELECT tool, outcome, error_code FROM audit WHERE error_code='invalid_argument'").fetchall()
    assert len(rows) == len(cases), rows


def test_unknown_tool_is_a_jsonrpc_error(world: dict[str, Any]) -> None:
    with serve(world) as c:
        r = c.call("no_such_tool", {})
        assert r["error"]["code"] == -32602 and "no_such_tool" in r["error"]["message"]
        r = c.request("tools/call", {"name": 12, "arguments": {}})
        assert r["error"]["code"] == -32602
        r = c.request("tools/call", {"name": "code_history", "arguments": ["app.py"]})
        assert r["error"]["code"] == -32602
        alive(c)


def test_server_exits_when_stdin_closes(world: dict[str, Any]) -> None:
    c = serve(world)
    c.initialize()
    alive(c)
    started = time.monotonic()
    assert c.close(timeout=15) == 0
    assert time.monotonic() - started < 10


def test_client_gone_mid_call_stops_the_server(world: dict[str, Any]) -> None:
    c = serve(world)
    c.initialize()
    c.send({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
            "params": {"name": "search_past_sessions", "arguments": {"query": " ".join(f"w{i}" for i in range(250))}}})
    assert c.proc.stdin is not None
    c.proc.stdin.close()
    assert wait_for(lambda: c.proc.poll() is not None, 15), "server still running after its client left"


def test_every_call_is_audited_while_an_index_holds_the_store(world: dict[str, Any]) -> None:
    path = Path(world["env"]["HANSARD_HOME"]) / "hansard.db"
    before = sqlite3.connect(path).execute("SELECT COUNT(*) FROM audit").fetchone()[0]
    c = serve(world)
    c.initialize()
    lock = sqlite3.connect(path, isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")  # what an index run holds while it writes a file
    try:
        for _ in range(4):
            alive(c)
        c.call("search_past_sessions", {"query": "x", "roles": 5})  # refused by the transport, audited too
    finally:
        lock.execute("ROLLBACK")
    assert c.close(timeout=30) == 0
    after = sqlite3.connect(path).execute("SELECT COUNT(*) FROM audit").fetchone()[0]
    assert after - before == 5


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _assert_work_stopped(c: RawClient, settle: float) -> None:
    """Once ``settle`` seconds have passed, the server burns almost no CPU for two more, and it
    never said that timed-out work was still running."""
    time.sleep(settle)
    cpu = _cpu_seconds(c.proc.pid)
    time.sleep(2.0)
    assert _cpu_seconds(c.proc.pid) - cpu < 0.3, "work kept running after its timeout"
    assert not any(b"still running" in line for line in c.stderr)


@pytest.mark.slow
def test_timed_out_slow_search_stops(world: dict[str, Any], tmp_path: Path) -> None:
    """A query that takes many seconds over a real corpus, past a limit so short that it
    passes before the worker has opened the store (nothing to interrupt yet at the timeout):
    the worker still stops soon after the reply (no CPU used after it), and the server keeps
    answering."""
    from tests.helpers import run_cli

    add_filler(tmp_path / "filler", 200)
    assert run_cli("index")[0] == 0
    query = " ".join(["lorem", "ipsum", "dolor", "sit", "amet", "elit", "reply", "filler"] * 30)
    c = RawClient(world["a"], {**world["env"], "HANSARD_TOOL_TIMEOUT": "0.001"})
    c.initialize()
    started = time.monotonic()
    r = c.call("search_past_sessions", {"query": query}, timeout=120)
    assert tool_error(r)["code"] == "tool_timeout" and time.monotonic() - started < 5, r
    _assert_work_stopped(c, settle=1.5)
    assert c.close(timeout=30) == 0


def test_timed_out_work_stops(world: dict[str, Any]) -> None:
    c = RawClient(world["a"], {**world["env"], "HANSARD_TOOL_TIMEOUT": "0.001"})
    c.initialize()
    for _ in range(3):
        r = c.call("search_past_sessions", {"query": " ".join(f"term{i} or" for i in range(120))})
        assert tool_error(r)["code"] == "tool_timeout"
    _assert_work_stopped(c, settle=1.0)
    assert c.close(timeout=15) == 0
