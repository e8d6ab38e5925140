"""The shell calls that could write a file, kept per repository by the link step (facts
computed once, never per call): `why` asks the kept ones which name its file, and gets the
same answer as reading every shell call, before and after new sessions arrive; a kept set that
stands for other shell calls than the repository's now is never read."""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from fixtures_repos.gitrepo import GitRepo
from fixtures_repos.writers import ClaudeWriter
from hansard.answers import evidence
from hansard.facts.shell import may_write, writing_command
from tests.helpers import run_cli

T0 = datetime(2026, 11, 10, 9, 0, 0)
NAMES = ("retry.py", "notes.md", "setup.cfg", "other.py", "never.py")


def _session(repo: GitRepo, sid: str, start: datetime, commands: list[str]) -> None:
    w = ClaudeWriter(Path(os.environ["CLAUDE_CONFIG_DIR"]), repo.path, sid, start)
    w.prompt("tidy the repository")
    for c in commands:
        w.bash(c)


def _store():  # type: ignore[no-untyped-def]
    from hansard.store import open_for_reading

    return open_for_reading()


def _both(store, repo_id: int) -> dict[str, tuple[float | None, float | None]]:  # type: ignore[no-untyped-def]
    """name -> (first write from the kept calls, from every shell call)."""
    out = {}
    for name in NAMES:
        kept = evidence._kept_shell_writes(store, repo_id, name)
        assert kept is not None, "the link step kept the writing calls"
        live = evidence.live_shell_writes(store, repo_id, name)
        first = [min((t for t, cmd, parsed in calls if not parsed or may_write(cmd, name)), default=None)
                 for calls in (kept, live)]
        out[name] = (first[0], first[1])
    return out


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    r = GitRepo.init(tmp_path / "app")
    r.write("retry.py", "def retry():\n    return 1\n")
    r.commit("retry", T0)
    monkeypatch.chdir(r.path)
    return r


def test_kept_writing_calls_answer_as_every_call_does(repo: GitRepo) -> None:
    _session(repo, "5b0c6f1e-0000-4000-8000-000000000001", T0 + timedelta(minutes=1), [
        "cat retry.py",                               # a read: never a write
        "sed -i 's/1/2/' retry.py",                   # writes retry.py
        "grep -n retry notes.md && echo ok > other.py",  # writes other.py, reads notes.md
        "git log --oneline -- setup.cfg",             # a read-only git command
        "python tools/bump.py setup.cfg",             # a script naming it: may write
    ])
    assert run_cli("index")[0] == 0
    store = _store()
    repo_id = store.repos.id_by_path(str(repo.path))
    assert repo_id is not None
    got = _both(store, repo_id)
    for name, (kept, live) in got.items():
        assert kept == live, name
    assert got["retry.py"][0] is not None and got["other.py"][0] is not None and got["setup.cfg"][0] is not None
    assert got["notes.md"][0] is None and got["never.py"][0] is None
    rows = store.commit_facts.shell_writes(repo_id, "")
    assert len(rows) == 3  # the reads were not kept
    store.close()

    # A later session: its calls are read (once) when the index links it; until then the kept
    # calls stand for fewer shell calls than the repository has and are not read.
    _session(repo, "5b0c6f1e-0000-4000-8000-000000000002", T0 + timedelta(minutes=30), [
        "cat > never.py <<'EOF'\nprint(1)\nEOF",
    ])
    assert run_cli("index")[0] == 0
    store = _store()
    got = _both(store, repo_id)
    assert got["never.py"][0] is not None
    for name, (kept, live) in got.items():
        assert kept == live, name
    store.close()


def test_a_kept_set_behind_the_shell_calls_is_not_read(repo: GitRepo) -> None:
    _session(repo, "5b0c6f1e-0000-4000-8000-000000000003", T0 + timedelta(minutes=1), ["sed -i 's/1/2/' retry.py"])
    assert run_cli("index")[0] == 0
    store = _store()
    repo_id = store.repos.id_by_path(str(repo.path))
    facts = store.commit_facts
    state = facts.shell_write_state(repo_id)
    assert state is not None and state["calls"] == 1
    # Stand for a call count the repository does not have (as a reindex that removed calls would
    # leave it), at another generation: the kept calls are not trusted.
    facts.save_shell_writes(repo_id, state["calls_upto"], 7, [], replace=True)
    store.db.execute("UPDATE shell_write_state SET generation = generation - 1")
    assert evidence._kept_shell_writes(store, repo_id, "retry.py") is None
    assert evidence.first_shell_write(store, repo_id, "retry.py") is not None  # read from every call
    store.close()


def test_writing_command_keeps_what_may_write_and_the_unparsed() -> None:
    assert writing_command('{"command": "cat a.py"}') is None
    assert writing_command('{"command": "sed -i s/a/b/ a.py"}') == ("sed -i s/a/b/ a.py", True)
    assert writing_command('{"cmd": ["bash", "-lc", "echo x > a.py"]}') == ("echo x > a.py", True)
    assert writing_command("not json a.py") == ("not json a.py", False)  # any mention counts
    assert writing_command('{"description": "no command"}') == ('{"description": "no command"}', False)


def test_files_answered_together_read_the_kept_calls_once(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    # each file's name is looked for in the calls read once as SQL's instr finds it
    from hansard.answers.why import together
    from hansard.store.sqlite.commits import SqliteCommitFacts

    _session(repo, "5b0c6f1e-0000-4000-8000-000000000004", T0 + timedelta(minutes=1), [
        "sed -i 's/1/2/' retry.py",
        "grep -n retry notes.md && echo ok > other.py",
        "python tools/bump.py setup.cfg",
    ])
    assert run_cli("index")[0] == 0
    store = _store()
    repo_id = store.repos.id_by_path(str(repo.path))
    assert repo_id is not None
    names = (*NAMES, "", "py", "y.p", "RETRY.PY")
    alone = {name: evidence._kept_shell_writes(store, repo_id, name) for name in names}
    assert alone["retry.py"] and alone["py"] and not alone["RETRY.PY"]
    reads: list[str] = []
    real = SqliteCommitFacts.shell_writes

    def counted(self, repo_id: int, name: str):  # type: ignore[no-untyped-def]
        reads.append(name)
        return real(self, repo_id, name)

    monkeypatch.setattr(SqliteCommitFacts, "shell_writes", counted)
    together.open_window(str(repo.path))
    try:
        for name in names:
            assert sorted(evidence._kept_shell_writes(store, repo_id, name) or []) == sorted(alone[name] or []), name
            assert evidence.first_shell_write(store, repo_id, name) == min(
                (t for t, cmd, parsed in alone[name] or [] if not parsed or may_write(cmd, name)), default=None)
    finally:
        together.close_window()
    assert reads == [""]
    store.close()
