"""The shortcuts a whole-file `why` takes give the answers the slow paths
give: candidate edits loaded whole only for the file's own paths, and the restored check
asking each file version only about the lines in question."""

from __future__ import annotations

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
