"""The MCP audit log at its edges: a call whose client left before it was
answered is not recorded `answered`, and a `tools/call` of a real tool that the protocol layer
refuses still writes its row."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from hansard.mcp.server import Runner, ServeOptions
from hansard.store import open_store
from tests.hostile import RawClient, make_world, wait_for


def _audit() -> list[tuple[str, str, str | None]]:
    db = open_store()
    try:
        return [tuple(r) for r in db.db.execute("SELECT tool, outcome, error_code FROM audit ORDER BY id")]
    finally:
        db.close()


def test_a_call_cancelled_when_its_client_leaves_is_not_answered(tmp_path: Path) -> None:
    runner = Runner(ServeOptions(cwd=str(tmp_path)))
    started, gate = threading.Event(), threading.Event()

    def slow(store: Any) -> dict[str, Any]:
        started.set()
        gate.wait(10)
        return {"results": []}

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(runner.run, "search_past_sessions", slow, {})
            await anyio.to_thread.run_sync(started.wait, 10)
            tg.cancel_scope.cancel()  # what the transport does when stdin closes

    try:
        anyio.run(main)
    finally:
        gate.set()
    rows = _audit()
    assert rows == [("search_past_sessions", "failed", "client_gone")], rows

    async def answered() -> None:
        await runner.run("search_past_sessions", lambda store: {"results": []}, {})

    anyio.run(answered)
    assert _audit()[-1] == ("search_past_sessions", "answered", None)


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Any]:
    return make_world(tmp_path)


def test_a_real_tool_refused_by_the_protocol_layer_is_audited(world: dict[str, Any]) -> None:
    before = len(_audit())
    with RawClient(world["a"], world["env"]) as c:
        r = c.request("tools/call", {"name": "code_history", "arguments": ["app.py"]})
        assert r["error"]["code"] == -32602
        c.send_raw(b'{"jsonrpc":"2.0","id":51,"method":"tools/call","params":{"name":"get_past_session",'
                   b'"arguments":{"session_id":"aaaaaaaa"},"_meta":{"x":"\\ud800"}}}')
        assert c.reply(20)["error"]["code"] == -32602
        r = c.request("tools/call", {"name": "no_such_tool", "arguments": {}})  # not a tool: no row
        assert r["error"]["code"] == -32602
    time.sleep(0.2)
    assert wait_for(lambda: len(_audit()) >= before + 2, 10)
    new = _audit()[before:]
    assert ("code_history", "failed", "invalid_params") in new
    assert ("get_past_session", "failed", "invalid_params") in new
    assert not any(t == "no_such_tool" for t, _, _ in new)
