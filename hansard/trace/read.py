"""`hansard trace import FILE|DIR`: Agent Trace records other tools wrote, read as recorded
evidence and kept in the store (hansard.store.sqlite.agent_traces).

Always true of what is kept:

- every record is valid against the specification's schema (hansard.trace.validate) and names a
  git commit (``vcs.type`` git, a 40- or 64-hex ``revision``); others are skipped and counted by
  reason, as are ranges that end before they start or lie past ``MAX_LINE``, and files whose
  path leaves the repository;
- every string was redacted before it was kept (hansard.ingest.redact);
- a record is keyed by its own ``id``: importing the same record again changes nothing, and a
  record with the same id and other content replaces the one kept;
- nothing is written unless the whole input was read within its bounds: a file larger than
  ``MAX_FILE_BYTES``, input larger than ``MAX_TOTAL_BYTES``, nesting deeper than ``MAX_DEPTH``,
  more than ``MAX_RECORDS`` files or records, or a record with more than ``MAX_RANGES`` ranges
  stop the import with a typed error (exit code 23) before the store is touched.

A file holds one record (a JSON object), a JSON array of records, or JSON Lines (one record a
line; a line that is not JSON is a counted skip). A folder is read for its ``*.json`` and
``*.jsonl`` files, recursively, in name order, symlinks not followed. Nothing here raises on bad
content: bad input is a typed error or a counted skip.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hansard.errors import NotFound, TraceTooDeep, TraceTooLarge, TraceTooManyRecords

if TYPE_CHECKING:
    from collections.abc import Iterator

    from hansard.store.interfaces import Store

MAX_FILE_BYTES = 64 << 20
MAX_TOTAL_BYTES = 512 << 20
MAX_DEPTH = 32  # a record nests 6 levels; the rest is vendors' metadata
MAX_RECORDS = 100_000  # records, and files of a folder
MAX_RANGES = 1_000_000  # ranges of one record
MAX_LINE = 1 << 31
SUFFIXES = (".json", ".jsonl")
TYPES = ("ai", "human", "mixed", "unknown")

Range = tuple[str, int, int, str, "str | None", "str | None", "str | None"]


@dataclass
class Summary:
    files: int = 0
    records: int = 0  # valid records read
    added: int = 0
    replaced: int = 0
    unchanged: int = 0
    ranges: int = 0  # ranges of the records read
    skipped: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)  # the first few skips, with where and why

    def skip(self, reason: str, where: str, detail: str = "") -> None:
        self.skipped[reason] += 1
        if len(self.problems) < 20:
            self.problems.append(f"{where}: {reason}" + (f": {detail}" if detail else ""))

    def as_dict(self) -> dict[str, Any]:
        return {"files": self.files, "records": self.records, "added": self.added, "replaced": self.replaced,
                "unchanged": self.unchanged, "ranges": self.ranges, "skipped": dict(sorted(self.skipped.items())),
                "problems": self.problems}


@dataclass
class Parsed:
    rec: dict[str, Any]  # id, digest, revision, tool, tool_version, recorded_at
    ranges: list[Range]
    document: bytes  # the redacted record as JSON
    source: str


def _files(path: str) -> list[str]:
    """The files to read: ``path`` itself, or a folder's record files in name order."""
    if os.path.isfile(path):
        return [path]
    if not os.path.isdir(path):
        raise NotFound(f"no such file or folder: {path}")
    out: list[str] = []
    for root, dirs, names in os.walk(path):  # symlinked folders are not entered
        dirs.sort()
        for n in sorted(names):
            p = os.path.join(root, n)
            if n.endswith(SUFFIXES) and not os.path.islink(p):
                out.append(p)
                if len(out) > MAX_RECORDS:
                    raise TraceTooManyRecords(f"{path} holds more than {MAX_RECORDS} record files",
                                              bound="MAX_RECORDS", limit=MAX_RECORDS)
    return out


