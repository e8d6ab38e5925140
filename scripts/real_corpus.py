"""Real-history benchmark corpora: a public repository whose agent sessions Entire kept in
git, laid out as hansard finds sessions on a developer's machine.

    python scripts/real_corpus.py NAME [--snapshot GIT_DIR] [--cache DIR] [--rebuild]

NAME is one of ``SOURCES`` (entire-graph, marvin, cli: sessions recorded on macOS and Linux;
oh-my-posh: Claude Code sessions recorded on Windows, in ``D:\\oh-my-posh``). The snapshot is a
bare clone of ``github.com/<owner>/<repo>`` with its branch ``entire/checkpoints/v1``:
``--snapshot``, else ``$HANSARD_REAL_SNAPSHOTS/<owner>+<repo>/repo`` (default ``/work/.mirror``),
else ``$HANSARD_REAL_SNAPSHOTS/<NAME>.git``. Get one with
``git clone --mirror https://github.com/<owner>/<repo> NAME.git``.

The corpus is built under ``<cache>/<NAME>/<main commit[:12]>/`` (cache: ``--cache``, else
``$HANSARD_BENCH_CACHE``, else ``~/.cache/hansard-bench/real``), never inside the checkout:

  * ``repo/``: a clone of the snapshot's default branch alone (no ``entire/*`` branch, no
    checkpoint refs, no notes, no tags), origin set to the GitHub address;
  * ``home/``: one transcript per session where its agent keeps it
    (``.claude/projects/<cwd>/<id>.jsonl``, ``.codex/sessions/Y/M/D/rollout-...-<id>.jsonl``,
    ``.gemini/tmp/<projectHash>/chats/session-...json``, OpenCode exports under
    ``opencode-exports/``), its bytes as Entire kept them: no cwd is rewritten. The
    sessions ran at other paths (``/Users/soph/Work/entire/devenv/cli``, worktrees);
    ``manifest.json`` lists those roots under ``path_maps`` and ``configure`` maps each onto
    ``repo/`` with ``hansard config map``, as a user whose sessions came from another
    machine would (a Windows root such as ``D:\\oh-my-posh`` too);
  * ``clone/``: the snapshot cloned as a new user clones it, every branch a remote-tracking
    ref (the checkpoint branch among them), to be read by ``hansard index clone/`` alone: no
    agent home, no ``config map``; ``checkpoints-clone.json`` is ``checkpoints.json`` for its
    commits (the same ids where no blob of the history was replaced); none when the default
    branch's own tree lacks a blob (entire-graph), as the manifest's ``clone`` says;
  * ``checkpoints.json``: for each commit of the default branch with ``Entire-Checkpoint``
    trailers, the checkpoints and the sessions they name (Entire's ids, and the ids hansard
    gives the same transcripts), the ground truth of the precision a bench measures;
  * ``touched.json``: how many checkpoints touched each path (``files_touched``);
  * ``manifest.json``, written last: counts, and the build marker (snapshot commits and
    ``BUILD_VERSION``). A second run with the same snapshot finds it and returns at once.

How a session is put together. Entire saves a session at each checkpoint: newer versions
keep the whole transcript so far in every checkpoint (``full.jsonl``, split in 50 MB
``full.jsonl.NNN`` chunks), older ones kept only the part since the previous checkpoint
(the ``cli`` history has both, and a later copy may be serialised anew, such as a Codex
``reasoning`` record losing its ``encrypted_content``). The copies are taken in time order:
a copy holding half or more of the lines gathered so far is a whole transcript and replaces
them when it is at least as long; any other copy is a slice, and its lines not seen yet are
appended. Gemini's JSON document is whole each time: the one with most messages wins. The
agent is read from the content, not from Entire's ``agent`` field (blank in early
checkpoints, and "Gemini CLI" on some Claude Code transcripts).

Snapshots fetched here lack blobs over 4 MiB, so a session whose newest copy is that big
comes from an older, shorter copy, or is missing: ``manifest.json`` counts both.

Everything written is a function of the snapshot: same snapshot, byte-identical ``home/``,
``checkpoints.json``, ``touched.json`` and ``manifest.json`` (the clone's working tree and
commits are the same too; git's own index file is not byte-stable).
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # hansard, installed or not
    sys.path.insert(0, str(ROOT))

BUILD_VERSION = 6
SOURCES = {"entire-graph": "entireio/entire-graph", "marvin": "entireio/marvin", "cli": "entireio/cli",
           "oh-my-posh": "JanDeDobbeleer/oh-my-posh"}
CHECKPOINTS = "refs/heads/entire/checkpoints/v1"
TRAILER = re.compile(r"^Entire-Checkpoint:\s*([0-9a-f]{12})\s*$", re.M)
SOURCE_EXT = {".go", ".py", ".ts", ".tsx", ".js", ".jsx", ".rs", ".java", ".kt", ".rb", ".c", ".h", ".cc",
              ".cpp", ".hpp", ".cs", ".swift", ".dart", ".php", ".scala", ".sh", ".sql", ".lua", ".zig"}
MAX_SAMPLE_LINES = 3000  # a sampled file is at most this long (and 200 KB)


class SnapshotMissing(SystemExit):
    pass


def default_cache() -> Path:
    return Path(os.environ.get("HANSARD_BENCH_CACHE") or Path.home() / ".cache" / "hansard-bench" / "real")


def find_snapshot(name: str, snapshot: str | None = None) -> Path:
    """The bare git directory of NAME's snapshot, or SystemExit saying how to get one."""
    if name not in SOURCES:
        raise SystemExit(f"unknown real corpus {name!r}; known: {', '.join(SOURCES)}")
    owner_repo = SOURCES[name]
    base = Path(os.environ.get("HANSARD_REAL_SNAPSHOTS", "/work/.mirror"))
    tries = [Path(snapshot)] if snapshot else [base / owner_repo.replace("/", "+") / "repo", base / f"{name}.git"]
    for p in tries:
        if (p / "objects").is_dir() or (p / ".git" / "objects").is_dir():
            return p
    raise SnapshotMissing(
        f"no snapshot of {owner_repo} (looked at {', '.join(map(str, tries))}). Get one with\n"
        f"  git clone --mirror https://github.com/{owner_repo} {base / (name + '.git')}\n"
        f"(it must hold the branch entire/checkpoints/v1), or pass --snapshot GIT_DIR.")


