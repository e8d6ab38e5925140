"""`hansard mcp serve --scope repo` leaks nothing of another repository: paths resolve to
their real location first (absolute, `..`, symlinked folders), file: and commit: filters of
another repository are refused, memory files never follow a symlink out of their folder, and
memories are scoped by their own repository."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli
from tests.hostile import A_SID, B_PROMPT, B_SID, RawClient, git, make_world, tool_error

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


def _no_leak(reply: dict[str, Any], *, allowed: tuple[str, ...] = ()) -> None:
    text = json.dumps(reply)
    for word in (*SECRET_WORDS, "B-MEMORY-SECRET"):
        if word not in allowed:
            assert word not in text, (word, text)


def test_no_tool_leaks_another_repository(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Every tool and argument that can name another repository, against b (with a session)
    and c (none), through a real stdio server under --scope repo: refused, or answered from
    a alone. Team flags without a team configured hold the same scope."""
    a, b, c = world["a"], world["b"], world["c"]
    (b / "CLAUDE.md").write_text("# b\nB-MEMORY-SECRET kept in b\n")
    monkeypatch.chdir(b)
    assert run_cli("memory", "scan")[0] == 0
    code, out, _ = run_cli("memory", "search", "kept", "--json")
    b_mem = next(r["memory_id"] for r in json.loads(out)["results"] if r["path"].startswith(str(b)))
    b_head = git(b, "rev-parse", "HEAD").strip()
    words = (*SECRET_WORDS, "B-MEMORY-SECRET")
    other_repos = (str(b), "../b", "link_to_b", str(a / "link_to_b"), str(c), "../c")
    refused_calls: list[tuple[str, dict[str, Any]]] = [
        ("get_past_session", {"session_id": B_SID}),
        ("get_past_session", {"session_id": B_SID[:8]}),
        ("get_past_session", {"session_id": B_SID, "around": 0, "roles": ["user"]}),
        ("work_context", {"session_id": B_SID}),
        ("work_context", {"session_id": B_SID[:8]}),
        ("get_memory", {"memory_id": b_mem}),
        ("get_memory", {"memory_id": b_mem, "line": 2}),
        ("search_past_sessions", {"query": "vault", "commit": b_head, "include_team_sessions": True}),
        ("search_past_sessions", {"query": "vault", "file": "link_to_b/vault.py", "mode": "hybrid"}),
        ("code_history", {"path": "../b/vault.py:1", "until": "2030-01-01"}),
    ]
    for repo in other_repos:
        refused_calls += [
            ("search_past_sessions", {"query": "vault", "repo": repo}),
            ("search_past_sessions", {"query": "vault", "repo": repo, "include_team_sessions": True}),
            ("code_history", {"path": "vault.py", "repo": repo}),
            ("code_history", {"path": "c.py", "repo": repo, "symbol": "C_PRIVATE_CONTENT"}),
            ("work_context", {"repo": repo}),
            ("search_memories", {"query": "kept", "repo": repo}),
        ]
    answered_calls: list[tuple[str, dict[str, Any]]] = [
        ("search_past_sessions", {"query": "vault"}),
        ("search_past_sessions", {"query": B_PROMPT}),
        ("search_past_sessions", {"query": "zebra-quartz", "include_subagents": True, "include_web_chats": True}),
        ("search_past_sessions", {"query": "vault client", "mode": "meaning"}),
        ("search_past_sessions", {"query": "vault client", "mode": "hybrid", "include_team_sessions": True}),
        ("search_past_sessions", {"query": "vault", "roles": ["user"], "limit": 20}),
        ("search_past_sessions", {"query": "vault", "tool": "edit", "command": "vault"}),
        ("search_memories", {"query": "kept in b"}),
        ("search_memories", {"query": "kept in b", "include_team_sessions": True}),
        ("work_context", {}),
        ("work_context", {"session_id": "aaaaaaaa"}),
        ("capture_subagent_messages", {"message_type": "result", "sender": str(b / "vault.py"),
                                       "recipient_path": str(b / "vault.py"), "text": "zebra please"}),
    ]
    with RawClient(a, world["env"], "--scope", "repo") as cl:
        for tool, args in refused_calls:
            r = cl.call(tool, args)
            err = tool_error(r)
            assert err["code"] == "scope_not_granted", (tool, args, r)
            _no_leak(r, allowed=tuple(w for w in words if w in json.dumps(args)))
        for tool, args in answered_calls:
            r = cl.call(tool, args)
            assert "result" in r, (tool, args, r)
            # a capture needs a calling session, which this server has none of
            assert tool == "capture_subagent_messages" or not r["result"].get("isError"), (tool, args, r)
            sent = json.dumps(args)  # what the caller sent may come back; nothing else of b or c
            if args.get("query") == B_PROMPT:
                assert r["result"]["structuredContent"]["results"] == [], r
            for word in words:
                assert word in sent or word not in json.dumps(r), (tool, args, word, r)
        r = cl.call("search_past_sessions", {"query": "greeting"})  # a's own sessions still answer
        assert not r["result"].get("isError") and "aaaaaaaa" in json.dumps(r), r


