"""Entire checkpoints as a session source: a repository whose only sessions are on
its checkpoint refs answers `why` with those sessions and their tool calls, in both layouts,
without writing to the repository; sessions kept in several checkpoints are merged; reading is
incremental. What the repository carries is keyed apart: its sessions' ids are
``<id>@<root commit[:12]>`` and say where they were read; a session this machine also has in an
agent home stays this machine's, and answers name it."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from fixtures_repos.entire import SessionCopy, write_checkpoint
from fixtures_repos.gitrepo import GitRepo
from fixtures_repos.writers import ClaudeWriter
from tests.helpers import git_dir_files, real_write_repo, run_cli

T0 = datetime(2026, 11, 10, 9, 0, 0)
SID = "4a1f6c2e-7b3d-4e8a-9c0f-1d2e3f4a5b6c"
CP1, CP2 = "a1b2c3d4e5f6", "0f9e8d7c6b5a"
RETRY = "def retry(call, attempts=3):\n    return call()\n"


def _store() -> sqlite3.Connection:
    return sqlite3.connect(Path(os.environ["HANSARD_HOME"]) / "hansard.db")


def carried(repo: GitRepo, ident: str) -> str:
    """The id a session (or tool call) read from ``repo``'s checkpoints is stored under."""
    return f"{ident}@{repo.git('rev-list', '--max-parents=0', 'HEAD').split()[0][:12]}"


def _alice_session(tmp_path: Path, layout: str, *, sliced: bool = False) -> tuple[GitRepo, dict[str, str]]:
    """Alice's clone: a human commit, then a Claude Code session's edits committed in two
    commits with Entire-Checkpoint trailers, the session kept in both checkpoints (whole
    copies, or with ``sliced`` the second holding only the part since the first)."""
    alice = GitRepo.init(tmp_path / "alice" / "src" / "app")
    alice.write("app/retry.py", RETRY)
    alice.commit("Add retry helper", T0)
    home = tmp_path / "alice-home" / ".claude"
    w = ClaudeWriter(home, alice.path, SID, T0 + timedelta(minutes=5))
    w.prompt("uploads fail on the first 502; add a capped exponential backoff")
    call1 = w.edit(alice.path / "app" / "retry.py", "    return call()\n",
                   "    for attempt in range(attempts):\n        backoff = min(30, 2 ** attempt)\n    return call()\n")
    first = w.path.read_bytes()
    alice.commit(f"Add capped backoff\n\nEntire-Checkpoint: {CP1}\n", T0 + timedelta(minutes=10))
    write_checkpoint(alice, CP1, [SessionCopy(SID, first, "2026-11-10T09:10:00.123456789Z",
                                              files_touched=["app/retry.py"])], T0 + timedelta(minutes=10), layout=layout)
    w.clock.advance(6 * 60)  # the next prompt comes after the first commit, as the story goes
    w.prompt("log each retry")
    call2 = w.edit(alice.path / "app" / "retry.py", "        backoff = min(30, 2 ** attempt)\n",
                   "        backoff = min(30, 2 ** attempt)\n        log_retry_attempt(attempt, backoff)\n")
    whole = w.path.read_bytes()
    alice.commit(f"Log retries\n\nEntire-Checkpoint: {CP2}\n", T0 + timedelta(minutes=20))
    second = whole[len(first):] if sliced else whole
    write_checkpoint(alice, CP2, [SessionCopy(SID, second, "2026-11-10T09:20:00Z", files_touched=["app/retry.py"])],
                     T0 + timedelta(minutes=20), layout=layout)
    return alice, {"backoff": call1, "log": call2, "transcript": str(w.path)}


def _bob(tmp_path: Path, alice: GitRepo, layout: str) -> GitRepo:
    """Bob's clone of Alice's repository, with her checkpoints, on a machine without her files."""
    bob = GitRepo.clone(alice.path, tmp_path / "bob" / "app")
    if layout == "ref":
        bob.git("fetch", "-q", "origin", "refs/entire/checkpoints/*:refs/entire/checkpoints/*")
    shutil.rmtree(tmp_path / "alice")
    shutil.rmtree(tmp_path / "alice-home")
    return bob


def _why(repo: GitRepo, spec: str, monkeypatch: pytest.MonkeyPatch) -> dict:
    monkeypatch.chdir(repo.path)
    rc, out, err = run_cli("why", spec, "--json")
    assert rc == 0, (out, err)
    return json.loads(out)


