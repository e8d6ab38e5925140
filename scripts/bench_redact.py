#!/usr/bin/env python3
"""Benchmark secret redaction (hansard/ingest/redact.py) on a transcript-like corpus.

What it does
  1. Generates a seeded synthetic corpus of Claude Code and Codex transcripts with
     the corpus generator of fixtures_repos/writers.py (the real on-disk shapes, a fifth of the bytes in
     multi-MB lines), 100 MB by default (--quick: 10 MB).
  2. Parses it with the real provider parsers and collects every text the store writer
     redacts (message text, tool inputs, tool output, edit hunks and before/after texts,
     steps, titles), then redacts them exactly as the writer does, in CPU time:
       - throughput in MB/s of derived text, with the writer's memos of recent texts (long and short apart);
       - the same without that cache (every text scanned);
  3. Indexes a slice of the corpus twice in this process, with redaction and with the writer's
     redaction calls replaced by no-ops, and reports the difference as the index overhead.

``run(quick)`` returns the rows for scripts/bench_all.py. MB here means 10^6 characters.

Usage
  python scripts/bench_redact.py [--quick] [--mb 100] [--corpus DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SCRIPTS = Path(__file__).resolve().parent
TARGET_MBPS = 25.0          # derived text per second, cache on
TARGET_OVERHEAD = 0.25      # share of index CPU time
MB = 1_000_000


def _row(name: str, target: str, measured: float | None, unit: str, ok: bool | None, detail: str = "",
         baseline: float | None = None, baseline_name: str = "") -> dict[str, Any]:
    ratio = round(measured / baseline, 2) if measured and baseline else None
    return {"name": name, "target": target, "measured": measured, "unit": unit, "baseline": baseline,
            "baseline_name": baseline_name, "ratio": ratio, "pass": ok, "detail": detail}


def make_corpus(root: Path, mb: float, seed: int, log) -> list[Path]:
    sys.path.insert(0, str(SCRIPTS.parent))
    from fixtures_repos.writers import generate_corpus

    sessions = max(20, int(mb * 3))
    generate_corpus(root, sessions, mb, seed, workers=1, log=log, rescan_files=10)  # only the main corpus is used here
    return [root / "main"]


def derived_calls(dirs: list[Path]) -> list[tuple[str, Any]]:
    """(kind, value) for every redaction call the writer would make: kind is text, value or
    lines (edit hunks)."""
    from hansard import agents as registry
    from hansard.ingest import reader
    from hansard.ingest.quickcheck import candidate_files
    from hansard.text.diffs import hunks_to_json
    from hansard.values.models import EditItem, LeafTitle, MessageItem, SessionInfo, StepsItem, ToolCallItem, ToolResultItem

    calls: list[tuple[str, Any]] = []
    for path in sorted(set(candidate_files([str(d) for d in dirs]))):
        provider = registry.sniff(Path(path))
        if provider is None:
            continue
        parser = provider.new_parser(path, None)
        recs = [reader.read_whole(path)] if provider.whole_file else reader.iter_jsonl(path, 0, reader.ReadResult(0))
        items = [it for rec in recs for it in parser.feed(rec)] + list(parser.finish())
        for it in items:
            if isinstance(it, MessageItem):
                calls.append(("text", it.text))
            elif isinstance(it, ToolCallItem):
                calls.append(("value", it.input))
            elif isinstance(it, ToolResultItem):
                calls.append(("text", it.output))
            elif isinstance(it, EditItem):
                calls += [("lines", h[4]) for h in hunks_to_json(it.hunks)]
                calls += [("text", t) for t in (it.before, it.after) if t]
            elif isinstance(it, StepsItem):
                calls.append(("value", list(it.steps)))
            elif isinstance(it, (SessionInfo, LeafTitle)) and it.title:
                calls.append(("text", it.title))
    return calls


def _size(kind: str, v: Any) -> int:
    if kind == "text":
        return len(v)
    if kind == "lines":
        return sum(len(x) for x in v)
    import orjson

    return len(orjson.dumps(v, default=str))


def redact_all(calls: list[tuple[str, Any]], cache: bool) -> tuple[float, int]:
    from hansard.ingest import redact as R

    old = R._LONG, R._SHORT
    # Fresh memos for each run; without the cache, memos that keep nothing.
    R._LONG, R._SHORT = (R._Memo(old[0].max_chars), R._Memo(old[1].max_chars)) if cache else (R._Memo(0), R._Memo(0))
    try:
        n = 0
        t = time.process_time()
        for kind, v in calls:
            if kind == "text":
                n += R.redact(v)[1]
            elif kind == "lines":
                n += R.redact_lines(v, prefix=1)[1]
            else:
                n += R.redact_value(v)[1]
        return time.process_time() - t, n
    finally:
        R._LONG, R._SHORT = old


class _NoRedaction:
    """A redactor that withholds nothing: the pipeline's cost without redaction."""

    @staticmethod
    def redact(text: str) -> tuple[str, int]:
        return text, 0

    @staticmethod
    def redact_value(value: Any) -> tuple[Any, int]:
        return value, 0

    @staticmethod
    def redact_lines(lines: Any, prefix: int = 0) -> tuple[list[str], int]:
        return list(lines), 0


