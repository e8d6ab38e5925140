"""The shortcuts a whole-file `why` takes give the answers the slow paths
give: candidate edits loaded whole only for the file's own paths, and the restored check
asking each file version only about the lines in question."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from fixtures_repos.check import answer, compare, env_for
from fixtures_repos.scenarios import SCENARIOS


def built(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    scn = SCENARIOS[name](tmp_path / "build")
    for var, value in env_for(scn, tmp_path / "store").items():
        monkeypatch.setenv(var, value)
    answers = answer(scn)  # indexes the scenario's homes
    assert not compare(scn, answers)
    return scn, answers


@pytest.mark.parametrize("name", ["precision_restored_line", "rewrite_revert_and_revert_of_revert"])
def test_each_line_alone_is_answered_as_in_the_whole_file(name, tmp_path, monkeypatch):
    # one line: the restored check reads the versions it needs; whole file: one replay,
    # each version asked only about the lines in question
    from hansard.answers.why import explain
    from hansard.store import open_store
    from hansard.text import textnorm

    scn, answers = built(name, tmp_path, monkeypatch)
    store = open_store()
    try:
        for rel in scn.files:
            for ln in answers[rel]["lines"]:
                if textnorm.is_trivial(ln["content"]):
                    continue  # (alone, it has no block to inherit from)
                alone = explain(store, f"{rel}:{ln['line']}", rev=scn.rev, cwd=str(scn.repo), cache=False)
                assert alone["lines"] == [ln]
    finally:
        store.close()


def test_other_paths_edits_are_read_for_where_and_when_only(tmp_path, monkeypatch):
    from hansard.answers import evidence
    from hansard.link.repos import repo_for
    from hansard.store import open_store
    from hansard.text import textnorm

    scn, _ = built("precision_modified_other_session", tmp_path, monkeypatch)  # two Go files
    store = open_store()
    try:
        repo_id = repo_for(store, str(scn.repo))
        for rel in scn.files:
            text = (scn.repo / rel).read_text(encoding="utf-8")
            hashes = {textnorm.line_hash(x) for x in text.splitlines()}
            untimed_all: dict = {}
            placed_all: dict = {}
            edits_all, by_hash_all = evidence.load_candidates(store, repo_id, hashes, untimed=untimed_all,
                                                              placed=placed_all)
            untimed: dict = {}
            placed: dict = {}
            edits, by_hash = evidence.load_candidates(store, repo_id, hashes, untimed=untimed, paths={rel},
                                                      placed=placed)
            assert {p for ps in placed_all.values() for p in ps} - {rel}, "the scenario has other paths' edits"
            # a trivial line ('}', a blank) is evidence only in its own file: other paths' are not read
            trivial = {textnorm.line_hash(x) for x in text.splitlines() if textnorm.is_trivial(x)}
            assert placed == {h: ps if h not in trivial else ps & {rel} for h, ps in placed_all.items()
                              if h not in trivial or rel in ps}
            assert untimed == {h: ps for h, ps in untimed_all.items() if h not in trivial}
            mine = {eid for eid, e in edits_all.items() if e.rel_path == rel}
            assert set(edits) == mine
            for h, ids in by_hash_all.items():
                assert sorted(by_hash.get(h, [])) == sorted(i for i in ids if i in mine)
            for eid in mine:
                assert (edits[eid].added, edits[eid].trivial, edits[eid].ts) == (
                    edits_all[eid].added, edits_all[eid].trivial, edits_all[eid].ts)
    finally:
        store.close()


@pytest.mark.parametrize("chunk", [500, 3])
def test_lines_read_ahead_for_many_files_give_each_file_its_own_rows(chunk, tmp_path, monkeypatch):
    # what the answers of files asked in turn look up once for all of them is, row for row and
    # in order, what each file's own lookup gives (a chunk of 3 hashes: many lookups a file)
    from hansard.git.run import git_text
    from hansard.link.repos import repo_for
    from hansard.store import open_store
    from hansard.store.sqlite import evidence as sqlite_evidence
    from hansard.text import textnorm

    scn, _ = built("moved_into_a_new_file", tmp_path, monkeypatch)  # lines an edit wrote into another path
    monkeypatch.setattr(sqlite_evidence, "CHUNK", chunk)
    texts = {rel: (scn.repo / rel).read_text(encoding="utf-8") for rel in scn.files}
    texts["strategy/clean.go"] = git_text(["show", "HEAD~1:strategy/clean.go"], scn.repo)
    store = open_store()
    try:
        repo_id = repo_for(store, str(scn.repo))
        hashes = {rel: list(dict.fromkeys(textnorm.line_hash(x) for x in text.splitlines()))
                  for rel, text in texts.items()}
        alone = {rel: store.evidence.edit_lines_at(repo_id, hs, {rel}) for rel, hs in hashes.items()}
        assert any(elsewhere for _, elsewhere in alone.values()), "the scenario has other paths' edits"
        store.evidence.read_lines_ahead(repo_id, {h for hs in hashes.values() for h in hs})
        for rel, hs in hashes.items():
            assert store.evidence.lines_ahead_hold(repo_id, hs)
            got = store.evidence.edit_lines_at(repo_id, hs, {rel})
            assert ([dict(r) for r in got[0]], got[1]) == ([dict(r) for r in alone[rel][0]], alone[rel][1])
        some = hashes["strategy/clean.go"]
        assert not store.evidence.lines_ahead_hold(repo_id, [*some, 12345])
        assert not store.evidence.lines_ahead_hold(repo_id + 1, some)
        store.evidence.read_lines_ahead(None)
        assert not store.evidence.lines_ahead_hold(repo_id, some)
    finally:
        store.close()


@pytest.mark.parametrize("name", ["precision_commit_output", "unread_subagent_lines_then_its_session_edits_them"])
def test_what_the_repository_says_of_every_file_is_read_once_for_files_answered_together(name, tmp_path, monkeypatch):
    # the repository's shell-call prints (joined afresh at a revision before HEAD) and the calls
    # of its unread subagents are read once for files answered in turn, and each file's answer
    # is its own question's
    from hansard import agents
    from hansard.answers.why import explain, many
    from hansard.answers.why.unmatched import _said
    from hansard.git.run import git_text
    from hansard.link.repos import known_repo
    from hansard.store import open_store
    from hansard.store.sqlite.evidence import SqliteEvidence

    scn, _ = built(name, tmp_path, monkeypatch)
    rev = git_text(["rev-parse", "HEAD"], scn.repo).strip()
    subprocess.run(["git", "-c", "user.name=Later", "-c", "user.email=later@example.com", "commit", "-q",
                    "--allow-empty", "-m", "Later"], cwd=scn.repo, check=True)  # the revision asked is no longer HEAD
    revs = [rev, git_text(["rev-parse", f"{rev}^"], scn.repo).strip()]
    pairs = [(sha, rel) for sha in revs for rel in git_text(["ls-tree", "-r", "--name-only", sha], scn.repo).split()]
    assert len(pairs) > 1
    reads: list[str] = []

    def counted(method):
        real = getattr(SqliteEvidence, method)

        def read(self, *args):
            reads.append(method)
            return real(self, *args)
        return read

    for method in ("repo_shell_calls", "repo_unread_delegations", "repo_unread_delegation_texts"):
        monkeypatch.setattr(SqliteEvidence, method, counted(method))
    store = open_store()
    try:
        top = str(scn.repo)
        alone = [explain(store, rel, rev=sha, cwd=top, cache=False) for sha, rel in pairs]
        asked_alone = list(reads)
        reads.clear()
        assert list(many.one_by_one(store, top, pairs, many.document)) == alone
        assert sorted(reads) == sorted(set(reads)) and "repo_unread_delegations" not in reads
        assert "repo_shell_calls" in reads
        if name == "precision_commit_output":
            assert asked_alone.count("repo_shell_calls") == len(pairs)
        else:
            assert "repo_unread_delegation_texts" in reads
            # each file's name found in the calls read once as SQL's instr finds it
            repo_id, tools = known_repo(store, top), agents.tools("task")
            texts = _said(store.evidence.repo_unread_delegation_texts(repo_id, tools))
            assert texts
            for needle in ("ledger.py", "nothing-here.py", "l"):
                assert sorted((s, t) for s, t, x in texts if needle in x) == sorted(
                    store.evidence.repo_unread_delegations(repo_id, tools, needle))
    finally:
        store.close()