@pytest.mark.parametrize("layout", ["branch", "ref"])
def test_why_answers_from_checkpoints_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str) -> None:
    alice, calls = _alice_session(tmp_path, layout)
    bob = _bob(tmp_path, alice, layout)
    before = git_dir_files(bob.path / ".git")
    rc, out, err = run_cli("index", str(bob.path))
    assert rc == 0, (out, err)
    doc = _why(bob, "app/retry.py", monkeypatch)
    by_text = {ln["content"].strip(): ln for ln in doc["lines"]}
    backoff, log = by_text["backoff = min(30, 2 ** attempt)"], by_text["log_retry_attempt(attempt, backoff)"]
    sid = carried(bob, SID)
    assert (backoff["kind"], backoff["session_id"], backoff["provider"], backoff["tool_call_id"]) == \
        ("agent", sid, "claude_code", carried(bob, calls["backoff"]))
    assert (log["kind"], log["session_id"], log["tool_call_id"]) == ("agent", sid, carried(bob, calls["log"]))
    assert by_text["def retry(call, attempts=3):"]["kind"] == "human"
    assert doc["sessions"][sid]["prompt"].startswith("uploads fail on the first 502")
    root = bob.git("rev-list", "--max-parents=0", "HEAD").split()[0]
    store = "refs/remotes/origin/entire/checkpoints/v1" if layout == "branch" else "refs/entire/checkpoints"
    assert doc["sessions"][sid]["source"] == {"kind": "repository", "repository": root, "ref": store, "claimed_id": SID}
    # One session, once: two checkpoints each kept the whole transcript so far.
    db = _store()
    assert db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 1
    assert db.execute("SELECT COUNT(*) FROM edits WHERE status='applied'").fetchone()[0] == 2
    assert db.execute("SELECT checkpoint, session_id FROM checkpoint_sessions ORDER BY 1").fetchall() == \
        [(CP2, sid), (CP1, sid)]
    # Nothing under .git changed: no ref, object, config, index or log written, nothing fetched.
    assert git_dir_files(bob.path / ".git") == before


def test_slices_are_merged_and_unchanged_refs_are_not_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    alice, calls = _alice_session(tmp_path, "branch", sliced=True)
    bob = _bob(tmp_path, alice, "branch")
    # The local branch too, as after `git checkout entire/checkpoints/v1`: the same copies, read once.
    bob.git("branch", "entire/checkpoints/v1", "origin/entire/checkpoints/v1")
    assert run_cli("index", str(bob.path))[0] == 0
    db = _store()
    assert db.execute("SELECT COUNT(*) FROM sources WHERE path LIKE 'git:%'").fetchone()[0] == 1
    doc = _why(bob, "app/retry.py", monkeypatch)
    tools = {ln["tool_call_id"] for ln in doc["lines"] if ln["kind"] == "agent"}
    assert tools == {carried(bob, calls["backoff"]), carried(bob, calls["log"])}
    scanned = db.execute("SELECT path, last_scanned, generation FROM sources WHERE path LIKE 'git:%'").fetchall()
    assert run_cli("index", str(bob.path))[0] == 0
    assert db.execute("SELECT path, last_scanned, generation FROM sources WHERE path LIKE 'git:%'").fetchall() == scanned


def test_a_growing_session_is_read_from_where_it_stopped(tmp_path: Path) -> None:
    """A later checkpoint holding the whole transcript so far appends to the source, not a
    new generation; the session stays one."""
    alice = GitRepo.init(tmp_path / "app")
    alice.write("a.py", "x = 1\n")
    alice.commit("start", T0)
    home = tmp_path / "h" / ".claude"
    w = ClaudeWriter(home, alice.path, SID, T0 + timedelta(minutes=1))
    w.prompt("make y")
    w.edit(alice.path / "a.py", "x = 1\n", "x = 1\ny = compute_the_value(x)\n")
    first = w.path.read_bytes()
    write_checkpoint(alice, CP1, [SessionCopy(SID, first, "2026-11-10T09:02:00Z")], T0 + timedelta(minutes=2))
    assert run_cli("index", str(alice.path))[0] == 0
    db = _store()
    (gen0, off0), = db.execute("SELECT generation, \"offset\" FROM sources WHERE path LIKE 'git:%'").fetchall()
    w.prompt("and z")
    w.edit(alice.path / "a.py", "y = compute_the_value(x)\n", "y = compute_the_value(x)\nz = y * 2 + offset\n")
    write_checkpoint(alice, CP2, [SessionCopy(SID, w.path.read_bytes(), "2026-11-10T09:04:00Z")],
                     T0 + timedelta(minutes=4))
    assert run_cli("index", str(alice.path))[0] == 0
    (gen1, off1), = db.execute("SELECT generation, \"offset\" FROM sources WHERE path LIKE 'git:%'").fetchall()
    assert gen1 == gen0 and off1 > off0
    assert db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 1
    assert db.execute("SELECT COUNT(*) FROM edits").fetchone()[0] == 2
    assert db.execute("SELECT COUNT(DISTINCT checkpoint) FROM checkpoint_sessions").fetchone()[0] == 2


