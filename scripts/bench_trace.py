"""Benchmark `hansard trace export` and `hansard trace import` against `git blame` of the same
files, side by side.

    python scripts/bench_trace.py [--commits 300] [--sessions 60] [--range 10] [--rounds 5] [--dir DIR]

Builds bench_why's Go/TypeScript-shaped corpus (git fast-import, Claude Code sessions written by
the fixtures' writer; six files of 600-2,400 lines when built, a few thousand lines together)
with ``--commits`` commits, indexes it into a fresh store, then, in alternation, ``--rounds``
times each:

  * export of HEAD: `hansard trace export --commit HEAD --json --no-cache` vs `git blame -w -M -C
    --porcelain HEAD -- FILE` of each file HEAD touched, one after another;
  * export of a range: `hansard trace export HEAD~R..HEAD --out DIR --no-cache` vs the blame of
    every file each of those commits touched, at that commit (and vs `hansard why FILE --rev C
    --json --no-cache` of each, the answers the export is made of);
  * import: `hansard trace import DIR` of the range's records (into a store that already has
    them the second time, so only the first round adds) vs the same blames.

Prints medians and ratios. Never run in CI; never asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

BLAME = ["git", "blame", "-w", "-M", "-C", "--porcelain"]


def _timed(cmds: list[list[str]], cwd: Path, env: dict[str, str]) -> float:
    t = time.perf_counter()
    for cmd in cmds:
        subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def _touched(repo: Path, sha: str) -> list[str]:
    out = subprocess.run(["git", "diff-tree", "-r", "--no-commit-id", "--name-only", "-M", "--diff-filter=AMRTC",
                          "--root", sha], cwd=repo, check=True, capture_output=True, text=True).stdout
    return [p for p in out.split("\n") if p]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--commits", type=int, default=300)
    ap.add_argument("--sessions", type=int, default=60)
    ap.add_argument("--range", type=int, default=10, help="commits of the range export")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--dir", help="build (or reuse) the corpus here")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    import bench_why

    root = Path(args.dir or tempfile.mkdtemp(prefix="hansard-bench-trace-"))
    if not (root / "repo").exists():
        t = time.perf_counter()
        bench_why.build_gots(root, args.seed, args.commits, args.sessions)
        print(f"built the corpus in {time.perf_counter() - t:.1f}s at {root}", file=sys.stderr)
    repo, home = root / "repo", root / "home"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(HANSARD_HOME=str(root / "store"), CLAUDE_CONFIG_DIR=str(home / ".claude"),
               CODEX_HOME=str(home / ".codex"), GEMINI_CLI_HOME=str(home))
    env["PYTHONPATH"] = os.pathsep.join(x for x in (str(ROOT), env.get("PYTHONPATH")) if x)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "hansard")], env=env, check=True,
                   capture_output=True)
    subprocess.run([sys.executable, "-m", "hansard", "index"], cwd=repo, env=env, check=True, capture_output=True)
    lines = sum(sum(1 for _ in open(repo / p, encoding="utf-8")) for p in bench_why.GOTS_FILES)

    hansard = [sys.executable, "-m", "hansard"]
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()
    shas = subprocess.run(["git", "rev-list", "--reverse", f"HEAD~{args.range}..HEAD"], cwd=repo, check=True,
                          capture_output=True, text=True).stdout.split()
    head_blames = [[*BLAME, head, "--", p] for p in _touched(repo, head)]
    range_blames = [[*BLAME, s, "--", p] for s in shas for p in _touched(repo, s)]
    # what the export is made of: one `why` of each file at its commit, each its own process
    range_whys = [[*hansard, "why", p, "--rev", s, "--json", "--no-cache"] for s in shas for p in _touched(repo, s)]
    out = root / "traces"
    one = [*hansard, "trace", "export", "--commit", "HEAD", "--json", "--no-cache"]
    many = [*hansard, "trace", "export", f"HEAD~{args.range}..HEAD", "--out", str(out), "--no-cache"]
    imp = [*hansard, "trace", "import", str(out)]
    _timed([one, many, imp, *head_blames, *range_blames], repo, env)  # warm both sides
    r: dict[str, list[float]] = {k: [] for k in ("one", "one_git", "many", "many_git", "many_why", "import")}
    for _ in range(args.rounds):
        r["one"].append(_timed([one], repo, env))
        r["one_git"].append(_timed(head_blames, repo, env))
        r["many"].append(_timed([many], repo, env))
        r["many_git"].append(_timed(range_blames, repo, env))
        r["many_why"].append(_timed(range_whys, repo, env))
        r["import"].append(_timed([imp], repo, env))
    med = {k: statistics.median(v) * 1e3 for k, v in r.items()}
    rec = json.loads(subprocess.run(one, cwd=repo, env=env, check=True, capture_output=True).stdout)
    kinds: dict[str, int] = rec["metadata"]["dev.hansard"]["lines"]
    fresh = dict(env, HANSARD_HOME=str(root / "store-fresh"))  # the records into a store that has none of them
    shutil.rmtree(root / "store-fresh", ignore_errors=True)
    t = time.perf_counter()
    subprocess.run(imp, cwd=repo, env=fresh, check=True, capture_output=True)
    first_import = (time.perf_counter() - t) * 1e3
    print(f"corpus: {args.commits} commits, {lines} lines in {len(bench_why.GOTS_FILES)} files; HEAD touched "
          f"{len(head_blames)} file(s), lines of its own by type {kinds}; the range: {len(shas)} commits, "
          f"{len(range_blames)} file blames")
    print(f"export HEAD:        {med['one']:7.0f} ms  vs git blame of its files {med['one_git']:7.0f} ms  "
          f"ratio {med['one'] / med['one_git']:.2f}")
    print(f"export {len(shas)} commits:  {med['many']:7.0f} ms  vs git blame of their files {med['many_git']:7.0f} ms  "
          f"ratio {med['many'] / med['many_git']:.2f}; vs `hansard why` of each ({len(range_whys)} processes) "
          f"{med['many_why']:.0f} ms, ratio {med['many'] / med['many_why']:.2f}")
    print(f"import {len(shas)} records: {first_import:7.0f} ms into a fresh store, {med['import']:.0f} ms again "
          f"(unchanged)  vs git blame of their files {med['many_git']:.0f} ms  ratio "
          f"{first_import / med['many_git']:.2f}")
    if not args.dir:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
