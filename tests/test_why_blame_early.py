"""A fresh `why` of a working tree's file (or of a buffer in its place) starts the file's blame
and its log before the store is brought up to date (the quick index, the team's rows, the repository's
upkeep): those change what the store holds, never what git says, so git works beside them and
the answer takes what it started. A question the why-result cache answers starts none, and a
question that fails leaves none running."""

from __future__ import annotations

import gc
import json
import os
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tests.helpers import git_subcommand, logging_git, retry_repo, run_cli

T0 = datetime(2026, 11, 12, 9, 0, 0)
SID = "3b0e6c1a-58d2-4f0b-9a47-2c6d8e1f0a93"


def _ready(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    r = retry_repo(tmp_path, T0, SID, "Cap the backoff and log retries")
    monkeypatch.chdir(r.path)
    assert run_cli("index")[0] == 0
    return r


def _logged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bindir, log = logging_git(tmp_path)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    return log


def _started(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The git processes this process starts, in the order it starts them (each as its
    arguments after ``git``): a log the processes write themselves can be written out of order
    when two start together."""
    import subprocess

    started: list[str] = []

    class Recording(subprocess.Popen):  # type: ignore[type-arg]
        def __init__(self, args, *rest, **kw):  # type: ignore[no-untyped-def]
            if isinstance(args, (list, tuple)) and args and os.path.basename(str(args[0])) == "git":
                started.append(" ".join(str(a) for a in args[1:]))
            super().__init__(args, *rest, **kw)

    monkeypatch.setattr(subprocess, "Popen", Recording)
    return started


def _calls(log: Path) -> list[str]:
    return [git_subcommand(c) for c in log.read_text().splitlines()] if log.exists() else []


def _why(*args: str, stdin: bytes | None = None) -> dict:
    rc, out, err = run_cli("why", *args, "--json", stdin=stdin)
    assert rc == 0, (out, err)
    return json.loads(out)


def test_the_blame_starts_before_the_upkeep_and_is_the_answers_own(tmp_path, monkeypatch):
    r = _ready(tmp_path, monkeypatch)
    before = _why("retry.py", "--no-cache")
    r.write("NOTES.md", "retries back off\n")  # HEAD moves: the next question's upkeep asks git
    r.commit("notes", T0 + timedelta(minutes=10))
    started = _started(monkeypatch)
    after = _why("retry.py", "--no-cache")
    lines = list(started)
    calls = [git_subcommand(c) for c in lines]
    follows = [k for k, c in enumerate(lines) if git_subcommand(c) == "log" and "--follow" in c.split()]
    assert calls.count("blame") == 1 and len(follows) == 1, lines
    # before anything the store's upkeep asks of git
    assert calls.index("blame") == 0 and follows == [1] and len(calls) > 2, lines
    assert after == before
    assert any(ln["kind"] == "agent" for ln in after["lines"])


def test_a_cached_answer_starts_no_blame(tmp_path, monkeypatch):
    _ready(tmp_path, monkeypatch)
    first = _why("retry.py")
    log = _logged(tmp_path, monkeypatch)
    assert _why("retry.py") == first
    assert _why("retry.py:4")["lines"] == [ln for ln in first["lines"] if ln["line"] == 4]
    assert "blame" not in _calls(log)


def _grow_session() -> None:
    """One message appended to the session's transcript (its agent still at work)."""
    [path] = Path(os.environ["CLAUDE_CONFIG_DIR"]).glob("projects/*/*.jsonl")
    last = json.loads(path.read_text().splitlines()[-1])
    rec = {"parentUuid": last["uuid"], "isSidechain": False, "userType": "external", "cwd": last["cwd"],
           "sessionId": last["sessionId"], "version": last.get("version", "2.1.4"), "type": "assistant",
           "uuid": "7c1e0d2a-5b3f-4e8a-9d6c-0a1b2c3d4e5f", "timestamp": "2026-11-12T10:00:00.000Z",
           "message": {"model": "claude-opus-4-5-20251101", "id": "msg_grown", "type": "message", "role": "assistant",
                       "content": [{"type": "text", "text": "Still at it."}]}}
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(rec) + "\n")


def test_a_grown_transcript_starts_the_blame_before_the_quick_index(tmp_path, monkeypatch):
    """The cache holds the file's answer, but a transcript grew: the quick index will read it
    (a new store generation), so blame starts before it, as for any fresh answer."""
    import hansard.ingest.run as run

    _ready(tmp_path, monkeypatch)
    _why("retry.py")
    _grow_session()
    started = _started(monkeypatch)
    real_index = run.index

    def index(*args, **kw):  # type: ignore[no-untyped-def]
        started.append("(the quick index)")
        return real_index(*args, **kw)

    monkeypatch.setattr(run, "index", index)
    got = _why("retry.py")
    calls = [git_subcommand(c) for c in started]
    assert calls.count("blame") == 1 and calls.index("blame") == 0 and "(the quick index)" in started, started
    assert got == _why("retry.py", "--no-cache")


def test_a_failing_question_leaves_no_blame_running(tmp_path, monkeypatch):
    from hansard.git import blame, history

    _ready(tmp_path, monkeypatch)
    log = _logged(tmp_path, monkeypatch)
    rc, out, err = run_cli("why", "retry.py:99", "--json")
    assert rc != 0 and "past the end" in err, (out, err)
    assert not blame._AHEAD and not history._LOG_AHEAD
    assert _calls(log).count("blame") <= 1


def test_a_buffer_is_blamed_as_given(tmp_path, monkeypatch):
    from hansard.git import blame

    r = _ready(tmp_path, monkeypatch)
    buffer = (r.path / "retry.py").read_bytes() + b"    # an unsaved line\n"
    log = _logged(tmp_path, monkeypatch)
    got = _why("retry.py", "--contents", "-", stdin=buffer)
    assert got["lines"][-1]["kind"] == "uncommitted" and got["lines"][-1]["content"] == "    # an unsaved line"
    assert _calls(log).count("blame") == 1
    # a blame started for other bytes is never served: it is stopped, and the question blames its own
    blame.blame_ahead(str(r.path), None, "retry.py", b"other\n")
    assert blame.take_ahead(str(r.path), None, "retry.py", buffer) is None
    assert not blame._AHEAD


def test_what_an_answer_starts_ahead_is_read_or_stopped(tmp_path, monkeypatch):
    # blame and the file's log before the store is brought up to date, the parents' versions
    # and commits beside the rules: each git process read or stopped, none left holding its files
    from hansard.git import blame, history

    _ready(tmp_path, monkeypatch)
    _why("retry.py", "--no-cache")
    # Counted with no garbage left: earlier tests' unreachable connections close when a
    # collection happens to run, which is not what this counts.
    gc.collect()
    fds = len(os.listdir("/proc/self/fd"))
    for _ in range(3):
        _why("retry.py", "--no-cache")
        _why("retry.py:2", "--no-cache")
        assert run_cli("why", "retry.py:99", "--json")[0] != 0
    gc.collect()
    assert len(os.listdir("/proc/self/fd")) == fds
    assert not blame._AHEAD and not history._LOG_AHEAD
