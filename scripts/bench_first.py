"""First times on real history: what a user meets first, beside git doing the same work, with
several builds of hansard measured side by side in one run.

For each corpus (``scripts/real_corpus.py``: ``real:cli``, ``real:entire-graph``, ...; or
``real-clone:NAME``, the same repository as a new user has it: its clone keeping the checkpoint
branch, read by `hansard index CLONE` alone, every agent home empty) and each
build (``--code LABEL=PYTHON``: an interpreter whose ``hansard`` is that build, a virtualenv of
its checkout), one step at a time, the builds taking turns file by file within each step (each
file starting with the next build) so the machine's drift hits them alike; the hover step runs
each build's language server over all the files in turn. Each copy of a store is written to
disk before it is asked (as the index's own last checkpoint leaves the store it made):

  * index: a fresh store (`hansard index`, after the corpus's `config map`; `hansard index
    CLONE` for a clone): wall time, MB/s of the transcripts it archived, peak memory (wait4's
    ru_maxrss: the process and its workers);
  * first whole file: in a copy of that fresh store, per file, no warm-up, `why FILE --json`
    (as a user asks it, caching on) beside `git blame -w -M -C --porcelain FILE`; ratio
    why / (blame + 60 ms), target 1.3;
  * first one line: another copy, `why FILE:N --json` beside `blame -L N,N`; ratio why / (blame
    -L + 60 ms), target 1.3;
  * first hover: another copy, the language server opening each file and hovering its middle
    line (``bench_lsp.bench``), beside blame; ratio hover / (blame + 30 ms), target 1.2;
  * steady whole file: the first copy again, after one untimed run, `why FILE --json
    --no-cache` and blame in alternation (``--rounds``); target 1.2;
  * while a transcript grows: another process appends a message to a session of the corpus's
    repository every second (for a clone, a new session in the empty Claude Code home); per
    file, once the transcript has grown since the last question, `why FILE --json` beside
    blame; target 1.5;
  * after a one-line commit: per file, one line appended and committed (fixed identity and
    dates, so every build meets the same commit), `why FILE --json` beside blame, then the
    commit undone; target 1.5;
  * first stats: a fresh copy, `hansard stats --json` (piped), beside `git blame -w -M -C
    --porcelain` of every file it counted, run by ``--jobs`` processes at a time (the
    parallelism stats runs with; 1 is printed too); target 1.5;
  * trace export: a fresh copy, `hansard trace export RANGE --out DIR`, beside blame at each
    commit of every file the commit touched (what its records answer), ``--jobs`` at a time;
    target 1.5.

Every ratio is a median over the corpus's files (``--files``, spread over sizes, as
bench_why picks them) of each file's own ratio, against git run beside it. The corpora are
read from ``--cache`` (default: bench_why's); the one-line commits and the growing transcript
are undone, but run it on a copy you own (``cp -a`` the corpus folder, ``--cache`` there).

    python scripts/bench_first.py --corpus real:cli,real:entire-graph \\
        --code before=/venvs/base/bin/python --code after=.venv/bin/python [--only index,first,...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

STEPS = ("index", "first", "line", "hover", "steady", "grow", "commit", "stats", "trace")
TURNS = ("first", "line", "hover", "steady", "grow", "commit")  # steps measuring every build, file by file
BLAME = ["git", "blame", "-w", "-M", "-C", "--porcelain"]
COMMENT = {".go": "//", ".ts": "//", ".tsx": "//", ".js": "//", ".rs": "//", ".java": "//", ".c": "//", ".h": "//"}
WHO = {"GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com", "GIT_COMMITTER_NAME": "Bench",
       "GIT_COMMITTER_EMAIL": "bench@example.com", "GIT_AUTHOR_DATE": "2030-01-01T00:00:00+00:00",
       "GIT_COMMITTER_DATE": "2030-01-01T00:00:00+00:00"}


def log(s: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {s}", file=sys.stderr, flush=True)


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    """Wall milliseconds of ``cmd``, its output read and dropped."""
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t) * 1e3


def run_rss(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB of the process and the workers it waited for)."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed: {p.stderr.read().decode(errors='replace')[-2000:]}")
    return wall, ru.ru_maxrss / 1024


class Code:
    """One build of hansard: a label and the interpreter that runs it."""

    def __init__(self, spec: str) -> None:
        self.label, _, python = spec.partition("=")
        self.python = os.path.abspath(python) if os.sep in python else python
        where = subprocess.run([self.python, "-c", "import hansard, os; print(os.path.dirname(hansard.__file__))"],
                               check=True, capture_output=True, text=True).stdout.strip()
        self.package = where
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
        # as an installed hansard has it: each process would compile every module again otherwise
        subprocess.run([self.python, "-m", "compileall", "-q", where], env=env, check=True, capture_output=True)

    def hansard(self, *args: str) -> list[str]:
        return [self.python, "-m", "hansard", *args]


class Corpus:
    def __init__(self, spec: str, cache: str | None, work: Path, n_files: int) -> None:
        import real_corpus

        kind, _, name = spec.partition(":")
        if kind not in ("real", "real-clone"):
            raise SystemExit(f"{spec}: a corpus is real:NAME or real-clone:NAME")
        self.rc = real_corpus
        self.name = name
        self.clone = kind == "real-clone"
        self.dir = real_corpus.ensure(name, None, cache, log=log)
        self.manifest = json.loads((self.dir / "manifest.json").read_text())
        if self.clone and self.manifest.get("clone") is False:
            raise SystemExit(f"{spec}: no clone: the snapshot lacks a blob of its default branch's own tree")
        self.repo = self.dir / ("clone" if self.clone else "repo")
        self.files = real_corpus.sample_files(self.dir, n_files)
        self.lines = {rel: max(1, (self.repo / rel).read_bytes().count(b"\n") // 2) for rel in self.files}
        self.work = work / spec.replace(":", "-")
        self.work.mkdir(parents=True, exist_ok=True)
        # A clone's agent homes: empty but for the growing session of that step.
        self.homes = self.work / "homes"

    def env(self, code: Code, store: Path) -> dict[str, str]:
        base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
        env = self.rc.env_for(self.dir, store, base)
        if self.clone:
            env.update({k: str(self.homes / k.lower()) for k in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME",
                                                                   "OPENCODE_DATA_DIR")})
        env.pop("PYTHONPATH", None)  # the build's own interpreter finds its hansard
        env["HANSARD_NO_BACKGROUND"] = "1"
        return env

    def index_args(self) -> list[str]:
        return [str(self.repo)] if self.clone else self.rc.index_args(self.dir)

    def claude_projects(self) -> Path:
        """The Claude Code projects folder the questions' environment reads."""
        return (self.homes / "claude_config_dir" if self.clone else self.dir / "home" / ".claude") / "projects"

    def pristine(self, code: Code) -> Path:
        return self.work / code.label / "fresh"

    def first(self, code: Code) -> Path:
        """The store the first whole-file step asked, which the steady, growing and after-commit
        steps ask again; a fresh copy when that step did not run (``--only``)."""
        dst = self.work / code.label / "first"
        return dst if dst.exists() else self.copy(code, "first")

    def copy(self, code: Code, what: str) -> Path:
        """A copy of the build's freshly indexed store, for one step."""
        dst = self.work / code.label / what
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(self.pristine(code), dst, symlinks=True)
        synced(dst)
        return dst