def test_a_summary_never_renames_another_repositorys_session(world: dict[str, Any]) -> None:
    """A summary record in a session file of repository a that names the leaf message of b's
    session titles nothing (whichever file is read first); in b's own folder it titles it."""
    from datetime import datetime

    from fixtures_repos.writers import ClaudeWriter, encode_cwd

    home = Path(os.environ["CLAUDE_CONFIG_DIR"])
    a, b = world["a"], world["b"]
    db_path = Path(world["env"]["HANSARD_HOME"]) / "hansard.db"

    def title(sid: str) -> str | None:
        db = sqlite3.connect(db_path)
        try:
            return db.execute("SELECT title FROM sessions WHERE session_id=?", (sid,)).fetchone()[0]
        finally:
            db.close()

    def summary_file(folder: Path, name: str, text: str, leaf: str) -> None:
        d = home / "projects" / encode_cwd(str(folder))
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{name}.jsonl").write_text(json.dumps({"type": "summary", "summary": text, "leafUuid": leaf}) + "\n")

    # b's session already indexed, the summary read afterwards.
    b_leaf = sqlite3.connect(db_path).execute(
        "SELECT m.key FROM messages m JOIN sessions s ON s.id=m.session_id WHERE s.session_id=?"
        " ORDER BY m.message_index DESC LIMIT 1", (B_SID,)).fetchone()[0]
    before = title(B_SID)
    summary_file(a, "aaaaaaaa-9999-4999-8999-000000000009", "PWNED from a", b_leaf)
    assert run_cli("index")[0] == 0
    assert title(B_SID) == before

    # The summary read first, the session of b afterwards.
    sid2 = "bbbbbbbb-3333-4333-8333-000000000003"
    w = ClaudeWriter(home, b, sid2, datetime(2026, 11, 21, 9, 0, 0))
    w.prompt("another task in b")
    w.say("done")
    summary_file(a, "aaaaaaaa-9999-4999-8999-00000000000a", "PWNED again from a", str(w.last_uuid))
    assert run_cli("index", str(home / "projects" / encode_cwd(str(a)))) [0] == 0
    assert run_cli("index")[0] == 0
    assert title(sid2) != "PWNED again from a"

    # In b's own folder a summary still titles b's session.
    summary_file(b, "bbbbbbbb-9999-4999-8999-000000000009", "Vault client work", b_leaf)
    assert run_cli("index")[0] == 0
    assert title(B_SID) == "Vault client work"


