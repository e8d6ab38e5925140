"""Benchmark code_history (`hansard log`) on generated repositories, beside plain git.

Builds (or reuses with --dir) two seeded repositories with git fast-import, and Claude Code
transcripts (2.1.x records: prompt, Edit tool_use + toolUseResult with originalFile and
structuredPatch, Bash pytest runs that fail and then pass) written straight to disk, every
edit timestamped a few minutes before the commit that carries it. Then times, in alternation
so machine noise hits both sides equally:

  (a) `app/service.py`, edited by 200 sessions (plus human commits, in a 2,000-commit repo with
      40 other modules, a dozen of which import it):
        * code_history warm in-process (second and later calls in one process)
        * `hansard log app/service.py --json --no-sync` as a process
      both against `git log --follow -- app/service.py` (the commits alone, no sessions).
      Target: <= 300 ms warm.
  (b) `--symbol merge_batches` in `src/engine.py` across a 5,000-commit repository. The file
      changes in about half the commits; the function is edited in ~500 of them, moves within
      the file (functions inserted and deleted above it, and the function itself relocated),
      and was renamed once (from combine_batches). 200 sessions made some of those changes.
        * `hansard log src/engine.py --symbol merge_batches --json --no-sync` (caches warm)
        * the same in-process (second and later calls)
        * the first call on a fresh store (cold caches), measured once
      against `git log -L :merge_batches:src/engine.py` (.gitattributes sets diff=python).
      Target: <= 2 s; the ratio to git log -L is printed.

Prints medians, ratios and PASS/MISS; `run(quick)` returns the rows for bench_all.py.
--profile prints a cProfile of one warm call of each. Never run in CI.

    python scripts/bench_history.py [--quick] [--dir DIR] [--rounds N] [--only a|b] [--profile]
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# The transcripts and the repository are written by fixtures_repos' writers.
from fixtures_repos.fastimport import FastImport
from fixtures_repos.writers import SeededClaudeTranscript

T0 = 1_780_000_000  # 2026-05-28, fixed so the corpus is the same every run
GEN_VERSION = 2
TARGET_A_MS = 300.0
TARGET_B_MS = 2000.0
SYMBOL = "merge_batches"
OLD_SYMBOL = "combine_batches"
SIZES = {
    False: {"a_commits": 2000, "a_sessions": 200, "b_commits": 5000, "b_sessions": 200},
    True: {"a_commits": 200, "a_sessions": 20, "b_commits": 400, "b_sessions": 20},
}
AUTHORS = ["Ana Lima <ana@example.com>", "Bo Chen <bo@example.com>", "Cy Roy <cy@example.com>"]
VOCAB = ["alpha", "beta", "gamma", "delta", "retry", "upload", "cache", "value", "index", "result", "total",
         "count", "items", "payload", "config", "session", "token", "buffer", "offset", "limit"]


def log(*a: Any) -> None:
    print(*a, file=sys.stderr, flush=True)


# -- git fast-import and transcripts: fixtures_repos' writers ----------------------------------


class Stream:
    """Linear commits on main, as a fast-import stream (fixtures_repos/fastimport.py): each
    commit's author is its committer."""

    def __init__(self) -> None:
        self.fi = FastImport()

    def commit(self, t: int, msg: str, files: dict[str, str], author: str = AUTHORS[0]) -> None:
        changed: list[tuple[str, str, int | str]] = [("100644", p, self.fi.blob(text.encode())) for p, text in files.items()]
        self.fi.commit("refs/heads/main", changed, t, msg, who=author)

    def load(self, repo: Path) -> None:
        repo.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
        subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=self.fi.stream(), check=True)
        subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=repo, check=True)
        subprocess.run(["git", "commit-graph", "write", "--reachable"], cwd=repo, check=True, capture_output=True)


def session_id(seed: int, part: str, k: int) -> str:
    return f"{seed:04x}{ord(part):04x}-{k:04x}-4000-8000-{k:012d}"


# -- (a) a file edited by 200 sessions --------------------------------------------------------


