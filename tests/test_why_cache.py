"""The why-result cache: a second `hansard why` of an unchanged file is served from the store,
and each thing an answer depends on (a newly indexed transcript, a commit, the working tree,
an unsaved buffer) gives a fresh answer."""

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
''')
TAX = "TAX_RATE = load_rate('sales_tax', region=DEFAULT_REGION)\n"  # not trivial: evidence of its own


def _shop(tmp_path: Path, name: str):
    """A repository whose second commit is a Claude Code session's shop.py (FIRST)."""
    b = Build(name, tmp_path / "build")
    r = b.init()
    r.write("README.md", "# shop\n")
    b.commit(r, "Initial commit")
    cc = b.claude(r.path)
    cc.prompt("Add a total helper")
    cc.write(r.path / "shop.py", FIRST)
    b.commit(r, "Add total")
    return b, r, cc


def _enter(b: Build, r, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run hansard inside the repository, with the built scenario's agent homes and a store of its own."""
    for var, value in env_for(b.scenario(r, {}), tmp_path / "store").items():
        monkeypatch.setenv(var, value)
    monkeypatch.chdir(r.path)


def _setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    b, r, cc = _shop(tmp_path, "why_cache")
    _enter(b, r, tmp_path, monkeypatch)
    assert run_cli("index")[0] == 0
    return b, r, cc


def _why(*args: str) -> dict:
    code, out, err = run_cli("why", *args, "--json")
    assert code == 0, (code, out, err)
    return json.loads(out)


def _cached_rows() -> int:
    from hansard.store import open_store

    store = open_store()
    try:
        return store.db.execute("SELECT COUNT(*) FROM why_cache").fetchone()[0]
    finally:
        store.close()


def _forget_cache() -> None:
    """Empty the cache (a test's way to see whether the next answer is stored again)."""
    from hansard.store import open_store

    store = open_store()
    try:
        store.db.execute("DELETE FROM why_cache")
    finally:
        store.close()


def test_second_answer_is_the_cached_one_and_the_same(tmp_path, monkeypatch):
    _setup(tmp_path, monkeypatch)
    first = _why("shop.py", "--no-sync")
    assert [ln["kind"] for ln in first["lines"]] == ["agent", "agent"]
    assert _cached_rows() == 1
    code, raw_again, _ = run_cli("why", "shop.py", "--no-sync", "--json")
    code2, raw_fresh, _ = run_cli("why", "shop.py", "--no-sync", "--json", "--no-cache")
    assert code == code2 == 0
    assert raw_again == raw_fresh  # the same bytes, cached or not
    assert _cached_rows() == 1
    # a line is cut from the file's cached answer: no answer of its own is kept
    line = _why("shop.py:2", "--no-sync")
    assert line["lines"] == [ln for ln in first["lines"] if ln["line"] == 2]
    assert _cached_rows() == 1


def _late_session(tmp_path, monkeypatch, name):
    """(the first session, a second one that wrote line 3, where its transcript is for now):
    the second session's transcript turns up only later (copied from another machine)."""
    b, r, cc = _shop(tmp_path, name)
    late = b.claude(r.path)
    late.prompt("Add a tax constant")
    late.edit(r.path / "shop.py", FIRST, FIRST + TAX)
    b.commit(r, "Tax")
    away = tmp_path / "away.jsonl"
    late.path.rename(away)
    _enter(b, r, tmp_path, monkeypatch)
    return cc, late, away


def test_a_new_transcript_gives_a_fresh_answer(tmp_path, monkeypatch):
    cc, late, away = _late_session(tmp_path, monkeypatch, "why_cache_transcript")
    before = _why("shop.py")
    assert before["lines"][2]["kind"] == "human" and _cached_rows() == 1
    assert _why("shop.py") == before  # nothing new: the cached answer
    away.rename(late.path)
    after = _why("shop.py")  # its sync indexes the transcript: the store generation moved on
    assert after["lines"][2]["kind"] == "agent"
    assert after["lines"][2]["session_id"] == late.session_id
    assert [ln["session_id"] for ln in after["lines"][:2]] == [cc.session_id] * 2


def test_a_transcript_read_while_git_blames_is_in_the_answer(tmp_path, monkeypatch):
    """No cached answer: the quick index runs while git blames, and what it reads is used."""
    _, late, away = _late_session(tmp_path, monkeypatch, "why_cache_during_blame")
    assert _why("shop.py", "--no-cache")["lines"][2]["kind"] == "human"
    away.rename(late.path)
    after = _why("shop.py", "--no-cache")
    assert after["lines"][2]["kind"] == "agent" and after["lines"][2]["session_id"] == late.session_id


def test_a_commit_and_an_edited_working_tree_give_fresh_answers(tmp_path, monkeypatch):
    b, r, cc = _setup(tmp_path, monkeypatch)
    first = _why("shop.py", "--no-sync")
    # the working tree changes: the new line is uncommitted
    r.write("shop.py", FIRST + TAX)
    edited = _why("shop.py", "--no-sync")
    assert len(edited["lines"]) == 3 and edited["lines"][2]["kind"] == "uncommitted"
    # committed: the same bytes, a new HEAD, so blame names the commit
    sha = b.commit(r, "Tax")
    committed = _why("shop.py", "--no-sync")
    assert committed["lines"][2]["kind"] == "human" and committed["lines"][2]["commit"] == sha
    # back to the first text, uncommitted: the answer is not the first one (HEAD moved)
    r.write("shop.py", FIRST)
    back = _why("shop.py", "--no-sync")
    assert [ln["commit"] for ln in back["lines"]] == [ln["commit"] for ln in first["lines"]]
    assert back == _why("shop.py", "--no-sync", "--no-cache")


def test_an_unsaved_buffer_and_a_revision_are_their_own_questions(tmp_path, monkeypatch):
    b, r, cc = _setup(tmp_path, monkeypatch)
    first = _why("shop.py", "--no-sync")
    code, out, _ = run_cli("why", "shop.py", "--no-sync", "--json", "--contents", "-",
                           stdin=(FIRST + "x = 1\n").encode())
    assert code == 0
    buffered = json.loads(out)
    assert len(buffered["lines"]) == 3 and buffered["lines"][2]["kind"] == "uncommitted"
    assert _why("shop.py", "--no-sync") == first
    r.write("shop.py", FIRST + TAX)
    b.commit(r, "Tax")
    old = _why("shop.py", "--no-sync", "--rev", "HEAD~1")
    assert len(old["lines"]) == 2 and old["rev"] == r.rev_parse("HEAD~1")
    assert len(_why("shop.py", "--no-sync", "--rev", "HEAD")["lines"]) == 3


def test_the_generation_moves_with_indexing_and_linking(tmp_path, monkeypatch):
    from hansard.store import open_store

    b, r, cc = _setup(tmp_path, monkeypatch)
    store = open_store()
    try:
        g0 = store.why_cache.generation()
        assert isinstance(g0, int)
        store.db.execute("UPDATE edits SET timestamp=timestamp")  # a re-dated edit (own_commits)
        g1 = store.why_cache.generation()
        store.db.execute("INSERT INTO path_maps (old_prefix, new_prefix) VALUES ('/old', '/new')")
        g2 = store.why_cache.generation()
        store.commit_diffs.put_many([("0" * 40, "x.py", None, [])])  # a cache write is no change
        store.why_cache.put("k", g2, b"{}")
        assert g0 < g1 < g2 == store.why_cache.generation()
        assert store.why_cache.get("k") == b"{}"
        store.why_cache.put("stale", g1, b"{}")  # computed before the store moved on: not kept
        assert store.why_cache.get("stale") is None
        assert store.why_cache.get("k") == b"{}"  # and the current generation's rows stay
    finally:
        store.close()


def test_a_new_redactor_gives_a_fresh_answer(tmp_path, monkeypatch):
    """A cached answer holds commit summaries redacted by the rules of then: another redactor
    (its digest, kept in secret_rules/screen.json) asks git and the redactor again."""
    from hansard.ingest import secret_screen

    _setup(tmp_path, monkeypatch)
    _why("shop.py", "--no-sync")
    assert _cached_rows() == 1
    monkeypatch.setitem(secret_screen._STATE, "doc", {**secret_screen._doc(), "digest": "a later redactor"})
    _why("shop.py", "--no-sync")
    assert _cached_rows() == 2
