"""`hansard why` while an index run is still building the store: the answer
says so (`indexing: true` in JSON, a warning line in text) instead of reading as complete,
and says nothing once the run has finished. Real processes and a real indexer lock."""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from fixtures_repos.writers import ClaudeWriter
from tests.helpers import index_lock_held
from tests.hostile import git

SID = "12345678-1111-4111-8111-000000000001"


def _world(tmp: Path, filler: int = 0) -> Path:
    """A repository whose app.py a Claude Code session wrote and committed; ``filler``
    sessions elsewhere make an index run last a few seconds. Nothing indexed yet."""
    home = Path(os.environ["CLAUDE_CONFIG_DIR"])
    repo = tmp / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    w = ClaudeWriter(home, repo.resolve(), SID, datetime(2026, 11, 20, 9, 0, 0))
    w.prompt("add the greeting")
    w.write(repo.resolve() / "app.py", "def greet():\n    return 'hello from the agent'\n")
    w.say("done")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "greeting")
    other = tmp / "elsewhere"
    other.mkdir()
    for k in range(filler):
        f = ClaudeWriter(home, other, f"ffffffff-0000-4000-8000-{k:012d}", datetime(2026, 11, 1, 9, 0, 0))
        for j in range(20):
            f.prompt(f"filler prompt {k} {j} " + "lorem ipsum dolor sit amet " * 20)
            f.say("reply " + "consectetur adipiscing elit " * 30)
    return repo


def hansard(cwd: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hansard", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def _lock_path() -> Path:
    home = Path(os.environ["HANSARD_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    return home / "index.lock"


def _runs() -> int:
    db = sqlite3.connect(Path(os.environ["HANSARD_HOME"]) / "hansard.db")
    try:
        return db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    finally:
        db.close()


def _why(repo: Path, *args: str) -> dict[str, Any]:
    r = hansard(repo, "why", "app.py:2", "--json", *args)
    assert r.returncode == 0, r
    return json.loads(r.stdout)


def test_why_says_the_store_is_being_built_while_the_first_index_holds_the_lock(tmp_path: Path) -> None:
    repo = _world(tmp_path)
    # What a first `hansard index` holds for the whole run (the same lock file, flock).
    fd = os.open(_lock_path(), os.O_CREAT | os.O_RDWR, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        during = _why(repo)
        assert during.get("indexing") is True, during
        assert during["lines"][0]["kind"] != "agent"  # the session is not read yet
        text = hansard(repo, "why", "app.py:2")
        assert text.returncode == 0 and "an index of this store is still running" in text.stderr, text
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    after = _why(repo)  # its own quick sync indexes now
    assert "indexing" not in after and after["lines"][0]["kind"] == "agent", after
    text = hansard(repo, "why", "app.py:2")
    assert "still running" not in text.stderr, text


def test_why_in_a_new_repository_does_not_wait_for_the_index_runs_write_lock(tmp_path: Path) -> None:
    """An index run holds write transactions one after another; registering this repository
    (a write) would wait for the run's end. It is given up at once, and the answer says the
    store is being indexed. Liveness, not speed: the writer here holds on until `why` is done
    or 60 s have passed, and `why` would wait up to HANSARD_BUSY_TIMEOUT (90 s) for it."""
    repo = _world(tmp_path)
    from hansard.store.sqlite.db import connect

    connect().close()  # the store exists and is migrated, as an index run leaves it
    fd = os.open(_lock_path(), os.O_CREAT | os.O_RDWR, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    db = sqlite3.connect(Path(os.environ["HANSARD_HOME"]) / "hansard.db", isolation_level=None)
    db.execute("BEGIN IMMEDIATE")  # the run's current group of files
    try:
        proc = subprocess.Popen([sys.executable, "-m", "hansard", "why", "app.py:2", "--json", "--no-sync"], cwd=repo,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
                                env={**os.environ, "HANSARD_BUSY_TIMEOUT": "90"})
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            pytest.fail("why waited for the index run's write transaction")
        assert proc.returncode == 0, err
        during = json.loads(out)
        assert during.get("indexing") is True, during
        assert during["lines"][0]["kind"] != "agent", during
    finally:
        db.execute("ROLLBACK")
        db.close()
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    after = _why(repo)
    assert "indexing" not in after and after["lines"][0]["kind"] == "agent", after


@pytest.mark.slow
def test_why_during_a_real_first_index(tmp_path: Path) -> None:
    repo = _world(tmp_path, filler=400)
    proc = subprocess.Popen([sys.executable, "-m", "hansard", "index"], cwd=repo, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        seen = False
        end = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < end and not seen:
            if not index_lock_held():
                time.sleep(0.01)
                continue
            ans = _why(repo, "--no-sync")
            # Only an answer given wholly inside the run counts: the lock was held before it
            # started, and after it the run is still unrecorded and the lock still held.
            if index_lock_held() and _runs() == 0:
                assert ans.get("indexing") is True, ans
                seen = True
        assert seen, "the index finished before why could ask during it; make the filler larger"
        assert proc.wait(120) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    after = _why(repo, "--no-sync")
    assert "indexing" not in after and after["lines"][0]["kind"] == "agent", after
