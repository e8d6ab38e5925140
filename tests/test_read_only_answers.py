"""Every answer against a store that cannot be written gives what it gives against one that
can, and writes nothing to either (answers only read; caching is the application layer's).

The store is the history world's (fixtures_repos.history), indexed, then moved on by a
person's commit the index has not seen (so the answers meet the missing diffs and facts a real
store meets). Each answer runs twice from the same copy of it: once writable, counting the rows
its connection changed and the files written beside the store, and once from a read-only tmpfs
(file and folder), opened as the adapters open a store they only read. Both must be equal, the
writes none, and the answer of its declared result type (hansard.answers.results).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from fixtures_repos.history import World, build

try:
    import numpy  # noqa: F401

    from tests.helpers import WordsEmbedder

    EMB: WordsEmbedder | None = WordsEmbedder("test-words-64", 64)
except ImportError:
    EMB = None



def _answers(repo: str, s1: str) -> dict[str, Callable[[Any], Any]]:
    from hansard.answers.agents_status import agent_status
    from hansard.answers.code_history import code_history
    from hansard.answers.memories import search_memories
    from hansard.answers.notices import no_sessions
    from hansard.answers.search.sessions import search_past_sessions
    from hansard.answers.stats import repo_stats
    from hansard.answers.transcript import get_past_session
    from hansard.answers.why import explain, explain_json
    from hansard.answers.work_context import work_context
    from hansard.render.trees import code_history_tree, work_context_tree
    from hansard.trace.export import export

    return {
        "why file": lambda s: explain(s, "src/shop/cart.py", cwd=repo),
        "why line": lambda s: explain(s, "src/shop/cart.py:10", cwd=repo),
        "why json": lambda s: json.loads(explain_json(s, "src/shop/cart.py", cwd=repo)),
        "why afresh": lambda s: explain(s, "src/shop/cart.py", cwd=repo, cache=False),
        "log file": lambda s: code_history(s, "src/shop/cart.py", cwd=repo, render=code_history_tree),
        "log line": lambda s: code_history(s, "src/shop/cart.py:10", cwd=repo, render=code_history_tree),
        "log symbol": lambda s: code_history(s, "src/shop/cart.py", symbol="cart_total", cwd=repo,
                                             render=code_history_tree),
        "context": lambda s: work_context(s, s1, cwd=repo, render=work_context_tree),
        "search keyword": lambda s: search_past_sessions(s, "cart"),
        "search hybrid": lambda s: search_past_sessions(s, "cart", mode="hybrid"),
        "search meaning": lambda s: search_past_sessions(s, "cart total", mode="meaning", embedder=EMB),
        "show": lambda s: get_past_session(s, s1, details=True),
        "memories": lambda s: search_memories(s, "cart"),
        "stats": lambda s: repo_stats(s, None, cwd=repo),
        "sessions": lambda s: s.sessions.list(limit=50),
        "status": lambda s: {**s.sessions.status(), "agents": agent_status(s)},
        "notice": lambda s: no_sessions(s),
        # (a record's timestamp is when it was exported: the clock's, not the answer's)
        "trace export": lambda s: [{k: v for k, v in e.record.items() if k != "timestamp"}
                                   for e in export(s, repo, commit=None, rev_range=None)],
    }


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[World, Path]]:
    """The history world indexed, its store's file alone (no WAL), and HEAD one commit past it."""
    from hansard.ingest.run import index
    from hansard.store import open_store

    root = tmp_path_factory.mktemp("ro")
    mp = pytest.MonkeyPatch()
    mp.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
    w = build(root / "w")
    for var, path in w.homes.items():
        mp.setenv(var, str(path))
    mp.setenv("HANSARD_HOME", str(root / "home"))
    mp.setenv("HANSARD_NO_BACKGROUND", "1")
    st = open_store()
    index(st)
    if EMB is not None:  # the vectors a meaning search reads (not their copy beside the store)
        from hansard.ingest.embed import build_vectors

        build_vectors(st.search, EMB)
    st.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # type: ignore[attr-defined]
    st.db.execute("PRAGMA journal_mode=DELETE")  # type: ignore[attr-defined]
    st.close()
    snap = root / "snapshot.db"
    shutil.copy(root / "home" / "hansard.db", snap)
    with open(w.repo / "src/shop/cart.py", "a") as fh:
        fh.write("\n\ndef empty(cart):\n    return not cart\n")
    who = {"GIT_AUTHOR_NAME": "Pat", "GIT_AUTHOR_EMAIL": "pat@example.com", "GIT_COMMITTER_NAME": "Pat",
           "GIT_COMMITTER_EMAIL": "pat@example.com", "GIT_AUTHOR_DATE": "2026-04-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2026-04-01T00:00:00Z"}
    subprocess.run(["git", "-C", str(w.repo), "commit", "-qam", "a person's change"], check=True,
                   env={**os.environ, **who})
    yield w, snap
    mp.undo()


