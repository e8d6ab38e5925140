"""`hansard mcp serve --scope repo` leaks nothing of another repository (issue 17, items 1,
4 and 5): paths resolve to their real location first (absolute, `..`, symlinked folders),
file: and commit: filters of another repository are refused, memory files never follow a
symlink out of their folder, and memories are scoped by their own repository."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli
from tests.hostile import B_PROMPT, B_SID, RawClient, git, make_world, tool_error

SECRET_WORDS = ("B-PRIVATE-PROMPT", "B_PRIVATE_CONTENT", "zebra-quartz", "C_PRIVATE_CONTENT", B_SID[:8])


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Any]:
    return make_world(tmp_path)


def refused(reply: dict[str, Any]) -> None:
    err = tool_error(reply)
    assert err["code"] == "scope_not_granted", reply
    text = json.dumps(reply)
    for word in SECRET_WORDS:
        assert word not in text, (word, text)


def repos_in_store(world: dict[str, Any]) -> list[str]:
    db = sqlite3.connect(Path(world["env"]["HANSARD_HOME"]) / "hansard.db")
    return [r[0] for r in db.execute("SELECT path FROM repos")]


def test_code_history_paths_cannot_leave_the_repository(world: dict[str, Any]) -> None:
    a, b, c = world["a"], world["b"], world["c"]
    before = repos_in_store(world)
    with RawClient(a, world["env"], "--scope", "repo") as cl:
        own = cl.call("code_history", {"path": "app.py"})
        assert not own["result"].get("isError"), own
        for path in (str(b / "vault.py"), "../b/vault.py", "link_to_b/vault.py", str(a / "link_to_b" / "vault.py"),
                     "link_to_b/vault.py:1", str(c / "c.py"), f"{c}/c.py:1", "../c/c.py"):
            refused(cl.call("code_history", {"path": path}))
            refused(cl.call("code_history", {"path": path, "symbol": "B_PRIVATE_CONTENT"}))
        refused(cl.call("code_history", {"path": "vault.py", "repo": str(a / "link_to_b")}))
    assert str(c) not in repos_in_store(world) and len(repos_in_store(world)) == len(before)


def test_search_filters_of_another_repository_are_refused(world: dict[str, Any]) -> None:
    a, b = world["a"], world["b"]
    b_head = git(b, "rev-parse", "HEAD").strip()
    a_head = git(a, "rev-parse", "HEAD").strip()
    with RawClient(a, world["env"], "--scope", "repo") as cl:
        for args in ({"query": "vault", "file": str(b / "vault.py")}, {"query": "vault", "file": "../b/vault.py"},
                     {"query": "vault", "file": "link_to_b/vault.py"}, {"query": "vault", "commit": b_head},
                     {"query": "vault", "commit": b_head[:10]}):
            refused(cl.call("search_past_sessions", args))
        ok = cl.call("search_past_sessions", {"query": "greeting", "commit": a_head})
        assert not ok["result"].get("isError"), ok
        ok = cl.call("search_past_sessions", {"query": "greeting", "file": "app.py"})
        assert not ok["result"].get("isError"), ok


def test_memory_files_never_follow_symlinks_out(world: dict[str, Any], tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    a = world["a"]
    outside = tmp_path / "outside.md"
    outside.write_text("# notes\nOUTSIDE-THE-REPO-SECRET line\n")
    (a / "CLAUDE.md").symlink_to(outside)
    (a / ".claude" / "rules").mkdir(parents=True)
    (a / ".claude" / "rules" / "x.md").symlink_to(outside)
    (a / "AGENTS.md").write_text("# agents\nINSIDE-THE-REPO guidance\n")
    monkeypatch.chdir(a)
    assert run_cli("memory", "scan")[0] == 0
    code, out, err = run_cli("memory", "search", "notes line", "--json")
    assert code == 0, err
    assert "OUTSIDE-THE-REPO-SECRET" not in out
    code, out, err = run_cli("memory", "search", "guidance", "--json")
    assert code == 0 and json.loads(out)["results"], out
    with RawClient(a, world["env"], "--scope", "repo") as cl:
        r = cl.call("search_memories", {"query": "notes line"})
        assert "OUTSIDE-THE-REPO-SECRET" not in json.dumps(r) and not r["result"].get("isError")


def test_memories_of_other_projects_are_not_served(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, c = world["a"], world["b"], world["c"]
    (b / "CLAUDE.md").write_text("# b\nB-MEMORY-SECRET kept in b\n")
    (c / "CLAUDE.md").write_text("# c\nC-MEMORY-SECRET kept in c\n")
    home = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"
    stray = home / "-somewhere-unknown" / "memory"
    stray.mkdir(parents=True)
    (stray / "MEMORY.md").write_text("# auto\nSTRAY-AUTO-MEMORY-SECRET of an unknown project\n")
    for where in (b, c, a):  # each scan as a user would run it in that folder
        monkeypatch.chdir(where)
        assert run_cli("memory", "scan")[0] == 0
        code, out, err = run_cli("memory", "search", "kept unknown project", "--json")
        assert code == 0, err
    ids = {r["path"]: r["memory_id"] for r in json.loads(out)["results"]}
    c_id = next(mid for path, mid in ids.items() if path.startswith(str(c)))
    with RawClient(a, world["env"], "--scope", "repo") as cl:
        r = cl.call("search_memories", {"query": "kept unknown project"})
        text = json.dumps(r)
        for word in ("B-MEMORY-SECRET", "C-MEMORY-SECRET", "STRAY-AUTO-MEMORY-SECRET"):
            assert word not in text, word
        for mid in ids.values():
            rr = cl.call("get_memory", {"memory_id": mid})
            if "STRAY" in json.dumps(rr) or "C-MEMORY" in json.dumps(rr) or "B-MEMORY" in json.dumps(rr):
                raise AssertionError(rr)
        assert tool_error(cl.call("get_memory", {"memory_id": c_id}))["code"] == "scope_not_granted"


def test_work_context_lists_no_session_of_another_repository(world: dict[str, Any]) -> None:
    """A session file of repository a that names b's session (a summary record) must not
    bring b's session into a's context."""
    from hansard.mcp.scope import filter_sessions

    entries = [{"session_id": "aaaaaaaa-1111-4111-8111-000000000001", "relation": "self"},
               {"session_id": B_SID, "relation": "summarised_by", "title": B_PROMPT}]
    repo_of = {entries[0]["session_id"]: (True, str(world["a"])), B_SID: (True, str(world["b"]))}
    kept = filter_sessions(str(world["a"]), entries, repo_of.__getitem__)
    assert [e["session_id"] for e in kept] == [entries[0]["session_id"]]
