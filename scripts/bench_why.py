"""Benchmark `hansard why` against `git blame` on the same repository, side by side.

Builds (or reuses with --dir) a seeded repository of several thousand commits with git
fast-import, and a store of 1,000 Claude Code sessions whose edits wrote many of those
commits' lines. Then times, in alternation so machine noise hits both equally:

  * one line:   `hansard why FILE:N --json`  vs  `git blame -L N,N --porcelain FILE`
  * whole file: `hansard why FILE --json`    vs  `git blame --porcelain FILE` (1,000 lines)

Targets (issue 3): one line <= 1.3x blame + 60 ms; whole file <= 1.5x blame.
Prints medians, the ratios and PASS/MISS. Never run in CI.
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

LINES = 1000
T0 = 1_780_000_000  # 2026-05-28, fixed so the corpus is the same every run


def words(rng: random.Random, n: int) -> str:
    vocab = ["alpha", "beta", "gamma", "delta", "retry", "upload", "cache", "value", "index", "result", "total",
             "count", "items", "payload", "config", "session", "token", "buffer", "offset", "limit"]
    return "_".join(rng.choice(vocab) for _ in range(n))


def new_line(rng: random.Random, i: int) -> str:
    return f"    {words(rng, 2)}_{i} = compute_{words(rng, 1)}({words(rng, 1)}, {rng.randint(0, 10**6)})"


def build(root: Path, commits: int, sessions: int, seed: int) -> tuple[Path, Path]:
    rng = random.Random(seed)
    repo = root / "repo"
    home = root / "home"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    lines = [new_line(rng, i) for i in range(LINES)]
    session_every = max(1, commits // sessions)
    stream: list[bytes] = []
    edits: list[tuple[int, str, list[str], list[str], list[dict]]] = []  # (time, sid, before, after, patch)
    for c in range(commits):
        before = list(lines)
        for _ in range(3):
            k = rng.randrange(LINES)
            lines[k] = new_line(rng, k)
        other = f"{words(rng, 3)} {c}\n"
        t = T0 + c * 600
        data = ("def big():\n" + "\n".join(lines) + "\n").encode()
        msg = f"change {c}\n".encode()
        stream.append(b"commit refs/heads/main\n")
        stream.append(f"mark :{c + 1}\n".encode())
        stream.append(f"author Bench <bench@example.com> {t} +0000\ncommitter Bench <bench@example.com> {t} +0000\n".encode())
        stream.append(f"data {len(msg)}\n".encode() + msg)
        if c:
            stream.append(f"from :{c}\n".encode())
        stream.append(f"M 100644 inline src/big.py\ndata {len(data)}\n".encode() + data + b"\n")
        stream.append(f"M 100644 inline notes/n{c % 50}.txt\ndata {len(other)}\n{other}\n".encode())
        if c % session_every == 0 and len(edits) < sessions:
            edits.append((t - 120, f"{seed:04d}{len(edits):04d}-0000-4000-8000-{c:012d}", before, list(lines), []))
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(stream), check=True)
    subprocess.run(["git", "checkout", "-q", "main"], cwd=repo, check=True)
    subprocess.run(["git", "commit-graph", "write", "--reachable"], cwd=repo, check=True, capture_output=True)
    write_sessions(home, repo, edits)
    return repo, home


def write_sessions(home: Path, repo: Path, edits: list) -> None:
    import difflib

    folder = home / ".claude" / "projects" / str(repo).replace("/", "-")
    folder.mkdir(parents=True)
    path = str(repo / "src" / "big.py")
    for t, sid, before, after, _ in edits:
        a = ["def big():", *before]
        b = ["def big():", *after]
        hunks = []
        for g in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(3):
            i1, i2, j1, j2 = g[0][1], g[-1][2], g[0][3], g[-1][4]
            hl: list[str] = []
            for tag, x1, x2, y1, y2 in g:
                hl += [" " + x for x in a[x1:x2]] if tag == "equal" else ["-" + x for x in a[x1:x2]] + ["+" + y for y in b[y1:y2]]
            hunks.append({"oldStart": i1 + 1, "oldLines": i2 - i1, "newStart": j1 + 1, "newLines": j2 - j1, "lines": hl})
        ts = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(t))
        base = {"isSidechain": False, "userType": "external", "cwd": str(repo), "sessionId": sid, "version": "2.1.119"}
        recs = [
            {**base, "parentUuid": None, "type": "user", "uuid": sid + "-u", "timestamp": ts,
             "message": {"role": "user", "content": "update the computations in big()"}},
            {**base, "parentUuid": sid + "-u", "type": "assistant", "uuid": sid + "-a", "timestamp": ts,
             "message": {"id": "msg_" + sid, "role": "assistant", "content": [{"type": "tool_use", "id": "toolu_" + sid,
                         "name": "Write", "input": {"file_path": path, "content": "\n".join(b) + "\n"}}]}},
            {**base, "parentUuid": sid + "-a", "type": "user", "uuid": sid + "-r", "timestamp": ts,
             "message": {"role": "user", "content": [{"tool_use_id": "toolu_" + sid, "type": "tool_result", "content": "ok"}]},
             "toolUseResult": {"type": "update", "filePath": path, "content": "\n".join(b) + "\n", "structuredPatch": hunks,
                               "originalFile": "\n".join(a) + "\n"}},
        ]
        (folder / f"{sid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def run(quick: bool = False, directory: str | None = None, rounds: int = 15, seed: int = 7) -> list[dict]:
    commits, sessions = (600, 200) if quick else (4000, 1000)
    root = Path(directory or tempfile.mkdtemp(prefix="hansard-bench-why-"))
    if not (root / "repo").exists():
        t = time.perf_counter()
        repo, home = build(root, commits, sessions, seed)
        print(f"built {commits} commits and {sessions} sessions in {time.perf_counter() - t:.1f}s at {root}", file=sys.stderr)
    repo, home = root / "repo", root / "home"
    env = dict(os.environ, HANSARD_HOME=str(root / "store"), CLAUDE_CONFIG_DIR=str(home / ".claude"),
               CODEX_HOME=str(home / ".codex"), GEMINI_CLI_HOME=str(home))
    hansard = [sys.executable, "-m", "hansard"]
    t = time.perf_counter()
    subprocess.run([*hansard, "index"], cwd=repo, env=env, check=True, capture_output=True)
    print(f"indexed in {time.perf_counter() - t:.1f}s", file=sys.stderr)
    line = 500
    # Warm both (page cache, commit-graph).
    for _ in range(2):
        timed([*hansard, "why", f"src/big.py:{line}", "--json"], repo, env)
        timed(["git", "blame", "-L", f"{line},{line}", "--porcelain", "src/big.py"], repo, env)
    one_h, one_g, all_h, all_g = [], [], [], []
    for _ in range(rounds):
        one_h.append(timed([*hansard, "why", f"src/big.py:{line}", "--json"], repo, env))
        one_g.append(timed(["git", "blame", "-L", f"{line},{line}", "--porcelain", "src/big.py"], repo, env))
        all_h.append(timed([*hansard, "why", "src/big.py", "--json"], repo, env))
        all_g.append(timed(["git", "blame", "--porcelain", "src/big.py"], repo, env))
    out = json.loads(subprocess.run([*hansard, "why", "src/big.py", "--json"], cwd=repo, env=env, check=True,
                                    capture_output=True).stdout)
    kinds: dict[str, int] = {}
    for ln in out["lines"]:
        kinds[ln["kind"]] = kinds.get(ln["kind"], 0) + 1
    m = statistics.median
    rows = [
        {"target": "why one line <= 1.3x git blame -L + 60 ms", "measured_ms": m(one_h) * 1e3, "baseline_ms": m(one_g) * 1e3,
         "ratio": m(one_h) / m(one_g), "pass": m(one_h) <= 1.3 * m(one_g) + 0.060,
         "overhead_ms": (m(one_h) - m(one_g)) * 1e3},
        {"target": "why whole 1,000-line file --json <= 1.5x git blame --porcelain", "measured_ms": m(all_h) * 1e3,
         "baseline_ms": m(all_g) * 1e3, "ratio": m(all_h) / m(all_g), "pass": m(all_h) <= 1.5 * m(all_g)},
    ]
    print(f"kinds over the file: {kinds}", file=sys.stderr)
    if not directory:
        shutil.rmtree(root, ignore_errors=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--dir", help="reuse (or build into) this folder")
    ap.add_argument("--rounds", type=int, default=15)
    a = ap.parse_args()
    for r in run(a.quick, a.dir, a.rounds):
        extra = f", overhead {r['overhead_ms']:.0f} ms" if "overhead_ms" in r else ""
        print(f"{r['target']}: hansard {r['measured_ms']:.1f} ms vs git {r['baseline_ms']:.1f} ms = {r['ratio']:.2f}x"
              f"{extra}  {'PASS' if r['pass'] else 'MISS'}")


if __name__ == "__main__":
    main()
