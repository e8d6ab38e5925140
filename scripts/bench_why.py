"""Benchmark `hansard why` against `git blame -w -M -C --porcelain` (the blame `why` runs) on
the same repository and file, side by side.

Two corpora, built with git fast-import (or reused with --dir):

  * ``--corpus gots`` (default): shaped like real Go/TypeScript work. Six files of 1,000-4,000
    lines full of common lines (``}``, ``return nil``, ``if err != nil {``, ``});``), 1,500
    commits, 320 Claude Code sessions whose Edit calls wrote most of them; some commits a
    person made alone, some where a person changed the agent's line before committing.
  * ``--corpus big``: one 1,000-line file rewritten by 4,000 commits (600 with --quick), 1,000
    (200) sessions that each wrote a whole version of it.

  * ``--corpus real:NAME``: a public repository's own history and the agent sessions Entire
    kept for it (``scripts/real_corpus.py``: entire-graph, cli, marvin, oh-my-posh), built once
    into a cache outside the checkout, the sessions in their agents' homes and the folders they
    ran in given to ``hansard config map``. It is indexed into a fresh store, timing the index
    and the first ``why`` (a repository whose facts are not computed yet) apart; the files are
    its tracked source files that sessions touched most, spread over sizes (40; 10 with
    --quick), and a precision line checks every agent line of a commit with an
    ``Entire-Checkpoint`` trailer against the sessions that checkpoint names; coverage is the
    share of those commits' lines answered ``agent`` or ``agent_modified``.
  * ``--corpus real-clone:NAME``: the same repository as a new user has it, a clone keeping
    its checkpoint branch, read by ``hansard index CLONE`` alone (no agent home, no ``config
    map``): the sessions come from the branch, recorded wherever they were (Windows, for
    oh-my-posh).

``--corpus gots,real:cli`` runs each and prints a table of them side by side.

Then, per file, in alternation so machine noise hits both equally:

  * one line:    `hansard why FILE:N --json --no-cache`  vs  `git blame -w -M -C -L N,N --porcelain`
  * whole file:  `hansard why FILE --json --no-cache`    vs  `git blame -w -M -C --porcelain FILE`
  * re-opened:   `hansard why FILE --json` a second time (the why-result cache)

Targets: whole file, median over the files, <= 1.5x (blame + 60 ms); one line <=
1.3x blame -L + 60 ms; re-opened <= 80 ms. Bytecode is written (as an installed hansard has
it), whatever PYTHONDONTWRITEBYTECODE says. Prints medians, ratios and PASS/MISS. Never run
in CI.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

LINES = 1000
T0 = 1_780_000_000  # 2026-05-28, fixed so the corpus is the same every run


def words(rng: random.Random, n: int) -> str:
    vocab = ["alpha", "beta", "gamma", "delta", "retry", "upload", "cache", "value", "index", "result", "total",
             "count", "items", "payload", "config", "session", "token", "buffer", "offset", "limit"]
    return "_".join(rng.choice(vocab) for _ in range(n))


def new_line(rng: random.Random, i: int) -> str:
    return f"    {words(rng, 2)}_{i} = compute_{words(rng, 1)}({words(rng, 1)}, {rng.randint(0, 10**6)})"


def build(root: Path, commits: int, sessions: int, seed: int) -> tuple[Path, Path]:
    """The ``big`` corpus."""
    rng = random.Random(seed)
    repo = root / "repo"
    home = root / "home"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    lines = [new_line(rng, i) for i in range(LINES)]
    session_every = max(1, commits // sessions)
    stream: list[bytes] = []
    sessions_out = Sessions(home, repo)
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
        if c % session_every == 0 and sessions_out.count < sessions:
            # one session per version: it writes the whole file (a Write over the old version)
            w = sessions_out.start(f"{seed:04d}{sessions_out.count:04d}-0000-4000-8000-{c:012d}", t - 150,
                                   "update the computations in big()")
            sessions_out.put("src/big.py", ["def big():", *before], t - 120)
            w.write(repo / "src/big.py", data.decode())
    sessions_out.clear()
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(stream), check=True)
    subprocess.run(["git", "checkout", "-q", "main"], cwd=repo, check=True)
    subprocess.run(["git", "commit-graph", "write", "--reachable"], cwd=repo, check=True, capture_output=True)
    return repo, home


class Sessions:
    """Claude Code sessions written by the fixtures' one transcript writer
    (``fixtures_repos.writers.ClaudeWriter``), which performs each edit on the file in the
    working tree: before an edit, the file is put in the state it had at that moment of the
    corpus' history (the repository itself is written by fast-import, apart from the writer).
    One clock for all sessions: the corpus' edits come in time order."""

    def __init__(self, home: Path, repo: Path) -> None:
        from fixtures_repos.writers import Clock

        self.home, self.repo = home / ".claude", repo
        self.clock = Clock(datetime.fromtimestamp(T0 - 3600, UTC))
        self.count = 0
        self.writer = None
        self._put: set[Path] = set()

    def at(self, t: float) -> None:
        """Move the clock to ``t`` (never back)."""
        self.clock.advance(max(0.0, t - self.clock.now().timestamp()))

    def start(self, sid: str, t: float, prompt: str):
        from fixtures_repos.writers import ClaudeWriter

        self.at(t)
        self.writer = ClaudeWriter(self.home, self.repo, sid, self.clock)
        self.writer.prompt(prompt)
        self.count += 1
        return self.writer

    def put(self, rel: str, lines: list[str], t: float) -> None:
        """The file as it is just before an edit at time ``t``."""
        p = self.repo / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        self._put.add(p)
        self.at(t)

    def clear(self) -> None:
        """The working tree empty again, for the checkout of what fast-import wrote."""
        for p in self._put:
            p.unlink(missing_ok=True)


