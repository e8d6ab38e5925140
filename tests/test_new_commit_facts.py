"""What changed since the facts were kept is all that is read again: after a commit, the first
`why` reads that commit's diff of the file and the ties of the commits HEAD left or reached
(and answers as from facts worked out afresh); the quick index keeps the facts of the
repositories it read sessions of; an index's facts stand at the generation its run makes."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures_repos.scenarios import Build, src
from tests.helpers import run_cli
from tests.test_why_cache import _enter, _shop, _why

FIRST = src('''
    def total(items):
        return sum(item.price * item.quantity for item in items)
''')


def _setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A repository whose shop.py a Claude Code session wrote and a person then changed,
    indexed (its commits' diffs kept)."""
    b, r, _ = _shop(tmp_path, "new_commit")
    r.write("shop.py", (r.path / "shop.py").read_text() + "\n\nVERSION = '1.0'\n")
    b.commit(r, "Add a version")
    _enter(b, r, tmp_path, monkeypatch)
    assert run_cli("index")[0] == 0
    return b, r


def _spy_git(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The arguments of every git command run to completion from here on (git itself runs)."""
    import hansard.git.history as history

    calls: list[list[str]] = []

    def spy(real):
        def recorded(args, cwd, **kw):
            calls.append(list(args))
            return real(args, cwd, **kw)
        return recorded

    for name in ("git", "git_text"):
        monkeypatch.setattr(history, name, spy(getattr(history, name)))
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


def _ties() -> set[tuple[str, str, str]]:
    from hansard.store import open_store

    store = open_store()
    try:
        return {tuple(r) for r in store.db.execute("SELECT sha, session_id, rule FROM commit_ties")}
    finally:
        store.close()


def _printed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, *, fixup: bool = False):
    """shop.py, which a Claude Code session wrote and committed (its output printed the commit)
    and, with ``fixup``, then printed a ``fixup!`` of a summary no commit has yet; indexed:
    (build, repository, the commit, when the fixup was printed)."""
    b, r, cc = _shop(tmp_path, name)
    sha = r.head()
    cc.bash("git commit -am 'Add total'", stdout=f"[main {sha[:7]}] Add total\n 1 file changed")
    fixing = b.clock.now().replace(microsecond=0)  # a fixup printed now is printed within this second
    if fixup:
        cc.bash("git commit --fixup :/version", stdout="[main 9999999] fixup! Add a version\n 1 file changed")
    _enter(b, r, tmp_path, monkeypatch)
    assert run_cli("index")[0] == 0
    return b, r, sha, fixing


def test_commits_made_on_top_of_the_kept_head_add_their_own_ties(tmp_path, monkeypatch):
    """A person commits the summary the session's ``fixup!`` named: the upkeep joins the new
    commit alone and keeps what a join of the whole history keeps."""
    b, r, sha, fixing = _printed(tmp_path, monkeypatch, "ties_onto", fixup=True)
    r.write("shop.py", (r.path / "shop.py").read_text() + "\n\nVERSION = '1.0'\n")
    new = r.commit("Add a version", fixing)  # dated while the fixup was printed
    logs, kept = _as_joined_afresh(monkeypatch)
    assert logs[0] == [f"{sha}...{new}", "--"], logs  # the new commit's log alone
    assert {(c, rule) for c, _, rule in kept} >= {(sha, "printed"), (new, "fixup")}, kept


def _as_joined_afresh(monkeypatch: pytest.MonkeyPatch) -> tuple[list[list[str]], set[tuple[str, str, str]]]:
    """(the `git log`s of commits the upkeep of a `why` ran, the ties it kept), checked to be
    the ties a join of the whole history keeps."""
    calls = _spy_git(monkeypatch)
    _why("shop.py", "--no-cache")
    kept = _ties()
    _forget("commit_facts", "commit_ties")
    _why("shop.py", "--no-cache")
    assert _ties() == kept
    return [a[-2:] for a in calls if a[0] == "log" and "--follow" not in a], kept


def test_a_commit_made_after_going_back_drops_the_ties_of_the_commit_left(tmp_path, monkeypatch):
    """HEAD reset to the commit before and another one made there (a bench's one-line commit
    undone, then the next): the ties of the commit left go, the new commit's come."""
    b, r, sha, _ = _printed(tmp_path, monkeypatch, "ties_moved")
    r.write("shop.py", FIRST + "\n\nVERSION = '1.0'\n")
    left = b.commit(r, "Add a version")
    _why("shop.py", "--no-cache")  # kept at the commit on top
    r.git("reset", "-q", "--hard", sha)
    r.write("shop.py", FIRST + "\n\nRATE = 0.2\n")
    new = b.commit(r, "Add a rate")
    logs, kept = _as_joined_afresh(monkeypatch)
    assert logs[0] == [f"{left}...{new}", "--"], logs  # the commits either side lacks, not the history
    assert (sha, "printed") in {(c, rule) for c, _, rule in kept}


def test_an_amend_of_a_printed_commit_has_every_tie_joined_again(tmp_path, monkeypatch):
    """The session printed the commit an amend then replaced (a later committer time, the same
    change): the printed id now names no commit of the history, and its ``patch_id`` tie to the
    amended commit is found by joining all again."""
    b, r, sha, _ = _printed(tmp_path, monkeypatch, "ties_amended")
    new = r.amend(b.when(), message="Add a total helper")
    logs, kept = _as_joined_afresh(monkeypatch)
    assert logs[:2] == [[f"{sha}...{new}", "--"], [new, "--"]], logs  # the whole history after
    assert (new, "patch_id") in {(c, rule) for c, _, rule in kept}, kept


def test_the_quick_index_keeps_the_facts_of_the_repositories_it_read_sessions_of(tmp_path, monkeypatch):
    """A session of one repository grows: the quick index before a question keeps that
    repository's commit facts current, and leaves another repository's to its next question."""
    from hansard.ingest.quickcheck import quick_sync
    from hansard.store import open_store

    b = Build("relink", tmp_path / "build")
    writers = {}
    for name in ("shop", "blog"):
        r = b.init(name)
        r.write("README.md", f"# {name}\n")
        b.commit(r, "Initial commit")
        cc = writers[name] = b.claude(r.path)
        cc.prompt(f"Add a total helper to {name}")
        cc.write(r.path / "shop.py", FIRST)
        b.commit(r, "Add total")
    _enter(b, r, tmp_path, monkeypatch)
    assert run_cli("index")[0] == 0
    writers["shop"].prompt("Now count the items too")

    def stamps() -> dict[str, int]:
        """repository folder -> the store generation its kept facts were last brought up to"""
        store = open_store()
        try:
            return {path.rsplit("/", 1)[-1]: gen for path, gen in store.db.execute(
                "SELECT r.path, f.generation FROM commit_facts f JOIN repos r ON r.id=f.repo_id")}
        finally:
            store.close()

    before = stamps()
    assert set(before) == {"shop", "blog"}
    store = open_store()
    try:
        assert quick_sync(store)
    finally:
        store.close()
    after = stamps()
    assert after["shop"] > before["shop"] and after["blog"] == before["blog"], (before, after)
    monkeypatch.chdir(tmp_path / "build" / "blog")
    _why("shop.py")  # its question's upkeep
    assert stamps()["blog"] > before["blog"]


def test_after_an_index_the_kept_facts_stand_at_the_stores_generation(tmp_path, monkeypatch):
    """The index records its run after linking (a new store generation): the commit facts and
    writing calls it kept stand at that generation, so the first question counts nothing again."""
    _setup(tmp_path, monkeypatch)
    from hansard.store import open_store

    store = open_store()
    try:
        n = store.db.execute("SELECT n FROM store_generation").fetchone()[0]
        assert [g for (g,) in store.db.execute("SELECT generation FROM commit_facts")] == [n]
        assert [g for (g,) in store.db.execute("SELECT generation FROM shell_write_state")] == [n]
    finally:
        store.close()


def _kept_diffs() -> tuple[str, dict[tuple[str, str], tuple[str | None, str]]]:
    """(the repository's work tree, (sha, path) -> (old path, hunks) of the commit-diff cache)."""
    from hansard.store import open_store

    store = open_store()
    try:
        (top,) = store.db.execute("SELECT path FROM repos").fetchone()
        return top, {(sha, p): (old, h) for sha, p, old, h in store.db.execute(
            "SELECT sha, path, old_path, hunks FROM commit_diffs")}
    finally:
        store.close()


def _diffs_of(top: str) -> dict[tuple[str, str], tuple[str | None, str]]:
    """The cache's rows a link works out for itself, for all of HEAD's history."""
    import json

    from hansard.git.refs import head_commit
    from hansard.link.commits.kept import new_diffs

    head = head_commit(top)
    assert head is not None
    return {(sha, p): (old, json.dumps(h)) for sha, p, old, h in new_diffs(top, head, None)}


@pytest.mark.parametrize("thread_fails", [False, True])
def test_an_index_read_by_workers_keeps_the_commit_diffs_worked_out_beside_its_scan(tmp_path, monkeypatch,
                                                                                     thread_fails):
    """Read by worker processes, an index has its repositories' commit diffs worked out while it
    scans, and the link stores those: the same rows as it works out for itself, which it does
    when the work beside the scan failed."""
    import threading

    from hansard.ingest import prepare
    from hansard.link.commits import ahead, kept

    monkeypatch.setattr(prepare, "WORKER_MIN_BYTES", 0)
    taken: list[bool] = []
    take = ahead.DiffsAhead.take

    def spying_take(self: ahead.DiffsAhead, top: str, head: str, old_head: str | None) -> ahead.Rows | None:
        rows = take(self, top, head, old_head)
        taken.append(rows is not None)
        return rows

    monkeypatch.setattr(ahead.DiffsAhead, "take", spying_take)
    if thread_fails:
        real = kept.new_diffs

        def failing(top: str, head: str, old_head: str | None) -> list:
            if threading.current_thread().name == "hansard-diffs-ahead":
                raise OSError("git went away")
            return real(top, head, old_head)

        monkeypatch.setattr(kept, "new_diffs", failing)
    _setup(tmp_path, monkeypatch)
    assert taken == [not thread_fails]
    top, stored = _kept_diffs()
    assert stored and stored == _diffs_of(top)


def test_a_new_commit_alone_counts_no_shell_call_again(tmp_path, monkeypatch):
    """Nothing was written since the facts were kept (a commit, no transcript changed): the
    upkeep joins the new commit without reading the repository's shell calls again, and keeps
    the ties a join of everything keeps."""
    from hansard.link.commits.kept import refresh
    from hansard.store import open_store

    b, r, sha, _ = _printed(tmp_path, monkeypatch, "ties_counted_once")
    r.write("shop.py", (r.path / "shop.py").read_text() + "\n\nVERSION = '1.0'\n")
    new = b.commit(r, "Add a version")
    store = open_store()
    try:
        statements: list[str] = []
        store.db.set_trace_callback(statements.append)
        (repo_id,) = store.db.execute("SELECT id FROM repos").fetchone()
        state = refresh(store, str(r.path), repo_id, wait_ms=100)
        store.db.set_trace_callback(None)
    finally:
        store.close()
    assert state is not None and state["refreshed"] and state["head"] == new
    assert statements and not [s for s in statements if "FROM tool_calls" in s], statements
    kept = _ties()
    _forget("commit_facts", "commit_ties", "commit_prints")
    assert run_cli("why", "shop.py", "--json", "--no-cache")[0] == 0  # its upkeep joins everything again
    assert _ties() == kept and (sha, "printed") in {(c, rule) for c, _, rule in kept}, kept