class Code:
    """Python functions made of unique lines, so every line is non-trivial and traceable."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.n = 0

    def line(self, indent: str = "    ") -> str:
        self.n += 1
        r = self.rng
        return f"{indent}{r.choice(VOCAB)}_{self.n} = compute_{r.choice(VOCAB)}({r.choice(VOCAB)}, {r.randint(0, 10**6)})"

    def function(self, name: str, n: int, args: str = "payload, limit=10") -> list[str]:
        body = [self.line() for _ in range(n)]
        return [f"def {name}({args}):", *body, f"    return {body[-1].split('=')[0].strip()}"]


def render(funcs: list[list[str]], header: list[str]) -> list[str]:
    out = list(header)
    for f in funcs:
        out += ["", "", *f]
    return out


def change_function(code: Code, f: list[str]) -> None:
    """Replace a body line; sometimes also add one, or drop one."""
    r = code.rng
    body = range(1, len(f) - 1)
    f[r.choice(body)] = code.line()
    x = r.random()
    if x < 0.25:
        f.insert(r.randint(1, len(f) - 1), code.line())
    elif x < 0.35 and len(f) > 6:
        del f[r.choice(range(1, len(f) - 1))]


PYTEST_FAIL = ("F...                                                                     [100%]\n"
               "=================================== FAILURES ===================================\n"
               "________________________________ test_{t} ________________________________\n"
               "    assert result == expected\nE   AssertionError\n"
               "=========================== short test summary info ============================\n"
               "FAILED tests/test_service.py::test_{t} - AssertionError\n"
               "1 failed, 3 passed in 0.21s\n")
PYTEST_OK = "....                                                                     [100%]\n4 passed in 0.19s\n"


def build_a(root: Path, commits: int, sessions: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    code = Code(rng)
    repo, home = root / "repo", root / "home"
    st = Stream()
    funcs = [code.function(f"handle_{i:03d}", rng.randint(4, 9)) for i in range(40)]
    header = ['"""The upload service."""', "", "import math", "import os"]
    mods = {}
    for k in range(40):
        imp = [f"from app.service import handle_{k:03d}"] if k % 3 == 0 else ["from . import service"] if k == 1 else []
        mods[f"app/mod_{k:02d}.py"] = [f'"""Module {k}."""', *imp, "", *code.function(f"work_{k}", 4)]
    files: dict[str, str] = {p: "\n".join(v) + "\n" for p, v in mods.items()}
    files["app/__init__.py"] = ""
    files["app/service.py"] = "\n".join(render(funcs, header)) + "\n"
    files["tests/test_service.py"] = "from app import service\n\n\ndef test_handle():\n    assert service\n"
    files[".gitattributes"] = "*.py diff=python\n"
    st.commit(T0, "initial import", files)
    # Which commits change service.py: every session's, and as many again by hand.
    session_at = set(rng.sample(range(1, commits), sessions))
    human_at = set(rng.sample(sorted(set(range(1, commits)) - session_at), min(sessions // 2, commits - 1 - sessions)))
    k = 0
    for c in range(1, commits):
        t = T0 + c * 900
        author = AUTHORS[c % len(AUTHORS)]
        if c in session_at:
            sid = session_id(seed, "a", k)
            s = SeededClaudeTranscript(rng, repo, sid, t - 600)
            s.prompt(f"handle_{rng.randrange(40):03d} drops the upload when the {rng.choice(VOCAB)} is empty; fix it")
            fail = k % 4 == 0
            if fail:
                s.bash("pytest -q", PYTEST_FAIL.format(t=rng.choice(VOCAB)), 1)
            for _ in range(rng.choice([1, 1, 2, 3])):
                before = render(funcs, header)
                change_function(code, rng.choice(funcs))
                s.edit("app/service.py", before, render(funcs, header))
            s.bash("pytest -q", PYTEST_OK)
            s.say("Fixed, and the tests pass.")
            assert s.t < t - 5, "session must end before its commit"
            s.write(home)
            st.commit(int(t), f"service: fix handling ({sid[:8]})", {"app/service.py": "\n".join(render(funcs, header)) + "\n"},
                      author)
            k += 1
        elif c in human_at:
            change_function(code, rng.choice(funcs))
            st.commit(int(t), f"service: tidy {c}", {"app/service.py": "\n".join(render(funcs, header)) + "\n"}, author)
        else:
            p = f"app/mod_{rng.randrange(40):02d}.py"
            m = mods[p]
            m[rng.randrange(len(m) - 4, len(m) - 1)] = code.line()
            st.commit(int(t), f"{p}: change {c}", {p: "\n".join(m) + "\n"}, author)
    st.load(repo)
    return {"sessions": sessions, "service_commits": 1 + len(session_at) + len(human_at), "commits": commits}


# -- (b) a symbol across 5,000 commits -------------------------------------------------------------


def build_b(root: Path, commits: int, sessions: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed + 1)
    code = Code(rng)
    repo, home = root / "repo", root / "home"
    st = Stream()
    name = OLD_SYMBOL
    nfun = 1

    def new_func() -> list[str]:
        nonlocal nfun
        nfun += 1
        f = code.function(f"step_{nfun:05d}", rng.randint(4, 10))
        if rng.random() < 0.15:
            f.insert(len(f) - 1, f"    batches_{nfun} = {name}(payload, size={rng.randint(1, 500)})")
        return f

    funcs = [new_func() for _ in range(35)]
    target = code.function(name, 12, "batches, size=100")
    funcs.insert(17, target)
    header = ['"""Batch engine."""', "", "import itertools"]
    others = {f"src/util_{k:02d}.py": code.function(f"util_{k}", 5) for k in range(30)}
    files: dict[str, str] = {p: "\n".join(v) + "\n" for p, v in others.items()}
    files["src/engine.py"] = "\n".join(render(funcs, header)) + "\n"
    files[".gitattributes"] = "*.py diff=python\n"
    st.commit(T0, "initial import", files)
    rename_at = commits // 4
    engine_share = 0.5
    session_share = min(1.0, sessions / (commits * engine_share) * 1.05)
    truth: dict[str, int] = {"body": 0, "moved": 0, "renamed": 0, "engine_commits": 1, "symbol_sessions": 0}
    made = 0
    for c in range(1, commits):
        t = T0 + c * 900
        author = AUTHORS[c % len(AUTHORS)]
        if c != rename_at and rng.random() >= engine_share:
            p = f"src/util_{rng.randrange(30):02d}.py"
            f = others[p]
            f[rng.randrange(1, len(f) - 1)] = code.line()
            st.commit(int(t), f"{p}: change {c}", {p: "\n".join(f) + "\n"}, author)
            continue
        truth["engine_commits"] += 1
        before = render(funcs, header)
        x = rng.random()
        touched = True
        if c == rename_at:
            name = SYMBOL
            target[0] = target[0].replace(OLD_SYMBOL, SYMBOL)
            for f in funcs:
                for i, ln in enumerate(f):
                    f[i] = ln.replace(f"{OLD_SYMBOL}(", f"{SYMBOL}(")
            msg, truth["renamed"] = f"engine: rename {OLD_SYMBOL} to {SYMBOL}", truth["renamed"] + 1
        elif x < 0.22:
            change_function(code, target)
            msg, truth["body"] = f"engine: {name} handles {rng.choice(VOCAB)}", truth["body"] + 1
        elif x < 0.80:
            change_function(code, rng.choice([f for f in funcs if f is not target]))
            msg, touched = f"engine: change {c}", False
        elif x < 0.89:
            funcs.insert(rng.randint(0, len(funcs)), new_func())
            msg, touched = f"engine: add step {c}", False
        elif x < 0.96 and len(funcs) > 25:
            funcs.remove(rng.choice([f for f in funcs if f is not target]))
            msg, touched = f"engine: drop a step {c}", False
        else:
            i = funcs.index(target)
            funcs.pop(i)
            funcs.insert(rng.choice([j for j in range(len(funcs) + 1) if j != i]), target)
            msg, truth["moved"] = f"engine: move {name}", truth["moved"] + 1
        after = render(funcs, header)
        if made < sessions and rng.random() < session_share:
            sid = session_id(seed, "b", made)
            s = SeededClaudeTranscript(rng, repo, sid, t - 400)
            s.prompt(f"{msg.split(': ', 1)[1]} please")
            s.edit("src/engine.py", before, after)
            s.say("Done.")
            s.write(home)
            made += 1
            truth["symbol_sessions"] += touched
        st.commit(int(t), msg, {"src/engine.py": "\n".join(after) + "\n"}, author)
    st.load(repo)
    truth.update(sessions=made, commits=commits, symbol_commits=1 + truth["body"] + truth["moved"] + truth["renamed"])
    return truth


# -- measuring ---------------------------------------------------------------------------------


def env_for(root: Path) -> dict[str, str]:
    home = root / "home"
    return dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), HANSARD_HOME=str(root / "store"),
                CLAUDE_CONFIG_DIR=str(home / ".claude"), CODEX_HOME=str(home / ".codex"), GEMINI_CLI_HOME=str(home),
                GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def prepare(root: Path, part: str, quick: bool, seed: int) -> tuple[Path, dict[str, Any]]:
    """Build the part's repository, transcripts and indexed store, or reuse them."""
    sub = root / part
    info_file = sub / "info.json"
    size = SIZES[quick]
    want = {"gen": GEN_VERSION, "seed": seed, "size": {k: v for k, v in size.items() if k.startswith(part)}}
    if info_file.exists():
        info = json.loads(info_file.read_text())
        if info.get("want") == want:
            return sub, info
        shutil.rmtree(sub)
    t = time.perf_counter()
    if part == "a":
        truth = build_a(sub, size["a_commits"], size["a_sessions"], seed)
    else:
        truth = build_b(sub, size["b_commits"], size["b_sessions"], seed)
    built = time.perf_counter() - t
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "hansard", "index"], cwd=sub / "repo", env=env_for(sub), check=True,
                   capture_output=True)
    info = {"want": want, "truth": truth, "build_s": built, "index_s": time.perf_counter() - t}
    info_file.write_text(json.dumps(info))
    log(f"({part}) built in {built:.1f}s, indexed in {info['index_s']:.1f}s at {sub}: {truth}")
    return sub, info