def test_a_session_also_in_an_agent_home_stays_this_machines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """The checkpoint's copy is kept apart, never merged into the local session (it could claim
    any id); answers name the local one, and the checkpoint's trailer ties its commit to it."""
    alice = GitRepo.init(tmp_path / "app")
    alice.write("a.py", "x = 1\n")
    alice.commit("start", T0)
    home = Path(os.environ["CLAUDE_CONFIG_DIR"])
    w = ClaudeWriter(home, alice.path, SID, T0 + timedelta(minutes=1))
    w.prompt("make y")
    call = w.edit(alice.path / "a.py", "x = 1\n", "x = 1\ny = compute_the_value(x)\n")
    alice.commit(f"y\n\nEntire-Checkpoint: {CP1}\n", T0 + timedelta(minutes=2))
    write_checkpoint(alice, CP1, [SessionCopy(SID, w.path.read_bytes(), "2026-11-10T09:02:00Z")],
                     T0 + timedelta(minutes=2))
    assert run_cli("index")[0] == 0  # the agent home (which registers the repository)
    assert run_cli("index")[0] == 0  # and now the known repository's refs
    db = _store()
    assert db.execute("SELECT COUNT(*) FROM sources WHERE path LIKE 'git:%'").fetchone()[0] == 1
    assert db.execute("SELECT session_id, origin, claimed_id FROM sessions ORDER BY id").fetchall() == \
        [(SID, None, None), (carried(alice, SID), "repository", SID)]
    assert db.execute("SELECT COUNT(*) FROM messages m JOIN sessions s ON s.id=m.session_id"
                      " WHERE s.session_id=?", (SID,)).fetchone()[0] == \
        db.execute("SELECT message_count FROM sessions WHERE session_id=?", (SID,)).fetchone()[0]
    line = _why(alice, "a.py:2", monkeypatch)["lines"][0]
    assert (line["kind"], line["session_id"], line["tool_call_id"]) == ("agent", SID, call)
    assert "alternatives" not in line and line["confidence"] > 0.5  # the copy is no rival
    assert (alice.head(), SID) in _ties()


def test_reindex_rebuilds_checkpoint_sessions_from_the_archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    alice, calls = _alice_session(tmp_path, "ref")
    bob = _bob(tmp_path, alice, "ref")
    assert run_cli("index", str(bob.path))[0] == 0
    assert run_cli("reindex")[0] == 0
    doc = _why(bob, "app/retry.py", monkeypatch)
    assert {ln["tool_call_id"] for ln in doc["lines"] if ln["kind"] == "agent"} == \
        {carried(bob, calls["backoff"]), carried(bob, calls["log"])}


def _ties(rule: str = "trailer") -> set[tuple[str, str]]:
    return set(_store().execute("SELECT sha, session_id FROM commit_ties WHERE rule=?", (rule,)).fetchall())


def test_entire_checkpoint_trailers_tie_their_commits(tmp_path: Path) -> None:
    alice, _calls = _alice_session(tmp_path, "branch")
    bob = _bob(tmp_path, alice, "branch")
    assert run_cli("index", str(bob.path))[0] == 0
    backoff, log = bob.rev_parse("HEAD~1"), bob.rev_parse("HEAD")
    assert _ties() == {(backoff, carried(bob, SID)), (log, carried(bob, SID))}