def synced(folder: Path) -> None:
    """Every file of ``folder`` written to disk: a store copied a moment ago is hundreds of MB
    of dirty pages, which the first SQLite checkpoint's fsync would flush inside the first
    question's time (a store `hansard index` made was synced by its own last checkpoint)."""
    for f in sorted(folder.rglob("*")):
        if f.is_file() and not f.is_symlink():
            fd = os.open(f, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def median_ratio(rows: list[tuple[float, float]], plus: float) -> float:
    return statistics.median(h / (g + plus) for h, g in rows)


def summary(rows: list[tuple[float, float]], plus: float) -> dict:
    return {"hansard_ms": statistics.median(h for h, _ in rows), "git_ms": statistics.median(g for _, g in rows),
            "ratio": median_ratio(rows, plus), "n": len(rows)}


# -- the steps ---------------------------------------------------------------------------------


def step_index(c: Corpus, code: Code) -> dict:
    store = c.pristine(code)
    shutil.rmtree(store.parent, ignore_errors=True)
    store.parent.mkdir(parents=True)
    env = c.env(code, store)
    for old in c.manifest["path_maps"] if not c.clone else ():
        subprocess.run(code.hansard("config", "map", old, str(c.repo)), cwd=c.repo, env=env, check=True,
                       capture_output=True)
    wall, rss = run_rss(code.hansard("index", *c.index_args()), c.repo, env)
    mb = (archived_bytes(store / "hansard.db") if c.clone else c.manifest["home_bytes"]) / 1e6
    return {"seconds": wall, "mb": mb, "mb_s": mb / wall, "rss_mb": rss}


def archived_bytes(db: Path) -> int:
    """The bytes of transcripts a store archived (what a clone's checkpoint branch carried)."""
    import sqlite3

    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return int(con.execute('SELECT coalesce(sum("offset"), 0) FROM sources WHERE provider IS NOT NULL').fetchone()[0])
    finally:
        con.close()


def turns(c: Corpus, codes: list[Code], stores: dict[str, Path], ask, plus: float) -> dict[str, dict]:
    """``ask(code, env, rel)`` -> (hansard ms, git ms) of every file for every build, the builds
    taking turns file by file (each file starting with the next build in turn), so that the
    machine's drift over a step hits every build alike."""
    envs = {code.label: c.env(code, stores[code.label]) for code in codes}
    rows: dict[str, list[tuple[float, float]]] = {code.label: [] for code in codes}
    for k, rel in enumerate(c.files):
        for code in codes[k % len(codes):] + codes[:k % len(codes)]:
            rows[code.label].append(ask(code, envs[code.label], rel))
    out = {}
    for code in codes:
        r = rows[code.label]
        out[code.label] = summary(r, plus)
        out[code.label]["files"] = {rel: [round(h), round(g)] for rel, (h, g) in zip(c.files, r, strict=True)}
    return out


def step_first(c: Corpus, codes: list[Code]) -> dict[str, dict]:
    def ask(code, env, rel):
        g = timed([*BLAME, "--", rel], c.repo, env)
        return timed(code.hansard("why", rel, "--json"), c.repo, env), g
    return turns(c, codes, {code.label: c.copy(code, "first") for code in codes}, ask, 60)


def step_line(c: Corpus, codes: list[Code]) -> dict[str, dict]:
    def ask(code, env, rel):
        n = c.lines[rel]
        g = timed([*BLAME, "-L", f"{n},{n}", "--", rel], c.repo, env)
        return timed(code.hansard("why", f"{rel}:{n}", "--json"), c.repo, env), g
    return turns(c, codes, {code.label: c.copy(code, "line") for code in codes}, ask, 60)


def step_hover(c: Corpus, codes: list[Code]) -> dict[str, dict]:
    """Each build's language server in turn, over all the files (a server is one process per
    build: its first hovers are measured in one block)."""
    import bench_lsp

    out = {}
    for code in codes:
        store = c.copy(code, "hover")
        env = c.env(code, store)
        old = sys.executable
        sys.executable = code.python  # bench_lsp starts `sys.executable -m hansard lsp`
        try:
            r = asyncio.run(bench_lsp.bench(c.repo, len(c.files), 1, files=[(rel, c.lines[rel] - 1) for rel in c.files],
                                            env=env))
        finally:
            sys.executable = old
        rows = list(zip(r["firsts"], r["blames"], strict=True))
        out[code.label] = summary(rows, 30)
        out[code.label]["files"] = {rel: [round(h), round(g)] for rel, (h, g) in zip(c.files, rows, strict=True)}
    return out


def step_steady(c: Corpus, codes: list[Code], rounds: int) -> dict[str, dict]:
    def ask(code, env, rel):
        cmd = code.hansard("why", rel, "--json", "--no-cache")
        timed(cmd, c.repo, env)
        hs, gs = [], []
        for _ in range(rounds):
            hs.append(timed(cmd, c.repo, env))
            gs.append(timed([*BLAME, "--", rel], c.repo, env))
        return statistics.median(hs), statistics.median(gs)
    return turns(c, codes, {code.label: c.first(code) for code in codes}, ask, 60)


class Grower:
    """A Claude Code session in the corpus's repository that another thread appends a message
    to every ``every`` seconds (what an agent at work in another terminal does to its
    transcript); its file is removed at ``stop``."""

    def __init__(self, c: Corpus, every: float = 1.0) -> None:
        projects = c.claude_projects()
        if c.clone:  # no session of this machine yet: the agent starts one in the clone
            cwd: str | None = str(c.repo)
            folder = projects / str(c.repo).replace("/", "-").replace(".", "-")
            folder.mkdir(parents=True, exist_ok=True)
        else:
            folder = max((p for p in projects.iterdir() if p.is_dir()), key=lambda p: len(list(p.glob("*.jsonl"))))
            cwd = None
        for f in sorted(folder.glob("*.jsonl")) if cwd is None else ():
            for line in f.open(encoding="utf-8", errors="replace"):
                if '"cwd"' in line:
                    try:
                        cwd = json.loads(line).get("cwd")
                    except ValueError:
                        continue
                    if cwd:
                        break
            if cwd:
                break
        self.sid = str(uuid.UUID(int=0x6e6f77 << 96 | 1))
        self.path = folder / f"{self.sid}.jsonl"
        self.cwd, self.every, self.n, self.parent = cwd, every, 0, None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _record(self, kind: str, content) -> str:
        self.n += 1
        u = str(uuid.UUID(int=0x6e6f77 << 96 | 0x1000 + self.n))
        t = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
        rec = {"parentUuid": self.parent, "isSidechain": False, "userType": "external", "cwd": self.cwd,
               "sessionId": self.sid, "version": "2.1.4", "type": kind, "uuid": u, "timestamp": t,
               "message": {"role": kind, "content": content} if kind == "user" else
               {"model": "claude-opus-4-5-20251101", "id": f"msg_bench{self.n}", "type": "message", "role": kind,
                "content": content}}
        self.parent = u
        return json.dumps(rec) + "\n"

    def start(self) -> Grower:
        self.path.write_text(self._record("user", "keep working on the command's tests"), encoding="utf-8")
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(self._record("assistant", [{"type": "text", "text": f"Still at it, step {self.n}."}]))

    def size(self) -> int:
        return self.path.stat().st_size

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self.path.unlink(missing_ok=True)


def step_grow(c: Corpus, codes: list[Code]) -> dict[str, dict]:
    g = Grower(c).start()
    try:
        def ask(code, env, rel):
            seen = g.size()
            while g.size() == seen:  # a message came since the last question
                time.sleep(0.05)
            return timed(code.hansard("why", rel, "--json"), c.repo, env), timed([*BLAME, "--", rel], c.repo, env)
        return turns(c, codes, {code.label: c.first(code) for code in codes}, ask, 60)
    finally:
        g.stop()


def step_commit(c: Corpus, codes: list[Code]) -> dict[str, dict]:
    """Per file, one commit that every build then meets in turn (each in its own store)."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=c.repo, check=True, capture_output=True,
                          text=True).stdout.strip()
    committed: dict[str, bool] = {}

    def ask(code, env, rel):
        if rel not in committed:
            subprocess.run(["git", "reset", "-q", "--hard", head], cwd=c.repo, check=True, capture_output=True)
            p = c.repo / rel
            p.write_bytes(p.read_bytes() + f"{COMMENT.get(p.suffix, '#')} checked by the bench\n".encode())
            subprocess.run(["git", "commit", "-q", "-m", f"bench: one line in {rel}", "--", rel], cwd=c.repo,
                           env={**env, **WHO}, check=True, capture_output=True)
            committed[rel] = True
        return timed(code.hansard("why", rel, "--json"), c.repo, env), timed([*BLAME, "--", rel], c.repo, env)
    try:
        return turns(c, codes, {code.label: c.first(code) for code in codes}, ask, 60)
    finally:
        subprocess.run(["git", "reset", "-q", "--hard", head], cwd=c.repo, check=True, capture_output=True)


def blame_all(repo: Path, pairs: list[tuple[str | None, str]], jobs: int) -> float:
    """Wall ms of `git blame -w -M -C --porcelain [REV] -- PATH` of every pair, ``jobs`` at a time."""
    def one(pair):
        rev, rel = pair
        subprocess.run([*BLAME, *([rev] if rev else []), "--", rel], cwd=repo, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    t = time.perf_counter()
    with ThreadPoolExecutor(jobs) as ex:
        list(ex.map(one, pairs))
    return (time.perf_counter() - t) * 1e3


def step_stats(c: Corpus, code: Code, jobs: int) -> dict:
    store = c.copy(code, "stats")
    env = c.env(code, store)
    t = time.perf_counter()
    out = subprocess.run(code.hansard("stats", "--json"), cwd=c.repo, env=env, check=True, capture_output=True)
    ms = (time.perf_counter() - t) * 1e3
    doc = json.loads(out.stdout)
    files = sorted(doc["files"])
    shutil.rmtree(store, ignore_errors=True)
    return {"hansard_ms": ms, "files": len(files), "pairs": [(None, f) for f in files]}


def range_pairs(repo: Path, rev_range: str) -> list[tuple[str, str]]:
    """(commit, path) of every file each commit of the range added or changed against its
    first parent (what `trace export` answers)."""
    shas = subprocess.run(["git", "rev-list", rev_range], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.split()
    pairs = []
    for sha in shas:
        parents = subprocess.run(["git", "rev-list", "--parents", "-n1", sha], cwd=repo, check=True,
                                 capture_output=True, text=True).stdout.split()[1:]
        cmd = ["git", "diff-tree", "-r", "--name-only", "--diff-filter=d", "-z", "--no-commit-id"]
        cmd += [parents[0], sha] if parents else ["--root", sha]
        out = subprocess.run(cmd, cwd=repo, check=True, capture_output=True).stdout
        pairs += [(sha, p.decode()) for p in out.split(b"\0") if p]
    return pairs


def step_trace(c: Corpus, code: Code, rev_range: str) -> dict:
    store = c.copy(code, "trace")
    env = c.env(code, store)
    out = c.work / code.label / "trace-out"
    shutil.rmtree(out, ignore_errors=True)
    t = time.perf_counter()
    subprocess.run(code.hansard("trace", "export", rev_range, "--out", str(out)), cwd=c.repo, env=env, check=True,
                   capture_output=True)
    ms = (time.perf_counter() - t) * 1e3
    shutil.rmtree(store, ignore_errors=True)
    return {"hansard_ms": ms, "records": len(list(out.glob("*.json")))}


# -- the run -----------------------------------------------------------------------------------

TARGETS = {"first": ("first whole-file why / (blame + 60 ms)", 1.3), "line": ("first one-line why / (blame -L + 60 ms)", 1.3),
           "hover": ("first hover / (blame + 30 ms)", 1.2), "steady": ("steady whole-file why / (blame + 60 ms)", 1.2),
           "grow": ("why while a transcript grows / (blame + 60 ms)", 1.5),
           "commit": ("why after a one-line commit / (blame + 60 ms)", 1.5)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="real:cli,real:entire-graph")
    ap.add_argument("--code", action="append", required=True, help="LABEL=PYTHON (repeat; the builds side by side)")
    ap.add_argument("--files", type=int, default=10, help="files per corpus (default 10)")
    ap.add_argument("--rounds", type=int, default=3, help="steady rounds per file (default 3)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="blame's parallelism beside stats and trace")
    ap.add_argument("--range", default="HEAD~5..HEAD", help="trace export's range (default HEAD~5..HEAD)")
    ap.add_argument("--only", help="steps, comma-separated: " + ",".join(STEPS))
    ap.add_argument("--cache", help="where the corpora are (real_corpus's cache)")
    ap.add_argument("--work", help="where the stores go (default a temporary folder, removed)")
    ap.add_argument("--json", help="write every result to this file too")
    a = ap.parse_args()
    steps = [s for s in STEPS if not a.only or s in a.only.split(",")]
    if "index" not in steps:
        steps.insert(0, "index")  # every other step starts from a fresh store
    codes = [Code(s) for s in a.code]
    work = Path(a.work or tempfile.mkdtemp(prefix="hansard-bench-first-"))
    results: dict = {}
    try:
        for spec in a.corpus.split(","):
            c = Corpus(spec, a.cache, work, a.files)
            res = results.setdefault(spec, {})
            log(f"{spec}: {len(c.files)} files, {c.manifest['home_bytes'] / 1e6:.0f} MB of transcripts")
            for step in steps:
                if step in TURNS:  # the builds take turns file by file
                    log(f"{spec} {step}")
                    extra = (a.rounds,) if step == "steady" else ()
                    res[step] = globals()[f"step_{step}"](c, codes, *extra)
                for code in codes if step not in TURNS else ():
                    log(f"{spec} {step} {code.label}")
                    if step == "index":
                        r = step_index(c, code)
                    elif step == "stats":
                        r = step_stats(c, code, a.jobs)
                    else:
                        r = step_trace(c, code, a.range)
                    res.setdefault(step, {})[code.label] = r
                if step == "stats":
                    pairs = res["stats"][codes[0].label].pop("pairs")
                    for code in codes[1:]:
                        res["stats"][code.label].pop("pairs")
                    res["stats_git"] = {"jobs": a.jobs, "ms": blame_all(c.repo, pairs, a.jobs),
                                        "ms_1": blame_all(c.repo, pairs, 1), "files": len(pairs)}
                if step == "trace":
                    pairs = range_pairs(c.repo, a.range)
                    res["trace_git"] = {"jobs": a.jobs, "ms": blame_all(c.repo, pairs, a.jobs),
                                        "ms_1": blame_all(c.repo, pairs, 1), "pairs": len(pairs)}
                report(spec, res, codes)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
        if a.json:
            Path(a.json).write_text(json.dumps(results, indent=1))
    for spec, res in results.items():
        report(spec, res, codes, out=sys.stdout)


def report(spec: str, res: dict, codes: list[Code], out=sys.stderr) -> None:
    labels = [c.label for c in codes]
    rows = [("", labels)]
    if "index" in res:
        r = res["index"]
        rows.append(("index: s, MB/s (target 50), peak MB (target 400)",
                     [f"{r[x]['seconds']:.1f} s, {r[x]['mb_s']:.1f} MB/s, {r[x]['rss_mb']:.0f} MB" for x in labels]))
    for step, (what, target) in TARGETS.items():
        if step in res:
            r = res[step]
            rows.append((f"{what} (target {target})",
                         [f"{r[x]['hansard_ms']:.0f} / {r[x]['git_ms']:.0f} ms ({r[x]['ratio']:.2f}) "
                          f"{'PASS' if r[x]['ratio'] <= target else 'MISS'}" for x in labels]))
    for step, what in (("stats", "first stats / blame of every file counted"),
                       ("trace", "trace export of a range / blame of the files it touches")):
        if step in res and f"{step}_git" in res:
            g = res[f"{step}_git"]
            cells = []
            for x in labels:
                ms = res[step][x]["hansard_ms"]
                cells.append(f"{ms / 1e3:.1f} s / {g['ms'] / 1e3:.1f} s ({ms / g['ms']:.2f}; {ms / g['ms_1']:.2f}) "
                             f"{'PASS' if ms / g['ms'] <= 1.5 else 'MISS'}")
            rows.append((f"{what} (x{g['jobs']}; x1) (target 1.5)", cells))
    w0 = max(len(t) for t, _ in rows)
    ws = [max(len(cells[j]) for _, cells in rows) for j in range(len(labels))]
    print(f"== {spec}", file=out)
    for title, cells in rows:
        print(f"{title:<{w0}}  " + "  ".join(f"{x:>{w}}" for x, w in zip(cells, ws, strict=True)), file=out)
    out.flush()


if __name__ == "__main__":
    main()
