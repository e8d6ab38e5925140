"""The team's rows in the local store's own tables (hansard.store.sqlite.team), without a server:
a pull, as the team store would give it, written with ids below zero and read by the same
questions as this machine's rows (`why`, show, search with the team flags, memories); dropped
when the team no longer shares them; left out where this machine records the session itself;
kept by a reindex and a rebuild; never sent by a push; and never the reason this machine's own
rows get an id below zero. Real git repositories, a real SQLite store.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from hansard.store.sqlite.store import SqliteStore
from hansard.store.types import TeamPull
from hansard.text.textnorm import line_facts

AT = "2026-11-20T10:00:00.000Z"
SID = "7c1e9a40-1b2c-4d3e-8f40-5a6b7c8d9e01"
ADDED = ["def discounted(items, rate):", "    kept = [i * (1 - rate) for i in items]", "    return round(sum(kept), 2)"]


def _git(cwd: Path, *args: str) -> str:
    env = dict(os.environ, GIT_AUTHOR_DATE="2026-11-20T12:00:00+00:00", GIT_COMMITTER_DATE="2026-11-20T12:00:00+00:00",
               GIT_AUTHOR_NAME="Bob", GIT_AUTHOR_EMAIL="bob@example.com", GIT_COMMITTER_NAME="Bob",
               GIT_COMMITTER_EMAIL="bob@example.com")
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def world(tmp_path: Path) -> Any:
    """Bob's clone of a repository in which Alice's session wrote three lines, and Bob's store
    with his clone registered."""
    repo = tmp_path / "shop"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "app.py").write_text("def total(items):\n    return sum(items)\n")
    _git(repo, "add", "app.py")
    _git(repo, "commit", "-q", "-m", "start")
    root = _git(repo, "rev-list", "--max-parents=0", "HEAD").strip()
    (repo / "app.py").write_text("def total(items):\n    return sum(items)\n\n\n" + "\n".join(ADDED) + "\n")
    _git(repo, "commit", "-q", "-am", "discounted")
    store = SqliteStore.open(tmp_path / "bob.db")
    repo_id = store.repos.register(root, None, str(repo))
    yield {"repo": repo, "root": root, "store": store, "repo_id": repo_id}
    store.close()


def _session(team_row: int, sid: str = SID, digest: str = "h1", member: str = "alice@example.com", *,
             root: str, word: str = "zebra") -> dict[str, list[dict[str, Any]]]:
    """One of Alice's sessions as the team store exports it: a prompt, a Bash call, an edit
    adding ADDED to app.py."""
    m = team_row * 10
    return {
        "sessions": [{"id": team_row, "session_id": sid, "provider": "claude_code", "cwd": "/home/alice/shop",
                      "started_at": AT, "last_at": AT, "title": None, "first_prompt": f"add a discount helper, {word}",
                      "parent_session_id": None, "resumed_from": None, "git_branch": "main", "version": None,
                      "message_count": 2, "content_hash": digest, "origin": None, "origin_ref": None,
                      "claimed_id": None, "root_commit": root, "member": member, "member_name": "Alice"}],
        "messages": [{"id": m, "session_row": team_row, "message_index": 0, "role": "user", "kind": "text",
                      "text": f"add a discount helper, the {word} rollout needs it", "timestamp": AT},
                     {"id": m + 1, "session_row": team_row, "message_index": 1, "role": "assistant", "kind": "tool_use",
                      "text": "Edit app.py", "timestamp": AT}],
        "tool_calls": [{"id": m, "session_row": team_row, "message_index": 1, "call_id": f"toolu_{team_row}",
                        "name": "Edit", "input": '{"file_path": "app.py"}', "output": "ok", "exit_code": None,
                        "status": "ok", "timestamp": AT, "cwd": None}],
        "edits": [{"id": m, "session_row": team_row, "repo_id": 7, "message_index": 1, "call_id": f"toolu_{team_row}",
                   "seq": 0, "tool": "Edit", "kind": "edit", "rel_path": "app.py", "timestamp": AT,
                   "user_modified": False, "hunks": "[[3, 0, 3, 5, [\"+\", \"+\"]]]", "after_text": None}],
        "edit_lines": [{"edit_id": m, "side": "+", "ordinal": i, "hash": line_facts(t)[0], "exact": line_facts(t)[1],
                        "trivial": line_facts(t)[2]} for i, t in enumerate(ADDED)],
        "passages": [],
        "repos": [{"id": 7, "root_commit": root}],
    }


def _pull(w: Any, rows: dict[str, list[dict[str, Any]]] | None, seen: dict[int, tuple[str, str, str, str | None]],
          memories: list[dict[str, Any]] | None = None, url: str = "postgresql://core_bob@db/team") -> dict[str, int]:
    return w["store"].team.apply(TeamPull(
        team="core", url=url, member="bob@example.com", machine="m-bob", at=AT, seen=seen, rows=rows or {},
        memories=memories or [], repos={w["root"]: w["repo_id"]}, paths={w["root"]: str(w["repo"])}))


def _why_line(w: Any, text: str) -> dict[str, Any]:
    from hansard.answers.why import explain

    ans = explain(w["store"], "app.py", cwd=str(w["repo"]))
    line = next(ln for ln in ans["lines"] if ln["content"] == text)
    return {**line, "session": ans["sessions"].get(line.get("session_id") or "")}


def _teams_rows(store: SqliteStore) -> dict[str, int]:
    return {t: store.db.execute(f"SELECT COUNT(*) FROM {t} WHERE {c} < 0").fetchone()[0]
            for t, c in (("sessions", "id"), ("messages", "id"), ("tool_calls", "id"), ("edits", "id"),
                         ("edit_lines", "edit_id"))}


def test_a_pulled_session_answers_why_show_and_search_as_a_local_one(world: Any) -> None:
    from hansard.answers.search.sessions import search_past_sessions
    from hansard.answers.transcript import get_past_session

    counts = _pull(world, _session(5, root=world["root"]), {5: (SID, "h1", "alice@example.com", "Alice")})
    assert counts["sessions"] == 1 and counts["edit_lines"] == 3
    assert _teams_rows(world["store"]) == {"sessions": 1, "messages": 2, "tool_calls": 1, "edits": 1, "edit_lines": 3}
    line = _why_line(world, ADDED[1])
    assert line["kind"] == "agent" and line["session_id"] == SID and line["rule"] == "wrote"
    assert line["session"]["member"] == "alice@example.com" and line["session"]["member_name"] == "Alice"
    assert line["session"]["source"] == {"kind": "member", "member": "alice@example.com", "member_name": "Alice",
                                         "origin": {"kind": "local"}}
    shown = get_past_session(world["store"], SID[:8])
    assert shown["session"]["member"] == "alice@example.com" and shown["messages"][0]["source"] is None
    assert shown["session"]["repo"] == str(world["repo"])
    # Search leaves teammates out unless asked for them, and then names them and their team.
    assert search_past_sessions(world["store"], "zebra")["results"] == []
    hits = search_past_sessions(world["store"], "zebra", include_team_sessions=True)["results"]
    assert [h["session_id"] for h in hits] == [SID]
    assert (hits[0]["member"], hits[0]["team"], hits[0]["source"]["kind"]) == ("alice@example.com", "core", "member")
    wrong = search_past_sessions(world["store"], "zebra", team="another")
    assert wrong["results"] == [] and "no team named 'another'" in wrong["notice"]
    assert world["store"].sessions.list() == []
    assert [s["session_id"] for s in world["store"].sessions.list(include_team=True)] == [SID]
    assert world["store"].sessions.status()["counts"]["sessions"] == 0  # what this machine indexed


def test_a_pull_drops_what_the_team_no_longer_shares_and_fetches_only_what_changed(world: Any) -> None:
    store = world["store"]
    seen = {5: (SID, "h1", "alice@example.com", "Alice")}
    _pull(world, _session(5, root=world["root"]), seen)
    assert store.team.wanted(seen) == []  # unchanged: nothing to fetch
    generation = store.why_cache.generation()
    # Alice pushed the session again (a new digest, new row ids on the server).
    seen2 = {6: (SID, "h2", "alice@example.com", "Alice")}
    assert store.team.wanted(seen2) == [6]
    counts = _pull(world, _session(6, digest="h2", root=world["root"], word="walrus"), seen2)
    assert counts["dropped"] == 1 and counts["sessions"] == 1
    assert store.why_cache.generation() != generation  # no cached answer outlives a pull
    from hansard.answers.search.sessions import search_past_sessions

    assert search_past_sessions(store, "zebra", include_team_sessions=True)["results"] == []
    assert [h["session_id"] for h in search_past_sessions(store, "walrus", include_team_sessions=True)["results"]] \
        == [SID]
    # The team no longer shares it: gone, and `why` names no session for the lines.
    assert _pull(world, None, {})["dropped"] == 1
    assert _teams_rows(store) == dict.fromkeys(_teams_rows(store), 0)
    assert _why_line(world, ADDED[1]).get("session_id") is None


def test_rows_of_another_team_or_member_are_dropped_not_mixed(world: Any) -> None:
    _pull(world, _session(5, root=world["root"]), {5: (SID, "h1", "alice@example.com", "Alice")})
    other = "carol-sid-0000"
    counts = _pull(world, _session(9, other, member="carol@example.com", root=world["root"]),
                   {9: (other, "h1", "carol@example.com", None)}, url="postgresql://other_bob@elsewhere/team")
    assert counts["dropped"] == 1
    assert [r[0] for r in world["store"].db.execute("SELECT session_id FROM sessions WHERE id < 0")] == [other]


def test_a_session_this_machine_records_stays_its_own(world: Any, tmp_path: Path) -> None:
    """Bob's store records a session of the same id (a checkpoint of it, say) after Alice's was
    pulled: his stands, hers is dropped and left out of later pulls; and his first row, in a
    store holding only the team's, takes an id above zero."""
    from hansard.values.models import MessageItem, SessionInfo

    store = world["store"]
    seen = {5: (SID, "h1", "alice@example.com", "Alice")}
    _pull(world, _session(5, root=world["root"]), seen)
    source = store.archive.add_source(str(tmp_path / "bob.jsonl"), "claude_code")
    from hansard.ingest import redact

    with store.archive.transaction():
        w = store.items.writer(source, "claude_code", redact)
        w.apply([SessionInfo(session_id=SID, provider="claude_code", cwd=str(world["repo"])),
                 MessageItem(session_id=SID, key="k1", role="user", text="my own words", timestamp=AT)], 10)
        store.items.index_text()
    rows = store.db.execute("SELECT id, member FROM sessions WHERE session_id=?", (SID,)).fetchall()
    assert [(r[0] > 0, r[1]) for r in rows] == [(True, None)]
    assert store.db.execute("SELECT MIN(id) FROM messages WHERE id > 0").fetchone()[0] == 1
    assert _teams_rows(store)["messages"] == 0
    assert store.team.wanted(seen) == []  # left out: the pull does not fetch it again
    _pull(world, _session(5, root=world["root"]), seen)
    assert store.db.execute("SELECT COUNT(*) FROM sessions WHERE session_id=?", (SID,)).fetchone()[0] == 1