# -- the Go/TypeScript-shaped corpus -----------------------------------------------------------

GOTS_FILES = {  # path -> (language, lines to grow to)
    "server/handlers.go": ("go", 3500), "server/store.go": ("go", 2200), "internal/jobs/worker.go": ("go", 1200),
    "web/src/api/client.ts": ("ts", 4000), "web/src/components/Table.tsx": ("ts", 1600),
    "web/src/lib/format.ts": ("ts", 1000),
}
ENTITIES = ["User", "Order", "Invoice", "Project", "Team", "Token", "Upload", "Report", "Webhook", "Session",
            "Payment", "Account", "Invite", "Comment", "Label", "Build"]
VERBS = ["Get", "List", "Create", "Update", "Delete", "Sync", "Archive", "Restore", "Export", "Validate"]
FIELDS = ["ID", "Name", "Email", "Status", "CreatedAt", "UpdatedAt", "OwnerID", "Total", "Count", "Limit", "Offset"]


def _go_block(rng: random.Random, n: int) -> list[str]:
    ent, verb = rng.choice(ENTITIES), rng.choice(VERBS)
    var = ent[0].lower() + ent[1:]
    out = [f"func (s *Server) handle{verb}{ent}{n}(w http.ResponseWriter, r *http.Request) {{",
           "\tctx := r.Context()",
           f"\t{var}, err := s.store.{verb}{ent}(ctx, chi.URLParam(r, \"{var}ID\"))",
           "\tif err != nil {",
           "\t\thttp.Error(w, err.Error(), http.StatusInternalServerError)",
           "\t\treturn",
           "\t}"]
    for _ in range(rng.randint(2, 12)):
        f = rng.choice(FIELDS)
        out += rng.choice([
            [f"\tif {var}.{f} == \"\" {{", "\t\treturn", "\t}"],
            [f"\t{var}.{f} = strings.TrimSpace(r.FormValue(\"{f.lower()}_{rng.randint(0, 99)}\"))"],
            [f"\tif err := s.audit.Record(ctx, \"{var}.{verb.lower()}\", {var}.ID); err != nil {{",
             "\t\treturn", "\t}"],
            [f"\tlog.Printf(\"{verb.lower()} {var} %s: {f.lower()}={rng.randint(0, 9999)}\", {var}.ID)"],
            ["\tdefer cancel()"],
        ])
    out += [f"\twriteJSON(w, http.StatusOK, {var})", "}", ""]
    return out


def _ts_block(rng: random.Random, n: int) -> list[str]:
    ent, verb = rng.choice(ENTITIES), rng.choice(VERBS)
    out = [f"export async function {verb.lower()}{ent}{n}(id: string): Promise<{ent}> {{",
           f"  const res = await fetch(`/api/{ent.lower()}s/${{id}}?v={rng.randint(0, 999)}`);",
           "  if (!res.ok) {",
           "    throw new Error(res.statusText);",
           "  }",
           "  const data = await res.json();"]
    for _ in range(rng.randint(2, 12)):
        f = rng.choice(FIELDS)
        out += rng.choice([
            [f"  if (!data.{f[0].lower() + f[1:]}) {{", "    return data;", "  }"],
            [f"  data.{f[0].lower() + f[1:]} = normalize{f}(data.{f[0].lower() + f[1:]}, {rng.randint(0, 99)});"],
            ["  items.forEach((item) => {", f"    item.{f[0].lower() + f[1:]} = data.id;", "  });"],
            [f"  console.debug('{verb.lower()} {ent.lower()}', id, {rng.randint(0, 9999)});"],
            ["  return data;"],
        ])
    out += [f"  return data as {ent};", "}", ""]
    return out


def _block(rng: random.Random, lang: str, n: int) -> list[str]:
    return _go_block(rng, n) if lang == "go" else _ts_block(rng, n)


def _header(lang: str) -> list[str]:
    if lang == "go":
        return ["package server", "", "import (", "\t\"log\"", "\t\"net/http\"", "\t\"strings\"", "",
                "\t\"github.com/go-chi/chi/v5\"", ")", ""]
    return ["import { normalizeID, normalizeName } from '../lib/normalize';", "import type { User } from './types';", ""]


def _tweak(rng: random.Random, line: str) -> str:
    """A person's small change to a line (a renamed value, a number): similar, not equal."""
    if any(c.isdigit() for c in line):
        return "".join(str(rng.randint(0, 9)) if c.isdigit() else c for c in line)
    return line.replace("err", "e", 1) if "err" in line else line + " // checked"


def _unique_at(text: str, lines: list[str], a: int, b: int) -> bool:
    """Lines a..b of the file occur in its text once (overlaps counted), so an Edit of them
    changes these lines and no others."""
    at = sum(len(x) + 1 for x in lines[:a])
    old = "\n".join(lines[a:b])
    return text.find(old) == at and text.find(old, at + 1) == -1


