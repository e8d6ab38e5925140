"""What a fast first index and reindex trade for speed, and what they never trade: the store
they leave is the one a plain index leaves, with every index the migrations define."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from hansard.ingest import scanner
from hansard.ingest.run import index
from hansard.store import as_store
from hansard.store.sqlite.db import connect
from hansard.store.sqlite.items import SqliteItems
from tests.helpers import dump


def _indexes(db: sqlite3.Connection) -> dict[str, str]:
    return {r[0]: r[1] for r in db.execute("SELECT name, sql FROM sqlite_master WHERE type='index' AND sql IS NOT NULL")}


def _plain_dump(samples: Path) -> dict:
    """The store a plain index of the samples leaves, as a dump; the store is removed after, so
    the test's own index starts from nothing."""
    db = connect()
    index(db, [samples])
    expected = dump(db)
    db.close()
    shutil.rmtree(os.environ["HANSARD_HOME"])
    return expected


def _fresh_indexes() -> dict[str, str]:
    mem = sqlite3.connect(":memory:", isolation_level=None)
    from hansard.store.sqlite.db import migrate

    migrate(mem)
    return _indexes(mem)


def test_first_index_fills_without_secondary_indexes_and_builds_them_after(
        samples: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = _plain_dump(samples)
    monkeypatch.setattr(scanner, "DEFER_INDEX_BYTES", 0)
    seen: list[int] = []
    drop = SqliteItems.drop_indexes

    def counting_drop(self: SqliteItems) -> None:
        before = len(_indexes(self.db))
        drop(self)
        seen.append(before - len(_indexes(self.db)))  # how many it dropped

    monkeypatch.setattr(SqliteItems, "drop_indexes", counting_drop)
    db = connect()
    index(db, [samples])
    assert seen and seen[0] > 10, "the first index did not defer the secondary indexes"
    assert _indexes(db) == _fresh_indexes()
    assert dump(db) == expected
    # The next run is not a first index: nothing is dropped again.
    index(db, [samples])
    assert len(seen) == 1


def test_indexes_a_stopped_first_index_left_dropped_are_built_by_the_next_run(samples: Path) -> None:
    db = connect()
    store = as_store(db)
    # What a first index killed mid-way leaves: some rows, the secondary indexes gone, no run.
    with store.archive.transaction():
        store.items.drop_indexes()
    assert len(_indexes(db)) < len(_fresh_indexes())
    index(db, [samples])
    assert _indexes(db) == _fresh_indexes()


def test_a_later_index_keeps_every_index(samples: Path, tmp_path: Path) -> None:
    db = connect()
    index(db, [tmp_path / "nothing-here"])  # a first run over nothing: the store has a run
    index(db, [samples])
    assert _indexes(db) == _fresh_indexes()


def test_two_reading_workers_write_what_one_reader_writes(samples: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hansard.ingest import prepare
    from hansard.ingest.run import rebuild

    expected = _plain_dump(samples)

    monkeypatch.setattr(prepare, "WORKER_MIN_BYTES", 0)
    monkeypatch.setattr(prepare, "TWO_WORKERS_MIN_BYTES", 0)
    monkeypatch.setattr(prepare, "CHUNK_RECORDS", 7)  # many chunks per file: interleaving is exercised
    dealt: list[int] = []
    init = prepare.Workers.__init__

    def spying_init(self: prepare.Workers, tools: prepare.Tools, n: int) -> None:
        dealt.append(n)
        init(self, tools, n)

    monkeypatch.setattr(prepare.Workers, "__init__", spying_init)
    db = connect()
    index(db, [samples])
    assert dump(db) == expected
    rebuild(db)  # reindex: the archive's records dealt to the two workers
    assert dump(db) == expected
    assert dealt == [2, 2]



def test_workers_held_to_one_result_ready_write_what_one_reader_writes(
        samples: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """However little a worker may hold ready (on two CPUs, a few chunks), each waits for the
    writer and the store is the same."""
    from hansard.ingest import prepare

    expected = _plain_dump(samples)
    monkeypatch.setattr(prepare, "WORKER_MIN_BYTES", 0)
    monkeypatch.setattr(prepare, "TWO_WORKERS_MIN_BYTES", 0)
    monkeypatch.setattr(prepare, "CHUNK_RECORDS", 7)
    monkeypatch.setattr(prepare, "AHEAD_BYTES", 1)  # every message waits for the one before it
    monkeypatch.setattr(prepare, "AHEAD_BYTES_SHARED", 1)
    db = connect()
    index(db, [samples])
    assert dump(db) == expected


def test_a_worker_holds_fewer_results_ready_when_the_cpus_are_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocessing as mp

    from hansard.ingest import prepare

    limits = {}
    for cpus in (2, 4):
        monkeypatch.setattr(os, "cpu_count", lambda cpus=cpus: cpus)
        r, w = mp.Pipe(duplex=False)
        sender = prepare._Sender(w)
        limits[cpus] = sender.limit
        sender.close()
        w.close()
        r.close()
    assert limits == {2: prepare.AHEAD_BYTES_SHARED, 4: prepare.AHEAD_BYTES}
    assert prepare.AHEAD_BYTES_SHARED < prepare.AHEAD_BYTES

def _matches(db: sqlite3.Connection) -> dict[str, list[tuple[str, ...]]]:
    """For a spread of words of the messages and tool calls: the keys of the rows each full-text
    index finds."""
    import re

    words = sorted({w.lower() for (t,) in db.execute("SELECT text FROM messages")
                    for w in re.findall(r"[A-Za-z]{4,}", t)})
    words = words[::max(1, len(words) // 60)]
    out: dict[str, list[tuple[str, ...]]] = {}
    for w in words:
        for name, sql, arg in (
                ("fts", "SELECT m.key FROM messages_fts f JOIN messages m ON m.id=f.rowid WHERE messages_fts MATCH ?",
                 f'"{w}"'),
                ("tri", "SELECT m.key FROM messages_tri f JOIN messages m ON m.id=f.rowid WHERE f.text LIKE ?", f"%{w}%"),
                ("tool", "SELECT t.call_id FROM tool_calls_fts f JOIN tool_calls t ON t.id=f.rowid"
                 " WHERE tool_calls_fts MATCH ?", f'"{w}"')):
            out[f"{name} {w}"] = sorted(tuple(r) for r in db.execute(sql, (arg,)))
    return out


def _automerge(db: sqlite3.Connection) -> set[int | None]:
    from hansard.store.sqlite.fts import TABLES

    return {(db.execute(f"SELECT v FROM {t}_config WHERE k='automerge'").fetchone() or (None,))[0] for t in TABLES}


def test_a_first_index_fills_the_full_text_indexes_in_bulk_and_leaves_the_defaults(
        samples: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While a first index fills the empty tables, the full-text indexes merge their segments
    less often; they find what a plain index's find, and the defaults are back after."""
    from hansard.store.sqlite import fts

    db = connect()
    index(db, [samples])
    expected = _matches(db)
    assert any(expected.values())
    db.close()
    shutil.rmtree(os.environ["HANSARD_HOME"])
    monkeypatch.setattr(scanner, "DEFER_INDEX_BYTES", 0)
    during: list[set[int | None]] = []
    catch_up = fts.catch_up

    def spying(db: sqlite3.Connection) -> None:
        during.append(_automerge(db))
        catch_up(db)

    monkeypatch.setattr(fts, "catch_up", spying)
    db = connect()
    index(db, [samples])
    assert during and all(s == {fts.BULK["automerge"]} for s in during), during
    assert _automerge(db) == {fts.DEFAULT["automerge"]}
    assert _matches(db) == expected
    for t in fts.TABLES:
        db.execute(f"INSERT INTO {t}({t}) VALUES ('integrity-check')")


def test_an_index_run_sweeps_for_cycles_less_often_and_writes_the_same(
        samples: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The writer and its reading workers sweep the collector's youngest generation less often
    while records flow; the store is the same, and the writer's pace is back after the run."""
    import gc

    from hansard.ingest import collector, prepare
    from hansard.store.sqlite import fts

    expected = _plain_dump(samples)
    monkeypatch.setattr(prepare, "WORKER_MIN_BYTES", 0)
    monkeypatch.setattr(prepare, "TWO_WORKERS_MIN_BYTES", 0)
    seen = tmp_path / "thresholds"
    run_job, catch_up = prepare.run_job, fts.catch_up

    def spying_job(*a: object, **k: object) -> object:
        with open(seen, "a") as fh:  # from the forked worker
            fh.write(f"worker {gc.get_threshold()[0]}\n")
        return run_job(*a, **k)  # type: ignore[arg-type]

    def spying_catch_up(db: sqlite3.Connection) -> None:
        with open(seen, "a") as fh:
            fh.write(f"writer {gc.get_threshold()[0]}\n")
        catch_up(db)

    monkeypatch.setattr(prepare, "run_job", spying_job)
    monkeypatch.setattr(fts, "catch_up", spying_catch_up)
    before = gc.get_threshold()
    assert before[0] < collector.YOUNG
    db = connect()
    index(db, [samples])
    assert dump(db) == expected
    assert gc.get_threshold() == before
    lines = seen.read_text().split("\n")[:-1]
    assert {ln.split()[0] for ln in lines} == {"worker", "writer"}
    assert {int(ln.split()[1]) for ln in lines} == {collector.YOUNG}


def test_a_pace_set_while_the_collector_sweeps_less_often_is_kept() -> None:
    import gc

    from hansard.ingest import collector

    before = gc.get_threshold()
    try:
        with collector.fewer_sweeps():
            assert gc.get_threshold()[0] == collector.YOUNG
            gc.set_threshold(collector.YOUNG * 2, *before[1:])  # another part of a long-lived process
        assert gc.get_threshold()[0] == collector.YOUNG * 2
        gc.set_threshold(*before)
        with collector.fewer_sweeps():
            pass
        assert gc.get_threshold() == before
    finally:
        gc.set_threshold(*before)
