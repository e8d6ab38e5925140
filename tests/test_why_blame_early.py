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


def _noting(started: list[str], note: str, real):  # type: ignore[no-untyped-def]
    """``real``, noting ``note`` among the git processes started each time it is called."""
    def noted(*args, **kw):  # type: ignore[no-untyped-def]
        started.append(note)
        return real(*args, **kw)

    return noted


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


def test_with_no_answer_remembered_the_blame_starts_before_the_cache_key(tmp_path, monkeypatch):
    """Right after an index the cache holds no answer at the store's generation, so none can be
    the file's: blame starts before the key is worked out. Once one is remembered, the key comes
    first again, and a hit starts no blame; after a commit, none is remembered at the new HEAD."""
    import hansard.answers.why.cache as cache
    import hansard.answers.why.question as question

    r = _ready(tmp_path, monkeypatch)
    r.write("notes.py", "NOTES = []\n")
    r.commit("notes", T0 + timedelta(minutes=10))
    started = _started(monkeypatch)
    cached = _noting(started, "(the cache key)", cache._cached)
    monkeypatch.setattr(cache, "_cached", cached)
    monkeypatch.setattr(question, "_cached", cached)
    first = _why("retry.py")
    assert started.index("(the cache key)") > [git_subcommand(c) for c in started].index("blame"), started
    del started[:]
    _why("notes.py")  # another file: an answer is remembered at this generation now
    calls = [git_subcommand(c) for c in started]
    assert started[0] == "(the cache key)" and calls.count("blame") == 1, started
    del started[:]
    assert _why("retry.py") == first
    assert "blame" not in [git_subcommand(c) for c in started], started
    r.write("notes.py", "NOTES = [1]\n")  # a commit: no answer remembered at the new HEAD
    r.commit("more notes", T0 + timedelta(minutes=20))
    del started[:]
    assert _why("retry.py")["lines"] == first["lines"]
    assert started.index("(the cache key)") > [git_subcommand(c) for c in started].index("blame"), started


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
    monkeypatch.setattr(run, "index", _noting(started, "(the quick index)", run.index))
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


# A block an agent wrote into one file and a person moved into another later: blame of the second
# names the first file as the lines' origin, so the answer asks that file's history too.
BLOCK = ("def backoff_delay(attempt, base_delay_seconds, maximum_delay_seconds):\n"
         "    computed_delay_seconds = base_delay_seconds * (2 ** attempt)\n"
         "    return min(maximum_delay_seconds, computed_delay_seconds)\n")


def _moved_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from fixtures_repos.gitrepo import GitRepo
    from fixtures_repos.writers import ClaudeWriter

    r = GitRepo.init(tmp_path / "app")
    r.write("delays.py", "import math\n")
    r.write("retry.py", "def retry(call):\n    return call()\n")
    r.commit("start", T0)
    w = ClaudeWriter(Path(os.environ["CLAUDE_CONFIG_DIR"]), r.path, SID, T0 + timedelta(minutes=1))
    w.prompt("add a backoff delay")
    w.edit(r.path / "delays.py", "import math\n", "import math\n\n\n" + BLOCK)
    r.commit("backoff delay", T0 + timedelta(minutes=5))
    r.write("delays.py", "import math\n")
    r.write("retry.py", "def retry(call):\n    return call()\n\n\n" + BLOCK)
    r.commit("the delay lives with retry", T0 + timedelta(minutes=30))
    monkeypatch.chdir(r.path)
    assert run_cli("index")[0] == 0
    return r