def test_a_squash_merge_body_ties_every_checkpoint_it_lists(tmp_path: Path) -> None:
    """GitHub's squash merge copies each squashed commit's trailer into its body; a checkpoint
    read after the commits were linked brings its ties at the next index."""
    repo = GitRepo.init(tmp_path / "app")
    repo.write("a.py", "x = 1\n")
    repo.commit("start", T0)
    home = tmp_path / "h" / ".claude"
    sids = ["11111111-2222-4333-8444-555555555555", "66666666-7777-4888-9999-aaaaaaaaaaaa"]
    copies = []
    for k, (sid, cid) in enumerate(zip(sids, (CP1, CP2), strict=True)):
        w = ClaudeWriter(home, repo.path, sid, T0 + timedelta(minutes=1 + 5 * k))
        w.prompt(f"step {k}")
        w.edit(repo.path / "a.py", "x = 1\n", f"x = 1\nvalue_{k} = compute_step({k})\n")
        copies.append((cid, SessionCopy(sid, w.path.read_bytes(), f"2026-11-10T09:0{3 + 5 * k}:00Z")))
    body = f"Two steps (#12)\n\n* step 0\n\nEntire-Checkpoint: {CP1}\n\n* step 1\n\nEntire-Checkpoint: {CP2}\n"
    repo.commit(body, T0 + timedelta(minutes=20))
    assert run_cli("index", str(repo.path))[0] == 0
    assert _ties() == set()
    for k, (cid, copy) in enumerate(copies):
        write_checkpoint(repo, cid, [copy], T0 + timedelta(minutes=21 + k))
    assert run_cli("index", str(repo.path))[0] == 0
    assert _ties() == {(repo.head(), carried(repo, sids[0])), (repo.head(), carried(repo, sids[1]))}


SAMPLES = Path(__file__).parent / "entire_samples"
REAL_SID = "6da7d497-00e2-460d-a6b4-d280e0314cfd"


def test_a_real_entire_session_answers_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two real checkpoints of one Claude Code session (entireio/cli, see
    tests/entire_samples/PROVENANCE.md), recorded in a worktree this machine lacks: the
    session is read once from both copies, and the file it wrote is its own, found from the
    session's own records: no path map is made."""
    repo, write = _real_session_repo(tmp_path)
    before = git_dir_files(repo.path / ".git")
    assert run_cli("index", str(repo.path))[0] == 0
    doc = _why(repo, "docs/geese.md", monkeypatch)
    sid = carried(repo, REAL_SID)
    assert {(ln["kind"], ln["session_id"], ln["tool_call_id"]) for ln in doc["lines"] if ln["content"].strip()} == \
        {("agent", sid, carried(repo, write["id"]))}
    assert doc["sessions"][sid]["source"]["claimed_id"] == REAL_SID
    db = _store()
    assert db.execute("SELECT session_id, provider FROM sessions").fetchall() == [(sid, "claude_code")]
    assert db.execute("SELECT checkpoint FROM checkpoint_sessions ORDER BY 1").fetchall() == \
        [("9b3838281539",), ("9fe3cfdef74d",)]
    assert _ties() == {(repo.head(), sid)}
    assert db.execute("SELECT old_prefix FROM path_maps").fetchall() == []
    assert git_dir_files(repo.path / ".git") == before


def _real_session_repo(tmp_path: Path) -> tuple[GitRepo, dict]:
    """The repository of the real session's file, its commit and both checkpoints that kept
    the session; and the session's Write call."""
    from fixtures_repos.entire import write_checkpoint_folder

    repo, write = real_write_repo(tmp_path, SAMPLES / "9fe3cfdef74d" / "0" / "full.jsonl", "docs/geese.md",
                                  "docs: geese\n\nEntire-Checkpoint: 9fe3cfdef74d\n", datetime(2026, 2, 6, 6, 0, 0),
                                  datetime(2026, 2, 6, 6, 50, 0))
    for k, cid in enumerate(("9fe3cfdef74d", "9b3838281539")):
        write_checkpoint_folder(repo, cid, SAMPLES / cid, datetime(2026, 2, 6, 6, 50 + k, 0))
    return repo, write