def test_a_reindex_and_a_rebuild_keep_the_pulled_rows(world: Any, monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    from hansard.answers.search.sessions import search_past_sessions
    from hansard.ingest.pipeline import reindex
    from hansard.store.sqlite import doctor

    store = world["store"]
    _pull(world, _session(5, root=world["root"]), {5: (SID, "h1", "alice@example.com", "Alice")},
          memories=[{"id": 3, "memory_id": "abc", "kind": "claude_md", "source": "claude_code", "rel_path": "CLAUDE.md",
                     "title": "CLAUDE.md", "text": "the quokka rule", "sha256": "s1", "seen_at": AT,
                     "root_commit": world["root"], "member": "alice@example.com", "member_name": "Alice"}])
    before = _teams_rows(store)
    assert doctor.check(store.path)["ok"]
    reindex(store)
    assert _teams_rows(store) == before
    assert [h["session_id"] for h in search_past_sessions(store, "zebra", include_team_sessions=True)["results"]] \
        == [SID]
    assert _why_line(world, ADDED[1])["session_id"] == SID
    path = store.path
    store.close()
    doctor.salvage(path)
    store = world["store"] = SqliteStore.open(path)
    assert _teams_rows(store) == before and doctor.check(path)["ok"]
    assert [h["session_id"] for h in search_past_sessions(store, "zebra", include_team_sessions=True)["results"]] \
        == [SID]
    from hansard.answers.memories import search_memories

    assert search_memories(store, "quokka")["results"] == []
    hits = search_memories(store, "quokka", include_team_sessions=True)["results"]
    assert [(h["memory_id"], h["member"], h["repo"]) for h in hits] == [("team-3", "alice@example.com", str(world["repo"]))]
    assert store.team.state()["pulled_at"] == AT


def test_a_push_reads_this_machine_s_rows_only(world: Any) -> None:
    _pull(world, _session(5, root=world["root"]), {5: (SID, "h1", "alice@example.com", "Alice")},
          memories=[{"id": 3, "memory_id": "abc", "kind": "claude_md", "source": "claude_code", "rel_path": "CLAUDE.md",
                     "title": None, "text": "x", "sha256": "s1", "seen_at": AT, "root_commit": world["root"],
                     "member": "alice@example.com", "member_name": None}])
    team = world["store"].team
    ids = team.repo_ids_with_root(world["root"])
    assert team.sessions_in(ids) == [] and team.memories_in(ids) == []
    assert team.session_rows(-5, ids) == {"messages": [], "tool_calls": [], "edits": []}


def test_meaning_search_reads_the_passage_vectors_pushed_with_a_pulled_session(world: Any) -> None:
    """The vectors a teammate's machine pushed under the same embedder are this store's too:
    meaning search finds their session with the team flags, and not without them."""
    pytest.importorskip("numpy")
    import numpy as np

    from hansard.answers.search.sessions import search_past_sessions
    from tests.test_search import HashEmbedder

    emb = HashEmbedder()
    rows = _session(5, root=world["root"], word="walrus")
    text = rows["messages"][0]["text"]
    rows["passages"] = [{"message_id": 50, "model": emb.id, "start": 0, "end": len(text),
                         "vector": np.asarray(emb.embed([text])[0], np.float16).tobytes()}]
    assert _pull(world, rows, {5: (SID, "h1", "alice@example.com", "Alice")})["passages"] == 1
    query = "discount helper walrus rollout"
    hits = search_past_sessions(world["store"], query, mode="meaning", embedder=emb, include_team_sessions=True)
    assert hits["mode"] == "meaning" and [h["session_id"] for h in hits["results"]] == [SID]
    assert hits["results"][0]["matched_by"] == "meaning" and hits["results"][0]["member"] == "alice@example.com"
    alone = search_past_sessions(world["store"], query, mode="meaning", embedder=emb)
    assert [h for h in alone["results"] if h.get("member")] == []


def test_a_common_word_ranks_the_team_s_newest_rows_as_this_machine_s_newest(world: Any,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Over many matches, search ranks the newest stretch of rows only, and says its total is an
    estimate: the team's newest are those the team store numbered last (the lowest ids here)."""
    from hansard.answers.search.sessions import search_past_sessions
    from hansard.store.sqlite import search

    monkeypatch.setattr(search, "PROBE_ROWS", 20)
    monkeypatch.setattr(search, "RANK_CAP", 5)
    rows: dict[str, list[dict[str, Any]]] = {"sessions": [], "messages": []}
    seen = {}
    for team_row, sid in ((5, "old-session"), (9, "new-session")):
        one = _session(team_row, sid, root=world["root"])
        rows["sessions"] += one["sessions"]
        rows["messages"] += [{"id": team_row * 1000 + i, "session_row": team_row, "message_index": i, "role": "user",
                              "kind": "text", "text": f"zebra crossing number {i}", "timestamp": AT} for i in range(40)]
        seen[team_row] = (sid, "h1", "alice@example.com", "Alice")
    _pull(world, rows, seen)
    ans = search_past_sessions(world["store"], "zebra", include_team_sessions=True, limit=10)
    assert [h["session_id"] for h in ans["results"]] == ["new-session"] and ans["total_exact"] is False
    monkeypatch.setattr(search, "PROBE_ROWS", 10_000)
    ans = search_past_sessions(world["store"], "zebra", include_team_sessions=True, limit=10)
    assert sorted(h["session_id"] for h in ans["results"]) == ["new-session", "old-session"]