class InProcess:
    """code_history in this process, against the part's store: one request of the application
    kept open (as a server holds one per call), which keeps what each call worked out."""

    def __init__(self, sub: Path) -> None:
        from hansard.answers.code_history import code_history
        from hansard.app.house import Hansard
        from hansard.render.trees import code_history_tree

        self.fn, self.render = code_history, code_history_tree
        os.environ["HANSARD_HOME"] = str(sub / "store")
        self.rq = Hansard(sync=False).request()
        self.repo = str(sub / "repo")

    def __call__(self, path: str, symbol: str | None = None, budget: int = 4000) -> tuple[float, dict[str, Any]]:
        t = time.perf_counter()
        out = self.fn(self.rq.store, path, symbol=symbol, cwd=self.repo, token_budget=budget, render=self.render)
        self.rq.keep()
        return time.perf_counter() - t, out


def profile_call(call: Any, label: str, n: int = 25) -> None:
    import cProfile
    import io
    import pstats

    pr = cProfile.Profile()
    pr.enable()
    call()
    pr.disable()
    for key in ("cumulative", "tottime"):
        buf = io.StringIO()
        pstats.Stats(pr, stream=buf).sort_stats(key).print_stats(n)
        text = buf.getvalue()
        print(f"\n== cProfile of {label}: top {n} by {key} ==")
        print(text[text.find("   ncalls"):])