def git(gitdir: Path, *args: str, text: bool = True, check: bool = True) -> str | bytes:
    r = subprocess.run(["git", "--git-dir", str(gitdir), *args], capture_output=True, check=check,
                       env=dict(os.environ, LC_ALL="C", GIT_CONFIG_NOSYSTEM="1"))
    return r.stdout.decode() if text else r.stdout


class Blobs:
    """Blobs through one ``git cat-file --batch``; a missing blob is None."""

    def __init__(self, gitdir: Path) -> None:
        self.p = subprocess.Popen(["git", "--git-dir", str(gitdir), "cat-file", "--batch"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def get(self, sha: str) -> bytes | None:
        self.p.stdin.write(sha.encode() + b"\n")
        self.p.stdin.flush()
        head = self.p.stdout.readline().split()
        if head[-1] == b"missing":
            return None
        data = self.p.stdout.read(int(head[2]))
        self.p.stdout.read(1)
        return data

    def close(self) -> None:
        self.p.stdin.close()
        self.p.wait()


def _when(s: str | None) -> datetime:
    """Entire's created_at (Go: up to 9 fractional digits, any offset) as UTC."""
    if not s:
        return datetime.min.replace(tzinfo=UTC)
    s = re.sub(r"(\.\d{6})\d+", r"\1", s.replace("Z", "+00:00"))
    return datetime.fromisoformat(s).astimezone(UTC)


# -- reading the checkpoint branch --------------------------------------------------------------


def read_checkpoints(gitdir: Path, blobs: Blobs) -> tuple[dict, dict]:
    """(checkpoint id -> its metadata, entire session id -> its copies). A copy is a dict
    with the checkpoint, folder, time and the blob ids of its transcript chunks (None when the
    snapshot lacks one)."""
    tree = git(gitdir, "ls-tree", "-r", "-l", "-z", CHECKPOINTS)
    entries: dict[str, tuple[str, str]] = {}
    for rec in tree.split("\0"):
        if not rec:
            continue
        meta, path = rec.split("\t", 1)
        _mode, _type, sha, size = meta.split()
        entries[path] = (sha, size)
    chunks: dict[str, list[tuple[int, str]]] = collections.defaultdict(list)
    for path in entries:
        m = re.fullmatch(r"(.+)/full\.jsonl(?:\.(\d+))?", path)
        if m:
            chunks[m.group(1)].append((int(m.group(2) or 0), path))
    checkpoints: dict[str, dict] = {}
    sessions: dict[str, list[dict]] = collections.defaultdict(list)
    for path in sorted(entries):
        parts = path.split("/")
        if parts[-1] != "metadata.json" or len(parts) not in (3, 4):
            continue
        meta = json.loads(blobs.get(entries[path][0]) or b"{}")
        cid = parts[0] + parts[1]
        if len(parts) == 3:
            checkpoints[cid] = meta
            continue
        folder = "/".join(parts[:3])
        parts_of = [entries[p][0] for _n, p in sorted(chunks.get(folder, []))]
        esid = meta.get("session_id") or folder
        sessions[esid].append({"entire_session": esid,
            "checkpoint": cid, "folder": folder, "at": _when(meta.get("created_at")), "created_at": meta.get("created_at"),
            "agent_field": meta.get("agent"), "chunks": parts_of,
            "files_touched": meta.get("files_touched") or [],
        })
    return checkpoints, sessions


UUID_TAIL = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def by_session(copies: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """Copies grouped by the agent's session: Entire named sessions ``<date>-<uuid>`` before
    it named them ``<uuid>``, and the cli history has the same session under both names."""
    out: dict[str, list[dict]] = collections.defaultdict(list)
    for esid, cs in copies.items():
        m = UUID_TAIL.search(esid)
        out[m.group(0) if m else esid] += cs
    return out


def _lines(data: bytes) -> list[bytes]:
    return [x for x in data.split(b"\n") if x.strip()]


def sniff(data: bytes) -> str | None:
    """The agent whose transcript this is, from its content."""
    head = data.lstrip()[:1]
    if head == b"{" and b"\n" in data.strip():
        first = data.lstrip().split(b"\n", 1)[0].strip()
        try:
            obj = json.loads(first)
        except ValueError:
            obj = None
        if obj is None:  # a pretty-printed JSON document
            try:
                doc = json.loads(data)
            except ValueError:
                return None
            if isinstance(doc, dict) and isinstance(doc.get("messages"), list):
                if isinstance(doc.get("info"), dict):
                    return "opencode"
                if "sessionId" in doc:
                    return "gemini"
            return None
    try:
        first_objs = [json.loads(x) for x in _lines(data)[:50]]
    except ValueError:
        first_objs = []
        for x in _lines(data)[:50]:
            try:
                first_objs.append(json.loads(x))
            except ValueError:
                pass
    for o in first_objs:
        if not isinstance(o, dict):
            continue
        if o.get("type") in ("session_meta", "turn_context", "response_item", "event_msg"):
            return "codex"
        if isinstance(o.get("sessionId"), str) and ("uuid" in o or "cwd" in o):
            return "claude_code"
        if isinstance(o.get("messages"), list) and "sessionId" in o:
            return "gemini"
        if isinstance(o.get("info"), dict) and isinstance(o.get("messages"), list):
            return "opencode"
    if any(isinstance(o, dict) and o.get("type") in ("summary", "file-history-snapshot") for o in first_objs):
        return "claude_code"
    return None


def assemble(copies: list[dict], blobs: Blobs) -> tuple[bytes | None, dict]:
    """One transcript from a session's copies (see the module's docstring), and what it took."""
    used = missing = 0
    doc_best: tuple[int, int, bytes] | None = None  # (messages, order, data) for whole documents
    from hansard.agents.entire.checkpoints import Merged  # the rule hansard's own reader applies

    merged = Merged()
    kind = None
    order = sorted(copies, key=lambda c: (c["at"], c["checkpoint"], c["folder"]))
    newest_missing = False
    used_until = None
    for i, c in enumerate(order):
        parts = [blobs.get(s) for s in c["chunks"]]
        if not parts or any(p is None for p in parts):
            missing += 1
            newest_missing = True
            continue
        data = b"".join(parts)
        if not data.strip():
            continue
        k = sniff(data)
        kind = kind or k
        newest_missing = False
        used += 1
        used_until = c["at"]
        if k in ("gemini", "opencode") and data.lstrip()[:1] == b"{" and _is_document(data):
            try:
                n = len(json.loads(data).get("messages") or [])
            except ValueError:
                continue
            if doc_best is None or (n, i) >= doc_best[:2]:
                doc_best = (n, i, data)
            continue
        merged.add(_lines(data))
    info = {"copies": len(copies), "copies_used": used, "copies_missing": missing,
            "newest_missing": newest_missing, "agent": kind, "used_until": used_until}
    if doc_best is not None:
        return doc_best[2], info
    return (b"\n".join(merged.lines) + b"\n") if merged.lines else None, info


def _is_document(data: bytes) -> bool:
    first = data.lstrip().split(b"\n", 1)[0].strip()
    if first == b"{":
        return True
    try:
        obj = json.loads(first)
    except ValueError:
        return True
    return isinstance(obj, dict) and isinstance(obj.get("messages"), list)


# -- placing a transcript where its agent keeps it -------------------------------------------------


def _jsonl(data: bytes) -> list[dict]:
    out = []
    for x in _lines(data):
        try:
            o = json.loads(x)
        except ValueError:
            continue
        if isinstance(o, dict):
            out.append(o)
    return out


def _stamp(ts: str | None) -> str:
    return _when(ts).strftime("%Y-%m-%dT%H-%M-%S") if ts else "1970-01-01T00-00-00"


def place(kind: str, data: bytes, entire_sid: str) -> tuple[str, list[str], list[str], list[str], str | None]:
    """(path under home/, hansard's session ids for it, its working directories, absolute
    file paths its edits name, last timestamp)."""
    ids: list[str] = []
    cwds: list[str] = []
    paths: list[str] = []
    last = None
    if kind == "claude_code":
        recs = _jsonl(data)
        counts: collections.Counter[str] = collections.Counter()
        for o in recs:
            sid = o.get("sessionId")
            if isinstance(sid, str) and sid:
                counts[sid] += 1
                if sid not in ids:
                    ids.append(sid)
            if isinstance(o.get("cwd"), str) and o["cwd"] not in cwds:
                cwds.append(o["cwd"])
            if isinstance(o.get("timestamp"), str):
                last = max(last or "", o["timestamp"])
            msg = o.get("message")
            if isinstance(msg, dict) and isinstance(msg.get("content"), list):
                for b in msg["content"]:
                    if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("input"), dict):
                        fp = b["input"].get("file_path") or b["input"].get("notebook_path")
                        if isinstance(fp, str) and _absolute(fp):
                            paths.append(fp)
        tail = entire_sid[-36:]
        main = tail if tail in counts else (max(counts, key=lambda s: (counts[s], s)) if counts else tail)
        cwd = cwds[0] if cwds else "/unknown"
        return f".claude/projects/{re.sub(r'[^A-Za-z0-9]', '-', cwd)}/{main}.jsonl", ids, cwds, paths, last
    if kind == "codex":
        recs = _jsonl(data)
        sid, start = None, None
        for o in recs:
            p = o.get("payload") if isinstance(o.get("payload"), dict) else {}
            t = o.get("type")
            if isinstance(o.get("timestamp"), str):
                last = max(last or "", o["timestamp"])
            if t == "session_meta" and sid is None:
                sid, start = p.get("id"), p.get("timestamp") or o.get("timestamp")
            if t in ("session_meta", "turn_context") and isinstance(p.get("cwd"), str) and p["cwd"] not in cwds:
                cwds.append(p["cwd"])
            if t == "event_msg" and p.get("type") == "patch_apply_end" and isinstance(p.get("changes"), dict):
                paths += [k for k in p["changes"] if k.startswith("/")]
            if t == "response_item" and p.get("type") == "custom_tool_call" and isinstance(p.get("input"), str):
                paths += re.findall(r"^\*\*\* (?:Add|Update|Delete) File: (/\S.*)$", p["input"], re.M)
        sid = sid or entire_sid[-36:]
        ids.append(sid)
        d = _when(start)
        return (f".codex/sessions/{d:%Y/%m/%d}/rollout-{_stamp(start)}-{sid}.jsonl", ids, cwds, paths, last)
    if kind == "gemini":
        doc = json.loads(data) if _is_document(data) else {}
        sid = doc.get("sessionId") or entire_sid[-36:]
        ids.append(sid)
        for m in doc.get("messages") or []:
            for call in (m.get("toolCalls") or []) if isinstance(m, dict) else []:
                fp = (call.get("args") or {}).get("file_path") if isinstance(call, dict) else None
                if isinstance(fp, str) and fp.startswith("/"):
                    paths.append(fp)
        last = doc.get("lastUpdated")
        start = doc.get("startTime")
        return (f".gemini/tmp/{doc.get('projectHash') or 'unknown'}/chats/session-{_stamp(start)[:16]}-{sid[:8]}.json",
                ids, cwds, paths, last)
    doc = json.loads(data)
    info = doc.get("info") or {}
    sid = info.get("id") or entire_sid
    ids.append(sid)
    if isinstance(info.get("directory"), str):
        cwds.append(info["directory"])
    return f"opencode-exports/{sid}.json", ids, cwds, paths, last


# -- the recorded roots ---------------------------------------------------------------------------


def _absolute(path: str) -> bool:
    """An absolute path of any machine: POSIX, or Windows with a drive letter."""
    return path.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", path) is not None


def recorded_roots(edit_paths: collections.Counter, cwds: set[str], history: set[str]) -> list[str]:
    """The folders the sessions' repository was checked out at (clones, worktrees, an old
    name), as the sessions wrote them (``/Users/a/cli``, ``D:\\oh-my-posh``). An absolute path
    an edit named whose tail is a path of the repository's history gives a candidate (the
    longest such tail wins); it counts when it is a session's working directory or holds one
    (in any case, for a Windows path), so a scratch folder of the same file names (Claude Code's
    ``/private/tmp/claude-501/.../scratchpad``) is not taken for a checkout. Nested roots are
    all kept: ``hansard config map`` applies the longest prefix first."""
    from hansard.files import foreignpaths

    roots: set[str] = set()
    for p in edit_paths:
        cuts = [m.start() for m in re.finditer(r"[\\/]", p)]
        for k in cuts[1:] if p.startswith("/") else cuts:
            if p[k + 1:].replace("\\", "/") in history:
                roots.add(p[:k])
                break
    folders = [f for c in cwds if (f := foreignpaths.parse(c)) is not None]
    out = []
    for r in sorted(roots):
        root = foreignpaths.parse(r)
        if root is not None and any(f.under(root) is not None for f in folders):
            out.append(r)
    return out


# -- building --------------------------------------------------------------------------------------

PLACEHOLDER = b"(a blob over 4 MiB, absent from the snapshot this corpus was built from)\n"


def clone(name: str, snap: Path, branch: str, repo: Path) -> int:
    """``repo``: the snapshot's ``branch`` alone (no other refs, no notes, no tags), origin set
    to the GitHub address. Returns how many blobs of its history were replaced.

    A snapshot lacking some blobs of the branch's history (the fetched ones lack blobs over
    4 MiB: generated parser.c files in entire-graph) cannot be cloned; its history is then
    written anew by ``git fast-export --no-data | git fast-import`` with each missing blob
    replaced by a one-line placeholder. Commit ids change from the first such commit on
    (and git 2.39's fast-export drops commit signatures), as after a rebase; messages,
    trailers, authors and dates do not."""
    missing = sorted(x[1:] for x in git(snap, "rev-list", "--objects", "--missing=print", branch).split("\n")
                     if x.startswith("?"))
    run = dict(check=True, capture_output=True)
    if not missing:
        subprocess.run(["git", "clone", "-q", "--no-local", "--single-branch", "--no-tags", "--branch", branch,
                        str(snap), str(repo)], **run)
        subprocess.run(["git", "-C", str(repo), "remote", "set-url", "origin", f"https://github.com/{SOURCES[name]}.git"],
                       **run)
    else:
        subprocess.run(["git", "init", "-q", "-b", branch, str(repo)], **run)
        objs = git(snap, "rev-list", "--objects", "--missing=allow-any", branch, text=False)
        pack = subprocess.run(["git", "--git-dir", str(snap), "pack-objects", "--missing=allow-any", "--stdout", "-q"],
                              input=b"\n".join(x.split(b" ", 1)[0] for x in objs.split(b"\n") if x) + b"\n", **run).stdout
        subprocess.run(["git", "-C", str(repo), "index-pack", "--stdin"], input=pack, **run)
        ph = subprocess.run(["git", "-C", str(repo), "hash-object", "-w", "--stdin"], input=PLACEHOLDER,
                            **run).stdout.decode().strip()
        gone = {m.encode() for m in missing}
        stream = git(snap, "fast-export", "--no-data", "--reencode=no", "--signed-tags=strip", branch, text=False)
        lines = stream.split(b"\n")
        for i, x in enumerate(lines):  # data blocks hold messages; only a change line names a blob
            if x.startswith(b"M ") and x.count(b" ") >= 3:
                mode, sha, path = x[2:].split(b" ", 2)
                if sha in gone:
                    lines[i] = b"M " + mode + b" " + ph.encode() + b" " + path
        subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], input=b"\n".join(lines), **run)
        subprocess.run(["git", "-C", str(repo), "reset", "-q", "--hard", branch], **run)
        subprocess.run(["git", "-C", str(repo), "remote", "add", "origin", f"https://github.com/{SOURCES[name]}.git"],
                       **run)
        subprocess.run(["git", "-C", str(repo), "gc", "-q", "--prune=now"], **run)
    subprocess.run(["git", "-C", str(repo), "commit-graph", "write", "--reachable"], **run)
    return len(missing)