def index_cpu(dirs: list[Path], redaction: bool) -> float:
    from hansard.ingest.scanner import Scanner
    from hansard.store import open_store

    home = tempfile.mkdtemp(prefix="hansard-bench-redact-")
    old_home = os.environ.get("HANSARD_HOME")
    os.environ["HANSARD_HOME"] = home
    try:
        store = open_store()
        t = time.process_time()
        Scanner(store, redactor=None if redaction else _NoRedaction()).scan(dirs)
        dt = time.process_time() - t
        store.close()
        return dt
    finally:
        if old_home is None:
            os.environ.pop("HANSARD_HOME", None)
        else:
            os.environ["HANSARD_HOME"] = old_home
        shutil.rmtree(home, ignore_errors=True)


def run(quick: bool = False, *, mb: float | None = None, corpus: str | Path | None = None, seed: int = 11,
        log=None) -> list[dict[str, Any]]:
    log = log or (lambda *a: print(*a, file=sys.stderr, flush=True))
    from hansard.ingest import redact as R

    mb = mb or (10.0 if quick else 100.0)
    tmp = None
    if corpus is not None:
        root = Path(corpus)
        dirs = [root / "main"] if (root / "main").is_dir() else [root]
        if not any(p.is_file() for d in dirs for p in d.rglob("*.jsonl")):
            dirs = make_corpus(root, mb, seed, log)
    else:
        tmp = Path(tempfile.mkdtemp(prefix="hansard-redact-corpus-"))
        log(f"generating a {mb:.0f} MB corpus in {tmp}")
        dirs = make_corpus(tmp, mb, seed, log)
    try:
        t0 = time.process_time()
        R._engine()
        setup = time.process_time() - t0
        calls = derived_calls(dirs)
        chars = sum(_size(k, v) for k, v in calls)
        log(f"{len(calls)} redaction calls over {chars / MB:.1f} MB of derived text")
        dt_cache, n = redact_all(calls, cache=True)
        dt_raw, _ = redact_all(calls, cache=False)
        mbps, mbps_raw = chars / MB / dt_cache, chars / MB / dt_raw
        # Index overhead on a slice: every fifth transcript (both agents, all sizes), ~1/5 of it.
        files = sorted(p for d in dirs for p in d.rglob("*.jsonl"))
        picked = files[::5]
        size = sum(p.stat().st_size for p in picked)
        slice_dir = Path(tempfile.mkdtemp(prefix="hansard-redact-slice-"))
        for p in picked:
            rel = p.relative_to(dirs[0]) if p.is_relative_to(dirs[0]) else Path(p.name)
            dest = slice_dir / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(p, dest)
            except OSError:
                shutil.copy(p, dest)
        offs, ons = [], []
        for _ in range(3):  # alternated, best of three: the machine is shared
            offs.append(index_cpu([slice_dir], False))
            ons.append(index_cpu([slice_dir], True))
        off, on = min(offs), min(ons)
        shutil.rmtree(slice_dir, ignore_errors=True)
        overhead = (on - off) / off if off else None
        log(f"index slice {size / MB:.1f} MB: {off:.2f}s cpu without redaction, {on:.2f}s with")
        return [
            _row("redaction throughput", f">= {TARGET_MBPS:.0f} MB/s of derived text", round(mbps, 1), "MB/s",
                 mbps >= TARGET_MBPS, f"{chars / MB:.1f} MB in {len(calls)} calls, {n} secrets; memos of recent texts on",
                 baseline=round(mbps_raw, 1), baseline_name="no cache"),
            _row("redaction setup", "read the rule files, build the automaton", round(setup * 1000), "ms", None),
            _row("index CPU overhead", f"<= {TARGET_OVERHEAD:.0%}", round(100 * overhead, 1) if overhead is not None else None,
                 "%", overhead is not None and overhead <= TARGET_OVERHEAD,
                 f"{size / MB:.1f} MB slice: {off:.2f}s without, {on:.2f}s with redaction (CPU time)"),
        ]
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--mb", type=float)
    ap.add_argument("--corpus", help="generate into (or reuse) this folder")
    a = ap.parse_args(argv)
    rows = run(a.quick, mb=a.mb, corpus=a.corpus)
    for r in rows:
        extra = f"  (no cache: {r['baseline']} {r['unit']})" if r["baseline"] else ""
        verdict = {True: "PASS", False: "MISS", None: "info"}[r["pass"]]
        print(f"{r['name']}: {r['measured']} {r['unit']}{extra}  [{r['target']}] {verdict}  {r['detail']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
