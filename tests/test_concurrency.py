"""Concurrency with real processes: indexers serialised by the lock, and readers (`show`, `why`,
`history`, the MCP server) answering while an index runs without ever seeing half a session.

The scanner writes each transcript file in one transaction (BEGIN IMMEDIATE ... COMMIT) and
the store is in WAL mode, so a reader sees a session either not at all or whole. The tests
index one big single-file session (thousands of messages, one transaction of a few seconds)
while readers poll it, and assert every count they saw was 0 or the final count."""

from __future__ import annotations

import importlib.util
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from hansard.ingest.run import index
from hansard.store.sqlite.db import connect
from tests.conftest import REPO_ROOT
from tests.helpers import dump, index_lock_held

pytestmark = pytest.mark.slow

BIG_SID = "b1b1b1b1-0000-4000-8000-00000000b16b"
SAMPLE = "claude-code/entire_cc_2.1.119_b/full.jsonl"
SAMPLE_SID = b"9515e689-053a-429c-b970-137413d99b44"


def _kill_test():
    spec = importlib.util.spec_from_file_location("kill_test", REPO_ROOT / "scripts" / "kill_test.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["kill_test"] = mod
    spec.loader.exec_module(mod)
    return mod


def hansard(*args: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hansard", *args], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd, env=dict(os.environ))


def spawn(*args: str, cwd: Path | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "hansard", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=cwd, env=dict(os.environ))


def store_file() -> Path:
    return Path(os.environ["HANSARD_HOME"]) / "hansard.db"


def wait_for_lock(proc: subprocess.Popen[str], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not index_lock_held():
        assert proc.poll() is None, f"the indexer ended before it was seen holding the lock: {proc.stderr.read()}"
        assert time.monotonic() < deadline, "the indexer never took the lock"
        time.sleep(0.02)


def big_session(samples: Path, dest: Path, reps: int) -> Path:
    """One Claude Code session in one file: the sample's records ``reps`` times over, each
    repetition with its own uuids and tool ids, all under one session id."""
    kt = _kill_test()
    data = (samples / SAMPLE).read_bytes()
    rm = kt.Remapper(kt._collect_ids({"s": data}))
    parts = [rm.remap(data, k).replace(rm.new_id(SAMPLE_SID, k), BIG_SID.encode()) for k in range(1, reps + 1)]
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(b"".join(parts))
    return dest


def corpus(samples: Path, dest: Path, copies: int, max_file_bytes: int | None = 300_000) -> Path:
    kt = _kill_test()
    kt.SAMPLES = samples
    kt.build_corpus(dest, copies, max_file_bytes=max_file_bytes)
    return dest


def shown_count(sid: str) -> int:
    """`hansard show SID --json`: the session's message_count, 0 when it is not there yet."""
    p = hansard("show", sid, "--json", "--limit", "1")
    if p.returncode == 10:  # not_found
        return 0
    assert p.returncode == 0, (p.returncode, p.stderr)
    return json.loads(p.stdout)["session"]["message_count"]


# -- two indexers -------------------------------------------------------------------------------


def test_two_indexers_started_at_once_are_serialised(samples: Path, tmp_path: Path) -> None:
    """Both start on a store that does not exist yet (both create and migrate it), the second
    waits for the lock, and exactly one of them does the work."""
    c = corpus(samples, tmp_path / "corpus", 1)
    big_session(samples, c / "big" / f"{BIG_SID}.jsonl", reps=10)
    a, b = spawn("index", str(c), "--json"), spawn("index", str(c), "--json")
    both_alive_locked = 0  # samples where both processes lived and one held the lock
    while a.poll() is None or b.poll() is None:
        if a.poll() is None and b.poll() is None and index_lock_held():
            both_alive_locked += 1
        time.sleep(0.02)
    outs = {}
    for name, p in (("a", a), ("b", b)):
        out, err = p.communicate()
        assert p.returncode == 0, (name, p.returncode, err[-3000:])
        outs[name] = json.loads(out)
    worker = max(outs, key=lambda n: outs[n]["changed"])
    waiter = "b" if worker == "a" else "a"
    assert outs[worker]["changed"] > 20 and outs[worker]["records"] > 1000
    # The other one waited for the lock, then found nothing new (had it not waited, it would
    # have read the same files as new while the first was still writing them).
    assert outs[waiter]["changed"] == 0 and outs[waiter]["records"] == 0
    assert both_alive_locked > 0

    kt = _kill_test()
    assert kt.check_store(store_file()) == []
    db = sqlite3.connect(store_file())
    db.row_factory = sqlite3.Row
    got = dump(db)
    os.environ["HANSARD_HOME"] = str(tmp_path / "fresh")
    ref = connect()
    index(ref, [c])
    assert got == dump(ref)


def test_no_wait_exits_13_while_another_indexer_runs(samples: Path, tmp_path: Path) -> None:
    c = tmp_path / "corpus"
    big_session(samples, c / f"{BIG_SID}.jsonl", reps=60)  # one file, one long transaction
    connect().close()
    first = spawn("index", str(c))
    wait_for_lock(first)
    second = hansard("index", str(c), "--no-wait")
    still_running = first.poll() is None
    out, err = first.communicate(timeout=600)
    assert first.returncode == 0, err
    assert second.returncode == 13, (second.returncode, second.stderr)
    assert "another `hansard index` is running" in second.stderr and "--no-wait" in second.stderr
    assert second.stdout == ""
    assert still_running  # the refusal happened while the first one worked
    # And once it is done, --no-wait runs normally.
    assert hansard("index", str(c), "--no-wait").returncode == 0


def test_no_wait_against_a_process_holding_the_lock(tmp_path: Path) -> None:
    """The same refusal, deterministic: a helper process takes the indexer lock and keeps it."""
    (tmp_path / "empty").mkdir()
    connect().close()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys\nfrom hansard.store import open_store\n"
         "with open_store().archive.index_lock() as got:\n    print(got, flush=True)\n    sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        assert holder.stdout.readline().strip() == "True"  # type: ignore[union-attr]
        p = hansard("index", str(tmp_path / "empty"), "--no-wait", "--json")
        assert p.returncode == 13 and "another `hansard index` is running" in p.stderr, (p.returncode, p.stderr)
        waiting = spawn("index", str(tmp_path / "empty"))  # the default: wait for the lock
        time.sleep(1.0)
        assert waiting.poll() is None  # still waiting
    finally:
        holder.communicate("", timeout=30)
    out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, err


# -- readers while an index runs ----------------------------------------------------------------


class Poller(threading.Thread):
    """Calls ``probe`` in a loop until stopped; keeps (value, indexer alive before, after)."""

    def __init__(self, probe, indexer: subprocess.Popen[str], pause: float = 0.0) -> None:
        super().__init__(daemon=True)
        self.probe, self.indexer, self.pause = probe, indexer, pause
        self.seen: list[tuple[Any, bool, bool]] = []
        self.errors: list[BaseException] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            alive_before = self.indexer.poll() is None
            try:
                value = self.probe()
            except BaseException as exc:  # reported by the test
                self.errors.append(exc)
                return
            self.seen.append((value, alive_before, self.indexer.poll() is None))
            time.sleep(self.pause)


def sql_count(db_path: Path) -> tuple[int, int]:
    """(message_count, messages counted) of the big session, read in one statement (one
    snapshot) through a read-only connection."""
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=30)
    try:
        row = con.execute(
            "SELECT s.message_count, (SELECT COUNT(*) FROM messages m WHERE m.session_id=s.id) FROM sessions s"
            " WHERE s.session_id=?", (BIG_SID,)).fetchone()
        return (row[0], row[1]) if row else (0, 0)
    finally:
        con.close()


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Any]:
    """The demo repository and its sessions, indexed (agent homes and store in tmp_path)."""
    from hansard.demo import build

    s = build(tmp_path / "demo")
    db = connect()
    index(db)
    db.close()
    return {"repo": s.repo}


def _why(repo: Path, *extra: str) -> tuple[int, dict, float]:
    t0 = time.monotonic()
    p = hansard("why", "app/retry.py:10", "--json", *extra, cwd=repo)
    return p.returncode, (json.loads(p.stdout) if p.stdout.strip() else {"stderr": p.stderr}), time.monotonic() - t0


def _attribution(ans: dict) -> list:
    return [(ln.get("line"), (ln.get("agent") or {}).get("session_id") if isinstance(ln.get("agent"), dict) else None,
             json.dumps(ln, sort_keys=True, default=str)) for ln in ans.get("lines", [])]


async def _mcp_session(repo: Path, start, out: list[tuple[str, Any, bool, float]]) -> None:
    """Open an MCP stdio client, then ``start()`` the indexer, then call tools until it ends
    (and once more after)."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "hansard", "mcp", "serve"],
                                   env=dict(os.environ), cwd=str(repo))
    async with Client(params, mode="legacy") as c:
        await c.list_tools()
        indexer = start()
        while True:
            alive = indexer.poll() is None
            for tool, args in (("get_past_session", {"session_id": BIG_SID, "limit": 1}),
                               ("search_past_sessions", {"query": "backoff"})):
                t0 = time.monotonic()
                r = await c.call_tool(tool, args)
                out.append((tool, r.structured_content, alive and indexer.poll() is None, time.monotonic() - t0))
            if not alive:
                return


def test_readers_answer_during_an_index_and_never_see_half_a_session(world: dict, samples: Path,
                                                                     tmp_path: Path) -> None:
    import anyio

    repo = world["repo"]
    why_before = _why(repo, "--no-sync")
    assert why_before[0] == 0, why_before
    hist_before = hansard("history", "backoff", "--json", "--no-sync", cwd=repo)
    assert hist_before.returncode == 0, hist_before.stderr

    # A big session appears in the agent's home: the next index reads it in one transaction.
    projects = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / "-work-big"
    big_session(samples, projects / f"{BIG_SID}.jsonl", reps=80)
    db_path = store_file()
    state: dict[str, Any] = {}
    whys: list[tuple[tuple[int, dict, float], bool]] = []
    hists: list[tuple[int, str, bool]] = []

    def cli_readers(indexer: subprocess.Popen[str]) -> None:
        # why and history run their quick sync first: it must find the lock taken and answer
        # from what is committed instead of waiting.
        whys.append((_why(repo), indexer.poll() is None))
        h = hansard("history", "backoff", "--json", cwd=repo)
        hists.append((h.returncode, h.stdout, indexer.poll() is None))

    def start() -> subprocess.Popen[str]:
        indexer = spawn("index")
        wait_for_lock(indexer)
        state["indexer"] = indexer
        state["pollers"] = [Poller(lambda: sql_count(db_path), indexer, pause=0.01),
                            Poller(lambda: shown_count(BIG_SID), indexer)]
        state["cli"] = threading.Thread(target=cli_readers, args=(indexer,), daemon=True)
        for t in (*state["pollers"], state["cli"]):
            t.start()
        return indexer

    mcp: list[tuple[str, Any, bool, float]] = []
    anyio.run(_mcp_session, repo, start, mcp)
    indexer = state["indexer"]
    out, err = indexer.communicate(timeout=600)
    assert indexer.returncode == 0, err
    state["cli"].join(300)
    time.sleep(0.3)
    sql, show = state["pollers"]
    for p in (sql, show):
        p.stop.set()
        p.join(120)
    assert not sql.errors and not show.errors, (sql.errors, show.errors)

    full = shown_count(BIG_SID)
    assert full > 1000
    # Every observation: the session absent (0) or whole (full), never in between.
    assert {v for v, _a, _b in show.seen} <= {0, full}, sorted({v for v, _a, _b in show.seen})
    assert {mc for (mc, _n), _a, _b in sql.seen} <= {0, full}
    assert all(mc == n for (mc, n), _a, _b in sql.seen)
    # ... and the polls really ran while the index was writing.
    during = [v for v, a, b in show.seen if a and b]
    assert during, show.seen
    assert any(mc == 0 for (mc, _n), a, b in sql.seen if a and b)

    # why: same answer during the index as before it, without waiting for the lock.
    (rc, ans, secs), _alive = whys[0]
    assert rc == 0, ans
    assert _attribution(ans) == _attribution(why_before[1])
    rc, hist_out, _alive = hists[0]
    assert rc == 0 and "results" in json.loads(hist_out)

    # MCP: every get_past_session saw not_found or the whole session; search answered.
    assert any(alive for _t, _r, alive, _s in mcp), "no MCP call completed while the index ran"
    for tool, res, _alive, _secs in mcp:
        assert res is not None, tool
        if tool == "get_past_session":
            if "error" in res:
                assert res["error"]["code"] == "not_found", res
            else:
                assert res["session"]["message_count"] == full
        else:
            assert "results" in res, res


def test_readers_during_reindex_always_see_whole_sessions(samples: Path, tmp_path: Path) -> None:
    """`hansard reindex` rebuilds every derived table in one transaction: a reader sees the old
    tables or the new ones, the big session whole in both."""
    home = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / "-work-big"
    big_session(samples, home / f"{BIG_SID}.jsonl", reps=40)
    db = connect()
    index(db)
    db.close()
    full = shown_count(BIG_SID)
    assert full > 500
    proc = spawn("reindex")
    wait_for_lock(proc)
    sql = Poller(lambda: sql_count(store_file()), proc, pause=0.01)
    show = Poller(lambda: shown_count(BIG_SID), proc)
    sql.start()
    show.start()
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    sql.stop.set()
    show.stop.set()
    sql.join(60)
    show.join(120)
    assert not sql.errors and not show.errors
    assert {v for v, _a, _b in show.seen} == {full}
    assert {x for x, _a, _b in sql.seen} == {(full, full)}
    assert any(a and b for _v, a, b in sql.seen)


# -- first use: several processes creating and migrating the store at once ---------------------


def test_processes_creating_the_store_at_once_all_succeed(tmp_path: Path) -> None:
    """Two processes on a store that does not exist yet both read "no migrations applied",
    then take turns at BEGIN IMMEDIATE: the second used to re-run the first's migration and
    die with `table sources already exists` (seen in 4 of 6 tries before the fix)."""
    (tmp_path / "empty").mkdir()
    for i in range(3):
        os.environ["HANSARD_HOME"] = str(tmp_path / f"home-{i}")
        procs = [spawn("index", str(tmp_path / "empty"), "--json"), spawn("status", "--json")]
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err[-2000:]
        assert _kill_test().check_store(store_file()) == []


def test_connections_opening_a_new_store_at_once_never_see_database_is_locked(tmp_path: Path) -> None:
    """A new store starts in rollback-journal mode; two openers switching it to WAL at once can
    deadlock, and SQLite then answers one of them `database is locked` at once, without waiting
    (43 of 300 threads before the fix; the CI's two-indexer test failed on it). Threads on a
    barrier make the race tight enough to see in one process."""
    failures: list[str] = []

    def open_it(path: Path, barrier: threading.Barrier) -> None:
        barrier.wait()
        try:
            connect(path).close()
        except Exception as exc:  # the test reports whatever went wrong
            failures.append(repr(exc))

    for i in range(60):
        path, barrier = tmp_path / f"s{i}" / "hansard.db", threading.Barrier(3)
        threads = [threading.Thread(target=open_it, args=(path, barrier)) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert failures == []


def test_migration_applied_by_another_process_meanwhile_is_skipped(tmp_path: Path) -> None:
    """The same race, deterministic: this connection saw no migrations applied, another
    process applied them all before this one got the write lock."""
    from hansard.store.sqlite.db import migrate
    from hansard.store.sqlite.migrations import MIGRATIONS

    connect().close()  # "the other process": every migration applied

    class SawNothing:
        def __init__(self, con: sqlite3.Connection) -> None:
            self.con, self.stale = con, True

        def execute(self, sql: str, *args: Any) -> Any:
            if self.stale and sql.startswith("SELECT name FROM _migrations"):
                self.stale = False
                return iter(())  # read before the other process committed
            return self.con.execute(sql, *args)

        def executescript(self, script: str) -> Any:
            return self.con.executescript(script)

        @property
        def in_transaction(self) -> bool:
            return self.con.in_transaction

    con = sqlite3.connect(store_file(), isolation_level=None)
    migrate(SawNothing(con))  # type: ignore[arg-type]
    names = [r[0] for r in con.execute("SELECT name FROM _migrations")]
    assert sorted(names) == sorted(fn.__name__ for fn in MIGRATIONS)  # each once, none re-run


def test_a_repository_registered_meanwhile_by_another_process_is_that_row(tmp_path: Path) -> None:
    """`why` looks a repository up, finds nothing, and registers it; an index run registered
    the same checkout in between (seen in CI as `UNIQUE constraint failed: repos.path` from a
    `why` during a first index). The later registration is the earlier row."""
    from hansard.store import open_store

    indexer, asker = open_store(), open_store()
    try:
        path = str(tmp_path / "repo")
        assert asker.repos.id_by_path(path) is None  # what `why` saw
        first = indexer.repos.register("a" * 40, None, path)
        assert asker.repos.register("a" * 40, None, path) == first
        assert asker.repos.id_by_path(path) == first
    finally:
        indexer.close()
        asker.close()
