"""`hansard demo [DIR]`: it builds into a named folder and keeps it, and every
next step it prints runs as printed, with its expected output, inside the demo's own store: the
person's own agent homes and store (here: decoys in the environment) are never read."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from fixtures_repos.writers import ClaudeWriter

# What each printed step must show, by the command after `../hansard`.
EXPECTED = {
    "why app/retry.py:10": ["backoff = min(cap, base * 2 ** attempt)", "written by   Claude Code session 4f0f2c6e",
                            "evidence     wrote"],
    "why app/retry.py:11": ["time.sleep(backoff)  # jitter later", "evidence     modified"],
    "log app/retry.py --symbol upload": ["app/retry.py (upload)", "claude_code 4f0f2c6e-9d1b",
                                         '"Add capped backoff to upload retry"'],
    "context 4f0f2c6e": ["4f0f2c6e-9d1b", '"Add capped backoff to upload retry"'],
    "history backoff": ["4f0f2c6e-9d1b", "019e7a44-5b20"],
    "show 4f0f2c6e --around 3": ["[3] assistant/tool_use", "@@ ",
                                 "+        backoff = min(cap, base * 2 ** attempt)", "+        time.sleep(backoff)"],
    "mcp serve --status": ['"code_history"', "hansard-demo/home/hansard/hansard.db"],
}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """`hansard demo` run from a folder of its own, in an environment whose agent homes and store
    are the person's own: a Claude Code home holding a decoy session."""
    where = tmp_path_factory.mktemp("cwd")
    own = tmp_path_factory.mktemp("own")
    decoy = own / "src"
    decoy.mkdir()
    w = ClaudeWriter(own / ".claude", decoy, "dddddddd-0000-4000-8000-00000000dec0", datetime(2026, 11, 20, 9, 0, 0))
    w.prompt("DECOY-PROMPT this session must never reach the demo's store")
    env = {**os.environ, "HOME": str(own), "HANSARD_HOME": str(own / "store"), "CLAUDE_CONFIG_DIR": str(own / ".claude"),
           "CODEX_HOME": str(own / ".codex"), "XDG_DATA_HOME": str(own / "share")}
    r = subprocess.run([sys.executable, "-m", "hansard", "demo"], cwd=where, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return {"cwd": where, "env": env, "out": r.stdout, "own": own}


def _steps(out: str) -> list[tuple[str, str]]:
    """The printed next steps: (the command line, what follows `../hansard`)."""
    steps = []
    for line in out.splitlines():
        if line.startswith("  cd ") and "  # " in line:
            cmd = line.rsplit("  # ", 1)[0].strip()
            steps.append((cmd, cmd.split("../hansard ", 1)[1]))
    return steps


def test_demo_keeps_its_folder_and_prints_steps(demo: dict) -> None:
    root = demo["cwd"] / "hansard-demo"
    assert (root / "upload-service" / "app" / "retry.py").exists() and os.access(root / "hansard", os.X_OK)
    assert "The demo stays in hansard-demo" in demo["out"]
    assert [s for _, s in _steps(demo["out"])] == list(EXPECTED)
    # Building again into the same folder is refused, not mixed into the old one.
    r = subprocess.run([sys.executable, "-m", "hansard", "demo"], cwd=demo["cwd"], env=demo["env"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "already exists" in r.stderr and "Traceback" not in r.stderr, r
    # A folder that cannot be made is an argument error, not a traceback.
    (demo["cwd"] / "a_file").write_text("x\n")
    r = subprocess.run([sys.executable, "-m", "hansard", "demo", "a_file/demo"], cwd=demo["cwd"], env=demo["env"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "cannot build the demo in a_file/demo" in r.stderr and "Traceback" not in r.stderr, r


def test_every_printed_step_runs_as_printed(demo: dict) -> None:
    for line, step in _steps(demo["out"]):
        r = subprocess.run(["bash", "-c", line], cwd=demo["cwd"], env=demo["env"], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, (line, r.stderr)
        for text in EXPECTED[step]:
            assert text in r.stdout, (line, text, r.stdout)
    # Nothing left the demo: the person's own store was never made, and the decoy session
    # in their Claude Code home never reached the demo's store.
    assert not (demo["own"] / "store").exists() and not (demo["own"] / "share" / "hansard").exists()
    r = subprocess.run(["bash", "-c", "cd hansard-demo/upload-service && ../hansard sessions --json"], cwd=demo["cwd"],
                       env=demo["env"], capture_output=True, text=True, timeout=120)
    ids = [s["session_id"] for s in json.loads(r.stdout)["sessions"]]
    assert len(ids) == 2 and not any(i.startswith("dddddddd") for i in ids), ids


def test_the_printed_mcp_server_command_answers(demo: dict) -> None:
    out = demo["out"]
    server = out.split("give an agent the server command `", 1)[1].split("`", 1)[0]
    assert server.endswith("hansard-demo/hansard mcp serve")
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "code_history", "arguments": {"path": "app/retry.py:10"}}}]
    proc = subprocess.Popen(["bash", "-c", server], cwd=demo["cwd"] / "hansard-demo" / "upload-service",
                            env=demo["env"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for m in msgs:
            proc.stdin.write(json.dumps(m) + "\n")
            proc.stdin.flush()
        replies = {}
        while 2 not in replies:
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else ""
            msg = json.loads(line)
            replies[msg.get("id")] = msg
        assert "4f0f2c6e" in json.dumps(replies[2]["result"]), replies[2]
    finally:
        proc.stdin.close()
        proc.wait(30)


LUA = r"""
local out = {}
local ok, err = pcall(function()
  local bufnr = vim.api.nvim_get_current_buf()
  local id = require('hansard').client_id()
  out.attached = vim.wait(30000, function()
    local c = vim.lsp.get_client_by_id(id)
    return c ~= nil and c.server_capabilities ~= nil and vim.lsp.buf_is_attached(bufnr, id)
  end, 50)
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = 9, character = 0 } }
  for _, r in pairs(vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', params, 30000) or {}) do
    if r.result and r.result.contents then out.hover = r.result.contents.value end
  end
end)
if not ok then out.error = tostring(err) end
local fh = io.open(os.getenv('HANSARD_NVIM_OUT'), 'w')
fh:write(vim.fn.json_encode(out))
fh:close()
vim.cmd('qa!')
"""


def test_the_printed_neovim_line_shows_the_demo(demo: dict, tmp_path: Path) -> None:
    """The printed Neovim command, run headless (its options as printed, the file's hover asked
    by a script and written out)."""
    line = next((ln.strip() for ln in demo["out"].splitlines() if " && nvim " in ln), None)
    if line is None:
        pytest.skip("hansard runs from a wheel here: no plugin to point Neovim at")
    if shutil.which("nvim") is None:
        if os.environ.get("CI"):
            pytest.fail("nvim is missing in CI (.ci/run installs Debian's neovim)")
        pytest.skip("nvim is not installed")
    script = tmp_path / "drive.lua"
    script.write_text(LUA)
    result = tmp_path / "out.json"
    headless = line.replace(" && nvim ", " && nvim --headless -u NONE -i NONE -n ", 1) + f" -c 'luafile {script}'"
    env = {**demo["env"], "HANSARD_NVIM_OUT": str(result), "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = subprocess.run(["bash", "-c", headless], cwd=demo["cwd"], env=env, capture_output=True, text=True, timeout=180)
    assert result.exists(), (proc.returncode, proc.stdout, proc.stderr)
    out = json.loads(result.read_text())
    assert "error" not in out and out["attached"] is True, out
    assert "session 4f0f2c6e-9d1b" in out["hover"] and "command:" not in out["hover"], out  # plain text for Neovim
