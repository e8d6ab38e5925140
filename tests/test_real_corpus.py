"""scripts/real_corpus.py: how a session is put together from Entire's copies of it, and which
recorded folders are taken for checkouts of the repository. No git, no snapshot needed."""

from __future__ import annotations

import importlib.util
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "real_corpus.py"
_spec = importlib.util.spec_from_file_location("real_corpus", SCRIPT)
rc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rc)

T0 = datetime(2026, 1, 20, 10, 0, tzinfo=UTC)


class FakeBlobs:
    def __init__(self, data: dict[str, bytes | None]) -> None:
        self.data = data

    def get(self, sha: str) -> bytes | None:
        return self.data.get(sha)


def claude(n: int, sid: str = "839b35f7-4dbd-4d93-9772-3c272cc87caa", **extra) -> bytes:
    return json.dumps({"type": "user", "uuid": f"u{n}", "sessionId": sid, "cwd": "/Users/a/cli", **extra}).encode()


def copies(*chunks: list[str]) -> list[dict]:
    return [{"checkpoint": f"c{i:011d}", "folder": f"f{i}", "at": T0 + timedelta(minutes=i), "chunks": c,
             "entire_session": "s"} for i, c in enumerate(chunks)]


def test_growing_copies_give_the_longest_and_slices_are_appended():
    a = b"\n".join(claude(i) for i in range(3)) + b"\n"
    b = b"\n".join(claude(i) for i in range(5)) + b"\n"  # the whole transcript so far
    data, info = rc.assemble(copies(["a"], ["b"]), FakeBlobs({"a": a, "b": b}))
    assert data == b and info["copies_used"] == 2 and info["agent"] == "claude_code"
    s1 = b"\n".join(claude(i) for i in range(3))
    s2 = b"\n".join(claude(i) for i in range(3, 6))  # a slice: only what came after
    data, _ = rc.assemble(copies(["a"], ["b"]), FakeBlobs({"a": s1, "b": s2}))
    assert data == b"\n".join(claude(i) for i in range(6)) + b"\n"


def test_a_reserialised_newer_copy_replaces_the_older_one():
    old = b"\n".join(claude(i, x=1) if i == 1 else claude(i) for i in range(10))
    new = b"\n".join(claude(i) for i in range(11))  # line 1 written anew, one line more
    data, _ = rc.assemble(copies(["a"], ["b"]), FakeBlobs({"a": old, "b": new}))
    assert data == new + b"\n"


def test_a_missing_newest_copy_falls_back_to_the_older_and_says_so():
    a = b"\n".join(claude(i) for i in range(3))
    data, info = rc.assemble(copies(["a"], ["gone", "b1"]), FakeBlobs({"a": a, "b1": b"x"}))
    assert data == a + b"\n" and info["newest_missing"] and info["used_until"] == T0


def test_gemini_documents_keep_the_one_with_most_messages():
    doc = lambda n: json.dumps({"sessionId": "g", "projectHash": "h", "messages": [{"id": i} for i in range(n)]},
                               indent=2).encode()
    data, info = rc.assemble(copies(["a"], ["b"], ["c"]), FakeBlobs({"a": doc(2), "b": doc(5), "c": doc(4)}))
    assert data == doc(5) and info["agent"] == "gemini"


def test_sessions_named_with_and_without_a_date_are_one():
    uid = "839b35f7-4dbd-4d93-9772-3c272cc87caa"
    g = rc.by_session({f"2026-01-21-{uid}": [{"n": 1}], uid: [{"n": 2}], "odd": [{"n": 3}]})
    assert sorted(g) == [uid, "odd"] and len(g[uid]) == 2


@pytest.mark.parametrize(("cwds", "want"), [
    ({"/Users/a/cli", "/Users/a/cli/.worktrees/2"}, ["/Users/a/cli", "/Users/a/cli/.worktrees/2"]),
    ({"/Users/a/cli/cmd"}, ["/Users/a/cli"]),  # a session started in a subfolder
    (set(), []),  # no session ran there: a scratch folder of the same names is no checkout
])
def test_recorded_roots(cwds, want):
    history = {"go.mod", "cmd/entire/main.go"}
    edits = {"/Users/a/cli/go.mod": 1, "/Users/a/cli/.worktrees/2/cmd/entire/main.go": 1, "/private/tmp/x/go.mod": 3}
    assert rc.recorded_roots(edits, cwds, history) == want
