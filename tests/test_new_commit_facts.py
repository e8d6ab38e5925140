"""A commit made since the index: the first `why` after it reads that commit's facts alone (its
diff of the file, the ties of the commits new since the kept ones), and answers as it would
from facts worked out afresh."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixtures_repos.check import env_for
from fixtures_repos.scenarios import Build, src
from tests.helpers import run_cli

FIRST = src('''
    def total(items):
        return sum(item.price * item.quantity for item in items)


    def count(items):
        return sum(item.quantity for item in items)
''')


def _setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A repository whose shop.py a Claude Code session wrote and a person changed twice,
    indexed (its commits' diffs kept)."""
    b = Build("new_commit", tmp_path / "build")
    r = b.init()
    r.write("README.md", "# shop\n")
    b.commit(r, "Initial commit")
    cc = b.claude(r.path)
    cc.prompt("Add a total helper")
    cc.write(r.path / "shop.py", FIRST)
    b.commit(r, "Add total")
    r.write("shop.py", FIRST + "\n\nVERSION = '1.0'\n")
    b.commit(r, "Add a version")
    for var, value in env_for(b.scenario(r, {}), tmp_path / "store").items():
        monkeypatch.setenv(var, value)
    monkeypatch.chdir(r.path)
    assert run_cli("index")[0] == 0
    return b, r


def _why(*args: str) -> dict:
    code, out, err = run_cli("why", *args, "--json")
    assert code == 0, (code, out, err)
    return json.loads(out)


def _spy_git(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The arguments of every git command run to completion from here on (git itself runs)."""
    import hansard.git.history as history

    calls: list[list[str]] = []
    real = history.git_text

    def recorded(args, cwd, **kw):
        calls.append(list(args))
        return real(args, cwd, **kw)

    monkeypatch.setattr(history, "git_text", recorded)
    return calls


def _forget(*tables: str) -> None:
    from hansard.store import open_store

    store = open_store()
    try:
        for t in tables:
            store.db.execute(f"DELETE FROM {t}")
    finally:
        store.close()


def test_a_new_commit_has_its_own_diff_read_not_the_files_whole_log(tmp_path, monkeypatch):
    b, r = _setup(tmp_path, monkeypatch)
    r.write("shop.py", (r.path / "shop.py").read_text() + "RATE = 0.2  # the rate\n")
    b.commit(r, "Add a rate")
    calls = _spy_git(monkeypatch)
    after = _why("shop.py", "--no-cache")
    patches = [a for a in calls if a[0] == "log" and "-p" in a]
    assert patches == [], patches  # the file's history of diffs is not read again
    assert any(a[0] == "show" for a in calls), calls
    # the same answer as from no kept diff at all (the file's whole `git log -p`)
    _forget("commit_diffs", "why_cache")
    assert _why("shop.py", "--no-cache") == after
    assert [ln["kind"] for ln in after["lines"]][:2] == ["agent", "agent"]
