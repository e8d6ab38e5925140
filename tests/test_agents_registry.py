"""The agent registry (hansard.agents): one record per agent, read by everything that needs an
agent's names, homes, tools or files; and the shell rule seeing every Codex shell tool."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures_repos.check import answer, compare, env_for, table
from fixtures_repos.scenarios import Build
from hansard import agents
from hansard.values.models import RawRecord, ToolCallItem

CODEX_SHELL_NAMES = ("shell", "shell_command", "exec_command", "local_shell", "container.exec", "unified_exec")


def test_records_are_complete_and_distinct() -> None:
    recs = agents.agents()
    assert [a.name for a in recs] == ["claude_code", "codex", "gemini", "cursor", "opencode", "aider", "copilot",
                                      "claude_web", "chatgpt", "specstory"]
    assert len({a.name for a in recs}) == len(recs)
    for a in recs[:3]:
        assert a.display and a.transcript_dirs and a.readers and a.shell_tools and not a.web
    for a in recs:
        assert a.display and a.readers
        if a.web:
            # a web chat writes no file and runs nothing; it is imported, never scanned
            assert not (a.transcript_dirs or a.shell_tools or a.edit_tools or a.memory_files or a.homes())
        elif a.searched:
            assert (a.transcript_dirs or a.repo_files) and a.edit_tools
        else:
            # a copy of sessions kept in repositories (SpecStory): found there, and never an
            # edit, a shell command or a commit of its own
            assert a.repo_dirs and not (a.transcript_dirs or a.shell_tools or a.edit_tools)
        for p in a.providers():
            assert p.name == a.name
        assert agents.by_name(a.name) is a and agents.display_name(a.name) == a.display
    assert agents.display_name("capture") == "capture" and agents.display_name(None) == "agent"


def test_codex_records_every_shell_tool_name() -> None:
    codex = agents.by_name("codex")
    assert codex is not None
    assert set(CODEX_SHELL_NAMES) <= codex.shell_tools
    assert {"Bash", "PowerShell"} <= agents.by_name("claude_code").shell_tools
    assert "run_shell_command" in agents.by_name("gemini").shell_tools
    from hansard.facts.shell import SHELL_TOOLS

    assert set(SHELL_TOOLS) == set(agents.tools("shell")) >= set(CODEX_SHELL_NAMES)


def test_names_people_type() -> None:
    assert agents.resolve("CC") == agents.resolve("claude-code") == agents.resolve("claude") == "claude_code"
    assert agents.resolve("gemini-cli") == "gemini" and agents.resolve("openai") == "codex"
    assert agents.resolve("somebody") == "somebody"
    assert agents.install_names() == ("claude-code", "codex", "gemini", "cursor")
    assert agents.resolve("claude.ai") == "claude_web" and agents.resolve("copilot-cli") == "copilot"
    assert agents.web_names() == ("claude_web", "chatgpt")


def test_readers_by_key() -> None:
    for p in agents.providers():
        assert agents.from_key(agents.provider_key(p)) is p
    assert agents.from_key("gemini:json").whole_file and not agents.from_key("gemini").whole_file
    assert agents.from_key("capture") is not None and agents.from_key("nobody") is None


def test_only_folder_readers_claim_folders() -> None:
    """A folder root is sniffed by ``folder_readers`` alone: every reader of a folder belongs
    to an agent that keeps one."""
    folder = [p for p in agents.providers() if getattr(p, "container", None) == "dir"]
    assert folder and all(p in agents.folder_readers() for p in folder)


def test_a_source_read_again_loads_its_own_reader() -> None:
    """A grown transcript's reader, found by its key, loads no other agent's parser."""
    assert _loaded("assert a.from_key('claude_code').name == 'claude_code'\n"
                   "others = {r.partition(':')[0] for x in a.agents() if x.name != 'claude_code' for r in x.readers}\n"
                   "print(sorted(others & set(sys.modules)))") == "[]"


def _loaded(code: str) -> str:
    """What ``code`` prints, run in a fresh interpreter after ``import sys, hansard.agents as a``."""
    out = subprocess.run([sys.executable, "-c", "import sys, hansard.agents as a\n" + code], capture_output=True,
                         text=True, check=True)
    return out.stdout.strip()


def test_homes_follow_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "CURSOR_HOME", "CURSOR_CONFIG_DIR",
                "OPENCODE_DATA_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "COPILOT_HOME", "AIDER_CHAT_HISTORY_FILE"):
        monkeypatch.delenv(var, raising=False)
    h = str(tmp_path / "h")
    assert agents.transcript_dirs() == [f"{h}/.claude/projects", f"{h}/.codex/sessions",
                                        f"{h}/.codex/archived_sessions", f"{h}/.gemini/tmp",
                                        f"{h}/.cursor/projects", f"{h}/.config/Cursor/User/globalStorage",
                                        f"{h}/.local/share/opencode/opencode.db", f"{h}/.local/share/opencode/storage",
                                        f"{h}/.copilot/session-state"]
    assert agents.whole_dirs() == {f"{h}/.local/share/opencode/storage"}
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cc"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "cx"))
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "g"))
    monkeypatch.setenv("CURSOR_HOME", str(tmp_path / "cu"))
    monkeypatch.setenv("CURSOR_CONFIG_DIR", str(tmp_path / "cuu"))
    monkeypatch.setenv("OPENCODE_DATA_DIR", str(tmp_path / "oc"))
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "gh"))
    monkeypatch.setenv("AIDER_CHAT_HISTORY_FILE", str(tmp_path / "a" / ".aider.chat.history.md"))
    assert agents.transcript_dirs() == [f"{tmp_path}/cc/projects", f"{tmp_path}/cx/sessions",
                                        f"{tmp_path}/cx/archived_sessions", f"{tmp_path}/g/.gemini/tmp",
                                        f"{tmp_path}/cu/projects", f"{tmp_path}/cuu/globalStorage",
                                        f"{tmp_path}/oc/opencode.db", f"{tmp_path}/oc/storage",
                                        f"{tmp_path}/a/.aider.chat.history.md", f"{tmp_path}/gh/session-state"]


def test_reading_records_imports_no_parser() -> None:
    """`hansard why` needs the records (shell tools, display names), never a parser."""
    assert _loaded("import hansard.facts.shell\n"
                   "a.tools('shell'); a.display_name('codex'); a.memory_files(); a.transcript_dirs()\n"
                   "print(sorted(m for m in sys.modules if m.endswith(('transcript', 'rollout', 'chats'))"
                   " or m in ('orjson', 'hansard.values.models', 'dataclasses')))") == "[]"


def _codex_call(tool: str, cx, cmd: str, run=None) -> str:
    if tool == "local_shell":
        return cx.local_shell(["bash", "-lc", cmd], run=run)
    return cx.exec(cmd, run=run, tool=tool)


@pytest.mark.parametrize("tool", ["local_shell", "unified_exec", "container.exec", "exec_command"])
def test_codex_shell_write_makes_lines_unknown(tool: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: a Codex shell call of any name that could have written a file makes the
    lines committed after it `unknown`, not `human` (the fail-closed shell rule)."""
    b = Build(f"codex_{tool}_write", tmp_path / "build")
    r = b.init()
    r.write("src/app.py", "def a():\n    return 1\n")
    c0 = b.commit(r, "App")
    cx = b.codex(r.path)
    cx.prompt("Append b() to src/app.py")
    _codex_call(tool, cx, "printf 'def b():\\n    return 2\\n' >> src/app.py",
                run=lambda: r.write("src/app.py", r.read("src/app.py") + "def b():\n    return 2\n"))
    cx.end_turn()
    c1 = b.commit(r, "b()")
    scn = b.scenario(r, {"src/app.py": b.expect(r, "src/app.py", b.human(c0, 2), b.unknown(c1, 2))})
    for var, value in env_for(scn, tmp_path / "store").items():
        monkeypatch.setenv(var, value)
    answers = answer(scn)
    bad = compare(scn, answers)
    assert not bad, table(scn, "src/app.py", answers["src/app.py"])
    assert {ln["rule"] for ln in answers["src/app.py"]["lines"] if ln["kind"] == "unknown"} == {"shell_command"}


