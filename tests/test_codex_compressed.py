"""Codex compresses archived rollouts older than a week into ``.jsonl.zst`` (one Zstandard
frame; a ``.zst`` is never appended to). hansard reads them as it reads the plain rollout:
the same sessions, messages, tool calls and edits; a rollout read before and compressed since
adds nothing; a damaged frame keeps what came before the damage and counts the rest."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from backports import zstd

from hansard.ingest.quickcheck import anything_changed
from hansard.ingest.run import index, rebuild
from hansard.store import open_store
from tests.helpers import dump

SAMPLE = "codex/entire_codex_0.125/full.jsonl"
NAME = "rollout-2026-04-24T20-03-43-019dc116-c183-74f3-8f98-b4e5bd8eddfa"


def _archived() -> Path:
    d = Path(os.environ["CODEX_HOME"]) / "archived_sessions"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _state() -> dict:
    store = open_store()
    try:
        return dump(store.db)
    finally:
        store.close()


def _index() -> dict:
    store = open_store()
    try:
        return index(store).as_dict()
    finally:
        store.close()


def _fresh_home(tmp_path: Path, name: str) -> None:
    os.environ["HANSARD_HOME"] = str(tmp_path / name)


def test_a_compressed_rollout_reads_as_the_plain_one(samples: Path, tmp_path: Path) -> None:
    data = (samples / SAMPLE).read_bytes()
    plain = _archived() / f"{NAME}.jsonl"
    plain.write_bytes(data)
    _fresh_home(tmp_path, "plain")
    assert _index()["edits"] > 0
    want = _state()

    plain.unlink()
    (_archived() / f"{NAME}.jsonl.zst").write_bytes(zstd.compress(data, level=3))
    _fresh_home(tmp_path, "compressed")
    got = _index()
    assert got["skipped"] == {}
    assert _state() == want


def test_a_rollout_compressed_after_it_was_read_adds_nothing(samples: Path, tmp_path: Path) -> None:
    data = (samples / SAMPLE).read_bytes()
    plain = _archived() / f"{NAME}.jsonl"
    plain.write_bytes(data)
    before = _index()
    want = _state()
    # What Codex's compression job does: write the .zst, then delete the .jsonl.
    packed = _archived() / f"{NAME}.jsonl.zst"
    packed.write_bytes(zstd.compress(data, level=3))
    plain.unlink()
    store = open_store()
    try:
        assert anything_changed(store, [os.environ["CODEX_HOME"]])
    finally:
        store.close()
    after = _index()
    assert after["changed"] == 1 and after["records"] == before["records"]
    assert after["messages"] == after["edits"] == after["tool_calls"] == 0
    assert _state() == want
    assert _index()["changed"] == 0  # unchanged since: not read again

    # The archive holds the compressed file's records too: a reindex gives the same rows.
    store = open_store()
    try:
        rebuild(store)
    finally:
        store.close()
    assert _state() == want


def test_several_frames_and_a_damaged_tail(samples: Path, tmp_path: Path) -> None:
    lines = (samples / SAMPLE).read_bytes().splitlines(keepends=True)
    half = len(lines) // 2
    frames = zstd.compress(b"".join(lines[:half])) + zstd.compress(b"".join(lines[half:]))
    (_archived() / f"{NAME}.jsonl.zst").write_bytes(frames)
    whole = _index()
    assert whole["records"] == len([ln for ln in lines if ln.strip()]) and whole["skipped"] == {}

    _fresh_home(tmp_path, "damaged")
    first = zstd.compress(b"".join(lines[:half]))
    second = zstd.compress(b"".join(lines[half:]))
    (_archived() / f"{NAME}.jsonl.zst").write_bytes(first + second[: len(second) // 2])
    cut = _index()
    assert 0 < cut["records"] < whole["records"]
    assert sum(cut["skipped"].values()) >= 1  # the unreadable tail is a counted skip
    db = sqlite3.connect(Path(os.environ["HANSARD_HOME"]) / "hansard.db")
    assert db.execute("SELECT COUNT(*) FROM messages").fetchone()[0] > 0


def test_a_zst_that_is_not_a_codex_rollout_is_not_read_as_one(tmp_path: Path) -> None:
    (_archived() / "notes.jsonl.zst").write_bytes(zstd.compress(b'{"hello": "world"}\n'))
    (_archived() / "garbage.jsonl.zst").write_bytes(b"\x28\xb5\x2f\xfdnot really zstd")
    got = _index()
    assert got["sessions"] == 0 and got["messages"] == 0
