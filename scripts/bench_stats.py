"""Benchmark `hansard stats`: the first run on a repository with many commits and
sessions, and the incremental run after one new commit (the median of ``--rounds`` such
commits), beside a baseline measured in the same run: `git blame -w -M -C --porcelain` (the
blame `why` runs) of every file, and of the one file the new commit changed.

The corpus is bench_why's ``gots`` one (``build_gots``: Go/TypeScript files full of common
lines, Claude Code sessions whose Edit calls wrote most of them), built with git fast-import:
1,500 commits and 100 sessions by default (built in well under 2 minutes), ``--commits 5000
--sessions 300`` for the issue's size. Each run is a `hansard stats --json` process, as a
person runs it (with its quick index first). Target: the incremental run <= 2 s.
Prints the timings and PASS/MISS. Never run in CI.
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

from bench_why import BLAME, build_gots  # noqa: E402

TARGET_INCREMENTAL_S = 2.0


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, bytes]:
    t = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, env=env, check=True, capture_output=True).stdout
    return time.perf_counter() - t, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--commits", type=int, default=1500)
    ap.add_argument("--sessions", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3, help="new commits, each followed by a timed run")
    ap.add_argument("--dir", help="build into (or reuse) this folder; kept")
    ap.add_argument("--json", action="store_true", help="print the numbers as JSON too")
    a = ap.parse_args()
    root = Path(a.dir or tempfile.mkdtemp(prefix="hansard-bench-stats-"))
    if not (root / "repo").exists():
        t = time.perf_counter()
        build_gots(root, a.seed, commits=a.commits, sessions=a.sessions)
        print(f"built {a.commits} commits, {a.sessions} sessions in {time.perf_counter() - t:.1f}s at {root}",
              file=sys.stderr)
    repo, home = root / "repo", root / "home"
    built = root / "built_head"  # a reused corpus starts again from the history as built, with a new store
    if built.exists():
        subprocess.run(["git", "reset", "-q", "--hard", built.read_text().strip()], cwd=repo, check=True)
    else:
        built.write_text(subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True, capture_output=True,
                                        text=True).stdout)
    shutil.rmtree(root / "store", ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(HANSARD_HOME=str(root / "store"), CLAUDE_CONFIG_DIR=str(home / ".claude"),
               CODEX_HOME=str(home / ".codex"), GEMINI_CLI_HOME=str(home), GIT_AUTHOR_NAME="Dev",
               GIT_AUTHOR_EMAIL="dev@example.com", GIT_COMMITTER_NAME="Dev", GIT_COMMITTER_EMAIL="dev@example.com")
    env["PYTHONPATH"] = os.pathsep.join(x for x in (str(ROOT), env.get("PYTHONPATH")) if x)
    hansard = [sys.executable, "-m", "hansard"]
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "hansard")], env=env, check=True,
                   capture_output=True)
    index_s, _ = timed([*hansard, "index"], repo, env)
    print(f"indexed in {index_s:.1f}s", file=sys.stderr)
    files = subprocess.run(["git", "ls-files"], cwd=repo, check=True, capture_output=True, text=True).stdout.split()

    blame_all = sum(timed([*BLAME, rel], repo, env)[0] for rel in files)
    first_s, out = timed([*hansard, "stats", "--json"], repo, env)
    first = json.loads(out)
    again_s, out = timed([*hansard, "stats", "--json"], repo, env)
    again = json.loads(out)

    # a new commit: a person's line at the end of the largest file (the dearest to answer again),
    # ``--rounds`` times, each run timed beside git blame of that file (the machine's noise hits both)
    changed = max(files, key=lambda rel: first["files"].get(rel, {}).get("lines", 0))
    incs, blames, answered = [], [], []
    for i in range(a.rounds):
        with open(repo / changed, "a", encoding="utf-8") as f:
            f.write(f"// one more line {i}\n")
        subprocess.run(["git", "commit", "-qam", f"a person's one-line change {i}"], cwd=repo, env=env, check=True)
        blames.append(timed([*BLAME, changed], repo, env)[0])
        s, out = timed([*hansard, "stats", "--json"], repo, env)
        incs.append(s)
        inc = json.loads(out)
        answered.append(inc["cache"]["answered"])
    inc_s, blame_one = statistics.median(incs), statistics.median(blames)

    commits = int(subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=repo, check=True, capture_output=True,
                                 text=True).stdout)
    print(f"{commits} commits, {len(files)} files, {first['lines']:,} lines "
          f"({first['kinds']['agent'] + first['kinds']['agent_modified']:,} by agents), "
          f"{first['funnel']['sessions']} sessions")
    print(f"first run        {first_s:7.2f} s   (answered {first['cache']['answered']} files)   "
          f"baseline: git blame of every file {blame_all:.2f} s")
    print(f"same HEAD again  {again_s:7.2f} s   (remembered {again['cache']['remembered']})")
    print(f"after 1 commit   {inc_s:7.2f} s   median of {a.rounds} ({', '.join(f'{x:.2f}' for x in incs)}; "
          f"answered {answered} files of {len(files)})   baseline: git blame of the changed file {blame_one:.2f} s "
          f"({changed}, {first['files'][changed]['lines']:,} lines)")
    ok = inc_s <= TARGET_INCREMENTAL_S and set(answered) == {1}
    print(f"target: incremental <= {TARGET_INCREMENTAL_S:.0f} s: {'PASS' if ok else 'MISS'}")
    if a.json:
        print(json.dumps({"commits": commits, "files": len(files), "lines": first["lines"], "first_s": first_s,
                          "again_s": again_s, "incremental_s": inc_s, "blame_all_s": blame_all,
                          "blame_one_s": blame_one, "index_s": index_s, "pass": ok}))
    if not a.dir:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
