"""A transcript that grows while questions are asked (an agent at work in another terminal):
after each quick index before a question (message by message, half lines, a rewrite and a
shrink included) the store holds what a fresh index of the transcript as it then is holds,
the commit facts and writing calls kept included."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import dump, run_cli
from tests.test_why_cache import _enter, _shop


def _quick() -> bool:
    from hansard.ingest.quickcheck import quick_sync
    from hansard.store import open_store

    store = open_store()
    try:
        return quick_sync(store)
    finally:
        store.close()


def _content() -> dict[str, list[tuple]]:
    """The derived tables, and the facts kept of each repository, without row ids."""
    from hansard.store import open_store

    store = open_store()
    try:
        db = store.db
        out = dump(db)
        out["commit_ties"] = sorted(tuple(r) for r in db.execute(
            "SELECT r.path, t.sha, t.session_id, t.rule FROM commit_ties t JOIN repos r ON r.id=t.repo_id"))
        out["commit_prints"] = sorted(tuple(r) for r in db.execute(
            "SELECT r.path, p.session_id, p.ts, p.kind, p.short, p.summary FROM commit_prints p"
            " JOIN repos r ON r.id=p.repo_id"))
        out["shell_writes"] = sorted(tuple(r) for r in db.execute(
            "SELECT r.path, w.ts, w.command, w.parsed FROM shell_writes w JOIN repos r ON r.id=w.repo_id"))
        out["facts"] = sorted(tuple(r) for r in db.execute(
            "SELECT r.path, f.head, f.calls, f.commits FROM commit_facts f JOIN repos r ON r.id=f.repo_id"))
        return out
    finally:
        store.close()


def test_a_transcript_grown_in_steps_indexes_as_a_fresh_index_does(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    b, r, cc = _shop(tmp_path, "grown")
    _enter(b, r, tmp_path, monkeypatch)
    assert run_cli("index")[0] == 0

    store = tmp_path / "store"
    steps = 0

    def grown() -> None:
        nonlocal steps
        steps += 1
        assert _quick(), steps  # every step changed the transcript
        now = _content()
        fresh = tmp_path / f"fresh-{steps}"
        monkeypatch.setenv("HANSARD_HOME", str(fresh))
        assert run_cli("index")[0] == 0
        assert _content() == now, steps
        monkeypatch.setenv("HANSARD_HOME", str(store))

    def called(step) -> None:
        """One tool call read before its result is written (an agent's command still running),
        then with it."""
        before = cc.path.read_bytes()
        step()
        after = cc.path.read_bytes()
        result = after.index(b'"tool_result"', len(before))
        cc.path.write_bytes(after[:after.rindex(b"\n", 0, result) + 1])
        grown()
        cc.path.write_bytes(after)
        grown()

    cc.say("Written; committing it.")
    grown()
    sha = r.head()
    # The result prints the commit's id.
    called(lambda: cc.bash("git commit -am 'Add total'", stdout=f"[main {sha[:7]}] Add total\n 1 file changed\n"))
    cc.prompt("Now count the items too")
    grown()
    called(lambda: cc.edit(r.path / "shop.py", "def total", "def count(items):\n    return len(items)\n\n\ndef total"))
    called(lambda: cc.write(r.path / "notes.md", "# notes\n"))
    # Half a line (the agent caught mid-write): nothing of it is read until it is whole.
    whole = cc.path.read_bytes()
    cc.say("Counting works.")
    tail = cc.path.read_bytes()[len(whole):]
    cc.path.write_bytes(whole + tail[:len(tail) // 2])
    grown()
    cc.path.write_bytes(whole + tail)
    grown()
    cc.bash("python -c 'open(\"notes.txt\", \"w\").write(\"n\")'")
    grown()
    # Rewritten in place, as long as before but its first record changed: read whole again.
    data = cc.path.read_bytes()
    first = data.index(b"Add a total helper")
    cc.path.write_bytes(data[:first] + b"Add a tally helper" + data[first + len(b"Add a total helper"):])
    grown()
    cc.prompt("And a discount")
    grown()
    # Cut back to its first lines (restored from an older copy), then growing again.
    lines = cc.path.read_bytes().splitlines(keepends=True)
    cc.path.write_bytes(b"".join(lines[:len(lines) // 2]))
    grown()
    cc.path.write_bytes(b"".join(lines))
    cc.say("Back where we were.")
    grown()

    last = _content()
    assert last["messages"] and last["edits"] and last["shell_writes"] and last["commit_ties"]