def test_another_repositorys_session_reads_like_no_session(world: dict[str, Any]) -> None:
    """Under --scope repo an id of another repository's session and a made-up id get the same
    answer, word for word but the id: refusal and not-found are no oracle for session ids."""
    made_up = "bbbbbbbb-2222-4222-8222-00000000000f"
    with RawClient(world["a"], world["env"], "--scope", "repo") as cl:
        for tool, extra in (("get_past_session", {}), ("get_past_session", {"around": 0}), ("work_context", {})):
            for real_id, fake_id in ((B_SID, made_up), (B_SID[:8], "bbbbbbbc")):
                r_real = cl.call(tool, {"session_id": real_id, **extra})
                r_fake = cl.call(tool, {"session_id": fake_id, **extra})
                assert tool_error(r_real)["code"] == tool_error(r_fake)["code"], (r_real, r_fake)
                same = json.dumps(r_real["result"]).replace(real_id, "ID")
                assert same == json.dumps(r_fake["result"]).replace(fake_id, "ID"), (r_real, r_fake)
                _no_leak(r_real, allowed=(B_SID[:8],))


def test_like_wildcards_in_ids_are_literal(world: dict[str, Any]) -> None:
    """`_` and `%` in a session id or prefix (or a file's name) are characters, not LIKE
    wildcards: `aaaaaaa_` does not find the session `aaaaaaaa-…`, through the store and under
    --scope repo."""
    from hansard.errors import NotFound
    from hansard.store import open_store

    store = open_store()
    try:
        assert store.sessions.find(A_SID[:8])["session_id"] == A_SID  # a real prefix still resolves
        assert store.sessions.repo_path_of(A_SID[:8])[0]
        for ref in ("aaaaaaa_", "aaaa%", "aaaaaaa_-1111", "%", "____"):
            with pytest.raises(NotFound):
                store.sessions.find(ref)
            assert store.sessions.repo_path_of(ref) == (False, None), ref
        db = store.db  # type: ignore[attr-defined]
        edit = db.execute("SELECT e.id FROM edits e JOIN edit_lines el ON el.edit_id=e.id AND el.side='+'"
                          " WHERE e.status='applied' LIMIT 1").fetchone()[0]
        hashes = {r[0] for r in db.execute("SELECT hash FROM edit_lines WHERE edit_id=? AND side='+'", (edit,))}
        db.execute("UPDATE edits SET repo_id=NULL, path='/x/abcX.py' WHERE id=?", (edit,))
        db.commit()
        assert store.evidence.unlinked_hashes(hashes, "abcX.py") == hashes
        assert store.evidence.unlinked_hashes(hashes, "abc_.py") == set()
        assert store.evidence.unlinked_hashes(hashes, "%.py") == set()
    finally:
        store.close()
    with RawClient(world["a"], world["env"], "--scope", "repo") as cl:
        assert tool_error(cl.call("get_past_session", {"session_id": "aaaaaaa_"}))["code"] == "scope_not_granted"
        assert not cl.call("get_past_session", {"session_id": A_SID[:8]})["result"].get("isError")


B_SHARED_SID = "bbbbbbbb-5555-4555-8555-000000000005"
B_SHARED_WORDS = (B_SHARED_SID, B_SHARED_SID[:8], B_SHARED_SID[:13], "B-SHARED-PROMPT", "write the shared helper")


def _b_writes_a_file(world: dict[str, Any]) -> str:
    """A session that ran in b and wrote shared.py of a, committed in a and indexed."""
    from datetime import datetime

    from fixtures_repos.writers import ClaudeWriter

    a, b = world["a"], world["b"]
    w = ClaudeWriter(Path(os.environ["CLAUDE_CONFIG_DIR"]), b, B_SHARED_SID, datetime(2026, 11, 22, 9, 0, 0))
    w.prompt("B-SHARED-PROMPT write the shared helper")
    w.write(a / "shared.py", "def shared():\n    return 'B_SHARED_BODY'\n")
    w.say("done")
    git(a, "add", "-A")
    git(a, "commit", "-q", "-m", "shared helper")
    assert run_cli("index")[0] == 0
    return B_SHARED_SID