def build_gots(root: Path, seed: int, commits: int = 1500, sessions: int = 320) -> tuple[Path, Path]:
    rng = random.Random(seed)
    repo, home = root / "repo", root / "home"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    files: dict[str, list[str]] = {}
    n = 0
    for path, (lang, size) in GOTS_FILES.items():
        lines = _header(lang)
        while len(lines) < size * 0.6:
            n += 1
            lines += _block(rng, lang, n)
        files[path] = lines
    stream: list[bytes] = []
    out = Sessions(home, repo)
    in_session = 0  # edits the current session has made
    agent_commits = commits * 2 // 3
    per_session = max(1, agent_commits // sessions)
    paths = list(GOTS_FILES)

    def emit(c: int, t: int, msg: str, changed: dict[str, list[str]]) -> None:
        stream.append(f"commit refs/heads/main\nmark :{c + 1}\n".encode())
        stream.append(f"author Dev <dev@example.com> {t} +0000\ncommitter Dev <dev@example.com> {t} +0000\n".encode())
        m = msg.encode()
        stream.append(f"data {len(m)}\n".encode() + m + b"\n")
        if c:
            stream.append(f"from :{c}\n".encode())
        for p, lines in changed.items():
            data = ("\n".join(lines) + "\n").encode()
            stream.append(f"M 100644 inline {p}\ndata {len(data)}\n".encode() + data + b"\n")

    emit(0, T0, "initial import", files)
    agent_done = 0
    for c in range(1, commits):
        t = T0 + c * 300
        path = rng.choice(paths)
        lang, size = GOTS_FILES[path]
        lines = files[path]
        before = list(lines)
        # one contiguous change: grow until the file reaches its size, then mostly rewrite
        op = rng.random()
        if len(lines) < size and op < 0.6:
            at = rng.randrange(len(_header(lang)), len(lines))
            while at < len(lines) and lines[at - 1] != "":
                at += 1
            n += 1
            a, b, new = at, at, _block(rng, lang, n)
        elif op < 0.85 or len(lines) <= size * 0.8:
            a = rng.randrange(len(_header(lang)), len(lines) - 6)
            b = a + rng.randint(1, 4)
            new = [_tweak(rng, x) if x.strip() not in ("}", "", "});") else x for x in lines[a:b]]
            if new == lines[a:b]:
                new = new[:-1] + [new[-1] + "  // TODO"]
        else:
            a = rng.randrange(len(_header(lang)), len(lines) - 30)
            b = a + rng.randint(8, 25)
            new = []
        by_agent = agent_done < agent_commits and rng.random() < 0.68
        if by_agent:
            if not out.count or in_session >= per_session and out.count < sessions:
                out.start(f"{seed:04x}{out.count:04x}-6a1e-4c0d-9e2f-{c:012x}", t - 120,
                          "implement the handlers and the client calls for the new endpoints")
                in_session = 0
            agent_done += 1
            in_session += 1
            # Edit's old_string: the changed lines and 3 lines around them, more until it is
            # unique in the file (as the agent has to make it)
            ctx_a, ctx_b = max(0, a - 3), min(len(lines), b + 3)
            text = "\n".join(lines) + "\n"
            while not _unique_at(text, lines, ctx_a, ctx_b):
                ctx_a, ctx_b = max(0, ctx_a - 1), min(len(lines), ctx_b + 1)
            old_s, new_s = "\n".join(lines[ctx_a:ctx_b]), "\n".join(lines[ctx_a:a] + new + lines[b:ctx_b])
            out.put(path, lines, t - 90)
            out.writer.edit(repo / path, old_s, new_s)
            if (repo / path).read_text(encoding="utf-8") != "\n".join(lines[:a] + new + lines[b:]) + "\n":
                raise AssertionError(f"the Edit of commit {c} did not give the committed text")
        lines[a:b] = new
        if by_agent and new and rng.random() < 0.15:  # a person changes one of the agent's lines
            k = a + rng.randrange(len(new))
            if lines[k].strip() not in ("}", "", "});"):
                lines[k] = _tweak(rng, lines[k])
        if lines == before:
            lines.append("")
        emit(c, t, f"{'agent' if by_agent else 'dev'}: change {c} in {path}", {path: lines})
    out.clear()
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(stream), check=True)
    subprocess.run(["git", "checkout", "-q", "main"], cwd=repo, check=True)
    subprocess.run(["git", "commit-graph", "write", "--reachable"], cwd=repo, check=True, capture_output=True)
    return repo, home


# -- measuring -------------------------------------------------------------------------------------


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


BLAME = ["git", "blame", "-w", "-M", "-C", "--porcelain"]