# The result type each answer declares, checked against what it gave.
RESULTS = {"why file": "WhyAnswer", "why line": "WhyAnswer", "why json": "WhyAnswer", "why afresh": "WhyAnswer",
           "log file": "CodeHistory", "log line": "CodeHistory", "log symbol": "CodeHistory", "context": "WorkContext",
           "search keyword": "SearchResults", "search hybrid": "SearchResults", "search meaning": "SearchResults",
           "show": "Transcript", "memories": "MemoryHits", "stats": "RepoStats", "notice": "NoSessions"}


def _plain(x: Any) -> Any:
    if isinstance(x, dict) and "seconds" in x:  # how long stats took
        x = {k: v for k, v in x.items() if k != "seconds"}
    return json.loads(json.dumps(x, default=str, sort_keys=True))


def _read_only_copy(snap: Path, where: Path) -> bool:
    """The store's file in a folder neither can be written: by their modes, or, for root (whom
    modes do not stop), on a tmpfs mounted read-only. False: neither can be made here."""
    where.mkdir()
    if os.geteuid() != 0:
        shutil.copy(snap, where / "hansard.db")
        (where / "hansard.db").chmod(0o400)
        where.chmod(0o500)
        return True
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(where)], capture_output=True).returncode:
        return False
    shutil.copy(snap, where / "hansard.db")
    subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)
    return True


NAMES = list(_answers("", ""))


@pytest.mark.parametrize("name", NAMES)
def test_an_answer_reads_only_and_answers_alike_from_a_read_only_store(
        name: str, world: tuple[World, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hansard.store import open_for_reading, open_store

    w, snap = world
    if name == "search meaning" and EMB is None:
        pytest.skip("numpy (the test extra) is not installed")
    answer = _answers(str(w.repo), w.sessions["S1"])[name]
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(snap, home / "hansard.db")
    monkeypatch.setenv("HANSARD_HOME", str(home))
    st = open_store()
    before = st.db.total_changes  # type: ignore[attr-defined]
    try:
        given = answer(st)
        wrote = st.db.total_changes - before  # type: ignore[attr-defined]
        writable = _plain(given)
    finally:
        st.close()
    assert sorted(p.name for p in home.iterdir() if not p.name.startswith("hansard.db")) == [], \
        f"{name} wrote files beside the store"
    if name in RESULTS:
        from hansard.answers import results
        from tests.helpers import shape_problems

        assert shape_problems(json.loads(json.dumps(given, default=str)), getattr(results, RESULTS[name])) == []
    if name == "search meaning":  # searched by meaning indeed, from the vectors in SQLite
        assert writable["mode"] == "meaning" and writable["results"] and "mode_notice" not in writable
    ro = tmp_path / "ro"
    if not _read_only_copy(snap, ro):
        pytest.skip("cannot mount a read-only tmpfs here")
    try:
        monkeypatch.setenv("HANSARD_HOME", str(ro))
        st = open_for_reading()
        try:
            assert st.readonly
            read_only = _plain(answer(st))
        finally:
            st.close()
    finally:
        if os.geteuid() == 0:
            subprocess.run(["umount", "-l", str(ro)], capture_output=True)
        else:
            ro.chmod(0o700)
    assert read_only == writable
    assert wrote == 0, f"{name} changed {wrote} rows of the store"
