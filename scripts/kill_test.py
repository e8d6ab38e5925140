#!/usr/bin/env python3
"""Crash safety: SIGKILL `hansard index` at random points, many times, and prove nothing is lost,
duplicated or damaged.

What it does
  1. Builds a corpus of several hundred distinct sessions from the real samples in
     ../shared/samples (HANSARD_SAMPLES overrides): ``--copies`` copies of every sample file,
     each copy with its own session ids, message uuids, tool-call ids and agent ids (file
     names too) and its timestamps shifted, so no two copies share a key and every copy is
     a real, separate session. It checks that: the full corpus must index to exactly
     ``copies`` times the sessions, messages, tool calls and edits of one copy.
  2. Releases the corpus into a live folder in rounds, in the order a scan reads files,
     the last file of each round cut at a random byte (a transcript being written). Each
     round: start ``python -m hansard index <live>`` as a real process with its own
     HANSARD_HOME, SIGKILL it after a random (seeded) delay, run ``PRAGMA integrity_check``
     (plus the FTS5 integrity checks and the store's own invariants) on the store, sometimes
     kill the next run too, then re-index to completion and check again.
  3. Indexes the final corpus without interruption into a fresh HANSARD_HOME and compares
     the two stores row for row (tests.helpers.dump: sessions, messages, tool calls, edits,
     edit lines, steps, skips), plus leaf titles, the sources' offsets and parser states,
     and the archive (raw_records, decompressed) record for record.

The seed fixes the corpus, the cut points and the kill delays; where a kill lands still
depends on the machine's speed, so the script reports where each one landed: before the
first file was committed, in the middle of the scan, or after the last file.

Usage
  python scripts/kill_test.py                 # 50 kills, 12 copies (336 sessions)
  python scripts/kill_test.py --kills 5 --copies 1
  python scripts/kill_test.py --work /tmp/kt --keep

Exit status 0 when every integrity check passed and the stores are equal.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from hansard.store.sqlite.codec import unpack_record  # noqa: E402 - archived records, old (zlib) or new

SAMPLES = Path(os.environ.get("HANSARD_SAMPLES", ROOT.parent / "shared" / "samples"))
CANDIDATE = (".jsonl", ".json")

# -- the corpus ------------------------------------------------------------------------------------

_UUID = re.compile(rb"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_PREFIXED = re.compile(rb"\b(?:toolu|call|msg|req|ws|fc|rs|resp)_[A-Za-z0-9_]{4,}")
_ID_KEY = re.compile(r"(?:^id$|Id$|_id$|[Uu]uid$|UUID$|ID$)")
_ID_VALUE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{2,100}$")
_TS = re.compile(rb"\b(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})")


def is_candidate(name: str) -> bool:
    return name.endswith(CANDIDATE) and not name.endswith(".meta.json")


def _json_values(data: bytes) -> Iterator[object]:
    import orjson

    docs = []
    try:
        docs.append(orjson.loads(data))
    except orjson.JSONDecodeError:
        for line in data.split(b"\n"):
            try:
                docs.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                continue
    yield from docs


def _collect_ids(files: dict[str, bytes]) -> list[bytes]:
    """Every id the samples use: values of id-like keys, UUIDs and prefixed tool/message ids
    anywhere in the bytes (also inside JSON-in-JSON strings and file names)."""
    ids: set[bytes] = set()
    for rel, data in files.items():
        ids.update(_UUID.findall(data))
        ids.update(_UUID.findall(rel.encode()))
        ids.update(_PREFIXED.findall(data))
        for doc in _json_values(data):
            stack = [doc]
            while stack:
                cur = stack.pop()
                if isinstance(cur, dict):
                    for k, v in cur.items():
                        if (isinstance(v, str) and _ID_KEY.search(k) and _ID_VALUE.match(v) and not v.isdigit()
                                and not _UUID.search(v.encode())):  # UUIDs inside are remapped on their own
                            ids.add(v.encode())
                        elif isinstance(v, (dict, list)):
                            stack.append(v)
                elif isinstance(cur, list):
                    stack.extend(x for x in cur if isinstance(x, (dict, list)))
    return sorted(ids, key=lambda b: (-len(b), b))


class Remapper:
    """Gives copy ``k`` its own ids (same shape: a UUID stays a UUID) and shifts its dates.
    UUIDs and prefixed ids (toolu_…, call_…) are found by pattern; the few other ids (Gemini
    call ids, hand-made fixture ids) by one alternation, longest first."""

    def __init__(self, ids: list[bytes]) -> None:
        rest = [i for i in ids if not _UUID.fullmatch(i) and not _PREFIXED.fullmatch(i)]
        alt = b"|".join(re.escape(i) for i in rest)
        self.rx = re.compile(rb"(?<![A-Za-z0-9_])(?:" + alt + rb")(?![A-Za-z0-9_])") if rest else None

    @staticmethod
    def new_id(old: bytes, k: int) -> bytes:
        h = hashlib.blake2b(old + b"/" + str(k).encode(), digest_size=16).hexdigest().encode()
        if _UUID.fullmatch(old):
            return h[:8] + b"-" + h[8:12] + b"-4" + h[13:16] + b"-8" + h[17:20] + b"-" + h[20:32]
        return old + b"-k" + str(k).encode()

    def remap(self, data: bytes, k: int) -> bytes:
        new = lambda m: self.new_id(m.group(0), k)
        if self.rx is not None:
            data = self.rx.sub(new, data)
        data = _UUID.sub(new, data)
        data = _PREFIXED.sub(new, data)

        def shift(m: re.Match[bytes]) -> bytes:
            t = datetime.strptime((m.group(1) + b"T" + m.group(2)).decode(), "%Y-%m-%dT%H:%M:%S")
            return (t + timedelta(days=k, seconds=k)).strftime("%Y-%m-%dT%H:%M:%S").encode()

        return _TS.sub(shift, data)


def _copy_name(rm: Remapper, rel: str, k: int) -> str:
    """The file's path in copy ``k``: ids inside it remapped, and a name that holds no id
    gets a ``-k<k>`` suffix, because parsers fall back on the name for a session id (a
    Claude file without sessionId, a Gemini log without metadata, ``agent-<id>.jsonl``).
    A sidecar (``X.meta.json``) gets the same new stem as its ``X.jsonl``."""
    path = rm.remap(rel.encode(), k).decode()
    head, _, name = path.rpartition("/")
    orig = rel.rpartition("/")[2]
    for suffix in (".meta.json", ".jsonl", ".json"):
        if name.endswith(suffix):
            stem = orig[: -len(suffix)]
            if rm.remap(stem.encode(), k).decode() == stem:
                name = f"{stem}-k{k}{suffix}"
            break
    return f"{head}/{name}" if head else name


def build_corpus(dest: Path, copies: int, first: int = 0, max_file_bytes: int | None = None) -> list[str]:
    """Write copies ``first`` .. ``first + copies - 1`` of every sample file (up to
    ``max_file_bytes`` each) under ``dest``. Returns the relative paths written."""
    files = {str(p.relative_to(SAMPLES)): p.read_bytes() for p in sorted(SAMPLES.rglob("*"))
             if p.is_file() and (max_file_bytes is None or p.stat().st_size <= max_file_bytes)}
    rm = Remapper(_collect_ids(files))
    out = []
    for k in range(first, first + copies):
        for rel, data in files.items():
            new_rel = f"copy-{k:03d}/" + _copy_name(rm, rel, k)
            target = dest / new_rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(rm.remap(data, k))
            out.append(new_rel)
    return out


# -- processes and stores ------------------------------------------------------------------------


def env_for(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    for var, sub in {"HOME": "", "HANSARD_HOME": "hansard", "XDG_DATA_HOME": ".local/share",
                     "XDG_CONFIG_HOME": ".config", "CLAUDE_CONFIG_DIR": ".claude", "CODEX_HOME": ".codex",
                     "GEMINI_CLI_HOME": ".gemini-home"}.items():
        env[var] = str(home / sub) if sub else str(home)
    env["TZ"] = "UTC"
    env.pop("HANSARD_SESSION_ID", None)
    return env


def index_cmd(corpus: Path) -> list[str]:
    return [sys.executable, "-m", "hansard", "index", str(corpus)]


def run_index(corpus: Path, home: Path, timeout: float = 900) -> float:
    t0 = time.perf_counter()
    p = subprocess.run(index_cmd(corpus), env=env_for(home), capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"hansard index failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return time.perf_counter() - t0


def start_and_kill(corpus: Path, home: Path, delay: float) -> tuple[bool, float]:
    """Start an index and SIGKILL it after ``delay`` seconds. Returns (killed, elapsed);
    killed is False when it had already finished."""
    t0 = time.perf_counter()
    p = subprocess.Popen(index_cmd(corpus), env=env_for(home), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        p.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        p.stderr.close()  # type: ignore[union-attr]
        return True, time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace") if p.stderr else ""  # type: ignore[union-attr]
    if p.returncode != 0:
        raise RuntimeError(f"hansard index failed before the kill ({p.returncode}):\n{err[-3000:]}")
    return False, time.perf_counter() - t0


def store_path(home: Path) -> Path:
    return home / "hansard" / "hansard.db"


def check_store(path: Path) -> list[str]:
    """Problems found in a store (empty list: healthy). A store not created yet is healthy."""
    if not path.exists():
        return []
    con = sqlite3.connect(str(path), timeout=30)
    problems = []
    try:
        res = [r[0] for r in con.execute("PRAGMA integrity_check")]
        if res != ["ok"]:
            problems.append("integrity_check: " + "; ".join(res[:5]))
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        for fts in ("messages_fts", "messages_tri", "tool_calls_fts", "memory_fts"):
            if fts in tables:
                try:
                    con.execute(f"INSERT INTO {fts}({fts}) VALUES ('integrity-check')")
                except sqlite3.DatabaseError as exc:
                    problems.append(f"{fts} integrity-check: {exc}")
        if {"sessions", "messages", "raw_records", "sources"} <= tables:
            bad = con.execute(
                "SELECT s.session_id, s.message_count, COUNT(m.id), MAX(m.message_index) FROM sessions s"
                " LEFT JOIN messages m ON m.session_id=s.id GROUP BY s.id"
                " HAVING s.message_count != COUNT(m.id) OR COALESCE(MAX(m.message_index) + 1, 0) != COUNT(m.id)"
            ).fetchall()
            if bad:
                problems.append(f"{len(bad)} sessions whose message_count or indexes disagree with their messages, "
                                f"e.g. {tuple(bad[0])}")
            ahead = con.execute(
                "SELECT COUNT(*) FROM raw_records r JOIN sources s ON s.id=r.source_id AND r.generation=s.generation"
                " WHERE r.\"offset\" >= s.\"offset\" AND s.provider IS NOT NULL"
            ).fetchone()[0]
            if ahead:
                problems.append(f"{ahead} archived records past their source's committed offset")
            orphans = con.execute(
                "SELECT COUNT(*) FROM messages m LEFT JOIN sessions s ON s.id=m.session_id WHERE s.id IS NULL"
            ).fetchone()[0]
            if orphans:
                problems.append(f"{orphans} messages without a session")
    finally:
        con.close()
    return problems


def progress_of(path: Path) -> int:
    """Bytes committed so far (sum of the sources' offsets)."""
    if not path.exists():
        return 0
    con = sqlite3.connect(str(path), timeout=30)
    try:
        has = con.execute("SELECT 1 FROM sqlite_master WHERE name='sources'").fetchone()
        return int(con.execute("SELECT COALESCE(SUM(\"offset\"), 0) FROM sources").fetchone()[0]) if has else 0
    finally:
        con.close()


def counts(path: Path) -> dict[str, int]:
    con = sqlite3.connect(str(path))
    try:
        return {t: con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                for t in ("sessions", "messages", "tool_calls", "edits", "edit_lines", "raw_records")}
    finally:
        con.close()


# -- comparing -----------------------------------------------------------------------------------


def snapshot(path: Path, corpus: Path) -> dict[str, list]:
    """Everything that must be equal: tests.helpers.dump (every derived table), leaf titles,
    the sources and the archive, with paths relative to the corpus."""
    from tests.helpers import dump

    con = sqlite3.connect(str(path))
    con.row_factory = sqlite3.Row
    try:
        out = dump(con)
        root = str(corpus) + "/"
        out["leaf_titles"] = sorted(tuple(r) for r in con.execute("SELECT leaf_uuid, title, from_session FROM leaf_titles"))
        out["sources"] = sorted(
            (r["path"].replace(root, ""), r["provider"], r["offset"], r["generation"], r["size"], r["head_hash"],
             r["parser_state"], r["missing"])
            for r in con.execute("SELECT * FROM sources"))
        out["raw_records"] = sorted(
            (r[0].replace(root, ""), r[1], r[2], r[3], hashlib.blake2b(unpack_record(r[4])).hexdigest())
            for r in con.execute("SELECT s.path, r.generation, r.\"offset\", r.length, r.data FROM raw_records r"
                                 " JOIN sources s ON s.id=r.source_id"))
    finally:
        con.close()
    return out


def compare(a: dict[str, list], b: dict[str, list]) -> dict[str, tuple[int, int, int]]:
    """table -> (rows, only in a, only in b), counting duplicates."""
    from collections import Counter

    out = {}
    for t in sorted(set(a) | set(b)):
        ca = Counter(json.dumps(x, default=str) for x in a.get(t, []))
        cb = Counter(json.dumps(x, default=str) for x in b.get(t, []))
        out[t] = (sum(cb.values()), sum((ca - cb).values()), sum((cb - ca).values()))
    return out


# -- the run -------------------------------------------------------------------------------------


@dataclass
class Result:
    kills: int = 0
    finished_first: int = 0
    landed: dict[str, int] = field(default_factory=lambda: {"before the first commit": 0, "mid-scan": 0,
                                                            "after the last file": 0})
    checks: int = 0
    problems: list[str] = field(default_factory=list)
    diff: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    equal: bool = False
    sessions: int = 0
    copies: int = 0  # copies of the samples released, the extra ones for kills still owed included
    distinct_ok: bool = False
    per_copy: dict[str, int] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def _chunks(files: list[tuple[str, int]], n: int) -> list[list[str]]:
    total = sum(s for _, s in files)
    out: list[list[str]] = [[]]
    acc = 0
    for rel, size in files:
        if acc >= total * len(out) / n and len(out) < n:
            out.append([])
        out[-1].append(rel)
        acc += size
    return [c for c in out if c]


def run(kills: int = 50, copies: int = 12, seed: int = 0, work: Path | None = None, chain: float = 0.25,
        log=print, max_file_bytes: int | None = None) -> Result:
    t_start = time.perf_counter()
    rnd = random.Random(seed)
    work = work or Path(tempfile.mkdtemp(prefix="hansard-kill-"))
    staging, live = work / "staging", work / "corpus"
    killed_home, fresh_home, copy_home = work / "home-killed", work / "home-fresh", work / "home-one-copy"
    for d in (staging, live, killed_home, fresh_home, copy_home):
        shutil.rmtree(d, ignore_errors=True)
    res = Result()

    rels = build_corpus(staging, copies, max_file_bytes=max_file_bytes)
    cand = sorted((r for r in rels if is_candidate(Path(r).name)), key=lambda r: str(live / r))
    # Files the index does not read (sidecars, other agents' files) go in first, whole.
    for r in rels:
        if not is_candidate(Path(r).name):
            (live / r).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(staging / r, live / r)

    # One copy alone: its counts (copies must multiply them) and the indexing speed.
    one = work / "one-copy"
    shutil.rmtree(one, ignore_errors=True)
    shutil.copytree(staging / "copy-000", one / "copy-000")
    t_one = run_index(one, copy_home)
    res.per_copy = counts(store_path(copy_home))
    (work / "empty").mkdir(exist_ok=True)
    startup = statistics.median(run_index(work / "empty", work / "home-empty") for _ in range(3))
    bytes_one = sum(p.stat().st_size for p in (one / "copy-000").rglob("*") if p.is_file() and is_candidate(p.name))
    speed = bytes_one / max(0.05, t_one - startup)  # bytes per second of scanning
    sizes = [(r, (staging / r).stat().st_size) for r in cand]
    chunks = _chunks(sizes, kills)
    log(f"corpus: {copies} copies of {len(rels) // copies} sample files ({len(cand)} transcripts, "
        f"{sum(s for _, s in sizes) / 1e6:.1f} MB), {len(chunks)} rounds; start-up {startup:.2f} s, "
        f"scan speed {speed / 1e6:.1f} MB/s")

    store = store_path(killed_home)
    factor = 1.0
    pending_tail: tuple[str, bytes] | None = None
    extra_copy = copies
    r = 0
    while r < len(chunks) or res.kills < kills:
        if r >= len(chunks):  # kills still owed: release one more copy
            more = build_corpus(staging, 1, first=extra_copy, max_file_bytes=max_file_bytes)
            extra_copy += 1
            for m in more:
                if not is_candidate(Path(m).name):
                    (live / m).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(staging / m, live / m)
            chunks.append(sorted((m for m in more if is_candidate(Path(m).name)), key=lambda m: str(live / m)))
        chunk = chunks[r]
        # Release: finish the file cut last round, copy this round's files, cut the last one.
        released = 0
        if pending_tail is not None:
            rel, rest = pending_tail
            with open(live / rel, "ab") as fh:
                fh.write(rest)
            released += len(rest)
            pending_tail = None
        for i, rel in enumerate(chunk):
            data = (staging / rel).read_bytes()
            (live / rel).parent.mkdir(parents=True, exist_ok=True)
            if i == len(chunk) - 1 and r < len(chunks) - 1 and len(data) > 1:
                cut = rnd.randrange(1, len(data))
                (live / rel).write_bytes(data[:cut])
                pending_tail = (rel, data[cut:])
                released += cut
            else:
                (live / rel).write_bytes(data)
                released += len(data)
        est = released / speed
        attempts = 2 if rnd.random() < chain else 1
        for _ in range(attempts):
            before = progress_of(store)
            if rnd.random() < 0.15:
                delay = startup * rnd.uniform(0.2, 1.0)  # during start-up, migrations, the first file
            else:
                delay = (startup + rnd.uniform(0.0, 1.0) * est) * factor
            killed, _elapsed = start_and_kill(live, killed_home, delay)
            after = progress_of(store)
            if killed:
                res.kills += 1
                full = before + released
                where = ("before the first commit" if after == before else
                         "after the last file" if after >= full else "mid-scan")
                res.landed[where] += 1
                factor = min(1.5, factor * 1.05) if where == "before the first commit" else factor
            else:
                res.finished_first += 1
                factor *= 0.8
            problems = check_store(store)
            res.checks += 1
            res.problems += [f"round {r + 1}, after {'kill' if killed else 'run'}: {p}" for p in problems]
        run_index(live, killed_home)
        problems = check_store(store)
        res.checks += 1
        res.problems += [f"round {r + 1}, after the re-index: {p}" for p in problems]
        r += 1
        if r % 10 == 0 or r == len(chunks):
            log(f"  round {r}/{len(chunks)}: {res.kills} kills ({res.finished_first} runs finished before the "
                f"kill), {res.checks} checks, {len(res.problems)} problems")

    run_index(live, killed_home)  # nothing left to do: must be a no-op
    res.problems += [f"final: {p}" for p in check_store(store)]
    run_index(live, fresh_home)
    a, b = snapshot(store, live), snapshot(store_path(fresh_home), live)
    res.diff = compare(a, b)
    res.equal = all(x == 0 and y == 0 for _n, x, y in res.diff.values())
    res.totals = counts(store_path(fresh_home))
    res.copies = extra_copy
    res.sessions = res.totals["sessions"]
    res.distinct_ok = all(res.totals[t] == res.copies * res.per_copy[t]
                          for t in ("sessions", "messages", "tool_calls", "edits", "raw_records"))
    res.seconds = time.perf_counter() - t_start
    return res


def report(res: Result, copies: int, log=print) -> None:
    log(f"\nhansard kill test: {res.kills} SIGKILLs in {res.seconds:.0f} s "
        f"({res.finished_first} more runs finished before their kill and were not counted)")
    log("  where the kills landed: " + ", ".join(f"{k} {v}" for k, v in res.landed.items()))
    log(f"  integrity checks: {res.checks} run, {res.checks - len(res.problems)} ok, {len(res.problems)} problems"
        " (PRAGMA integrity_check, FTS5 integrity-check, message counts, archive past offsets)")
    for p in res.problems[:20]:
        log(f"    {p}")
    t = res.totals
    log(f"  corpus: {res.copies} copies, {res.sessions} sessions, {t.get('messages', 0):,} messages, "
        f"{t.get('tool_calls', 0):,} tool calls, "
        f"{t.get('edits', 0):,} edits, {t.get('raw_records', 0):,} archived records; one copy: "
        + ", ".join(f"{k} {v}" for k, v in res.per_copy.items())
        + (" — every copy distinct" if res.distinct_ok else " — COPIES COLLIDED (counts are not a multiple)"))
    log("  killed-and-resumed store vs an uninterrupted index, row for row:")
    for table, (rows, only_a, only_b) in res.diff.items():
        mark = "equal" if not (only_a or only_b) else f"DIFFERENT: {only_a} rows only after kills, {only_b} only fresh"
        log(f"    {table:<12} {rows:>8,} rows  {mark}")
    log("  RESULT: " + ("PASS — nothing lost, nothing duplicated, every check ok" if res.equal and not res.problems
                        and res.distinct_ok else "FAIL"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=50, help="SIGKILLs that must land (default 50)")
    ap.add_argument("--copies", type=int, default=12, help="copies of the samples (28 sessions each)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chain", type=float, default=0.25, help="chance that a round also kills its next run")
    ap.add_argument("--work", help="working folder (default: a new temporary folder)")
    ap.add_argument("--keep", action="store_true", help="keep the working folder")
    a = ap.parse_args(argv)
    work = Path(a.work) if a.work else Path(tempfile.mkdtemp(prefix="hansard-kill-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        res = run(a.kills, a.copies, a.seed, work, a.chain, log=lambda s: print(s, flush=True))
        report(res, a.copies)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"kept {work}")
    return 0 if res.equal and not res.problems and res.distinct_ok and res.kills >= a.kills else 1


if __name__ == "__main__":
    sys.exit(main())