def _depth(obj: Any) -> int:
    """How deeply arrays and objects nest in ``obj`` (iterative: any depth orjson gives)."""
    deepest = 0
    stack = [(obj, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            deepest = max(deepest, d)
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            deepest = max(deepest, d)
            stack.extend((x, d + 1) for x in v)
    return deepest


def _too_deep() -> TraceTooDeep:
    return TraceTooDeep(f"an Agent Trace file nests deeper than {MAX_DEPTH} levels", bound="MAX_DEPTH", limit=MAX_DEPTH)


def _loads(data: bytes) -> Any:
    import orjson

    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if "depth limit" in str(exc) or "recursion" in str(exc):
            raise _too_deep() from None
        raise


def values(data: bytes, where: str, summary: Summary) -> Iterator[tuple[str, Any]]:
    """(where, value) of each record-shaped value of a file's bytes: the object, the array's
    elements or the JSON lines. What is not JSON is a counted skip."""
    import orjson

    try:
        whole = _loads(data)
        error = ""
    except (orjson.JSONDecodeError, ValueError, UnicodeDecodeError) as exc:
        whole, error = orjson, str(exc)  # a sentinel: not one JSON text, perhaps JSON Lines
    if whole is not orjson:
        if _depth(whole) > MAX_DEPTH + 1:  # + 1: the array around records
            raise _too_deep()
        if isinstance(whole, list):
            for i, v in enumerate(whole):
                yield f"{where}[{i}]", v
        else:
            yield where, whole
        return
    good: list[tuple[str, Any]] = []
    bad: list[tuple[str, str]] = []
    for n, line in enumerate(data.split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            v = _loads(line)
        except (orjson.JSONDecodeError, ValueError, UnicodeDecodeError) as exc:
            bad.append((f"{where}:{n}", str(exc)[:120]))
            continue
        if _depth(v) > MAX_DEPTH:
            raise _too_deep()
        good.append((f"{where}:{n}", v))
    if not good:  # not JSON at all (nor JSON Lines): one skip for the file
        summary.skip("invalid_json", where, error[:120])
        return
    for w, msg in bad:
        summary.skip("invalid_json", w, msg)
    yield from good


def _revision(rec: dict[str, Any]) -> str | None:
    vcs = rec.get("vcs")
    if not isinstance(vcs, dict) or vcs.get("type") != "git":
        return None
    rev = vcs.get("revision")
    if not isinstance(rev, str):
        return None
    rev = rev.strip().lower()
    if len(rev) not in (40, 64) or any(c not in "0123456789abcdef" for c in rev):
        return None
    return rev


def _path(p: str) -> str | None:
    """A repository-relative path as git names it, or None when it leaves the repository."""
    p = p.replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    parts = p.split("/")
    if not p or p.startswith("/") or "\0" in p or any(x in ("", ".", "..") for x in parts):
        return None
    return p


def _contributor(c: Any, default: tuple[str, str | None]) -> tuple[str, str | None]:
    if not isinstance(c, dict):
        return default
    t = c["type"] if c.get("type") in TYPES else default[0]
    m = c.get("model_id")
    return t, m if isinstance(m, str) and m else None


def parse_record(obj: Any, where: str, summary: Summary) -> Parsed | None:
    """One record as kept, or None (counted in ``summary``) when it cannot be."""
    from hansard.trace import session_of
    from hansard.trace.validate import problems

    if not isinstance(obj, dict):
        summary.skip("not_a_record", where, type(obj).__name__)
        return None
    bad = problems(obj)
    if bad:
        summary.skip("invalid_record", where, "; ".join(bad))
        return None
    revision = _revision(obj)
    if revision is None:
        summary.skip("no_git_revision", where)
        return None
    from hansard.ingest.redact import redact_value

    red, _ = redact_value(obj)
    ranges: list[Range] = []
    for f in red["files"]:
        path = _path(f["path"])
        if path is None:
            summary.skip("bad_path", where, f["path"][:120])
            continue
        for conv in f["conversations"]:
            url = conv.get("url")
            url = url if isinstance(url, str) and url else None
            sid = session_of(url)
            ctype, model = _contributor(conv.get("contributor"), ("unknown", None))
            for r in conv["ranges"]:
                rtype, rmodel = _contributor(r.get("contributor"), (ctype, model))
                a, b = r["start_line"], r["end_line"]
                if b < a:
                    summary.skip("reversed_range", where, f"{path}:{a}-{b}")
                    continue
                if b > MAX_LINE:
                    summary.skip("line_out_of_range", where, f"{path}:{a}-{b}")
                    continue
                ranges.append((path, a, b, rtype, rmodel[:250] if rmodel else None, url, sid))
                if len(ranges) > MAX_RANGES:
                    raise TraceTooManyRecords(f"one Agent Trace record holds more than {MAX_RANGES} ranges",
                                              bound="MAX_RANGES", limit=MAX_RANGES)
    import uuid

    import orjson

    document = orjson.dumps(red, option=orjson.OPT_SORT_KEYS)
    tool = red.get("tool") if isinstance(red.get("tool"), dict) else {}
    # id and timestamp from the record as read: their formats (checked) leave no room for a secret
    rec = {"id": str(uuid.UUID(obj["id"])), "digest": hashlib.sha256(document).hexdigest(), "revision": revision,
           "tool": tool.get("name") if isinstance(tool.get("name"), str) else None,
           "tool_version": tool.get("version") if isinstance(tool.get("version"), str) else None,
           "recorded_at": obj["timestamp"]}
    summary.records += 1
    summary.ranges += len(ranges)
    return Parsed(rec, ranges, document, where)


def read_paths(paths: list[str], summary: Summary) -> list[Parsed]:
    """Every record of ``paths`` that can be kept, all read within the bounds first (see the
    module docstring); a later record with the id of an earlier one replaces it."""
    from hansard.files import safeopen

    named = [os.path.abspath(os.path.expanduser(p)) for p in paths]
    files = [f for p in named for f in _files(p)]
    if len(files) > MAX_RECORDS:
        raise TraceTooManyRecords(f"more than {MAX_RECORDS} record files", bound="MAX_RECORDS", limit=MAX_RECORDS)
    out: dict[str, Parsed] = {}
    total = 0
    records = 0
    for f in files:
        summary.files += 1
        try:
            data = safeopen.read_bytes(f, MAX_FILE_BYTES + 1, follow=f in named)  # a file named is read through its link
        except OSError as exc:
            summary.skip("unreadable", f, exc.strerror or type(exc).__name__)
            continue
        if len(data) > MAX_FILE_BYTES:
            raise TraceTooLarge(f"{f} is larger than {MAX_FILE_BYTES} bytes", bound="MAX_FILE_BYTES", limit=MAX_FILE_BYTES)
        total += len(data)
        if total > MAX_TOTAL_BYTES:
            raise TraceTooLarge(f"the Agent Trace files are larger than {MAX_TOTAL_BYTES} bytes together",
                                bound="MAX_TOTAL_BYTES", limit=MAX_TOTAL_BYTES)
        for where, v in values(data, f, summary):
            records += 1
            if records > MAX_RECORDS:
                raise TraceTooManyRecords(f"more than {MAX_RECORDS} Agent Trace records", bound="MAX_RECORDS",
                                          limit=MAX_RECORDS)
            p = parse_record(v, where, summary)
            if p is not None:
                out.pop(p.rec["id"], None)
                out[p.rec["id"]] = p
    return list(out.values())


def import_traces(store: Store, paths: list[str]) -> Summary:
    """Read ``paths`` (files or folders of Agent Trace records) and keep their records."""
    from hansard.store import as_store

    summary = Summary()
    parsed = read_paths(paths, summary)
    traces = as_store(store).agent_traces
    for outcome, n in traces.put_many([(p.rec, p.ranges, p.document, p.source) for p in parsed]).items():
        setattr(summary, outcome, getattr(summary, outcome) + n)
    return summary