def test_code_history_never_names_another_repositorys_session(world: dict[str, Any]) -> None:
    """A session that ran in b and wrote a file of a: under --scope repo, code_history of that
    file (also path:line and symbol) says "another repository's session", with no id, title,
    prompt, message or tool call of it; unscoped, the same call names it."""
    a = world["a"]
    sid = _b_writes_a_file(world)
    calls = ({"path": "shared.py"}, {"path": "shared.py:1"}, {"path": "shared.py:2"},
             {"path": "shared.py", "symbol": "shared"}, {"path": str(a / "shared.py")})
    with RawClient(a, world["env"], "--scope", "repo") as cl:
        for args in calls:
            r = cl.call("code_history", args)
            assert not r["result"].get("isError"), (args, r)
            text = json.dumps(r)
            for word in B_SHARED_WORDS:
                assert word not in text, (args, word, text)
            entries = r["result"]["structuredContent"]["entries"]
            assert entries and all(e["session_id"] is None for e in entries), (args, entries)
            assert all(e["session"] == "another repository's session" for e in entries), (args, entries)
            assert "another repository's session" in r["result"]["structuredContent"]["tree"], (args, r)
        own = cl.call("code_history", {"path": "app.py:1"})  # a's own session is still named
        assert own["result"]["structuredContent"]["entries"][0]["session_id"] == A_SID
    with RawClient(a, world["env"]) as cl:
        for args in calls[:2]:
            assert sid in json.dumps(cl.call("code_history", args)), args


def test_work_context_never_names_a_session_linked_from_another_repository(world: dict[str, Any]) -> None:
    """A session of a whose file holds a summary of b's session (leafUuid), and a session of b
    whose file holds a summary of a's: under --scope repo, work_context of the session of a
    names neither session of b, in its entries nor its tree; unscoped, both are listed."""
    from datetime import datetime

    from fixtures_repos.writers import ClaudeWriter

    a, b = world["a"], world["b"]
    home = Path(os.environ["CLAUDE_CONFIG_DIR"])
    db = sqlite3.connect(Path(world["env"]["HANSARD_HOME"]) / "hansard.db")
    b_leaf = db.execute("SELECT m.key FROM messages m JOIN sessions s ON s.id=m.session_id WHERE s.session_id=?"
                        " ORDER BY m.message_index DESC LIMIT 1", (B_SID,)).fetchone()[0]
    db.close()

    def summary(w: ClaudeWriter, leaf: str) -> None:
        with w.path.open("a") as fh:
            fh.write(json.dumps({"type": "summary", "summary": "a summary", "leafUuid": leaf}) + "\n")

    sid = "aaaaaaaa-6666-4666-8666-000000000006"
    w = ClaudeWriter(home, a, sid, datetime(2026, 11, 23, 9, 0, 0))
    w.prompt("carry on in a")
    w.say("done")
    summary(w, b_leaf)
    b2 = "bbbbbbbb-7777-4777-8777-000000000007"
    wb = ClaudeWriter(home, b, b2, datetime(2026, 11, 24, 9, 0, 0))
    wb.prompt("B-PRIVATE-PROMPT follow a up")
    wb.say("done")
    summary(wb, str(w.last_uuid))
    assert run_cli("index")[0] == 0
    code, out, _ = run_cli("context", sid, "--json")  # unscoped, the links are there to hide
    assert code == 0 and B_SID in out and b2 in out, out
    with RawClient(a, world["env"], "--scope", "repo") as cl:
        r = cl.call("work_context", {"session_id": sid})
        assert not r["result"].get("isError"), r
        assert [e["session_id"] for e in r["result"]["structuredContent"]["entries"]] == [sid], r
        _no_leak(r)
        assert b2[:8] not in json.dumps(r), r