def user_clone(name: str, snap: Path, user: Path) -> bool:
    """``user``: the snapshot cloned as a new user would clone the repository, its checkpoint
    branch a remote-tracking ref beside the others. A local clone (objects linked, not packed
    anew), since a snapshot lacks the blobs over 4 MiB a packing would want. False (and no
    clone) when the default branch's own tree lacks one: it cannot be checked out."""
    run = dict(check=True, capture_output=True)
    got = subprocess.run(["git", "clone", "-q", "--local", str(snap), str(user)], capture_output=True)
    if got.returncode != 0:
        shutil.rmtree(user, ignore_errors=True)
        return False
    subprocess.run(["git", "-C", str(user), "remote", "set-url", "origin", f"https://github.com/{SOURCES[name]}.git"],
                   **run)
    subprocess.run(["git", "-C", str(user), "commit-graph", "write", "--reachable"], **run)
    return True


def _trailered(gd: Path, rev: str) -> tuple[int, dict[str, list[str]]]:
    """(how many commits ``rev``'s history has, commit -> the checkpoints its message names)."""
    trailered: dict[str, list[str]] = {}
    n = 0
    for rec in git(gd, "log", "--format=%H%x00%B%x01", rev).split("\x01"):
        rec = rec.strip("\n")
        if not rec:
            continue
        sha, body = rec.split("\0", 1)
        n += 1
        ids = list(dict.fromkeys(TRAILER.findall(body)))
        if ids:
            trailered[sha] = ids
    return n, trailered


