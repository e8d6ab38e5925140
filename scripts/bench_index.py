#!/usr/bin/env python3
"""Benchmark `hansard index` on a seeded synthetic corpus in the real on-disk shapes.

What it does
  1. Generates (or reuses, ``--corpus DIR``) a corpus of Claude Code transcripts
     (``CLAUDE_CONFIG_DIR/projects/<encoded-cwd>/<uuid>.jsonl``, subagents under
     ``<uuid>/subagents/agent-<id>.jsonl`` + ``.meta.json``) and Codex rollouts
     (``CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl``), shaped record for record
     like the real transcript samples (envelopes, Edit/Write toolUseResult with
     originalFile and a consistent structuredPatch, Bash, Read, Grep, TodoWrite, Task; Codex
     session_meta, turn_context, exec_command + exec_command_end, custom_tool_call
     apply_patch + patch_apply_end, update_plan, event_msg duplicates, token_count ...).
     About a fifth of the bytes are multi-MB lines (Edit originalFile, Write content, pasted
     images, apply_patch adds, big command output).
  2. Measures, each in a child process with its own HANSARD_HOME (peak RSS from wait4):
       - full index: MB/s and sessions/s, against a raw read + orjson.loads of every line;
       - reindex (`hansard reindex`: every derived table again from the archive alone): MB/s,
         the median of three runs on the same store;
       - peak RSS of the indexing (the writer process, and its reading workers), against the
         same raw-read child;
       - no-change re-scan of 1,000 files (median), against os.stat of the same files;
       - indexing one appended line to a small file and to a multi-MB file (median), with
         the ratio between them, plus a 1 MB appended line.
  3. Prints every measurement beside its target and baseline with PASS/MISS.

``run(quick)`` returns the rows as a list of dicts for scripts/bench_all.py.

Usage
  python scripts/bench_index.py --quick            # 100 sessions, 20 MB: a smoke run
  python scripts/bench_index.py                    # 2,000 sessions, ~500 MB
  python scripts/bench_index.py --corpus /tmp/c    # generate once into /tmp/c, then reuse
  python scripts/bench_index.py --profile          # also a cProfile of the full index

MB here means 10^6 bytes; RSS is in MiB.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# The corpus generator lives with the other transcript writers.
from fixtures_repos.writers import GEN_VERSION, MB, claude_append_record, code_text, generate_corpus

MIB = 1 << 20

TARGET_MBPS = 25.0
REINDEX_RUNS = 3
TARGET_REINDEX_MBPS = 40.0
TARGET_RSS_MIB = 400.0
TARGET_RESCAN_MS = 150.0
TARGET_APPEND_RATIO = 2.0  # t(append to multi-MB file) / t(append to small file)

FULL = {"sessions": 2000, "mb": 500}
QUICK = {"sessions": 100, "mb": 20}

# ---------------------------------------------------------------------------------------------
# child processes (measured)
# ---------------------------------------------------------------------------------------------


def _proc_status(field: str) -> int:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _rchar() -> int:
    try:
        with open("/proc/self/io") as fh:
            for line in fh:
                if line.startswith("rchar:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _corpus_files(dirs: list[str]) -> list[str]:
    out = []
    for d in dirs:
        for dp, _dn, fn in os.walk(d):
            out += [os.path.join(dp, f) for f in fn if f.endswith(".jsonl")]
    return sorted(out)


def _store_bytes() -> int:
    from hansard import config

    p = config.store_path()
    return sum(os.path.getsize(str(p) + s) for s in ("", "-wal") if os.path.exists(str(p) + s))


def _child(mode: str, spec: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"mode": mode}
    if mode == "raw":
        files = _corpus_files(spec["dirs"])
        t = time.perf_counter()
        n = 0
        for p in files:
            with open(p, "rb") as fh:
                while b := fh.read(1 << 20):
                    n += len(b)
        out["cat_s"] = time.perf_counter() - t
        t = time.perf_counter()
        lines = 0
        for p in files:
            with open(p, "rb") as fh:
                for line in fh:
                    orjson.loads(line)
                    lines += 1
        out.update(parse_s=time.perf_counter() - t, bytes=n, files=len(files), lines=lines)
        out["vmhwm_kb"] = _proc_status("VmHWM")
        return out

    t = time.perf_counter()
    from hansard.ingest.run import index
    from hansard.store.sqlite.db import connect

    db = connect()
    out["import_connect_s"] = time.perf_counter() - t

    if mode == "idle":
        out["vmhwm_kb"] = _proc_status("VmHWM")
        return out

    if mode == "reindex":
        import resource

        from hansard.ingest.run import rebuild

        t, c = time.perf_counter(), time.process_time()
        summary = rebuild(db)
        out["index_s"] = time.perf_counter() - t
        out["index_cpu_s"] = time.process_time() - c
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        out["worker_cpu_s"] = kids.ru_utime + kids.ru_stime
        out["worker_maxrss_kb"] = kids.ru_maxrss
        out["vmhwm_kb"] = _proc_status("VmHWM")
        out["summary"] = summary.as_dict()
        return out

    if mode in ("full", "rescan"):
        prof = None
        if spec.get("profile"):
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        t, c = time.perf_counter(), time.process_time()
        summary = index(db)
        out["index_s"] = time.perf_counter() - t
        out["index_cpu_s"] = time.process_time() - c
        import resource

        kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # the reading worker (and git, for linking)
        out["worker_cpu_s"] = kids.ru_utime + kids.ru_stime
        out["worker_maxrss_kb"] = kids.ru_maxrss
        if prof is not None:
            prof.disable()
            prof.dump_stats(spec["profile"])
        out["vmhwm_kb"] = _proc_status("VmHWM")
        out["summary"] = summary.as_dict() if summary else None
        out["counts"] = {tb: db.execute(f"SELECT COUNT(*) FROM {tb}").fetchone()[0]
                         for tb in ("sources", "raw_records", "sessions", "messages", "tool_calls", "edits", "edit_lines")}
        out["edits_by_status"] = dict(db.execute("SELECT status, COUNT(*) FROM edits GROUP BY status").fetchall())
        out["edits_linked"] = db.execute("SELECT COUNT(*) FROM edits WHERE repo_id IS NOT NULL").fetchone()[0]
        out["repos"] = db.execute("SELECT COUNT(*) FROM repos").fetchone()[0]
        out["store_bytes"] = _store_bytes()
        reps = []
        for _ in range(spec.get("rescans", 0)):
            t = time.perf_counter()
            s2 = index(db)
            reps.append(time.perf_counter() - t)
            if s2 is not None and s2.changed:
                out.setdefault("rescan_changed", []).append(s2.changed)
        out["rescan_s"] = reps
        if mode == "rescan":
            files = [r[0] for r in db.execute("SELECT path FROM sources")]
            out["rescan_files"] = len(files)
            st = []
            for _ in range(max(3, spec.get("rescans", 0))):
                t = time.perf_counter()
                for p in files:
                    os.stat(p)
                st.append(time.perf_counter() - t)
            out["stat_s"] = st
            wk = []
            for _ in range(3):
                t = time.perf_counter()
                _corpus_files(spec["dirs"])
                wk.append(time.perf_counter() - t)
            out["walk_s"] = wk
        return out

    if mode == "append":
        from hansard.ingest.run import index as _index

        small, big = spec["small"], spec["big"]
        t = time.perf_counter()
        _index(db, [Path(small["path"]), Path(big["path"])])
        out["initial_s"] = time.perf_counter() - t
        last = {"small": small["last_uuid"], "big": big["last_uuid"]}
        r = random.Random(7)
        tx_line = ("I checked the failing test and the handler now returns the parsed record; " * 20)[:1400]

        def append(which: str, text: str, role: str = "assistant") -> int:
            f = spec[which]
            u, data = claude_append_record(r, last[which], cwd=f["cwd"], sid=f["sid"], text=text, role=role)
            with open(f["path"], "ab") as fh:
                fh.write(data)
            last[which] = u
            return len(data)

        def timed(which: str) -> tuple[float, int]:
            rc = _rchar()
            t = time.perf_counter()
            s = _index(db, [Path(spec[which]["path"])])
            dt = time.perf_counter() - t
            assert s is not None and s.records == 1, s
            return dt, _rchar() - rc

        reps = spec.get("reps", 9)
        res: dict[str, list] = {"small": [], "big": [], "small_rchar": [], "big_rchar": [], "line_bytes": [],
                                "noop": [], "noop_rchar": []}
        # The fixed cost of one `index PATH` call when nothing changed: what an append pays on top.
        for _ in range(reps):
            rc = _rchar()
            t = time.perf_counter()
            _index(db, [Path(small["path"])])
            res["noop"].append(time.perf_counter() - t)
            res["noop_rchar"].append(_rchar() - rc)
        for i in range(reps):
            for which in (("small", "big") if i % 2 == 0 else ("big", "small")):  # alternate: no order effect
                res["line_bytes"].append(append(which, tx_line))
                dt, rc = timed(which)
                res[which].append(dt)
                res[which + "_rchar"].append(rc)
        res["small_size"] = os.path.getsize(spec["small"]["path"])
        res["big_size"] = os.path.getsize(spec["big"]["path"])
        res["sources"] = db.execute("SELECT COUNT(*) FROM sources").fetchone()[0]
        # One appended line of ~1 MB (a pasted log) to the small file: cost follows the new bytes.
        big_text = code_text(r, MB)
        res["mb_line"] = []
        res["mb_line_bytes"] = 0
        res["mb_line_parse"] = []
        for _ in range(3):
            res["mb_line_bytes"] = append("small", big_text, role="user")
            dt, _rc = timed("small")
            res["mb_line"].append(dt)
            with open(spec["small"]["path"], "rb") as fh:
                fh.seek(os.path.getsize(spec["small"]["path"]) - res["mb_line_bytes"])
                raw = fh.read()
            t = time.perf_counter()
            orjson.loads(raw)
            res["mb_line_parse"].append(time.perf_counter() - t)
        # A full re-read + parse of the multi-MB file: what a non-incremental indexer pays per append.
        t = time.perf_counter()
        with open(spec["big"]["path"], "rb") as fh:
            for line in fh:
                orjson.loads(line)
        res["big_reparse_s"] = time.perf_counter() - t
        out.update(res)
        return out
    raise SystemExit(f"unknown child mode {mode}")


def _child_main(argv: list[str]) -> int:
    mode, spec_json, result_path = argv
    res = _child(mode, json.loads(spec_json))
    Path(result_path).write_bytes(orjson.dumps(res))
    return 0


def run_child(mode: str, spec: dict[str, Any], env: dict[str, str], work: Path) -> dict[str, Any]:
    """Run one measured child; adds wall time and peak RSS (wait4 ru_maxrss, KiB)."""
    res_path = work / f"result-{mode}-{time.monotonic_ns()}.json"
    log_path = work / f"child-{mode}.log"
    with open(log_path, "ab") as log:
        t = time.perf_counter()
        p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--_child", mode, json.dumps(spec), str(res_path)],
                             env=env, stdout=log, stderr=log, cwd=str(work))
        _pid, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t
    if p.returncode != 0:
        tail = log_path.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"child {mode} failed (exit {p.returncode}):\n{tail}")
    res = orjson.loads(res_path.read_bytes())
    res["wall_s"] = wall
    res["maxrss_kb"] = ru.ru_maxrss
    return res


def child_env(work: Path, home: str, claude: Path, codex: Path) -> dict[str, str]:
    env = dict(os.environ)
    for k in ("HANSARD_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME"):
        env.pop(k, None)
    (work / "fakehome").mkdir(exist_ok=True)
    env.update(HOME=str(work / "fakehome"), XDG_DATA_HOME=str(work / "fakehome/xdg"), HANSARD_HOME=str(work / home),
               CLAUDE_CONFIG_DIR=str(claude), CODEX_HOME=str(codex), GEMINI_CLI_HOME=str(work / "fakehome"))
    return env


# ---------------------------------------------------------------------------------------------
# the benchmark
# ---------------------------------------------------------------------------------------------


def _cpu_note(nbytes: int, res: dict[str, Any]) -> str:
    """CPU seconds of the writer and the reading workers (with git, for linking), and the rate
    they allow on this machine's CPUs with nothing else running: the busiest process, or all
    of the CPU time over all CPUs, whichever is longer."""
    from hansard.ingest import prepare

    ncpu = os.cpu_count() or 1
    readers = 2 if nbytes >= prepare.TWO_WORKERS_MIN_BYTES and ncpu >= 2 else 1
    w, r = res["index_cpu_s"], res["worker_cpu_s"]
    bound = max(w, r / readers, (w + r) / ncpu)
    return (f"writer {w:.1f}s + {readers} reading worker{'s' if readers > 1 else ''} {r:.1f}s ="
            f" {nbytes / MB / (w + r):.2f} MB per CPU-second; {nbytes / MB / bound:.1f} MB/s on {ncpu} idle CPUs")


def _row(name: str, target: str, measured: float | None, unit: str, baseline: float | None, baseline_name: str,
         ratio: float | None, ok: bool | None, detail: str = "") -> dict[str, Any]:
    return {"name": name, "target": target, "measured": measured, "unit": unit, "baseline": baseline,
            "baseline_name": baseline_name, "ratio": ratio, "pass": ok, "detail": detail}


def run(quick: bool = False, *, corpus: str | Path | None = None, sessions: int | None = None, mb: float | None = None,
        seed: int = 42, keep: bool = False, profile: str | None = None, workers: int = 2, log=None) -> list[dict[str, Any]]:
    """Generate (or reuse) the corpus, measure, and return one dict per measurement:
    name, target, measured, unit, baseline, baseline_name, ratio, pass (True/False/None), detail."""
    log = log or (lambda *a: print(*a, file=sys.stderr, flush=True))
    size = QUICK if quick else FULL
    sessions = sessions or size["sessions"]
    mb = mb or size["mb"]
    work = Path(tempfile.mkdtemp(prefix="hansard-bench-"))
    root = Path(corpus) if corpus else work / "corpus"
    rows: list[dict[str, Any]] = []
    try:
        manifest = None
        if (root / "manifest.json").exists():
            manifest = orjson.loads((root / "manifest.json").read_bytes())
            if manifest.get("version") != GEN_VERSION:
                raise SystemExit(f"{root} holds a corpus from generator v{manifest.get('version')}; use another --corpus")
            log(f"reusing corpus {root} (seed {manifest['seed']}, {manifest['sessions']} sessions, {manifest['mb']} MB asked)")
        else:
            log(f"generating corpus in {root}: {sessions} sessions, ~{mb:g} MB, seed {seed}")
            manifest = generate_corpus(root, sessions, mb, seed, workers=workers, log=log)
        m = manifest["main"]
        log(f"  {m['files']} files ({m['sessions']} sessions), {m['bytes'] / MB:.1f} MB,"
            f" longest line {m['max_line'] / MB:.2f} MB, {m['lines_ge_1mb']} lines >= 1 MB; {m['stats']}")
        main_dirs = [str(root / "main/claude/projects"), str(root / "main/codex/sessions")]

        # -- baseline: raw read + parse, in a child (throughput and RSS) --
        env_full = child_env(work, "home_full", root / "main/claude", root / "main/codex")
        log("baseline: raw read + orjson.loads of every line ...")
        raw = run_child("raw", {"dirs": main_dirs}, env_full, work)
        idle = run_child("idle", {}, child_env(work, "home_idle", work / "none", work / "none"), work)

        # -- full index --
        log("full index (child process) ...")
        load0 = os.getloadavg()[0]
        full = run_child("full", {"rescans": 3}, env_full, work)
        load1 = os.getloadavg()[0]
        s = full["summary"]
        nbytes = m["bytes"]
        mbps = nbytes / MB / full["index_s"]
        raw_mbps = raw["bytes"] / MB / raw["parse_s"]
        cat_mbps = raw["bytes"] / MB / raw["cat_s"]
        sess = full["counts"]["sessions"]
        rows.append(_row("full index throughput", f">= {TARGET_MBPS:g} MB/s", round(mbps, 2), "MB/s", round(raw_mbps, 1),
                         "raw read + orjson.loads per line", round(mbps / raw_mbps, 3), mbps >= TARGET_MBPS,
                         f"{nbytes / MB:.1f} MB, {m['files']} files in {full['index_s']:.1f}s"
                         f" (CPU: {_cpu_note(nbytes, full)}; load avg {load0:.1f} -> {load1:.1f} on {os.cpu_count()} CPUs);"
                         f" plain read {cat_mbps:.0f} MB/s;"
                         f" store {full['store_bytes'] / MB:.1f} MB ({full['store_bytes'] / nbytes:.2f}x the corpus)"))
        rows.append(_row("full index sessions/s", "-", round(sess / full["index_s"], 1), "sessions/s",
                         round(m["sessions"] / raw["parse_s"], 1), "raw read + parse", round(
                             (sess / full["index_s"]) / (m["sessions"] / raw["parse_s"]), 3), None,
                         f"{sess} sessions, {full['counts']['messages']} messages, {full['counts']['tool_calls']} tool calls,"
                         f" {full['counts']['edits']} edits {full['edits_by_status']} ({full['edits_linked']} linked to"
                         f" {full['repos']} repos), skipped {s['skipped']}"))
        # -- reindex: the same store, every derived table again from its archive --
        # A reindex can be repeated on the same store: the median of REINDEX_RUNS, since this
        # machine's speed drifts by 10-15% from one minute to the next (a single run was 35 to 44
        # MB/s with the same code).
        log(f"reindex (child process, {REINDEX_RUNS} runs) ...")
        load0 = os.getloadavg()[0]
        rixs = sorted((run_child("reindex", {}, env_full, work) for _ in range(REINDEX_RUNS)), key=lambda r: r["index_s"])
        load1 = os.getloadavg()[0]
        rix = rixs[len(rixs) // 2]
        rmbps = nbytes / MB / rix["index_s"]
        each = ", ".join(f"{nbytes / MB / r['index_s']:.1f}" for r in rixs)
        rows.append(_row("reindex throughput (from the archive alone)", f">= {TARGET_REINDEX_MBPS:g} MB/s", round(rmbps, 2),
                         "MB/s", round(raw_mbps, 1), "raw read + orjson.loads per line", round(rmbps / raw_mbps, 3),
                         rmbps >= TARGET_REINDEX_MBPS,
                         f"{nbytes / MB:.1f} MB of records, median of {len(rixs)} runs:"
                         f" {each} MB/s; the median in"
                         f" {rix['index_s']:.1f}s (CPU: {_cpu_note(nbytes, rix)};"
                         f" load avg {load0:.1f} -> {load1:.1f});"
                         f" peak RSS writer {max(r['maxrss_kb'] for r in rixs) / 1024:.0f} MiB,"
                         f" worker {max(r['worker_maxrss_kb'] for r in rixs) / 1024:.0f} MiB"))
        rss = max(full["maxrss_kb"], full["worker_maxrss_kb"]) / 1024
        rows.append(_row("full index peak RSS", f"<= {TARGET_RSS_MIB:g} MiB", round(rss, 1), "MiB",
                         round(raw["maxrss_kb"] / 1024, 1), "raw read + parse child", round(rss / (raw["maxrss_kb"] / 1024), 2),
                         rss <= TARGET_RSS_MIB,
                         f"the larger of the writer ({full['maxrss_kb'] / 1024:.1f} MiB, VmHWM {full['vmhwm_kb'] / 1024:.1f})"
                         f" and its reading worker ({full['worker_maxrss_kb'] / 1024:.1f} MiB; both together at most"
                         f" {(full['maxrss_kb'] + full['worker_maxrss_kb']) / 1024:.0f} MiB);"
                         f" idle hansard child {idle['maxrss_kb'] / 1024:.1f} MiB; longest line {m['max_line'] / MB:.2f} MB"))
        if full["rescan_s"]:
            rs = statistics.median(full["rescan_s"]) * 1000
            rows.append(_row(f"no-change re-scan, whole corpus ({full['counts']['sources']} files)", "-", round(rs, 1), "ms",
                             None, "", None, None, f"runs: {[round(x * 1000, 1) for x in full['rescan_s']]}"))

        # -- no-change re-scan of 1,000 files --
        log("no-change re-scan of 1,000 files ...")
        env_rs = child_env(work, "home_rescan", root / "rescan/claude", root / "rescan/codex")
        rsd = run_child("rescan", {"rescans": 9, "dirs": [str(root / "rescan/claude/projects"),
                                                          str(root / "rescan/codex/sessions")]}, env_rs, work)
        rs = statistics.median(rsd["rescan_s"]) * 1000
        st = statistics.median(rsd["stat_s"]) * 1000
        wk = statistics.median(rsd["walk_s"]) * 1000
        rows.append(_row(f"no-change re-scan ({rsd['rescan_files']} files)", f"<= {TARGET_RESCAN_MS:g} ms", round(rs, 1), "ms",
                         round(st, 2), f"os.stat of the same {rsd['rescan_files']} files", round(rs / st, 1) if st else None,
                         rs <= TARGET_RESCAN_MS,
                         f"median of {len(rsd['rescan_s'])}: {[round(x * 1000, 1) for x in rsd['rescan_s']]};"
                         f" os.walk+filter {wk:.1f} ms; first index of this set {rsd['index_s']:.2f}s"
                         f" ({manifest['rescan']['bytes'] / MB / rsd['index_s']:.1f} MB/s)"
                         + (f"; CHANGED files seen: {rsd['rescan_changed']}" if rsd.get("rescan_changed") else "")))
        # The same through the CLI: interpreter start + imports + index.
        cli = []
        for _ in range(3):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "hansard", "index"], env=env_rs, check=True, capture_output=True)
            cli.append(time.perf_counter() - t)
        py = []
        for _ in range(3):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", "import hansard.cli"], env=env_rs, check=True, capture_output=True)
            py.append(time.perf_counter() - t)
        c, b = statistics.median(cli) * 1000, statistics.median(py) * 1000
        rows.append(_row("`hansard index` CLI, nothing changed (1,000 files)", "-", round(c, 1), "ms", round(b, 1),
                         "python -c 'import hansard.cli'", round(c / b, 2), None, "wall time incl. interpreter start"))

        # -- appended line --
        log("appended line: small vs multi-MB file ...")
        app_dir = work / "append"
        spec_app: dict[str, Any] = {"reps": 21}
        for which in ("small", "big"):
            info = dict(manifest["append"][which])
            src = Path(info["path"])
            dst = app_dir / src.relative_to(root / "append")
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
            info["path"] = str(dst)
            spec_app[which] = info
        app = run_child("append", spec_app, env_full, work)
        ts_, tb_ = statistics.median(app["small"]) * 1000, statistics.median(app["big"]) * 1000
        ratio = tb_ / ts_
        size_ratio = app["big_size"] / app["small_size"]
        noop = statistics.median(app["noop"]) * 1000
        rows.append(_row("append 1 line to a small file", "-", round(ts_, 2), "ms", round(noop, 2),
                         "`index PATH` of the same file, nothing new (fixed per-call cost)", round(ts_ / noop, 2), None,
                         f"file {app['small_size'] / 1e3:.0f} kB, line {statistics.median(app['line_bytes']):.0f} B,"
                         f" rchar {statistics.median(app['small_rchar']) / 1e3:.0f} kB"
                         f" (no-op call reads {statistics.median(app['noop_rchar']) / 1e3:.0f} kB);"
                         f" store holds {app['sources']} sources"))
        rows.append(_row("append 1 line to a multi-MB file", f"<= {TARGET_APPEND_RATIO:g}x the small-file cost", round(tb_, 2),
                         "ms", round(ts_, 2), "same line appended to the small file", round(ratio, 2),
                         ratio <= TARGET_APPEND_RATIO,
                         f"file {app['big_size'] / MB:.1f} MB ({size_ratio:.0f}x the small file),"
                         f" rchar {statistics.median(app['big_rchar']) / 1e3:.0f} kB; full re-read+parse of that file"
                         f" {app['big_reparse_s'] * 1000:.0f} ms; median of {len(app['big'])};"
                         f" min big {min(app['big']) * 1000:.2f} ms vs min small {min(app['small']) * 1000:.2f} ms"))
        mbl = statistics.median(app["mb_line"]) * 1000
        mbp = statistics.median(app["mb_line_parse"]) * 1000
        rows.append(_row("append a 1 MB line to the small file", "-", round(mbl, 1), "ms", round(mbp, 2),
                         "orjson.loads of that line", round(mbl / mbp, 1), None,
                         f"{app['mb_line_bytes'] / MB:.2f} MB line: {mbl / (app['mb_line_bytes'] / MB):.0f} ms/MB of new bytes"
                         f" vs {ts_ / (statistics.median(app['line_bytes']) / MB):.0f} ms/MB for a"
                         f" {statistics.median(app['line_bytes']) / 1e3:.1f} kB line (fixed per-scan cost dominates)"))

        if profile:
            log("profiling the full index (cProfile) ...")
            prof_path = Path(profile) if profile not in ("1", "cprofile") else work / "index.prof"
            run_child("full", {"profile": str(prof_path)}, child_env(work, "home_prof", root / "main/claude",
                                                                     root / "main/codex"), work)
            print_profile(prof_path)
            if keep or profile not in ("1", "cprofile"):
                log(f"profile kept at {prof_path}")
        return rows
    finally:
        if keep:
            log(f"kept work dir {work} (corpus {root})")
        else:
            shutil.rmtree(work, ignore_errors=True)


def print_profile(path: Path, n: int = 30) -> None:
    import io
    import pstats

    for key in ("tottime", "cumulative"):
        buf = io.StringIO()
        ps = pstats.Stats(str(path), stream=buf)
        ps.sort_stats(key).print_stats(n)
        text = buf.getvalue()
        start = text.find("   ncalls")
        print(f"\n== cProfile top {n} by {key} ==")
        print(text[start:] if start >= 0 else text)


def format_rows(rows: list[dict[str, Any]]) -> str:
    out = []
    for r in rows:
        verdict = "PASS" if r["pass"] is True else "MISS" if r["pass"] is False else "info"
        base = f"{r['baseline']} ({r['baseline_name']})" if r["baseline"] is not None else "-"
        ratio = f"{r['ratio']}" if r["ratio"] is not None else "-"
        out.append(f"[{verdict}] {r['name']}\n"
                   f"    measured {r['measured']} {r['unit']}   target {r['target']}\n"
                   f"    baseline {base}   ratio {ratio}\n"
                   f"    {r['detail']}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--_child":
        return _child_main(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help=f"small smoke run ({QUICK['sessions']} sessions, {QUICK['mb']} MB)")
    ap.add_argument("--sessions", type=int, help="sessions to generate")
    ap.add_argument("--mb", type=float, help="approximate corpus size in MB")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--corpus", help="generate the corpus here, or reuse it if it has a manifest.json")
    ap.add_argument("--keep", action="store_true", help="keep the work dir (stores, logs, corpus if temporary)")
    ap.add_argument("--profile", nargs="?", const="1", help="also run the full index under cProfile (optional .prof path)")
    ap.add_argument("--workers", type=int, default=2, help="processes used to generate the corpus")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    a = ap.parse_args(argv)
    rows = run(a.quick, corpus=a.corpus, sessions=a.sessions, mb=a.mb, seed=a.seed, keep=a.keep, profile=a.profile,
               workers=a.workers)
    print(json.dumps(rows, indent=2) if a.json else format_rows(rows))
    return 0 if all(r["pass"] is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
