"""The calling session (hansard.agents.caller): from the environment each agent sets, and for
Codex, which starts MCP servers with no session variable, from the rollout it holds open; the
receipt of capture_subagent_messages is bound to it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hansard import agents
from hansard.agents.caller import caller_session

SID = "019e7a44-5b20-7c31-8d2e-3f6a9b1c0d42"
SESSION_VARS = ["HANSARD_SESSION_ID"] + [v for a in agents.agents() for v in a.session_env]


@pytest.fixture(autouse=True)
def _no_session_vars(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in SESSION_VARS:
        monkeypatch.delenv(var, raising=False)


def _rollout() -> Path:
    p = Path(os.environ["CODEX_HOME"]) / "sessions" / "2026" / "12" / "01" / f"rollout-2026-12-01T10-00-00-{SID}.jsonl"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text('{"timestamp":"2026-12-01T10:00:00.000Z","type":"session_meta","payload":{"id":"' + SID + '"}}\n')
    return p


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in SESSION_VARS}


def test_the_environment_names_the_session() -> None:
    assert caller_session({}, pid=0) is None
    assert caller_session({"CODEX_THREAD_ID": SID}, pid=0) == SID
    assert caller_session({"CLAUDE_CODE_SESSION_ID": "c1"}, pid=0) == "c1"
    assert caller_session({"HANSARD_SESSION_ID": "h1", "CODEX_THREAD_ID": SID}, pid=0) == "h1"
    assert all(a.session_env for a in agents.agents() if a.name in ("claude_code", "codex", "gemini"))


def test_codex_rollout_held_open_by_a_parent() -> None:
    rollout = _rollout()
    probe = [sys.executable, "-c", "from hansard.agents.caller import caller_session; print(caller_session())"]
    with open(rollout, "a", encoding="utf-8"):  # this process plays Codex: its rollout is open
        out = subprocess.run(probe, env=_clean_env(), capture_output=True, text=True, check=True).stdout.strip()
    assert out == SID
    # closed, or a rollout outside the Codex home: no caller
    assert subprocess.run(probe, env=_clean_env(), capture_output=True, text=True, check=True).stdout.strip() == "None"
    stray = rollout.parent.parent.parent.parent.parent.parent / "elsewhere" / rollout.name
    stray.parent.mkdir(parents=True)
    stray.write_text("{}\n")
    with open(stray, "a", encoding="utf-8"):
        assert subprocess.run(probe, env=_clean_env(), capture_output=True, text=True).stdout.strip() == "None"


@pytest.mark.anyio
async def test_capture_receipt_is_bound_to_the_codex_session(tmp_path: Path) -> None:
    from mcp import Client, StdioServerParameters

    rollout = _rollout()
    params = StdioServerParameters(command=sys.executable, args=["-m", "hansard", "mcp", "serve"], env=_clean_env(),
                                   cwd=str(tmp_path))
    with open(rollout, "a", encoding="utf-8"):
        async with Client(params, mode="legacy") as c:
            r = await c.call_tool("capture_subagent_messages", {
                "message_type": "result", "sender": "worker-1", "recipient_path": "/root", "text": "tests pass"})
    receipt = r.structured_content
    assert receipt["session_id"] == SID and receipt["stored_in"] != "unbound"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
