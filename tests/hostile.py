"""A world for hostile tests: two repositories with sessions, a third with none, planted
private text in the other ones, and a raw JSON-RPC client for `hansard mcp serve` (the
SDK's client cannot send invalid JSON, lone surrogates or unknown tools the way an attacker
does)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from fixtures_repos.writers import ClaudeWriter

A_SID = "aaaaaaaa-1111-4111-8111-000000000001"
B_SID = "bbbbbbbb-2222-4222-8222-000000000002"
B_PROMPT = "B-PRIVATE-PROMPT make the vault client"
B_CODE = "B_PRIVATE_CONTENT = 'zebra-quartz'\n"
C_CODE = "C_PRIVATE_CONTENT = 'no sessions here'\n"


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout


def make_world(tmp: Path) -> dict[str, Any]:
    """Repositories a (the granted one), b (another, with a session) and c (no session),
    under ``tmp``; a holds a symlink to b; everything indexed into the test's store."""
    from tests.helpers import run_cli

    home = Path(os.environ["CLAUDE_CONFIG_DIR"])
    repos = {}
    for name in ("a", "b", "c"):
        repo = tmp / name
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        (repo / "README.md").write_text(f"repository {name}\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"start {name}")
        repos[name] = repo.resolve()
    for name, sid, prompt, rel, code in (("a", A_SID, "add the greeting", "app.py", "def greet():\n    return 'hi'\n"),
                                         ("b", B_SID, B_PROMPT, "vault.py", B_CODE)):
        w = ClaudeWriter(home, repos[name], sid, datetime(2026, 11, 20, 9, 0, 0))
        w.prompt(prompt)
        w.write(repos[name] / rel, code)
        w.say("done")
        git(repos[name], "add", "-A")
        git(repos[name], "commit", "-q", "-m", f"{rel} from a session")
    (repos["c"] / "c.py").write_text(C_CODE)
    git(repos["c"], "add", "-A")
    git(repos["c"], "commit", "-q", "-m", "c.py")
    (repos["a"] / "link_to_b").symlink_to(repos["b"], target_is_directory=True)
    code, out, err = run_cli("index")
    assert code == 0, (out, err)
    env = {k: os.environ[k] for k in ("HANSARD_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "HOME",
                                      "XDG_DATA_HOME", "XDG_CONFIG_HOME", "TZ")}
    return {**repos, "env": env}


def add_filler(folder: Path, sessions: int, messages: int = 20) -> None:
    """``sessions`` Claude Code sessions in ``folder`` (not a repository), ``messages`` prompts
    and replies each of common words: enough text that a long query costs seconds."""
    home = Path(os.environ["CLAUDE_CONFIG_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(sessions):
        w = ClaudeWriter(home, folder, f"ffffffff-0000-4000-8000-{k:012d}", datetime(2026, 11, 1, 9, 0, 0))
        for j in range(messages):
            w.prompt(f"filler prompt {k} {j} " + "lorem ipsum dolor sit amet " * 20)
            w.say("reply " + "consectetur adipiscing elit " * 30)


class RawClient:
    """`hansard mcp serve` in a subprocess, spoken to line by line."""

    def __init__(self, cwd: Path, env: dict[str, str], *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hansard", "mcp", "serve", *args], cwd=cwd, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **env})
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._pump, daemon=True).start()
        self.stderr: list[bytes] = []
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()  # type: ignore[arg-type]

    def _pump(self) -> None:
        for line in self.proc.stdout:  # type: ignore[union-attr]
            self.lines.put(line)

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data if data.endswith(b"\n") else data + b"\n")
        self.proc.stdin.flush()

    def send(self, obj: dict[str, Any]) -> None:
        self.send_raw(json.dumps(obj).encode())

    def reply(self, timeout: float = 60.0) -> dict[str, Any]:
        return json.loads(self.lines.get(timeout=timeout))

    def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = 60.0) -> dict[str, Any]:
        self.next_id += 1
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return self.reply(timeout)

    def initialize(self) -> dict[str, Any]:
        out = self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                          "clientInfo": {"name": "hostile", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return out

    def call(self, tool: str, args: Any, timeout: float = 60.0) -> dict[str, Any]:
        return self.request("tools/call", {"name": tool, "arguments": args}, timeout)

    def close(self, timeout: float = 10.0) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()

    def __enter__(self) -> RawClient:
        self.initialize()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.close()


def tool_error(reply: dict[str, Any]) -> dict[str, Any]:
    """The error envelope of a tool result that failed."""
    res = reply["result"]
    assert res.get("isError") is True, reply
    return res["structuredContent"]["error"]


def wait_for(pred: Any, timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return bool(pred())