def corpus_dir(name: str, snapshot: Path, cache: Path | None = None) -> tuple[Path, str, str]:
    head = git(snapshot, "symbolic-ref", "HEAD").strip()
    main = git(snapshot, "rev-parse", head).strip()
    return (cache or default_cache()) / name / main[:12], head, main


def ensure(name: str, snapshot: str | None = None, cache: str | Path | None = None, rebuild: bool = False,
           log=print) -> Path:
    """The corpus folder of NAME, built when it is not there yet (or ``rebuild``)."""
    snap = find_snapshot(name, snapshot)
    root, head, main = corpus_dir(name, snap, Path(cache) if cache else None)
    cp_tip = git(snap, "rev-parse", "--verify", "-q", CHECKPOINTS, check=False).strip()
    if not cp_tip:
        raise SystemExit(f"{snap} has no {CHECKPOINTS}: not a snapshot of a repository Entire records")
    marker = {"build_version": BUILD_VERSION, "source": SOURCES[name], "main": main, "checkpoints_tip": cp_tip}
    return built(root, marker, lambda out: build(name, snap, head, main, out, marker, log), rebuild, log,
                 f"real:{name}")


def built(root: Path, marker: dict, build_into, rebuild: bool, log, what: str) -> Path:
    """``root``, whose ``manifest.json`` names ``marker`` as its build, or else built anew by
    ``build_into(folder)`` into a sibling folder then moved in place (what a bench measured in
    ``root/runs`` is kept)."""
    m = root / "manifest.json"
    if m.exists() and not rebuild:
        try:
            if {k: json.loads(m.read_text())["build"].get(k) for k in marker} == marker:
                return root
        except (ValueError, KeyError):
            pass
    tmp = root.with_name(root.name + ".building")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    import time

    t0 = time.perf_counter()
    build_into(tmp)
    if (root / "runs").is_dir():
        (root / "runs").rename(tmp / "runs")
    shutil.rmtree(root, ignore_errors=True)
    tmp.rename(root)
    log(f"built {what} in {time.perf_counter() - t0:.1f}s at {root}")
    return root