@pytest.mark.parametrize("tool", CODEX_SHELL_NAMES)
def test_codex_test_runs_of_every_shell_name(tool: str, tmp_path: Path) -> None:
    """Test-run detection reads the commands of Codex shell calls whatever their name."""
    from datetime import UTC, datetime

    from fixtures_repos.writers import CodexWriter
    from hansard.facts.shell import SHELL_TOOLS, shell_command
    from hansard.facts.test_outcomes import recognise

    cx = CodexWriter(tmp_path / "codex", tmp_path / "repo", None, datetime(2026, 3, 1, tzinfo=UTC))
    cx.prompt("Run the tests")
    if tool == "local_shell":
        cx.local_shell(["bash", "-lc", "pytest -q tests/test_app.py"], output="1 passed in 0.01s\n")
    else:
        cx.exec("pytest -q tests/test_app.py", output="1 passed in 0.01s\n", tool=tool)
    parser = agents.by_name("codex").providers()[0].new_parser(str(cx.path))
    items = []
    offset = 0
    for line in cx.path.read_bytes().splitlines(keepends=True):
        items += parser.feed(RawRecord(str(cx.path), offset, line.rstrip(b"\n")))
        offset += len(line)
    calls = [it for it in items if isinstance(it, ToolCallItem)]
    assert [c.name for c in calls] == [tool]
    assert calls[0].name in SHELL_TOOLS
    inp = json.loads(json.dumps(calls[0].input))
    cmd = shell_command(inp)
    assert cmd == "pytest -q tests/test_app.py"
    found = recognise(cmd)
    assert found is not None and found.runner == "pytest"


def test_no_agent_or_tool_names_outside_the_registry() -> None:
    """Nothing in hansard/ outside hansard/agents/ spells an agent's tool names."""
    root = Path(__file__).resolve().parents[1] / "hansard"
    names = set()
    for role in agents.TOOL_ROLES:
        names |= {n for n in agents.tools(role) if len(n) > 6}  # short names ("Edit", "shell") are words too
    # Also ordinary words here: bytes.decode(..., "replace"); why's rule named after shell commands.
    names -= {"replace", "shell_command"}
    hits = []
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).as_posix()
        if rel.startswith("agents/"):
            continue
        text = path.read_text(encoding="utf-8")
        for n in names:
            if f'"{n}"' in text or f"'{n}'" in text:
                hits.append(f"{rel}: {n}")
    assert not hits, hits


def test_env_default_home_is_not_read_at_import(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "later"))
    assert agents.by_name("codex").home() == os.path.expanduser(str(tmp_path / "later"))