def measure(repo: Path, env: dict[str, str], rel: str, line: int, rounds: int) -> dict:
    hansard = [sys.executable, "-m", "hansard"]
    one = [*hansard, "why", f"{rel}:{line}", "--json", "--no-cache"]
    whole = [*hansard, "why", rel, "--json", "--no-cache"]
    again = [*hansard, "why", rel, "--json"]
    for cmd in (one, whole, again, [*BLAME, "-L", f"{line},{line}", rel], [*BLAME, rel]):  # warm both
        timed(cmd, repo, env)
    r: dict[str, list[float]] = {k: [] for k in ("one", "one_git", "whole", "whole_git", "again")}
    for _ in range(rounds):
        r["one"].append(timed(one, repo, env))
        r["one_git"].append(timed([*BLAME, "-L", f"{line},{line}", rel], repo, env))
        r["whole"].append(timed(whole, repo, env))
        r["whole_git"].append(timed([*BLAME, rel], repo, env))
        r["again"].append(timed(again, repo, env))
    out = {k: statistics.median(v) * 1e3 for k, v in r.items()}
    doc = json.loads(subprocess.run(again, cwd=repo, env=env, check=True, capture_output=True).stdout)
    out["doc"] = doc
    out["lines"] = len(doc["lines"])
    out["kinds"] = dict(sorted((k, sum(1 for x in doc["lines"] if x["kind"] == k))
                                for k in {x["kind"] for x in doc["lines"]}))
    return out