def run_a(root: Path, quick: bool, rounds: int, seed: int, profile: bool) -> list[dict[str, Any]]:
    sub, info = prepare(root, "a", quick, seed)
    repo, env = sub / "repo", env_for(sub)
    path = "app/service.py"
    hansard_cli = [sys.executable, "-m", "hansard", "log", path, "--json", "--no-sync"]
    git_log = ["git", "log", "--follow", "--format=%H", "--", path]
    ip = InProcess(sub)
    first, _ = ip(path)
    _, full = ip(path, budget=10**7)
    sess = [e for e in full["entries"] if e["kind"] == "session"]
    linked = sum(1 for e in sess if e["commits"])
    with_tests = sum(1 for e in sess if e.get("tests"))
    for _ in range(2):
        timed(hansard_cli, repo, env)
        timed(git_log, repo, env)
    warm, cli, git = [], [], []
    shown = None
    for _ in range(rounds):
        dt, out = ip(path)
        warm.append(dt)
        shown = (len(out["entries"]), out["truncated"])
        git.append(timed(git_log, repo, env))
        cli.append(timed(hansard_cli, repo, env))
    if profile:
        profile_call(lambda: ip(path), f"code_history({path}) warm")
    m = statistics.median
    t = info["truth"]
    detail = (f"{len(sess)} sessions found of {t['sessions']} ({linked} linked to commits, {with_tests} with failed-then-fixed"
              f" tests), {full['commit_count']} commits of {t['service_commits']}, {len(full['imported_by'])} importers;"
              f" default budget shows {shown[0]} entries, truncated {shown[1]}; first call {first * 1e3:.0f} ms")
    return [
        {"target": f"code_history, file edited by {t['sessions']} sessions, warm in-process <= {TARGET_A_MS:.0f} ms",
         "measured_ms": m(warm) * 1e3, "baseline_ms": m(git) * 1e3, "baseline_name": "git log --follow -- FILE",
         "ratio": m(warm) / m(git), "pass": m(warm) * 1e3 <= TARGET_A_MS, "detail": detail},
        {"target": f"`hansard log FILE --json --no-sync` process, {t['sessions']} sessions <= {TARGET_A_MS:.0f} ms",
         "measured_ms": m(cli) * 1e3, "baseline_ms": m(git) * 1e3, "baseline_name": "git log --follow -- FILE",
         "ratio": m(cli) / m(git), "pass": m(cli) * 1e3 <= TARGET_A_MS,
         "detail": f"runs {[round(x * 1e3) for x in sorted(cli)]} ms"},
    ]


