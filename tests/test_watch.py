"""`hansard index --watch` as a real process: a line appended to a transcript is searchable
within a second of being written (file notifications, and polling when watchfiles is not
installed), and SIGTERM stops it cleanly (exit 0, index lock released, store intact)."""

from __future__ import annotations

import fcntl
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fixtures_repos.writers import claude_append_record

pytestmark = pytest.mark.slow

SID = "5e55a0e5-0000-4000-8000-000000000a11"
CWD = "/tmp/watched-project"

# The CLI, optionally with watchfiles made unimportable (the polling fallback).
RUN = "import sys\n{block}from hansard.cli import entry\nsys.argv = ['hansard', *sys.argv[1:]]\nentry()\n"


def _transcript(folder: Path, r: random.Random) -> tuple[Path, str]:
    path = folder / "-tmp-watched-project" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    last = None
    with open(path, "wb") as fh:
        for i in range(20):
            last, data = claude_append_record(r, last, cwd=CWD, sid=SID, text=f"message number {i} of the first run",
                                              role="user" if i % 2 == 0 else "assistant")
            fh.write(data)
    return path, last


def _start(folder: Path, *, polling: bool = False) -> subprocess.Popen[str]:
    code = RUN.format(block="sys.modules['watchfiles'] = None\n" if polling else "")
    p = subprocess.Popen([sys.executable, "-c", code, "index", "--watch", str(folder)], stderr=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True, env=dict(os.environ))
    assert p.stderr is not None
    deadline = time.monotonic() + 60
    seen = []
    while time.monotonic() < deadline:
        line = p.stderr.readline()
        seen.append(line)
        if "watching" in line:
            return p
        if not line and p.poll() is not None:
            break
    p.kill()
    raise AssertionError(f"watch never became ready: {''.join(seen)}")


def _found(word: str) -> bool:
    db = sqlite3.connect(f"file:{os.environ['HANSARD_HOME']}/hansard.db?mode=ro", uri=True, timeout=5)
    try:
        return db.execute("SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH ?", (word,)).fetchone()[0] > 0
    finally:
        db.close()


def _append_and_wait(path: Path, last: str, r: random.Random, word: str) -> float:
    assert not _found(word)
    _u, data = claude_append_record(r, last, cwd=CWD, sid=SID, text=f"the watcher must find {word} quickly", role="user")
    with open(path, "ab") as fh:
        fh.write(data)
        fh.flush()
    t0 = time.monotonic()
    while time.monotonic() - t0 < 10:
        if _found(word):
            return time.monotonic() - t0
        time.sleep(0.02)
    raise AssertionError(f"{word} not searchable after 10 s")


def _stop(p: subprocess.Popen[str]) -> None:
    p.send_signal(signal.SIGTERM)
    try:
        code = p.wait(timeout=10)
    finally:
        if p.poll() is None:
            p.kill()
    assert code == 0, p.stderr.read() if p.stderr else ""
    fd = os.open(Path(os.environ["HANSARD_HOME"]) / "index.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released: this would raise otherwise
    finally:
        os.close(fd)
    db = sqlite3.connect(f"{os.environ['HANSARD_HOME']}/hansard.db")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()


@pytest.mark.parametrize("polling", [False, True], ids=["notifications", "polling"])
def test_appended_line_searchable_within_a_second(tmp_path: Path, polling: bool) -> None:
    if not polling:
        pytest.importorskip("watchfiles")
    r = random.Random(15)
    path, last = _transcript(tmp_path / "projects", r)
    p = _start(tmp_path / "projects", polling=polling)
    try:
        assert _found("first")
        took = [_append_and_wait(path, last, r, f"zebrafinch{i}") for i in range(3)]
        assert max(took) < 1.0, took
        # A new session file in a new project folder is picked up too.
        other = tmp_path / "projects" / "-tmp-other" / "6e55a0e5-0000-4000-8000-000000000b22.jsonl"
        other.parent.mkdir()
        _u, data = claude_append_record(r, None, cwd="/tmp/other", sid="6e55a0e5-0000-4000-8000-000000000b22",
                                        text="a brand new session about kingfishers", role="user")
        t0 = time.monotonic()
        other.write_bytes(data)
        while not _found("kingfishers"):
            assert time.monotonic() - t0 < 5, "new file not indexed"
            time.sleep(0.02)
    finally:
        _stop(p)


def test_files_written_right_after_their_new_folders_are_all_indexed(tmp_path: Path) -> None:
    """A new folder is watched only once its creation has been noticed; files written into it
    before then have no notification of their own (seen: 7 of 20 notified). None may be
    missed. A race: before the fix this failed in about one run of two or three."""
    pytest.importorskip("watchfiles")
    r = random.Random(16)
    _transcript(tmp_path / "projects", r)
    p = _start(tmp_path / "projects")
    try:
        words = []
        for k in range(20):
            sid = f"6e55a0e5-0000-4000-8000-{k:012d}"
            _u, data = claude_append_record(r, None, cwd=f"/tmp/burst{k}", sid=sid, text=f"burst session wren{k}",
                                            role="user")
            # A subagent's first transcript: <project>/<session>/subagents/, three new folders.
            folder = tmp_path / "projects" / f"-tmp-burst{k}" / SID / "subagents"
            folder.mkdir(parents=True)
            (folder / f"agent-a{k}.jsonl").write_bytes(data)
            words.append(f"wren{k}")
        t0 = time.monotonic()
        while not all(_found(w) for w in words):
            assert time.monotonic() - t0 < 10, [w for w in words if not _found(w)]
            time.sleep(0.05)
    finally:
        _stop(p)


def test_sigterm_during_a_run_rolls_back_and_exits_0(tmp_path: Path) -> None:
    """SIGTERM while the first index is running: exit 0 at once, and the store holds whole
    files only (the kill test's guarantee, for a clean stop)."""
    r = random.Random(16)
    folder = tmp_path / "projects"
    path, last = _transcript(folder, r)
    big = "x " * 200_000
    with open(path, "ab") as fh:
        for _ in range(60):
            last, data = claude_append_record(r, last, cwd=CWD, sid=SID, text=big, role="assistant")
            fh.write(data)
    code = RUN.format(block="")
    p = subprocess.Popen([sys.executable, "-c", code, "index", "--watch", "--quiet", str(folder)],
                         stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=dict(os.environ))
    time.sleep(1.5)
    _stop(p)
    db = sqlite3.connect(f"{os.environ['HANSARD_HOME']}/hansard.db")
    n = db.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    assert n in (0, 80), n  # the file is one transaction: all of it, or none
