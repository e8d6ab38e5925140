"""What an answer about many files reads of git ahead of its questions (hansard.git.history's
``read_ahead``, hansard.git.blame's ``blame_ahead``) is what each file's own question reads: the
file's bytes as `git show` gives them, its log as its own `git log --follow` gives it (or nothing,
when one walk cannot say it), and its blame. Real repositories: renames, a copy, a file deleted
and added again, a file added after the root commit, a merge."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from fixtures_repos.gitrepo import GitRepo
from hansard.git import blame, history
from hansard.git.run import git

T0 = datetime(2026, 11, 10, 9, 0, 0)


def _repo(root: Path) -> GitRepo:
    """Root commit: a.py, b.py, c.py, d.py, e.py; then edits, a rename (c -> c2), a copy of
    a.py (a_copy.py), d.py deleted and added again, a file added later (late.py)."""
    repo = GitRepo.init(root / "app")
    for name in "abcde":
        repo.write(f"{name}.py", "".join(f"def {name}_{k}(x):\n    return x + {k}\n\n\n" for k in range(12)))
    repo.commit("Initial commit", T0)
    t = T0
    for step in range(3):
        t += timedelta(minutes=5)
        for name in "ab":
            repo.replace(f"{name}.py", f"return x + {step}\n", f"return x + {step} + 1\n")
        repo.commit(f"Step {step}", t)
    repo.git("mv", "c.py", "c2.py")
    repo.commit("Rename c", t + timedelta(minutes=1))
    repo.write("a_copy.py", repo.read("a.py"))
    repo.commit("Copy a", t + timedelta(minutes=2))
    d = repo.read("d.py")
    repo.remove("d.py")
    repo.commit("Drop d", t + timedelta(minutes=3))
    repo.write("d.py", d)
    repo.write("late.py", "LATE = 1\n")
    repo.commit("d again, and late", t + timedelta(minutes=4))
    repo.replace("e.py", "return x + 5\n", "return x + 50\n")
    repo.commit("e", t + timedelta(minutes=5))
    return repo


def _paths(repo: GitRepo, rev: str) -> list[str]:
    return repo.git("ls-tree", "-r", "--name-only", rev).split()


def test_logs_read_ahead_are_each_files_own_log_or_nothing(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    top, head = str(repo.path), repo.head()
    paths = _paths(repo, head)
    history.read_ahead(top, [(head, p) for p in paths])
    got = {p: history.log_at(top, head, p) for p in paths}
    for p, text in got.items():
        assert text is None or text == history.file_log(top, p, head), p
    # files the root commit added and later commits only modified come from the one walk ...
    assert {p for p, text in got.items() if text is not None} == {"a.py", "b.py", "e.py"}
    # ... each once; the others ask git for their own (a rename, a copy, a file added again or later)
    assert all(history.log_at(top, head, p) is None for p in paths)


def test_no_log_is_read_ahead_in_a_history_with_a_merge(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    top = str(repo.path)
    repo.git("checkout", "-q", "-b", "side", "HEAD~2")
    repo.replace("b.py", "return x + 7\n", "return x + 70\n")
    repo.commit("side b", T0 + timedelta(hours=1))
    repo.git("checkout", "-q", "-")
    repo.git("merge", "-q", "--no-edit", "side", when=T0 + timedelta(hours=2))
    head = repo.head()
    history.read_ahead(top, [(head, p) for p in _paths(repo, head)])
    assert all(history.log_at(top, head, p) is None for p in _paths(repo, head))


def test_files_read_ahead_are_what_git_show_gives_once(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    top, head = str(repo.path), repo.head()
    paths = _paths(repo, head)
    history.read_ahead(top, [(head, p) for p in [*paths, "no-such.py"]])
    for p in paths:
        assert history.file_at(top, head, p) == git(["show", f"{head}:{p}"], top)
        assert history.file_at(top, head, p) is None  # served once
    assert history.file_at(top, head, "no-such.py") is None
    history.read_ahead(top, [("HEAD", p) for p in paths])  # not a commit id: nothing is read ahead
    assert history.file_at(top, "HEAD", "a.py") is None


def test_a_blame_started_ahead_is_the_files_blame_and_one_not_taken_is_stopped(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    top, head = str(repo.path), repo.head()
    blame.blame_ahead(top, head, "a.py")
    blame.blame_ahead(top, head, "b.py")
    pending = blame.take_ahead(top, head, "a.py")
    assert pending is not None and blame.take_ahead(top, head, "a.py") is None
    assert pending.result() == git(blame._args(top, "a.py", head, None, None, None), top)
    assert blame.drop_ahead(top, head, "b.py") and not blame.drop_ahead(top, head, "b.py")
    blame.blame_ahead(top, head, "e.py")
    blame.forget_ahead()
    assert blame.take_ahead(top, head, "e.py") is None


def test_blames_run_ahead_by_one_helper_are_each_files_own_blame(tmp_path: Path) -> None:
    import os

    import pytest

    from hansard.errors import GitError
    from hansard.git import serial

    repo = _repo(tmp_path)
    top, head = str(repo.path), repo.head()
    paths = [*_paths(repo, head), "gone.py"]
    assert blame.blames_ahead(top, [(head, p) for p in paths]) == len(paths)
    queued = {p: blame.take_ahead(top, head, p) for p in paths}
    assert all(isinstance(q, serial.Queued) for q in queued.values())
    helper = queued["a.py"].serial  # type: ignore[union-attr]
    for p in paths[:-1]:  # in any order: each its own
        assert queued[p].result() == git(blame._args(top, p, head, None, None, None), top), p  # type: ignore[union-attr]
    with pytest.raises(GitError) as failed:
        queued["gone.py"].result()  # type: ignore[union-attr]
    with pytest.raises(GitError) as alone:
        git(blame._args(top, "gone.py", head, None, None, None), top)
    assert failed.value.message == alone.value.message
    assert helper.proc.returncode is not None and not os.path.exists(helper.dir)


def test_blames_stopped_ahead_leave_nothing_and_one_still_asked_runs_alone(tmp_path: Path) -> None:
    import os
    import time

    repo = _repo(tmp_path)
    top, head = str(repo.path), repo.head()
    paths = _paths(repo, head)
    blame.blames_ahead(top, [(head, p) for p in paths])
    first = blame.take_ahead(top, head, paths[0])
    helper = first.serial  # type: ignore[union-attr]
    helper.stop()  # as when the helper is gone before its command ran
    assert first is not None and first.result() == git(blame._args(top, paths[0], head, None, None, None), top)
    blame.forget_ahead()
    assert blame.take_ahead(top, head, paths[1]) is None
    assert helper.proc.returncode is not None and not os.path.exists(helper.dir)
    blame.blames_ahead(top, [(head, p) for p in paths])
    taken = blame.take_ahead(top, head, paths[0])
    helper = taken.serial  # type: ignore[union-attr]
    blame.forget_ahead()
    assert os.path.exists(helper.dir)  # one command is still wanted
    taken.stop()  # type: ignore[union-attr]  # none now: its process group killed, its folder gone
    assert helper.proc.returncode is not None and not os.path.exists(helper.dir)
    blame.blames_ahead(top, [(head, p) for p in paths])
    taken = blame.take_ahead(top, head, paths[0])
    helper = taken.serial  # type: ignore[union-attr]
    assert helper.code(0, time.monotonic() + 120) == 0
    os.unlink(os.path.join(helper.dir, "0.out"))  # its output lost: it runs alone
    assert taken.result() == git(blame._args(top, paths[0], head, None, None, None), top)  # type: ignore[union-attr]
    blame.forget_ahead()


def test_no_blame_is_started_ahead_where_a_side_file_would_make_git_wait(tmp_path: Path) -> None:
    import os

    repo = _repo(tmp_path)
    top, head = str(repo.path), repo.head()
    os.mkfifo(repo.path / ".mailmap")
    assert blame.unreadable_side_file(top) == ".mailmap"
    assert blame.blames_ahead(top, [(head, p) for p in _paths(repo, head)]) == 0
    assert blame.take_ahead(top, head, "a.py") is None


def test_deleted_files_asked_again_come_from_what_was_asked(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    top = str(repo.path)
    shas = repo.git("rev-list", "HEAD").split()
    first = history.deleted_files(top, shas[:3])
    assert history.deleted_files(top, shas) == {**history.deleted_files(top, shas[3:]), **first}
    assert any(ps == {"d.py"} for ps in first.values())


def test_the_first_deleted_files_question_asks_about_the_changes_commits_too(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    top = str(repo.path)
    shas = repo.git("rev-list", "HEAD").split()
    alone = history.deleted_files(top, shas)
    history._DELETED.clear()
    history.deleted_ahead(top, "HEAD~4..HEAD")
    assert history.deleted_files(top, [shas[0]]) == {shas[0]: alone[shas[0]]}
    assert {sha for (t, sha) in history._DELETED if t == top} == set(shas[:4])  # asked with the first
    assert history.deleted_files(top, shas[:4]) == {x: alone[x] for x in shas[:4]}
    history.deleted_ahead(top, None)


def test_while_files_are_answered_together_head_and_refs_are_read_once(tmp_path: Path) -> None:
    from hansard.answers.why import together
    from hansard.git.refs import head_commit, ref_from_files

    repo = _repo(tmp_path)
    top, head = str(repo.path), repo.head()
    import gc

    before = gc.get_threshold()
    together.open_window(top)
    try:
        assert gc.get_threshold()[0] >= together.GC_YOUNG  # the youngest generation swept less often
        assert head_commit(top) == head and ref_from_files(top, "refs/heads/main") in (head, None)
        repo.write("late.py", "LATE = 2\n")
        repo.commit("later", T0 + timedelta(hours=1))
        assert head_commit(top) == head  # every file of one answer sees the repository as the first did
        assert together.once(("k",), lambda: 1) == 1 and together.once(("k",), lambda: 2) == 1
    finally:
        together.close_window()
    assert head_commit(top) == repo.head() != head
    assert together.once(("k",), lambda: 2) == 2
    assert gc.get_threshold() == before


def test_while_files_are_answered_together_one_reader_answers_what_a_process_each_would(tmp_path: Path) -> None:
    import os
    import threading

    from hansard.answers.why import together

    repo = _repo(tmp_path)
    top, head = str(repo.path), repo.head()
    revs = [f"{head}:{p}" for p in _paths(repo, head)] + [head, f"{head}^", f"{head}:gone.py", "", "HEAD:a.py",
                                                         f"{head}:a.py", "not a rev", head[:7]]
    alone = history.batch_objects(top, revs)
    assert history._reader(top) is None
    together.open_window(top)
    try:
        reader = history._reader(top)
        assert reader is not None
        asked = reader.requests
        assert history.batch_objects(top, revs) == alone
        pending = history.BatchRead(top, revs[:3])
        assert pending.pending is None and pending.result() == alone[:3]  # the kept reader, no process
        assert reader.requests > asked
        got: list[object] = []
        other = threading.Thread(target=lambda: got.append(history._reader(top)))
        other.start()
        other.join()
        assert got == [None]  # another thread starts its own process
        pid = os.fork()
        if pid == 0:  # a forked process never reads from its parent's pipes, nor holds them open
            os._exit(0 if history._reader(top) is None and reader.proc.stdin.closed and reader.proc.stdout.closed
                     and history.batch_objects(top, revs) == alone else 1)
        assert os.waitpid(pid, 0)[1] == 0
        reader.proc.kill()
        reader.proc.wait()
        assert history.batch_objects(top, revs) == alone  # a reader that stopped: one process, as alone
        assert history._reader(top) is None
    finally:
        together.close_window()
    assert not history._READERS


def test_a_ranges_plans_are_each_commits_own(tmp_path: Path) -> None:
    from hansard.trace import export

    repo = _repo(tmp_path)
    repo.git("checkout", "-q", "-b", "side", "HEAD~2")
    repo.write("side.py", "SIDE = 1\n")
    repo.commit("side", T0 + timedelta(hours=1))
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    top = str(repo.path)
    shas = repo.git("rev-list", "--reverse", "HEAD").split()
    assert export.plans(top, shas) == [export.plan(top, sha) for sha in shas]
    assert any(len(p.parents) > 1 for p in export.plans(top, shas))


def test_a_historys_deletions_read_at_once_are_each_commits_own(tmp_path: Path, monkeypatch) -> None:
    repo = _repo(tmp_path)
    top, head = str(repo.path), repo.head()
    shas = repo.git("rev-list", "HEAD").split()
    history._DELETED.clear()
    alone = {x: history.deleted_files(top, [x]) for x in shas}
    history._DELETED.clear()
    monkeypatch.setattr(history, "DELETIONS_READ_COMMITS", len(shas) - 1)
    history.read_deletions(top, [head])
    assert not history._DELETED  # a longer history: each file's question asks for its commits
    monkeypatch.setattr(history, "DELETIONS_READ_COMMITS", len(shas))
    history.read_deletions(top, [head, "HEAD"])
    assert {x for (t, x) in history._DELETED if t == top} == set(shas)
    assert {x: history.deleted_files(top, [x]) for x in shas} == alone
    assert any(ps == {x: {"d.py"}} for x, ps in alone.items())


def test_while_files_are_answered_together_a_files_log_is_read_once_at_a_commit(tmp_path: Path) -> None:
    from hansard.answers.why import together

    repo = _repo(tmp_path)
    top, head = str(repo.path), repo.head()
    alone = {p: history.file_log(top, p, head) for p in ("a.py", "c2.py", "a_copy.py")}
    with_patches = history.file_log(top, "a.py", head, patches=True)
    assert not history._LOGS_READ  # nothing kept outside a window
    together.open_window(top)
    try:
        pending = history.start_file_log(top, "c2.py", head)
        assert pending.result().decode("utf-8", "surrogateescape") == alone["c2.py"]
        again = history.start_file_log(top, "c2.py", head)
        assert isinstance(again, history._LogRead)  # no second process
        assert again.result().decode("utf-8", "surrogateescape") == alone["c2.py"]
        assert history.file_log(top, "c2.py", head) == alone["c2.py"]
        for p, text in alone.items():
            assert history.file_log(top, p, head) == text == history.file_log(top, p, head)
        assert history.file_log(top, "a.py", head, patches=True) == with_patches
        assert history.file_log(top, "a.py", "HEAD") == alone["a.py"]
        assert (top, "HEAD", "a.py", False) not in history._LOGS_READ  # a name, not a commit id: asked each time
        history.start_file_log(top, "b.py", head).stop()  # stopped unread: nothing kept
        assert (top, head, "b.py", False) not in history._LOGS_READ
    finally:
        together.close_window()
    assert not history._LOGS_READ