def build(name: str, snap: Path, head: str, main: str, out: Path, marker: dict, log) -> None:
    branch = head.removeprefix("refs/heads/")
    repo = out / "repo"
    replaced = clone(name, snap, branch, repo)
    gd = repo / ".git"
    assert not git(gd, "for-each-ref", "refs/heads/entire", "refs/notes", "refs/entire").strip()
    n_commits, trailered = _trailered(gd, branch)
    user = out / "clone"
    cloned = user_clone(name, snap, user)
    user_trailered = _trailered(user / ".git", "HEAD")[1] if cloned else None
    history = set(git(gd, "log", "--format=", "--name-only", branch).split("\n")) - {""}
    tracked = git(gd, "ls-tree", "-r", "-l", "-z", "HEAD").split("\0")

    blobs = Blobs(snap)
    checkpoints, copies = read_checkpoints(snap, blobs)
    home = out / "home"
    hansard_ids: dict[str, list[str]] = {}
    used_until: dict[str, datetime] = {}
    per_agent: collections.Counter[str] = collections.Counter()
    notes: collections.Counter[str] = collections.Counter()
    edit_paths: collections.Counter[str] = collections.Counter()
    all_cwds: set[str] = set()
    written: dict[str, str] = {}
    total_bytes = 0
    grouped = by_session(copies)
    for esid in sorted(grouped):
        data, info = assemble(grouped[esid], blobs)
        if data is None:
            notes["sessions without a readable copy"] += 1
            continue
        kind = info["agent"]
        if kind is None:
            notes["sessions of no known format"] += 1
            continue
        if info["newest_missing"]:
            notes["sessions from an older copy (the newer ones are over 4 MiB, not in the snapshot)"] += 1
        if info["copies_used"] > 1:
            notes["sessions assembled from several copies"] += 1
        rel, ids, cwds, paths, last = place(kind, data, esid)
        if rel in written:
            notes["sessions sharing a transcript file name (kept apart by a suffix)"] += 1
            stem, ext = os.path.splitext(rel)
            rel = f"{stem}.{hashlib.sha256(esid.encode()).hexdigest()[:8]}{ext}"
        written[rel] = esid
        p = home / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        if last:
            t = _when(last).timestamp()
            os.utime(p, (t, t))
        total_bytes += len(data)
        per_agent[kind] += 1
        hansard_ids[esid] = ids
        used_until[esid] = info["used_until"]
        edit_paths.update(paths)
        all_cwds.update(cwds)
    blobs.close()
    roots = recorded_roots(edit_paths, all_cwds, history)
    # Gemini keeps only sha256 of its project root; hansard matches it against the cwds of
    # the other sessions (which the path maps then move). A cwd that hashes to one is that
    # project's root, whether or not an edit named a path under it.
    gemini_dirs = sorted(p.name for p in (home / ".gemini" / "tmp").glob("*")) if (home / ".gemini").exists() else []
    gemini_roots = {hashlib.sha256(c.encode()).hexdigest(): c for c in sorted(all_cwds | set(roots))}
    notes["gemini project hashes matching a recorded root"] = sum(1 for h in gemini_dirs if h in gemini_roots)
    roots = sorted(set(roots) | {gemini_roots[h] for h in gemini_dirs if h in gemini_roots})

    # checkpoint -> sessions, and the commits that name them
    cp_sessions: dict[str, set[str]] = collections.defaultdict(set)
    cut: dict[str, set[str]] = collections.defaultdict(set)  # checkpoint -> sessions read only up to before it
    for esid, cs in copies.items():
        for c in cs:
            cp_sessions[c["checkpoint"]].add(esid)
    group_of = {c["entire_session"]: g for g, cs in grouped.items() for c in cs}
    for g, cs in grouped.items():
        for c in cs:
            if g in used_until and c["at"] > used_until[g]:
                cut[c["checkpoint"]].add(c["entire_session"])
    def truth_of(trailered: dict[str, list[str]]) -> dict[str, dict]:
        truth = {}
        for sha in sorted(trailered):
            ids = trailered[sha]
            es = sorted({s for c in ids for s in cp_sessions.get(c, ())})
            truth[sha] = {"checkpoints": ids, "missing_checkpoints": [c for c in ids if c not in checkpoints],
                          "entire_sessions": es,
                          "sessions": sorted({h for s in es for h in hansard_ids.get(group_of[s], [])}),
                          "unreadable_sessions": [s for s in es if group_of[s] not in hansard_ids],
                          # read, but from a copy older than this checkpoint (its own copy is not in the snapshot)
                          "incomplete_sessions": sorted({s for c in ids for s in cut.get(c, ())})}
        return truth

    truth = truth_of(trailered)
    referenced = {c for ids in trailered.values() for c in ids}
    touched: collections.Counter[str] = collections.Counter()
    for meta in checkpoints.values():
        touched.update(set(meta.get("files_touched") or []))
    tracked_files = {}
    for rec in tracked:
        if rec:
            meta, path = rec.split("\t", 1)
            tracked_files[path] = int(meta.split()[3]) if meta.split()[3] != "-" else 0
    files = sorted(p for p in home.rglob("*") if p.is_file())
    manifest = {
        "build": marker,
        "name": name,
        "branch": branch,
        "commits": n_commits,
        "trailered_commits": len(trailered),
        "trailered_commits_with_a_readable_session": sum(1 for t in truth.values() if t["sessions"]),
        "trailered_commits_with_all_sessions_complete": sum(
            1 for t in truth.values() if t["sessions"] and not t["unreadable_sessions"] and not t["incomplete_sessions"]),
        "checkpoints_on_branch": len(checkpoints),
        "checkpoints_named_by_commits": len(referenced),
        "checkpoints_named_but_absent": len(referenced - set(checkpoints)),
        "checkpoints_named_by_no_commit_of_the_branch": len(set(checkpoints) - referenced),
        "entire_sessions": len(copies),
        "sessions": len(grouped),
        "session_copies": sum(len(c) for c in copies.values()),
        "sessions_per_agent": dict(sorted(per_agent.items())),
        "notes": dict(sorted(notes.items())),
        "path_maps": roots,
        "history_blobs_replaced": replaced,
        "clone": cloned,  # False: HEAD's own tree lacks a blob, so no user's clone (clone/) could be made
        "tracked_files": len(tracked_files),
        "home_files": len(files),
        "home_bytes": total_bytes,
    }
    (out / "checkpoints.json").write_text(json.dumps(truth, indent=1, sort_keys=True) + "\n")
    if user_trailered is not None:
        (out / "checkpoints-clone.json").write_text(json.dumps(truth_of(user_trailered), indent=1, sort_keys=True)
                                                    + "\n")
    (out / "touched.json").write_text(json.dumps(
        {p: n for p, n in sorted(touched.items()) if p in tracked_files}, indent=1, sort_keys=True) + "\n")
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    log(json.dumps({k: v for k, v in manifest.items() if k != "path_maps"}, sort_keys=True))