def _events(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each git process this process starts ("start ARGS") and each whose output it reads ("read
    ARGS"), in order."""
    from hansard.git import run

    events: list[str] = []
    started = run.Pending.__init__
    result = run.Pending.result

    def init(self, args, *rest, **kw):  # type: ignore[no-untyped-def]
        events.append("start " + " ".join(args))
        started(self, args, *rest, **kw)

    def read(self, *a, **kw):  # type: ignore[no-untyped-def]
        events.append("read " + " ".join(self.args))
        return result(self, *a, **kw)

    monkeypatch.setattr(run.Pending, "__init__", init)
    monkeypatch.setattr(run.Pending, "result", read)
    return events


def test_the_log_of_a_file_blame_took_lines_from_runs_beside_the_rules(tmp_path, monkeypatch):
    """The other file's `git log` is read when a line first asks that file's history: the reads
    of the commits' parents start before, beside it, not after it."""
    _moved_block(tmp_path, monkeypatch)
    before = _why("retry.py", "--no-cache")
    assert [ln["kind"] for ln in before["lines"][-3:]] == ["agent"] * 3, before["lines"]
    events = _events(monkeypatch)
    assert _why("retry.py", "--no-cache") == before
    log_of = [k for k, e in enumerate(events) if e.startswith("start log --follow") and e.endswith("-- delays.py")]
    read_of = [k for k, e in enumerate(events) if e.startswith("read log --follow") and e.endswith("-- delays.py")]
    parents = [k for k, e in enumerate(events) if e == "start cat-file --batch"]
    assert len(log_of) == 1 and len(read_of) == 1 and parents, events
    assert log_of[0] < parents[0] < read_of[0], events


def test_a_question_failing_after_blame_stops_the_other_files_log(tmp_path, monkeypatch):
    from hansard.answers.why import engine
    from hansard.errors import GitError

    _moved_block(tmp_path, monkeypatch)
    _why("retry.py", "--no-cache")
    gc.collect()
    fds = len(os.listdir("/proc/self/fd"))
    events = _events(monkeypatch)

    def fail(self, g, answers):  # type: ignore[no-untyped-def]
        raise GitError("the rules stopped")

    monkeypatch.setattr(engine.Attributor, "_answer_group", fail)
    rc, out, err = run_cli("why", "retry.py", "--json", "--no-cache")
    assert rc != 0 and "the rules stopped" in err, (out, err)
    assert any(e.startswith("start log --follow") and e.endswith("-- delays.py") for e in events), events
    gc.collect()
    assert len(os.listdir("/proc/self/fd")) == fds  # every process started was read or stopped


def _scenario(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> dict:
    """The fixtures' scenario ``name`` built, its expected answers checked, the questions asked
    in its repository: the answers."""
    from fixtures_repos.check import answer, compare, env_for
    from fixtures_repos.scenarios import SCENARIOS

    scn = SCENARIOS[name](tmp_path / "build")
    for var, value in env_for(scn, tmp_path / "store").items():
        monkeypatch.setenv(var, value)
    expected = answer(scn)
    assert not compare(scn, expected)
    monkeypatch.chdir(scn.repo)
    return expected


def test_the_versions_that_may_show_a_line_removed_are_read_while_git_blames(tmp_path, monkeypatch):
    """Every version of the file that removed one of its lines an edit wrote is looked at while
    blame runs (before blame names the commits, so from the oldest such edit on, whatever the
    commit): the answer is the same, the restored lines named as before."""
    expected = _scenario(tmp_path, monkeypatch, "precision_restored_line")
    events = _events(monkeypatch)
    from hansard.answers.restored import FileHistory

    replay = FileHistory._replay

    def replayed(self, todo, asks=None):  # type: ignore[no-untyped-def]
        events.append(f"replay {len(todo)}")  # the versions the history's diffs rebuild (git reads the rest)
        return replay(self, todo, asks)

    monkeypatch.setattr(FileHistory, "_replay", replayed)
    got = _why("api/handler.go", "--no-cache")
    assert got["lines"] == expected["api/handler.go"]["lines"]
    assert any(ln["rule"] == "restored" for ln in got["lines"])
    blamed = events.index(next(e for e in events if e.startswith("read blame")))
    assert any(e.startswith("replay") for e in events[:blamed]), events
    assert not any(e.startswith("replay") for e in events[blamed:]), events  # nothing more to read after blame


def test_the_parents_versions_are_read_while_git_blames(tmp_path, monkeypatch):
    """The file's versions at the parents of the commits that added its lines are read while
    blame runs, named as the rules name them (``PARENT:PATH``): a version blame's ``previous``
    names is taken from that read, not read again after blame, and the answer is the one
    without it (an edit made on another branch still fits no parent)."""
    import importlib

    from hansard.answers.why import bases, target
    from hansard.git import history

    question = importlib.import_module("hansard.answers.why.question")
    expected = _scenario(tmp_path, monkeypatch, "notes_edit_on_another_branch")
    real = question._parents_ahead
    monkeypatch.setattr(question, "_parents_ahead", lambda *a: None)
    without = _why("flags.py", "--no-cache")
    monkeypatch.setattr(question, "_parents_ahead", real)
    ahead: list[frozenset[str]] = []
    read_after: list[str] = []
    blamed: list[bool] = []
    taken: list[str] = []
    init = bases.ParentsAhead.__init__
    batch = history.BatchRead.__init__
    parent = bases.Bases.parent
    result = target.Blaming.result

    def started(self, top, revs, *a, **kw):  # type: ignore[no-untyped-def]
        init(self, top, revs, *a, **kw)
        ahead.append(self.revs)

    def blame_read(self):  # type: ignore[no-untyped-def]
        blamed.append(True)
        return result(self)

    def batch_read(self, top, revs):  # type: ignore[no-untyped-def]
        if blamed:
            read_after.extend(revs)
        batch(self, top, revs)

    def asked(self, sha):  # type: ignore[no-untyped-def]
        taken.append(sha)
        return parent(self, sha)

    monkeypatch.setattr(bases.ParentsAhead, "__init__", started)
    monkeypatch.setattr(history.BatchRead, "__init__", batch_read)
    monkeypatch.setattr(bases.Bases, "parent", asked)
    monkeypatch.setattr(target.Blaming, "result", blame_read)
    got = _why("flags.py", "--no-cache")
    assert got == without and got["lines"] == expected["flags.py"]["lines"]
    assert any(ln["rule"] == "other_branch" for ln in got["lines"]), got["lines"]
    assert len(ahead) == 1 and ahead[0], ahead
    assert taken  # the rules looked at a parent's version
    assert not set(read_after) & ahead[0], (read_after, ahead)


def test_the_commits_deletions_are_asked_while_git_blames(tmp_path, monkeypatch):
    """The paths deleted by the commits that added lines an edit of another file wrote (which
    the rules ask of the commits blame names for such lines) are asked of git while blame runs:
    none after it, the answer the same."""
    from hansard.git import history

    _moved_block(tmp_path, monkeypatch)
    before = _why("retry.py", "--no-cache")
    history._DELETED.clear()  # (kept in this process from the question before)
    events = _events(monkeypatch)
    assert _why("retry.py", "--no-cache") == before
    blamed = events.index(next(e for e in events if e.startswith("read blame")))
    asked = [k for k, e in enumerate(events) if e.startswith("start diff-tree --stdin")]
    assert asked and all(k < blamed for k in asked), events