def run_b(root: Path, quick: bool, rounds: int, seed: int, profile: bool) -> list[dict[str, Any]]:
    sub, info = prepare(root, "b", quick, seed)
    repo, env = sub / "repo", env_for(sub)
    path = "src/engine.py"
    hansard_cli = [sys.executable, "-m", "hansard", "log", path, "--symbol", SYMBOL, "--json", "--no-sync"]
    git_l = ["git", "log", f"-L:{SYMBOL}:{path}"]
    ip = InProcess(sub)
    cold_row = ip.store.db.execute("SELECT COUNT(*) FROM commit_diffs").fetchone()[0] == 0
    first, out = ip(path, SYMBOL, budget=10**7)
    sess = [e for e in out["entries"] if e["kind"] == "session"]
    git_out = subprocess.run(["git", "log", f"-L:{SYMBOL}:{path}", "--format=COMMIT %s"], cwd=repo, env=env,
                             capture_output=True, text=True, check=True).stdout
    git_commits = git_out.count("COMMIT ")
    git_oldest = git_out.rpartition("COMMIT ")[2].partition("\n")[0]
    timed(git_l, repo, env)
    cli, warm, git = [], [], []
    for _ in range(rounds):
        cli.append(timed(hansard_cli, repo, env))
        git.append(timed(git_l, repo, env))
        warm.append(ip(path, SYMBOL)[0])
    if profile:
        profile_call(lambda: ip(path, SYMBOL), f"code_history({path}, symbol={SYMBOL}) warm")
    m = statistics.median
    t = info["truth"]
    detail = (f"{t['commits']} commits, {t['engine_commits']} change the file; symbol: {out['commit_count']} commits found"
              f" by hansard, {git_commits} by git log -L (its oldest: {git_oldest!r}), {t['symbol_commits']} by"
              f" construction (created, {t['body']} body edits, {t['moved']} moves, {t['renamed']} rename);"
              f" formerly {out['target'].get('formerly')};"
              f" {len(sess)} sessions found, {t['symbol_sessions']} of the {t['sessions']} sessions changed the symbol")
    rows = [
        {"target": f"symbol history over {t['commits']} commits, `hansard log --symbol` process <= {TARGET_B_MS / 1e3:.0f} s",
         "measured_ms": m(cli) * 1e3, "baseline_ms": m(git) * 1e3, "baseline_name": "git log -L :NAME:FILE",
         "ratio": m(cli) / m(git), "pass": m(cli) * 1e3 <= TARGET_B_MS, "detail": detail},
        {"target": f"symbol history over {t['commits']} commits, warm in-process <= {TARGET_B_MS / 1e3:.0f} s",
         "measured_ms": m(warm) * 1e3, "baseline_ms": m(git) * 1e3, "baseline_name": "git log -L :NAME:FILE",
         "ratio": m(warm) / m(git), "pass": m(warm) * 1e3 <= TARGET_B_MS,
         "detail": f"runs {[round(x * 1e3) for x in sorted(warm)]} ms"},
    ]
    if cold_row:
        rows.append({"target": f"symbol history over {t['commits']} commits, first call on a fresh store (info)",
                     "measured_ms": first * 1e3, "baseline_ms": m(git) * 1e3, "baseline_name": "git log -L :NAME:FILE",
                     "ratio": first / m(git), "pass": None,
                     "detail": "fills the per-commit diff and symbol caches; later calls read them"})
    return rows


def run(quick: bool = False, directory: str | None = None, rounds: int | None = None, seed: int = 7,
        only: str | None = None, profile: bool = False) -> list[dict[str, Any]]:
    root = Path(directory or tempfile.mkdtemp(prefix="hansard-bench-history-"))
    root.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    try:
        if only in (None, "a"):
            rows += run_a(root, quick, rounds or (5 if quick else 15), seed, profile)
        if only in (None, "b"):
            rows += run_b(root, quick, rounds or (3 if quick else 5), seed, profile)
    finally:
        if not directory:
            shutil.rmtree(root, ignore_errors=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes for a smoke run")
    ap.add_argument("--dir", help="build into this folder, or reuse what an earlier run built there")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--only", choices=["a", "b"])
    ap.add_argument("--profile", action="store_true", help="cProfile one warm call of each")
    a = ap.parse_args()
    for r in run(a.quick, a.dir, a.rounds, a.seed, a.only, a.profile):
        verdict = "PASS" if r["pass"] else "info" if r["pass"] is None else "MISS"
        print(f"{r['target']}: hansard {r['measured_ms']:.0f} ms vs {r['baseline_name']} {r['baseline_ms']:.0f} ms"
              f" = {r['ratio']:.2f}x  {verdict}\n    {r['detail']}")


if __name__ == "__main__":
    main()
