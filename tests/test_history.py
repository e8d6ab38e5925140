"""code_history and work_context on a repository whose every fact is known (fixtures_repos.history):
two functions edited, a function renamed, a method moved, a revert, tests failing then fixed in
several runners' real output, todo lists that gain, complete and drop steps, shell commits."""

from __future__ import annotations

import json
import os
from functools import partial
from pathlib import Path

import pytest

from fixtures_repos.history import World, build
from hansard.answers import code_history as _code_history
from hansard.answers import work_context as _work_context
from hansard.errors import InvalidArgument, NotFound, UntilNotAllowed
from hansard.ingest.run import index
from hansard.render.trees import code_history_tree, work_context_tree
from hansard.store import open_store

# The answers as the adapters call them: with hansard/render's trees.
code_history = partial(_code_history.code_history, render=code_history_tree)
work_context = partial(_work_context.work_context, render=work_context_tree)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    root = tmp_path_factory.mktemp("history")
    mp = pytest.MonkeyPatch()
    mp.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
    w = build(root)
    mp.undo()
    return w


@pytest.fixture
def store(world: World, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    for var, path in world.homes.items():
        monkeypatch.setenv(var, str(path))
    st = open_store()
    index(st)
    yield st
    st.close()


def sessions_of(result: dict) -> list[str]:
    return [e["session_id"] for e in result["entries"] if e["kind"] == "session"]


def test_file_history_newest_first_with_commits_reverts_and_tests(world: World, store) -> None:
    r = code_history(store, "src/shop/cart.py", cwd=str(world.repo))
    s = world.sessions
    assert sessions_of(r) == [s["S4"], s["S3"], s["S2"], s["S1"]]
    by = {e.get("session_id") or e["commit"]: e for e in r["entries"]}
    # S1: two edits (two functions), landed in the shell commit; pytest failed then passed.
    s1 = by[s["S1"]]
    assert [x["tool_call_id"] for x in s1["edits"]] == [world.calls["S1.add_item"], world.calls["S1.total"]]
    assert [c["sha"] for c in s1["commits"]] == [world.commits["S1"]]
    assert s1["tests"]["failed_then_fixed"][0]["test"] == "tests/test_cart.py::test_add_item_rejects_zero"
    assert s1["tests"]["still_failing"] == [] and s1["live"] is False
    # S2 (Codex): go test and cargo test, each failing then passing.
    fixed = {f["test"] for f in by[s["S2"]]["tests"]["failed_then_fixed"]}
    assert fixed == {"example.com/shop/cart::TestCartTotal", "tests::totals_are_summed"}
    # S3: jest through npm test; its commit was reverted with git revert.
    s3 = by[s["S3"]]
    assert s3["tests"]["failed_then_fixed"][0]["test"].endswith("clears items")
    assert s3["reverted_by"] == [world.commits["revert_S3"]]
    rev = by[world.commits["revert_S3"]]
    assert rev["kind"] == "revert" and rev["git_revert"] is True
    assert rev["undoes"] == [{"commit": world.commits["S3"], "session_id": s["S3"]}]
    # S4 removed what S1 added: an edit that undoes an earlier linked change.
    s4 = by[s["S4"]]
    assert s4["undoes"] == [{"session_id": s["S1"], "message_index": s1["edits"][0]["message_index"],
                             "tool_call_id": world.calls["S1.add_item"],
                             "by_message_index": s4["edits"][0]["message_index"]}]
    assert [c["sha"] for c in s4["commits"]] == [world.commits["S4"]]
    assert r["imported_by"] == [{"path": "src/shop/checkout.py", "line": 1}, {"path": "tests/test_cart.py", "line": 3}]
    assert r["truncated"] == 0 and r["tree"].startswith("src/shop/cart.py")


def test_symbol_follows_renames_and_moves(world: World, store) -> None:
    s = world.sessions
    r = code_history(store, "src/shop/cart.py", symbol="cart_total", cwd=str(world.repo))
    assert r["target"]["formerly"] == ["total"]
    assert sessions_of(r) == [s["S2"], s["S1"]]
    s1 = next(e for e in r["entries"] if e.get("session_id") == s["S1"])
    assert [x["tool_call_id"] for x in s1["edits"]] == [world.calls["S1.total"]]  # not the add_item edit
    r = code_history(store, "src/shop/cart.py", symbol="add_item", cwd=str(world.repo))
    assert sessions_of(r) == [s["S4"], s["S1"]]
    r = code_history(store, "src/shop/cart.py", symbol="Cart.clear", cwd=str(world.repo))
    assert sessions_of(r) == [s["S3"]]
    assert [e["commit"] for e in r["entries"] if e["kind"] == "revert"] == [world.commits["revert_S3"]]
    with pytest.raises(NotFound):
        code_history(store, "src/shop/cart.py", symbol="no_such_function", cwd=str(world.repo))


def test_history_and_blame_agree(world: World, store) -> None:
    """`log FILE` and `log --symbol` list every session `why` gives lines of the file (the
    symbol) with their count, and `log FILE:N` says what `why` says of line N."""
    from hansard.answers.why.agreement import check_file
    from hansard.app.house import Hansard

    n = len((world.repo / "src/shop/cart.py").read_text().splitlines())
    with Hansard(sync=False).request() as rq:  # answers kept between the questions, as `why`'s are
        report = check_file(rq.store, str(world.repo), "src/shop/cart.py", range(1, n + 1), (),
                            ["cart_total", "add_item", "Cart.clear"], keep=rq.keep)
    assert not report.differences, report.differences
    assert report.asked["log --symbol"] == 3 and report.lines["log FILE:N"] == n
    r = code_history(store, "src/shop/cart.py", symbol="cart_total", cwd=str(world.repo))
    assert [e["lines"] for e in r["entries"] if e["kind"] == "session"] == [1, 1]
    assert "messages 5; 1 line here now" in r["tree"]


def test_path_line_is_the_why_answer(world: World, store) -> None:
    r = code_history(store, "src/shop/cart.py:10", cwd=str(world.repo))
    e = r["entries"][0]
    assert e["line"] == 10 and e["session_id"] == world.sessions["S1"]
    assert e["tool_call_id"] == world.calls["S1.total"] and e["commit"] == world.commits["S1"]
    assert r["why"]["lines"][0]["rule"] == "wrote"


def test_until_hides_newer_evidence_and_is_refused_where_it_cannot_apply(world: World, store) -> None:
    s = world.sessions
    r = code_history(store, "src/shop/cart.py", until="2026-03-02T09:15:00+00:00", cwd=str(world.repo))
    assert sessions_of(r) == [s["S2"], s["S1"]]
    with pytest.raises(UntilNotAllowed):
        code_history(store, "src/shop/cart.py:3", until="2026-03-02", cwd=str(world.repo))
    with pytest.raises(UntilNotAllowed):
        code_history(store, "src/shop/cart.py", symbol="add_item", until="2026-03-02", cwd=str(world.repo))
    with pytest.raises(InvalidArgument):
        code_history(store, "src/shop/cart.py", until="2026-03-02T09:15:00", cwd=str(world.repo))


def test_token_budget_keeps_the_newest(world: World, store) -> None:
    full = code_history(store, "src/shop/cart.py", cwd=str(world.repo))
    small = code_history(store, "src/shop/cart.py", token_budget=400, cwd=str(world.repo))
    assert 0 < len(small["entries"]) < len(full["entries"])
    assert small["truncated"] == len(full["entries"]) - len(small["entries"])
    assert small["entries"] == full["entries"][: len(small["entries"])]
    assert len(json.dumps(small)) // 4 <= 400


def test_live_session(world: World, store) -> None:
    path = next(r["path"] for r in store.evidence.session_sources() if r["session_id"] == world.sessions["S4"])
    with open(path, "a") as fh:
        fh.write('{"type":"assistant","message":{"role":"assis')  # being written right now
    try:
        index(store)
        r = code_history(store, "src/shop/cart.py", cwd=str(world.repo))
        live = {e["session_id"]: e["live"] for e in r["entries"] if e["kind"] == "session"}
        assert live[world.sessions["S4"]] is True and live[world.sessions["S1"]] is False
        assert store.sessions.find(world.sessions["S4"])
    finally:
        data = Path(path).read_bytes()
        Path(path).write_bytes(data[: data.rindex(b"\n") + 1])


def test_work_context(world: World, store) -> None:
    s, c = world.sessions, world.commits
    r = work_context(store, s["S1"], cwd=str(world.repo))
    rel = {e["session_id"]: e["relation"] for e in r["entries"]}
    assert rel == {s["S1"]: "self", s["S1.sub"]: "subagent", s["S1b"]: "same_commits"}
    assert "landed in the same commit(s): " + c["S1"][:7] in next(
        e["evidence"] for e in r["entries"] if e["session_id"] == s["S1b"])
    assert [x["text"] for x in r["steps"]["done"]] == ["Validate qty in add_item", "Round total"]
    assert [x["text"] for x in r["steps"]["dropped"]] == ["Update the README"]
    assert r["steps"]["open"] == []
    assert [f["test"] for f in r["tests"]["failed_then_fixed"]] == ["tests/test_cart.py::test_add_item_rejects_zero"]
    commit = r["commits"][0]
    assert commit["sha"] == c["S1"] and commit["how"] == "made_by_session+edits_landed"
    assert commit["tool_call_id"] == world.calls["S1.commit"] and commit["reachable"] is True

    r = work_context(store, s["S2"], cwd=str(world.repo))
    assert [x["text"] for x in r["steps"]["dropped"]] == ["Port the Go client"]
    assert len(r["steps"]["done"]) == 2

    # S4 printed a SHA that a human amended away afterwards.
    r = work_context(store, s["S4"], cwd=str(world.repo))
    printed = next(x for x in r["commits"] if x["how"].startswith("made_by_session"))
    assert printed["sha"] == c["S4_printed"] and printed["in_repository"] is True and printed["reachable"] is False
    assert any(x["sha"] == c["S4"] and x["how"] == "edits_landed" for x in r["commits"])
    assert "rewritten" in r["tree"]


def test_work_context_defaults_to_the_repository_session(world: World, store) -> None:
    r = work_context(store, None, cwd=str(world.repo))
    assert r["session"]["session_id"] == world.sessions["S4"]
    assert r["session"]["selected_by"] in ("live_in_repo", "newest_in_repo")
