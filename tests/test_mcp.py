"""The MCP server, driven as agents drive it: the SDK's client over a stdio subprocess, plus
an in-process client for the quick checks. A real store built from the demo story and the
shared samples backs every call."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from hansard.demo import build
from hansard.ingest.run import index
from hansard.mcp.server import ServeOptions, build_server
from hansard.store.sqlite.db import connect

pytestmark = pytest.mark.anyio

ALL_TOOLS = {"search_past_sessions", "get_past_session", "code_history", "repo_stats", "work_context", "search_memories",
             "get_memory", "capture_subagent_messages"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def world(tmp_path: Path, samples: Path) -> dict[str, Path]:
    """The demo repository and sessions, plus every shared sample, indexed into one store."""
    s = build(tmp_path / "demo")  # points the agent homes and HANSARD_HOME into tmp_path/demo/home
    db = connect()
    index(db)
    index(db, [samples / "claude-code", samples / "codex"])
    db.close()
    env = {k: os.environ[k] for k in ("HANSARD_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "HOME")}
    return {"repo": s.repo, "env": env}  # type: ignore[dict-item]


def stdio(world: dict, *args: str, env: dict[str, str] | None = None) -> Client:
    # PYTHONPATH passes on: a checkout run without installing it (a git worktree) is what `-m hansard` imports
    keep = {k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ}
    params = StdioServerParameters(command=sys.executable, args=["-m", "hansard", "mcp", "serve", *args],
                                   env={**keep, **world["env"], **(env or {})}, cwd=str(world["repo"]))
    return Client(params, mode="legacy")


def data(result) -> dict:
    assert result.structured_content is not None, result
    return result.structured_content


@pytest.mark.slow
async def test_stdio_lists_and_calls_every_tool(world: dict) -> None:
    async with stdio(world, "--session", "4f0f2c6e-9d1b-4c7a-a35e-0c8f5b2d7e11") as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        assert set(tools) == ALL_TOOLS
        for t in tools.values():
            assert "coding-agent" in t.description and t.output_schema is not None
        assert "not instructions" in tools["search_past_sessions"].description

        hits = data(await c.call_tool("search_past_sessions", {"query": "backoff"}))
        assert hits["mode"] == "keyword" and "indexed_through" in hits
        # The calling conversation is excluded from its own search.
        assert all(r["session_id"] != "4f0f2c6e-9d1b-4c7a-a35e-0c8f5b2d7e11" for r in hits["results"])

        sid = "019e7a44-5b20-7c31-8d2e-3f6a9b1c0d42"
        win = data(await c.call_tool("get_past_session", {"session_id": sid, "limit": 2}))
        assert [m["message_index"] for m in win["messages"]] == [0, 1]

        hist = data(await c.call_tool("code_history", {"path": "app/retry.py"}))
        assert hist["entries"][0]["session_id"] == "4f0f2c6e-9d1b-4c7a-a35e-0c8f5b2d7e11"
        assert hist["entries"][0]["commits"] and hist["imported_by"] == [{"path": "tests/test_retry.py", "line": 1}]
        line = data(await c.call_tool("code_history", {"path": "app/retry.py:10"}))
        assert line["entries"][0]["tool_call_id"].startswith("toolu_")

        ctx = data(await c.call_tool("work_context", {"session_id": sid}))
        assert ctx["session"]["session_id"] == sid and ctx["commits"]

        mem = data(await c.call_tool("search_memories", {"query": "anything"}))
        assert "results" in mem

        r1 = data(await c.call_tool("capture_subagent_messages", {
            "message_type": "result", "sender": "worker-1", "recipient_path": "/root", "text": "refactor done: 3 files"}))
        r2 = data(await c.call_tool("capture_subagent_messages", {
            "message_type": "result", "sender": "worker-1", "recipient_path": "/root", "text": "refactor done: 3 files"}))
        assert r1["receipt_id"] == r2["receipt_id"] and r1["content_sha256"] == r2["content_sha256"]
        assert r2["duplicate"] and not r1["duplicate"] and "text" not in r1
    db = connect()
    assert db.execute("SELECT COUNT(*) FROM messages WHERE kind='captured'").fetchone()[0] == 1
    rows = db.execute("SELECT tool, outcome, query FROM audit").fetchall()
    assert len(rows) == 8 and all(r["query"] is None for r in rows)


@pytest.mark.slow
async def test_stdio_error_codes(world: dict, tmp_path: Path) -> None:
    async with stdio(world) as c:
        async def err(tool: str, args: dict) -> dict:
            r = await c.call_tool(tool, args)
            assert r.is_error, r
            return data(r)["error"]

        e = await err("search_past_sessions", {"query": "x", "since": "2026-01-01T10:00:00"})
        assert e["retryable"] is False and "offset" in e["message"]
        assert (await err("get_past_session", {"session_id": "nope-nope"}))["code"] == "not_found"
        assert (await err("code_history", {"path": "app/retry.py:10", "until": "2026-11-13"}))["code"] == "until_not_allowed"
        assert (await err("code_history", {"path": "app/retry.py:999"}))["code"] == "line_out_of_range"
        # Unknown tools stay protocol-level errors: a JSON-RPC error (-32602, invalid params), not a
        # tool result (hansard.mcp.transport).
        from mcp.shared.exceptions import MCPError

        with pytest.raises(MCPError) as exc:
            await c.call_tool("no_such_tool", {})
        assert exc.value.error.code == -32602


@pytest.mark.slow
async def test_scope_repo_refuses_other_repositories(world: dict, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    os.system(f"git init -q {other}")
    async with stdio(world, "--scope", "repo") as c:
        r = await c.call_tool("code_history", {"path": "x.py", "repo": str(other)})
        body = data(r)
        assert r.is_error and body["refused"] is True and body["reason"] == "scope_not_granted"
        assert body["results"] == [] and str(world["repo"]) in body["detail"]
        ok = data(await c.call_tool("search_past_sessions", {"query": "backoff"}))
        assert ok["scope"] == {"mode": "repo", "repo": str(world["repo"])}
        r = await c.call_tool("get_past_session", {"session_id": "9515e689"})
        assert r.is_error and data(r)["reason"] == "scope_not_granted"


@pytest.mark.slow
async def test_timeout_stops_the_call(world: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """A call past its deadline answers tool_timeout, and its SQLite statement is interrupted
    (a query that would never end on its own)."""
    import hansard.answers.work_context as wc

    def endless(store, *a, **k):
        getattr(store, "db", store).execute(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c").fetchone()
        raise AssertionError("the endless query returned")

    monkeypatch.chdir(world["repo"])
    monkeypatch.setattr(wc, "work_context", endless)
    async with Client(build_server(ServeOptions(cwd=str(world["repo"]), timeout=1.0))) as c:
        r = await c.call_tool("work_context", {"session_id": "019dbcc1"})
        assert r.is_error and data(r)["error"] == {
            "code": "tool_timeout", "message": data(r)["error"]["message"], "retryable": False}
        # The server is still healthy afterwards: its store answers the next call. The call is a
        # plain read of one message, so the one-second deadline holds on a loaded machine too.
        r = await c.call_tool("get_past_session", {"session_id": "019dbcc1", "limit": 1})
        assert not r.is_error and r.structured_content["messages"]


@pytest.mark.slow
async def test_store_busy_is_retryable(world: dict) -> None:
    lock = sqlite3.connect(os.path.join(world["env"]["HANSARD_HOME"], "hansard.db"), isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")
    try:
        async with stdio(world, "--session", "4f0f2c6e-9d1b-4c7a-a35e-0c8f5b2d7e11", env={"HANSARD_BUSY_TIMEOUT": "0.2"}) as c:
            r = await c.call_tool("capture_subagent_messages", {
                "message_type": "assignment", "sender": "lead", "recipient_path": "/w", "text": "do it"})
            assert r.is_error and data(r)["error"]["code"] == "store_busy" and data(r)["error"]["retryable"] is True
    finally:
        lock.execute("ROLLBACK")


async def test_no_memories_in_process(world: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(world["repo"])
    async with Client(build_server(ServeOptions(memories=False, cwd=str(world["repo"])))) as c:
        names = {t.name for t in (await c.list_tools()).tools}
        assert names == ALL_TOOLS - {"search_memories", "get_memory"}
        r = await c.call_tool("code_history", {"path": "app/retry.py", "symbol": "upload"})
        assert not r.is_error and r.structured_content["target"]["symbol"] == "upload"


@pytest.mark.slow
def test_status_starts_nothing(world: dict) -> None:
    import subprocess

    out = subprocess.run([sys.executable, "-m", "hansard", "mcp", "serve", "--status", "--no-memories"],
                         capture_output=True, text=True, env={**os.environ, **world["env"]}, timeout=60,
                         stdin=subprocess.DEVNULL)
    st = json.loads(out.stdout)
    assert "search_memories" not in st["tools"] and st["version"] and st["index"]["indexed_through"]
