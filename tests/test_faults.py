"""Resource faults give clear errors with their own codes and leave no partial state: a full
disk, a read-only store, a store from a newer hansard, and a damaged store that `hansard
doctor --rebuild` restores from its archive."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from hansard.ingest.run import index
from hansard.store.sqlite.db import connect
from tests.helpers import dump, run_cli

CC = "claude-code/entire_cc_2.1.119_b/full.jsonl"


def _corpus(samples: Path, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(samples / CC, dest / "cc.jsonl")
    shutil.copyfile(samples / "codex/entire_codex_0.125/full.jsonl", dest / "codex.jsonl")
    return dest


def test_disk_full_leaves_no_partial_state(samples: Path, tmp_path: Path) -> None:
    db = connect()
    index(db, [_corpus(samples, tmp_path / "a")])
    before = dump(db)
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    # A real SQLITE_FULL: the file may not grow past its current size.
    db.execute(f"PRAGMA max_page_count={pages + 2}")
    shutil.copyfile(samples / "codex/entire_codex_0.121/full.jsonl", tmp_path / "a" / "big.jsonl")
    from hansard.errors import DiskFull

    with pytest.raises(DiskFull) as info:
        index(db, [tmp_path / "a"])
    assert info.value.code == "disk_full" and info.value.retryable
    assert dump(db) == before  # the file's transaction rolled back whole


def test_newer_store_is_refused(tmp_path: Path) -> None:
    db = connect()
    db.execute("INSERT INTO _migrations VALUES ('m999_from_the_future', 0)")
    db.close()
    code, _, err = run_cli("status")
    assert code == 15 and "store_too_new" in err and "upgrade hansard" in err


def _mount(path: Path, *opts: str) -> bool:
    path.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join(("size=16m", *opts)), "tmpfs", str(path)],
                       capture_output=True)
    return r.returncode == 0


def test_read_only_store(samples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "ro"
    if not _mount(home):
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        monkeypatch.setenv("HANSARD_HOME", str(home))
        db = connect()
        index(db, [_corpus(samples, tmp_path / "a")])
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.execute("PRAGMA journal_mode=DELETE")
        db.close()
        subprocess.run(["mount", "-o", "remount,ro", str(home)], check=True)
        code, _, err = run_cli("index", str(tmp_path / "a"))
        assert code == 14 and "store_read_only" in err
        # Readers still answer from the read-only store.
        code, out, err = run_cli("status", "--json")
        assert code == 0, err
        assert '"sessions": 2' in out
    finally:
        subprocess.run(["umount", "-l", str(home)], capture_output=True)


def test_doctor_rebuilds_a_damaged_store(samples: Path, tmp_path: Path) -> None:
    db = connect()
    index(db, [_corpus(samples, tmp_path / "a")])
    before = dump(db)
    # Damage a derived table's pages: overwrite the messages table's root page with junk.
    root = db.execute("SELECT rootpage FROM sqlite_master WHERE name='messages'").fetchone()[0]
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    store = Path(os.environ["HANSARD_HOME"]) / "hansard.db"
    with store.open("r+b") as fh:
        fh.seek((root - 1) * page_size)
        fh.write(b"\xde\xad\xbe\xef" * (page_size // 4))
    code, out, _ = run_cli("doctor")
    assert code == 16 and "BAD" in out and "doctor --rebuild" in out
    code, out, _ = run_cli("doctor", "--rebuild")
    assert code == 0, out
    assert dump(connect()) == before
    assert list(store.parent.glob("hansard.db.damaged-*"))


def test_a_git_that_fails_once_while_linking_leaves_the_session_for_the_next_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A session in a repository hansard does not know yet, linked while one git call fails:
    the run counts it (git_unreadable) and leaves it unlinked; the next run links it to the
    repository kept with its root commit, never to one kept as having no commit."""
    from datetime import datetime

    from fixtures_repos.gitrepo import GitRepo
    from fixtures_repos.writers import ClaudeWriter
    from tests.helpers import git_failing_once

    repo = GitRepo.init(tmp_path / "app")
    repo.write("a.py", "x = 1\n")
    repo.commit("start", datetime(2026, 3, 1, 9, 0))
    w = ClaudeWriter(Path(os.environ["CLAUDE_CONFIG_DIR"]), repo.path, "5b0d6c1e-2f3a-4b4c-8d5e-6f7a8b9c0d1e",
                     datetime(2026, 3, 1, 9, 5))
    w.prompt("add y")
    w.edit(repo.path / "a.py", "x = 1\n", "x = 1\ny = compute_the_value(x)\n")
    repo.commit("y", datetime(2026, 3, 1, 9, 10))
    monkeypatch.chdir(tmp_path)  # a bare index, run outside any repository
    monkeypatch.setenv("PATH", f"{git_failing_once(tmp_path, 'rev-list')}{os.pathsep}{os.environ['PATH']}")
    db = connect()
    assert index(db).skipped == {"git_unreadable": 2}  # the session and its edit
    assert [tuple(r) for r in db.execute("SELECT repo_id, resolved FROM sessions")] == [(None, 0)]
    assert db.execute("SELECT COUNT(*) FROM repos").fetchone()[0] == 0
    index(db)
    root = repo.git("rev-list", "--max-parents=0", "HEAD").strip()
    assert [tuple(r) for r in db.execute("SELECT root_commit, path FROM repos")] == [(root, str(repo.path))]
    assert [tuple(r) for r in db.execute("SELECT s.repo_id IS NOT NULL, e.rel_path FROM sessions s"
                                         " JOIN edits e ON e.session_id=s.id")] == [(1, "a.py")]