def run(quick: bool = False, directory: str | None = None, rounds: int = 15, seed: int = 7,
        corpus: str = "gots", info: dict | None = None) -> list[dict]:
    root = Path(directory or tempfile.mkdtemp(prefix="hansard-bench-why-"))
    if not (root / "repo").exists():
        t = time.perf_counter()
        if corpus == "gots":
            build_gots(root, seed, *((500, 120) if quick else (1500, 320)))
        else:
            build(root, *((600, 200) if quick else (4000, 1000)), seed)
        print(f"built the {corpus} corpus in {time.perf_counter() - t:.1f}s at {root}", file=sys.stderr)
    repo, home = root / "repo", root / "home"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    # An editable install never writes hansard's bytecode while PYTHONDONTWRITEBYTECODE is set
    # (each process would compile every module again): write it once, as an installed wheel has it.
    import importlib.util

    package = os.path.dirname(importlib.util.find_spec("hansard").origin)  # the one `-m hansard` runs
    subprocess.run([sys.executable, "-m", "compileall", "-q", package], env=env, check=True, capture_output=True)
    env.update(HANSARD_HOME=str(root / "store"), CLAUDE_CONFIG_DIR=str(home / ".claude"),
               CODEX_HOME=str(home / ".codex"), GEMINI_CLI_HOME=str(home))
    env["PYTHONPATH"] = os.pathsep.join(x for x in (str(ROOT), env.get("PYTHONPATH")) if x)  # hansard, installed or not
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "hansard", "index"], cwd=repo, env=env, check=True, capture_output=True)
    index_s = time.perf_counter() - t
    print(f"indexed in {index_s:.1f}s", file=sys.stderr)
    files = list(GOTS_FILES) if corpus == "gots" else ["src/big.py"]
    per_file = []
    for rel in files:
        n = sum(1 for _ in open(repo / rel, encoding="utf-8"))
        m = measure(repo, env, rel, n // 2, rounds)
        m["file"] = rel
        per_file.append(m)
        print(f"{rel} ({m['lines']} lines, {m['kinds']}): one line {m['one']:.0f} ms vs blame -L {m['one_git']:.0f}; "
              f"whole {m['whole']:.0f} ms vs blame {m['whole_git']:.0f}; re-opened {m['again']:.0f} ms", file=sys.stderr)
    rows = _rows(per_file)
    if not directory:
        shutil.rmtree(root, ignore_errors=True)
    if info is not None:
        info.update(index_s=index_s, files=len(per_file), lines=sum(m["lines"] for m in per_file))
    return rows


def _rows(per_file: list[dict]) -> list[dict]:
    med = statistics.median
    whole_ratio = med(m["whole"] / (m["whole_git"] + 60) for m in per_file)
    one_ratio = med(m["one"] / (m["one_git"] + 60) for m in per_file)  # the target: 1.3x (blame -L + 60 ms)
    again = med(m["again"] for m in per_file)
    return [
        {"target": "why whole file <= 1.5x (git blame -w -M -C + 60 ms), median over files",
         "measured_ms": med(m["whole"] for m in per_file), "baseline_ms": med(m["whole_git"] for m in per_file),
         "ratio": whole_ratio, "pass": whole_ratio <= 1.5},
        {"target": "why one line <= 1.3x (git blame -w -M -C -L + 60 ms), median over files",
         "measured_ms": med(m["one"] for m in per_file), "baseline_ms": med(m["one_git"] for m in per_file),
         "ratio": one_ratio, "pass": one_ratio <= 1.3},
        {"target": "why --json of an unchanged file again (cache) <= 80 ms", "measured_ms": again,
         "baseline_ms": med(m["whole_git"] for m in per_file), "ratio": again / 80, "pass": again <= 80},
    ]


# -- real history (scripts/real_corpus.py) ------------------------------------------------------


FIXUP = re.compile(r"git\b[^\n]*\bcommit\b[^\n]*?(?:-m|--message)[ =]*\\?[\"']?(?:fixup|squash|amend)! ([^\"'\\\n]+)")


def fixups(db_path: Path) -> dict[str, set[str]]:
    """Session id (as checkpoints name it) -> the subjects of the commits its own shell calls
    made ``fixup!``, ``squash!`` or ``amend!`` commits of (an autosquash puts that session's work
    into the commit of that subject, after its checkpoint was written)."""
    import sqlite3

    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    out: dict[str, set[str]] = {}
    for key, claimed, raw in db.execute(
            "SELECT s.session_id, s.claimed_id, t.input FROM tool_calls t JOIN sessions s ON s.id=t.session_id"
            " WHERE instr(t.input, 'fixup!') > 0 OR instr(t.input, 'squash!') > 0 OR instr(t.input, 'amend!') > 0"):
        try:
            cmd = json.loads(raw).get("command") or ""
        except (ValueError, AttributeError):
            continue
        for m in FIXUP.finditer(str(cmd)):
            out.setdefault(claimed or key, set()).add(m.group(1).strip())
    db.close()
    return out


def precision(docs: dict[str, dict], truth: dict[str, dict], examples: int = 5,
              squashed: dict[str, set[str]] | None = None) -> dict:
    """Agent lines (``agent``, ``agent_modified``) answered in commits with an
    ``Entire-Checkpoint`` trailer, against the sessions their checkpoints name: right when
    the line's session (or the session it is a subagent of) is one of them. Judged apart:
    commits all of whose named sessions the corpus holds up to that checkpoint (``full``),
    and commits with a session it lacks or holds only from an older copy (``partial``: the
    snapshot lacks blobs over 4 MiB, so the edits that made the commit may be missing, and
    the line's true author with them). Lines of commits none of whose sessions are readable
    are not judged."""
    out = {k: {"right": 0, "wrong": 0, "lines": 0, "resumed": 0, "squashed": 0, "compact": 0, "examples": []}
           for k in ("full", "partial")}
    unjudged = elsewhere = 0
    for rel, doc in sorted(docs.items()):
        sessions = doc.get("sessions") or {}
        for x in doc["lines"]:
            t = truth.get(x.get("commit") or "")
            if t is not None and t["sessions"]:
                out["partial" if t["unreadable_sessions"] or t.get("incomplete_sessions") else "full"]["lines"] += 1
            if x.get("kind") not in ("agent", "agent_modified") or not x.get("commit"):
                continue
            if t is None:
                elsewhere += 1
                continue
            if not t["sessions"]:
                unjudged += 1
                continue
            b = out["partial" if t["unreadable_sessions"] or t.get("incomplete_sessions") else "full"]
            sid = x.get("session_id")
            parent = (sessions.get(sid) or {}).get("parent_session_id")
            # A session read from the repository's own refs is stored under a key of its own:
            # the checkpoint names the id it claims.
            one = _conversation(sessions, sid)
            sid = _claimed(sessions, sid)
            parent = _claimed(sessions, parent) if parent else None
            if sid in t["sessions"] or (parent and parent in t["sessions"]):
                b["right"] += 1
                continue
            if {sid, parent} & _unread(t):
                # a session the checkpoint names whose full.jsonl the corpus lacks, read from
                # its compact transcript.jsonl
                b["right"] += 1
                b["compact"] += 1
                continue
            if one & set(t["sessions"]):
                # the checkpoint names a resumed copy of the line's conversation (the answer
                # names it too, in `resumed_from` / `resumed_in`)
                b["right"] += 1
                b["resumed"] += 1
                continue
            b["wrong"] += 1
            summary = ((doc.get("commits") or {}).get(x["commit"]) or {}).get("summary") or ""
            if summary and any(summary.startswith(subject) for subject in (squashed or {}).get(sid or "", ())):
                # the line's session made a fixup of this commit, squashed in after its
                # checkpoint was written: the checkpoint cannot name it (set aside, not wrong)
                b["squashed"] += 1
                continue
            if len(b["examples"]) < examples:
                named = ", ".join(s[:13] for s in t["sessions"][:3]) + (" …" if len(t["sessions"]) > 3 else "")
                missing = len(t["unreadable_sessions"]) + len(t.get("incomplete_sessions", []))
                b["examples"].append(f"{rel}:{x['line']} commit {x['commit'][:10]} ({x.get('kind')}/{x.get('rule')}) "
                                     f"says {sid}; its {len(t['checkpoints'])} checkpoint(s) name {named}"
                                     + (f" ({missing} unreadable or cut short)" if missing else ""))
    for b in out.values():
        judged = b["right"] + b["wrong"]
        b["precision"] = b["right"] / judged if judged else None
        aside = judged - b["squashed"]
        b["precision_aside"] = b["right"] / aside if aside else None
        b["coverage"] = b["right"] / b["lines"] if b["lines"] else None
    right = out["full"]["right"] + out["partial"]["right"]
    wrong = out["full"]["wrong"] + out["partial"]["wrong"]
    return {**out, "right": right, "wrong": wrong, "precision": right / (right + wrong) if right + wrong else None,
            "unjudged": unjudged, "untrailered": elsewhere}


def _unread(t: dict) -> set[str]:
    """The sessions a commit's checkpoints name that the corpus could not read from a
    ``full.jsonl`` (as their UUIDs, the ids hansard claims for them)."""
    uuid = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
    return {m.group(0) if (m := uuid.search(s)) else s for s in t["unreadable_sessions"]}


def written_recall(docs: dict[str, dict], truth: dict[str, dict], db_path: Path, slack_s: int = 60,
                   partial: bool = False) -> dict:
    """Recall of the lines the named sessions' own edit calls wrote: of the non-trivial lines of
    commits all of whose named sessions are readable (``full``), those whose text an applied
    edit of one of those sessions (or of a resumed copy of one) added by its own diff, into that
    file, before the commit; right when `why` answers ``agent`` or ``agent_modified`` with one
    of them. Unlike coverage it does not depend on how much of a commit the sessions wrote
    through tool calls at all (shell redirections, subagents whose transcripts the checkpoints
    do not keep, another machine's edits), so corpora compare. The store is read as it is, by
    SQL: this is a grader, not an answer."""
    import sqlite3
    from datetime import datetime

    from hansard.text import textnorm

    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    parent: dict[str, str] = {}
    named_as: dict[str, str] = {}
    for key, claimed, resumed in db.execute("SELECT session_id, claimed_id, resumed_from FROM sessions"):
        named_as[key] = claimed or key
        if resumed:
            parent[key] = resumed

    def root(key: str) -> str:
        seen = set()
        while key in parent and key not in seen:
            seen.add(key)
            key = parent[key]
        return key

    groups: dict[str, set[str]] = {}  # conversation root -> the ids checkpoints may name it by
    for key in named_as:
        groups.setdefault(root(key), set()).add(named_as[key])
    by_name: dict[str, set[str]] = {}
    for r, names in groups.items():
        for n in names:
            by_name.setdefault(n, set()).add(r)
    wrote: dict[tuple[str, str, int], float] = {}  # (root, path, hash) -> the earliest time an edit added it
    for key, rel, ts, h in db.execute(
            "SELECT s.session_id, e.rel_path, e.timestamp, l.hash FROM edits e JOIN sessions s ON s.id=e.session_id"
            " JOIN edit_lines l ON l.edit_id=e.id WHERE l.side='+' AND l.trivial=0 AND e.status='applied'"
            " AND e.rel_path IS NOT NULL AND e.timestamp IS NOT NULL"):
        try:
            when = datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
        except ValueError:
            continue
        k = (root(key), rel, h)
        wrote[k] = min(when, wrote.get(k, when))
    db.close()
    lines = right = 0
    missed: collections.Counter[str] = collections.Counter()
    for rel, doc in docs.items():
        commits = doc.get("commits") or {}
        sessions = doc.get("sessions") or {}
        for x in doc["lines"]:
            t = truth.get(x.get("commit") or "")
            if t is None or not t["sessions"] or bool(t["unreadable_sessions"] or t.get("incomplete_sessions")) != partial:
                continue
            if textnorm.is_trivial(x["content"]):
                continue
            roots = set().union(*(by_name.get(n, set()) for n in [*t["sessions"], *_unread(t)]))
            ctime = commits[x["commit"]]["committer_time"] + slack_s
            h = textnorm.line_hash(x["content"])
            if not any(wrote.get((r, rel, h), ctime + 1) <= ctime for r in roots):
                continue
            lines += 1
            sid = x.get("session_id")
            if x.get("kind") in ("agent", "agent_modified") and sid:
                mine = {root(sid)} | {root(p) for p in [(sessions.get(sid) or {}).get("parent_session_id")] if p}
                if mine & roots:
                    right += 1
                    continue
            missed[f"{x.get('kind')}/{x.get('rule')}"] += 1
    return {"lines": lines, "right": right, "recall": right / lines if lines else None,
            "missed": dict(missed.most_common())}


def _conversation(sessions: dict[str, dict], sid: str | None) -> set[str]:
    """The ids (as checkpoints name them) of the sessions the answer says are the same
    conversation as ``sid``: the one it resumes and the ones that resume it."""
    s = sessions.get(sid or "") or {}
    linked = ([s["resumed_from"]] if s.get("resumed_from") else []) + list(s.get("resumed_in") or [])
    return {c for c in (_claimed(sessions, x) for x in linked) if c}


def _claimed(sessions: dict[str, dict], sid: str | None) -> str | None:
    src = (sessions.get(sid or "") or {}).get("source") or {}
    if src.get("claimed_id"):
        return src["claimed_id"]
    if sid and "@" in sid:  # a parent named by its key, not in the document's sessions
        return sid.rsplit("@", 1)[0]
    return sid


def run_real(name: str, quick: bool = False, directory: str | None = None, rounds: int | None = None,
             n_files: int | None = None, cache: str | None = None, snapshot: str | None = None,
             info: dict | None = None, precision_all: bool = False, clone: bool = False) -> list[dict]:
    """The same measurements over a real corpus (see the module's docstring); with
    ``precision_all`` the precision is over every touched source file, not only the sample;
    with ``clone``, over the user's clone read by `hansard index CLONE` alone."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import real_corpus

    corpus = real_corpus.ensure(name, snapshot, cache, log=lambda s: print(s, file=sys.stderr))
    manifest = json.loads((corpus / "manifest.json").read_text())
    if clone and manifest.get("clone") is False:
        raise SystemExit(f"real-clone:{name}: no clone: the snapshot lacks a blob of its default branch's own tree")
    truth = json.loads((corpus / ("checkpoints-clone.json" if clone else "checkpoints.json")).read_text())
    rounds = rounds or (3 if quick else 5)
    root = Path(directory or tempfile.mkdtemp(prefix=f"hansard-bench-why-{name}-"))
    store = root / "store"
    fresh = not store.exists()
    repo = corpus / ("clone" if clone else "repo")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    import importlib.util

    package = os.path.dirname(importlib.util.find_spec("hansard").origin)
    subprocess.run([sys.executable, "-m", "compileall", "-q", package], env=env, check=True, capture_output=True)
    env = real_corpus.env_for(corpus, store, env)
    files = real_corpus.sample_files(corpus, n_files or (10 if quick else 40))
    if not files:
        raise SystemExit(f"real:{name}: no tracked source file that a session touched")
    index_s = first_s = None
    first = files[len(files) // 2]  # a file of middling size
    if fresh:
        if clone:
            env = {**env, **{k: str(root / "empty-homes" / k.lower()) for k in ("CLAUDE_CONFIG_DIR", "CODEX_HOME",
                                                                                 "GEMINI_CLI_HOME", "OPENCODE_DATA_DIR")}}
            args = [str(repo)]
        else:
            real_corpus.configure(corpus, env)
            args = real_corpus.index_args(corpus)
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "hansard", "index", *args], cwd=repo, env=env, check=True,
                       capture_output=True)
        index_s = time.perf_counter() - t
        first_s = timed([sys.executable, "-m", "hansard", "why", first, "--json", "--no-cache"], repo, env)
        what = "its clone's checkpoint branch" if clone else f"{manifest['home_files']} transcripts"
        print(f"real:{name}: indexed {what} ({manifest['home_bytes'] / 1e6:.0f} MB, "
              f"{sum(manifest['sessions_per_agent'].values())} sessions) in {index_s:.1f}s; first why {first} "
              f"(facts not computed yet) {first_s * 1e3:.0f} ms", file=sys.stderr)
    else:
        print(f"real:{name}: store reused from {store}: no index or first-why time", file=sys.stderr)
    per_file = []
    for rel in files:
        n = sum(1 for _ in open(repo / rel, encoding="utf-8", errors="replace"))
        m = measure(repo, env, rel, max(1, n // 2), rounds)
        m["file"] = rel
        per_file.append(m)
        print(f"{rel} ({m['lines']} lines, {m['kinds']}): one line {m['one']:.0f} ms vs blame -L {m['one_git']:.0f}; "
              f"whole {m['whole']:.0f} ms vs blame {m['whole_git']:.0f}; re-opened {m['again']:.0f} ms", file=sys.stderr)
    docs = {m["file"]: m["doc"] for m in per_file}
    if precision_all:
        t = time.perf_counter()
        for _count, rel, _lines in real_corpus.touched_files(corpus):
            if rel not in docs:
                docs[rel] = json.loads(subprocess.run([sys.executable, "-m", "hansard", "why", rel, "--json"], cwd=repo,
                                                      env=env, check=True, capture_output=True).stdout)
        print(f"answered all {len(docs)} touched source files for the precision in {time.perf_counter() - t:.0f}s",
              file=sys.stderr)
    p = precision(docs, truth, squashed=fixups(store / "hansard.db"))
    p["written"] = written_recall(docs, truth, store / "hansard.db")
    p["written_partial"] = written_recall(docs, truth, store / "hansard.db", partial=True)
    if not directory:
        shutil.rmtree(root, ignore_errors=True)
    rows = _rows(per_file)
    judged = p["right"] + p["wrong"]
    rows.append({"name": "precision against Entire checkpoint metadata",
                 "target": "agent lines of trailered commits naming a session the checkpoint names",
                 "measured": None if p["precision"] is None else round(100 * p["precision"], 1), "unit": "%",
                 "baseline": judged, "baseline_name": "lines judged", "ratio": None, "pass": None,
                 "detail": f"{p['wrong']} name a session outside them (commits whose sessions are all readable: "
                           f"{p['full']['wrong']} of {p['full']['right'] + p['full']['wrong']}); {p['unjudged']} in "
                           f"commits whose sessions are unreadable; {p['untrailered']} in commits without a trailer"})
    if info is not None:
        info.update(index_s=index_s, first_why_ms=None if first_s is None else first_s * 1e3, first_file=first,
                    files=len(per_file), lines=sum(m["lines"] for m in per_file), precision=p, manifest=manifest,
                    precision_files=len(docs))
    return rows


def print_rows(label: str, rows: list[dict], info: dict) -> None:
    print(f"== {label}")
    if info.get("index_s") is not None:
        print(f"index: {info['index_s']:.1f} s" + (f"; first why {info['first_file']} (facts not computed yet): "
                                                  f"{info['first_why_ms']:.0f} ms" if info.get("first_why_ms") else ""))
    for r in rows:
        if "measured_ms" in r:
            print(f"{r['target']}: hansard {r['measured_ms']:.0f} ms, git {r['baseline_ms']:.0f} ms, ratio "
                  f"{r['ratio']:.2f}  {'PASS' if r['pass'] else 'MISS'}")
    p = info.get("precision")
    if p is not None:
        print(f"precision against checkpoint metadata ({info.get('precision_files')} files; agent and agent_modified "
              f"lines of commits with an Entire-Checkpoint trailer naming a session that checkpoint names):")
        for k, what in (("full", "commits whose named sessions are all readable here"),
                        ("partial", "commits naming a session the snapshot lacks or has only an older copy of")):
            b = p[k]
            judged = b["right"] + b["wrong"]
            share = "n/a" if b["precision"] is None else f"{100 * b['precision']:.1f}%"
            cover = "n/a" if b["coverage"] is None else f"{100 * b['coverage']:.1f}%"
            print(f"  {what}: {b['right']}/{judged} = {share}; {b['wrong']} name a session outside them; coverage "
                  f"{b['right']}/{b['lines']} lines of those commits = {cover}"
                  + (f"; {b['resumed']} right through a resumed copy the checkpoint names" if b["resumed"] else "")
                  + (f"; {b['compact']} right through a session read from its compact transcript"
                     if b["compact"] else "")
                  + (f"; {b['squashed']} of the wrong ones are a session's fixup squashed into the commit after its "
                     f"checkpoint (precision with them set aside {100 * b['precision_aside']:.1f}%)"
                     if b["squashed"] else ""))
            for e in b["examples"]:
                print(f"    outside: {e}")
        w = p.get("written") or {}
        if w.get("lines"):
            print(f"  recall of the lines the named sessions' own edit calls wrote (commits whose sessions are all "
                  f"readable): {w['right']}/{w['lines']} = {100 * w['recall']:.1f}%; the others: "
                  + ", ".join(f"{k} {n}" for k, n in list(w["missed"].items())[:8]))
        w = p.get("written_partial") or {}
        if w.get("lines"):
            print(f"  the same recall over commits naming a session the snapshot lacks a full.jsonl of (read from its "
                  f"compact copy, when hansard does): {w['right']}/{w['lines']} = {100 * w['recall']:.1f}%")
        print(f"  not judged: {p['unjudged']} lines in trailered commits none of whose sessions is readable; "
              f"{p['untrailered']} agent lines in commits without a trailer")


def side_by_side(results: list[tuple[str, list[dict], dict]]) -> None:
    """One column per corpus."""
    def ms(v):
        return "-" if v is None else f"{v:.0f} ms"

    table = [("corpus", [label for label, _, _ in results])]
    table.append(("files measured (lines)", [f"{i.get('files')} ({i.get('lines')})" for _, _, i in results]))
    table.append(("index", ["-" if i.get("index_s") is None else f"{i['index_s']:.1f} s" for _, _, i in results]))
    table.append(("first why (facts not computed)", [ms(i.get("first_why_ms")) for _, _, i in results]))
    for k, title in ((0, "whole file: hansard / blame (ratio)"), (1, "one line: hansard / blame -L (ratio)"),
                     (2, "re-opened (cache)")):
        cells = []
        for _, rows, _ in results:
            r = rows[k]
            cells.append(f"{r['measured_ms']:.0f} / {r['baseline_ms']:.0f} ms ({r['ratio']:.2f})" if k < 2
                         else f"{r['measured_ms']:.0f} ms")
        table.append((title, cells))
    for key, title, of in (("precision", "precision vs checkpoints: full / partial", lambda b: b["right"] + b["wrong"]),
                           ("coverage", "coverage (agent lines, right): full / partial", lambda b: b["lines"])):
        cells = []
        for _, _, i in results:
            p = i.get("precision")
            cells.append("-" if not p else " / ".join(
                "n/a" if p[k][key] is None else f"{100 * p[k][key]:.1f}% of {of(p[k])}" for k in ("full", "partial")))
        table.append((title, cells))
    w0 = max(len(t) for t, _ in table)
    ws = [max(len(c[j]) for _, c in table) for j in range(len(results))]
    for title, cells in table:
        print(f"{title:<{w0}}  " + "  ".join(f"{c:>{w}}" for c, w in zip(cells, ws, strict=True)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="gots",
                    help="gots (default), big, real:NAME or real-clone:NAME (entire-graph, cli, marvin, oh-my-posh),"
                         " or several, comma-separated")
    ap.add_argument("--quick", action="store_true", help="a smaller corpus (real: 10 files, 3 rounds)")
    ap.add_argument("--dir", help="reuse (or build into) this folder (real: the store's folder)")
    ap.add_argument("--rounds", type=int, help="rounds per file (default 15; real: 5, 3 with --quick)")
    ap.add_argument("--files", type=int, help="real: how many files (default 40, 10 with --quick)")
    ap.add_argument("--cache", help="real: where corpora are kept (default $HANSARD_BENCH_CACHE or "
                                    "~/.cache/hansard-bench/real)")
    ap.add_argument("--snapshot", help="real: the snapshot's bare git directory (one corpus only)")
    ap.add_argument("--precision-all", action="store_true",
                    help="real: the precision over every touched source file, not only the measured ones")
    a = ap.parse_args()
    corpora = [c.strip() for c in a.corpus.split(",") if c.strip()]
    for c in corpora:
        if c not in ("gots", "big") and not c.startswith(("real:", "real-clone:")):
            ap.error(f"unknown corpus {c!r}")
    results = []
    for c in corpora:
        info: dict = {}
        directory = a.dir if len(corpora) == 1 else (os.path.join(a.dir, c.replace(":", "-")) if a.dir else None)
        if c.startswith(("real:", "real-clone:")):
            kind, _, name = c.partition(":")
            rows = run_real(name, a.quick, directory, a.rounds, a.files, a.cache, a.snapshot, info=info,
                            precision_all=a.precision_all, clone=kind == "real-clone")
        else:
            rows = run(a.quick, directory, a.rounds or 15, corpus=c, info=info)
        print_rows(c, rows, info)
        results.append((c, rows, info))
    if len(results) > 1:
        print("== side by side")
        side_by_side(results)


if __name__ == "__main__":
    main()