def test_a_git_that_fails_once_reading_the_repository_leaves_nothing_wrong(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """One failed git call while `hansard index REPO` reads the repository's identity (a git
    killed, out of memory or processes) is the index's error, and the next index answers as
    if it never happened: the repository is never kept as one with no commit, so the sessions
    its checkpoints carry are never linked to nothing for good."""
    from tests.helpers import git_failing_once

    repo, write = _real_session_repo(tmp_path)
    monkeypatch.setenv("PATH", f"{git_failing_once(tmp_path, 'rev-list')}{os.pathsep}{os.environ['PATH']}")
    rc, out, err = run_cli("index", str(repo.path))
    assert rc != 0 and "git" in err, (rc, out, err)
    assert run_cli("index", str(repo.path))[0] == 0
    doc = _why(repo, "docs/geese.md", monkeypatch)
    assert {(ln["kind"], ln["session_id"], ln["tool_call_id"]) for ln in doc["lines"] if ln["content"].strip()} == \
        {("agent", carried(repo, REAL_SID), carried(repo, write["id"]))}
    assert _store().execute("SELECT root_commit FROM repos").fetchall() == \
        [(repo.git("rev-list", "--max-parents=0", "HEAD").strip(),)]


def test_checkpoint_refs_are_found_loose_packed_and_remote(tmp_path: Path) -> None:
    """The look at git's files that spares a process per known repository never misses a
    layout: loose, packed (after `git pack-refs`), remote-tracking."""
    from hansard.ingest.git_sources import _may_hold_checkpoints

    repo = GitRepo.init(tmp_path / "app")
    repo.write("a.py", "x = 1\n")
    repo.commit("start", T0)
    assert not _may_hold_checkpoints(str(repo.path))
    write_checkpoint(repo, CP1, [SessionCopy(SID, b"{}\n", "2026-11-10T09:02:00Z")], T0, layout="ref")
    assert _may_hold_checkpoints(str(repo.path))
    repo.git("pack-refs", "--all")
    assert _may_hold_checkpoints(str(repo.path))
    clone = GitRepo.clone(repo.path, tmp_path / "clone")
    assert not _may_hold_checkpoints(str(clone.path))  # refs/entire/* is not fetched by a clone
    write_checkpoint(repo, CP2, [SessionCopy(SID, b"{}\n", "2026-11-10T09:02:00Z")], T0)
    clone.git("fetch", "-q", "origin")
    assert _may_hold_checkpoints(str(clone.path))  # refs/remotes/origin/entire/checkpoints/v1


def test_a_bare_index_in_a_clone_reads_its_checkpoints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`hansard index` run inside a clone, on a new store, reads the clone's checkpoint branch
    (a remote-tracking copy) as `hansard index CLONE` does, and says nothing about indexing."""
    alice, calls = _alice_session(tmp_path, "branch")
    bob = _bob(tmp_path, alice, "branch")
    monkeypatch.chdir(bob.path / "app")  # anywhere inside the work tree
    rc, out, err = run_cli("index")
    assert rc == 0 and "run `hansard index`" not in err, (out, err)
    doc = _why(bob, "app/retry.py", monkeypatch)
    assert {ln["tool_call_id"] for ln in doc["lines"] if ln["kind"] == "agent"} == \
        {carried(bob, calls["backoff"]), carried(bob, calls["log"])}


@pytest.mark.parametrize("workers", [False, True])
def test_a_branch_and_its_remote_copy_are_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    workers: bool) -> None:
    """A clone with the checkpoint branch both local and remote-tracking (the same copies under
    two refs) keeps each session once, under the ref read first, whether its sessions are read
    by worker processes or by the index's own; a copy that makes no transcript is read, and
    noted, under both."""
    if workers:
        monkeypatch.setattr("hansard.ingest.prepare.WORKER_MIN_BYTES", 0)
    alice, calls = _alice_session(tmp_path, "branch")
    other = "9c0f1d2e-3f4a-4b6c-8a1f-6c2e7b3d4e8a"
    write_checkpoint(alice, "c0ffee123456", [SessionCopy(other, b"not a transcript\n", "2026-11-10T09:30:00Z")],
                     T0 + timedelta(minutes=30))
    bob = _bob(tmp_path, alice, "branch")
    bob.git("branch", "entire/checkpoints/v1", "origin/entire/checkpoints/v1")
    rc, out, err = run_cli("index", str(bob.path))
    assert rc == 0, (out, err)
    root = bob.git("rev-list", "--max-parents=0", "HEAD").split()[0]
    local, remote = f"git:{root}:refs/heads/entire/checkpoints/v1", f"git:{root}:refs/remotes/origin/entire/checkpoints/v1"
    assert _store().execute("SELECT path, provider FROM sources ORDER BY path").fetchall() == \
        [(f"{local}:entire/{SID}", "claude_code"), (f"{local}:entire/{other}", None), (f"{remote}:entire/{other}", None)]
    doc = _why(bob, "app/retry.py", monkeypatch)
    assert {ln["tool_call_id"] for ln in doc["lines"] if ln["kind"] == "agent"} == \
        {carried(bob, calls["backoff"]), carried(bob, calls["log"])}