# -- what a bench needs ----------------------------------------------------------------------------


def env_for(corpus: Path, store: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a bench runs hansard in: the store, and every agent's home inside the
    corpus (so the machine's own sessions never come in)."""
    root = str(Path(__file__).resolve().parent.parent)
    if root not in sys.path:
        sys.path.insert(0, root)
    from hansard import agents

    home = corpus / "home"
    env = dict(os.environ if base is None else base)
    empty = corpus / "home" / "none"
    for a in agents.agents():
        for var in a.home_env:
            env[var] = str(empty / var.lower())
    env.update(HANSARD_HOME=str(store), CLAUDE_CONFIG_DIR=str(home / ".claude"), CODEX_HOME=str(home / ".codex"),
               GEMINI_CLI_HOME=str(home), OPENCODE_DATA_DIR=str(home / ".local/share/opencode"))
    env.pop("APPDATA", None)
    # `python -m hansard` in the corpus' clone runs this checkout's hansard, installed or not
    env["PYTHONPATH"] = os.pathsep.join(x for x in (root, env.get("PYTHONPATH")) if x)
    return env


def configure(corpus: Path, env: dict[str, str]) -> None:
    """Map every root the sessions recorded onto the corpus' clone (``hansard config map``)."""
    repo = corpus / "repo"
    for old in json.loads((corpus / "manifest.json").read_text())["path_maps"]:
        subprocess.run([sys.executable, "-m", "hansard", "config", "map", old, str(repo)], cwd=repo, env=env,
                       check=True, capture_output=True)


def index_args(corpus: Path) -> list[str]:
    """`hansard index` arguments: the homes, and OpenCode exports when there are any."""
    ex = corpus / "home" / "opencode-exports"
    return [] if not ex.exists() else [str(corpus / "home" / d) for d in (".claude", ".codex", ".gemini")
                                       if (corpus / "home" / d).exists()] + [str(ex)]


def touched_files(corpus: Path) -> list[tuple[int, str, int]]:
    """(checkpoints that touched it, path, lines) of every tracked source file a session
    touched, at most MAX_SAMPLE_LINES lines and 200 KB, most touched first."""
    repo = corpus / "repo"
    touched = json.loads((corpus / "touched.json").read_text())
    out = []
    for path, count in touched.items():
        p = repo / path
        if os.path.splitext(path)[1] not in SOURCE_EXT or not p.is_file() or p.stat().st_size > 200_000:
            continue
        lines = p.read_bytes().count(b"\n")
        if 5 <= lines <= MAX_SAMPLE_LINES:
            out.append((count, path, lines))
    out.sort(key=lambda c: (-c[0], c[1]))
    return out


def sample_files(corpus: Path, n: int = 40) -> list[str]:
    """``n`` of ``touched_files``, chosen the same way every time: the 3n touched by most
    checkpoints, spread evenly over their sizes (smallest first)."""
    top = sorted(touched_files(corpus)[:3 * n], key=lambda c: (c[2], c[1]))
    if len(top) <= n:
        return [c[1] for c in top]
    return [top[round(i * (len(top) - 1) / (n - 1))][1] for i in range(n)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("name", choices=sorted(SOURCES))
    ap.add_argument("--snapshot", help="the bare git directory of the snapshot")
    ap.add_argument("--cache", help="where corpora are kept (default $HANSARD_BENCH_CACHE or ~/.cache/hansard-bench/real)")
    ap.add_argument("--rebuild", action="store_true")
    a = ap.parse_args()
    root = ensure(a.name, a.snapshot, a.cache, a.rebuild, log=lambda s: print(s, file=sys.stderr))
    print(root)


if __name__ == "__main__":
    main()