def test_another_repositorys_memory_reads_like_no_memory(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Under --scope repo get_memory answers an id of b's memory (any version) and a made-up
    id the same, word for word but the id; a's own memory still says which versions it has."""
    a, b = world["a"], world["b"]
    (b / "CLAUDE.md").write_text("# b\nB-MEMORY-SECRET kept in b\n")
    (a / "CLAUDE.md").write_text("# a\nguidance kept in a\n")
    ids = {}
    for where in (b, a):
        monkeypatch.chdir(where)
        assert run_cli("memory", "scan")[0] == 0
        code, out, _ = run_cli("memory", "search", "kept", "--json")
        ids[where] = next(r["memory_id"] for r in json.loads(out)["results"] if r["path"].startswith(str(where)))
    b_mem, made_up = ids[b], "0" * len(ids[b])
    with RawClient(a, world["env"], "--scope", "repo") as cl:
        for real_id, fake_id in ((b_mem, made_up), (b_mem + "@7", made_up + "@7"), (b_mem + "@1", made_up + "@1")):
            r_real, r_fake = cl.call("get_memory", {"memory_id": real_id}), cl.call("get_memory", {"memory_id": fake_id})
            assert tool_error(r_real)["code"] == "scope_not_granted", r_real
            assert json.dumps(r_real["result"]).replace(real_id, "ID") == json.dumps(r_fake["result"]).replace(fake_id, "ID")
            _no_leak(r_real)
        own = tool_error(cl.call("get_memory", {"memory_id": ids[a] + "@7"}))
        assert own["code"] == "not_found" and "versions 1..1" in own["message"], own


def test_repo_stats_by_session_never_names_another_repositorys_session(world: dict[str, Any]) -> None:
    """Under --scope repo, repo_stats by session folds the lines a session of b wrote in a into
    one row, "another repository's session", with no id or title; a's own session keeps its row."""
    _b_writes_a_file(world)
    with RawClient(world["a"], world["env"], "--scope", "repo") as cl:
        r = cl.call("repo_stats", {"by": ["session", "agent"]})
        assert not r["result"].get("isError"), r
        for word in B_SHARED_WORDS:
            assert word not in json.dumps(r), (word, r)
        by_session = r["result"]["structuredContent"]["by"]["session"]
        assert by_session["another repository's session"]["agent"] == 2 and A_SID in by_session, by_session
        assert set(by_session["another repository's session"]) >= {"agent", "lines"}, by_session
    with RawClient(world["a"], world["env"]) as cl:
        assert B_SHARED_SID in json.dumps(cl.call("repo_stats", {"by": ["session"]}))


B_TWIN_SID = "aaaaaaaa-9999-4999-8999-000000000009"  # b's, sharing a's first 8 characters


def test_a_prefix_shared_with_another_repositorys_session_resolves_to_the_granted_one(world: dict[str, Any]) -> None:
    """Under --scope repo only the granted repository's sessions count when a prefix is
    resolved: `aaaaaaaa`, the start of a's session and of one in b, reads a's session (saying
    "ambiguous" would tell that b has a session starting so); unscoped, it is ambiguous."""
    from datetime import datetime

    from fixtures_repos.writers import ClaudeWriter

    w = ClaudeWriter(Path(os.environ["CLAUDE_CONFIG_DIR"]), world["b"], B_TWIN_SID, datetime(2026, 11, 21, 9, 0, 0))
    w.prompt("B-TWIN-PROMPT another vault change")
    w.say("done")
    assert run_cli("index")[0] == 0
    prefix = A_SID[:8]
    with RawClient(world["a"], world["env"], "--scope", "repo") as cl:
        for tool, extra in (("get_past_session", {}), ("get_past_session", {"around": 0}), ("work_context", {})):
            r = cl.call(tool, {"session_id": prefix, **extra})
            assert not r["result"].get("isError"), (tool, r)
            text = json.dumps(r)
            assert "ambiguous" not in text and B_TWIN_SID not in text and "B-TWIN-PROMPT" not in text, (tool, text)
        r = cl.call("get_past_session", {"session_id": prefix})
        assert r["result"]["structuredContent"]["session"]["session_id"] == A_SID, r
        # b's session by a prefix of its own still reads like no session.
        refused(cl.call("get_past_session", {"session_id": B_TWIN_SID[:13]}))
    with RawClient(world["a"], world["env"]) as cl:
        r = cl.call("get_past_session", {"session_id": prefix})
        assert tool_error(r)["code"] == "not_found" and "ambiguous" in json.dumps(r), r
