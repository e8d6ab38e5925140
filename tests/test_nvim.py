"""The Neovim plugin (editors/nvim) in a real headless Neovim: it starts `hansard lsp` on the demo
repository, attaches the opened file, and the test reads back what the built-in LSP client
received (hover text, code lenses; inlay hints too on Neovim 0.10+), and what :HansardWhy and
:HansardConversation showed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import run_cli
from tests.test_lsp import build_demo

REPO_ROOT = Path(__file__).resolve().parents[1]
PLUGIN = REPO_ROOT / "editors" / "nvim"

SCRIPT = r"""
local out = {}
local ok, err = pcall(function()
  vim.opt.rtp:prepend(os.getenv('HANSARD_NVIM_PLUGIN'))
  local hansard = require('hansard')
  hansard.setup({ cmd = { os.getenv('HANSARD_PYTHON'), '-m', 'hansard', 'lsp' }, poll_seconds = 0.2 })
  vim.cmd('edit app/retry.py')
  local bufnr = vim.api.nvim_get_current_buf()
  local line = tonumber(os.getenv('HANSARD_LINE'))
  local id = hansard.client_id()
  out.attached = vim.wait(30000, function()
    local c = vim.lsp.get_client_by_id(id)
    return c ~= nil and c.server_capabilities ~= nil and vim.lsp.buf_is_attached(bufnr, id)
  end, 50)
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = line, character = 0 } }
  local res = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', params, 30000) or {}
  for _, r in pairs(res) do
    if r.result and r.result.contents then out.hover = r.result.contents.value end
  end
  vim.lsp.codelens.refresh()
  vim.wait(30000, function() return #(vim.lsp.codelens.get(bufnr) or {}) > 0 end, 50)
  out.lenses = {}
  for _, l in ipairs(vim.lsp.codelens.get(bufnr) or {}) do
    table.insert(out.lenses, { line = l.range.start.line, title = l.command and l.command.title,
                               command = l.command and l.command.command })
  end
  if vim.lsp.inlay_hint then
    local hres = vim.lsp.buf_request_sync(bufnr, 'textDocument/inlayHint', { textDocument = params.textDocument,
      range = { start = { line = 0, character = 0 }, ['end'] = { line = 1000, character = 0 } } }, 30000) or {}
    out.hints = {}
    for _, r in pairs(hres) do
      for _, h in ipairs(r.result or {}) do table.insert(out.hints, { line = h.position.line, label = h.label }) end
    end
  end
  vim.api.nvim_win_set_cursor(0, { line + 1, 0 })
  vim.cmd('HansardWhy')
  vim.wait(30000, function() return hansard.last_why ~= nil end, 50)
  out.why = hansard.last_why
  vim.cmd('HansardConversation')
  vim.wait(30000, function() return hansard.last_conversation ~= nil end, 50)
  if hansard.last_conversation then
    out.conversation = table.concat(vim.api.nvim_buf_get_lines(hansard.last_conversation, 0, -1, false), '\n')
  end
  local v = vim.version()
  out.version = string.format('%d.%d.%d', v.major, v.minor, v.patch)
end)
if not ok then out.error = tostring(err) end
local fh = io.open(os.getenv('HANSARD_NVIM_OUT'), 'w')
fh:write(vim.fn.json_encode(out))
fh:close()
vim.cmd('qa!')
"""


def nvim() -> str:
    exe = shutil.which("nvim")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("nvim is missing in CI (.ci/run installs Debian's neovim)")
        pytest.skip("nvim is not installed (apt-get install neovim)")
    return exe


@pytest.mark.slow
def test_neovim_plugin_shows_hover_lenses_and_the_conversation(tmp_path: Path) -> None:
    exe = nvim()
    s = build_demo(tmp_path / "demo")
    rc, _, err = run_cli("index")
    assert rc == 0, err
    lines = (s.repo / "app" / "retry.py").read_text().splitlines()
    n = next(i for i, ln in enumerate(lines) if "backoff = min(cap" in ln)
    script = tmp_path / "drive.lua"
    script.write_text(SCRIPT)
    result = tmp_path / "out.json"
    env = dict(os.environ, HANSARD_NVIM_PLUGIN=str(PLUGIN), HANSARD_PYTHON=sys.executable, HANSARD_LINE=str(n),
               HANSARD_NVIM_OUT=str(result), XDG_STATE_HOME=str(tmp_path / "state"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    proc = subprocess.run([exe, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {script}"],
                          cwd=s.repo, env=env, capture_output=True, text=True, timeout=180)
    assert result.exists(), (proc.returncode, proc.stdout, proc.stderr)
    out = json.loads(result.read_text())
    assert "error" not in out, out
    assert out["attached"] is True
    hover = out["hover"]
    # Neovim renders a hover its own way: plain text, no command link, no backslash escape
    assert hover.startswith("Claude Code · agent · session 4f0f2c6e-9d1b"), hover
    assert 'asked "uploads fail on the first 502; add a capped exponential backoff"' in hover
    assert "message 3 · Edit" in hover and "evidence: wrote" in hover
    assert "command:" not in hover and "\\" not in hover and "**" not in hover and "`" not in hover
    assert "the conversation: hansard show 4f0f2c6e-9d1b --around 3" in hover
    lenses = [(x["line"], x["title"]) for x in out["lenses"]]
    first = next(i for i, ln in enumerate(lines) if "def upload(send, payload, attempts=5, base=0.5" in ln)
    # one lens per run of the session's lines: the signature, then the two lines it wrote and a person changed
    assert lenses == [(first, 'Claude Code · 4f0f2c6e · "uploads fail on the first 502; add a ca…"'),
                      (n, 'Claude Code · 4f0f2c6e · "uploads fail on the first 502; add a ca…"')], lenses
    assert all(x["command"] == "hansard.showConversation" for x in out["lenses"])
    if "hints" in out:  # Neovim 0.10+: a mark per edit as inlay hints
        assert [(h["line"], h["label"]) for h in out["hints"]][:2] == lenses
    assert out["why"] == hover
    assert "uploads fail on the first 502" in out["conversation"]
    assert "4f0f2c6e-9d1b-4c7a-a35e-0c8f5b2d7e11" in out["conversation"]
