"""Transcript writers that reproduce, field for field, what Claude Code, Codex CLI and Gemini CLI
write to disk (the records and fields of the real transcript samples). The one place that
writes agent transcripts for the fixtures, the tests, the scripts and the demo's shipped data.

Every writer *performs* the edits it records: an applied edit changes the file in the working
tree, a rejected or failed one leaves it alone. So a scenario's repository follows its
transcripts exactly, and the ``Ledger`` keeps a plain record of every edit attempt (who, when,
which lines it added) that the scenario checks use as ground truth.

Determinism: ids come from RNGs seeded by the session id, times from a shared ``Clock``.
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import json
import os
import random
import re
import string
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

# ---------------------------------------------------------------------------------------------
# time and ids


class Clock:
    """A scenario's single source of time. Everything (transcript records, commit dates) reads
    it, and it only moves forward, so edit and commit times are strictly ordered."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            start = start.replace(tzinfo=UTC)
        self._now = start.astimezone(UTC)

    def now(self) -> datetime:
        return self._now

    def advance(self, seconds: float) -> datetime:
        step = timedelta(milliseconds=max(1, round(seconds * 1000)))
        self._now = self._now + step
        return self._now

    def next_second(self, gap: float = 0) -> datetime:
        """Advance by ``gap`` and then up to the next whole second (git dates have no
        fractions), strictly after every earlier reading."""
        t = self._now + timedelta(seconds=gap)
        t = t.replace(microsecond=0) + timedelta(seconds=1)
        self._now = t
        return t


def iso_z(dt: datetime) -> str:
    """``2026-03-01T10:00:01.234Z``: the timestamp style of all three agents."""
    dt = dt.astimezone(UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def git_date(dt: datetime) -> str:
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S+00:00")


_B62 = string.digits + string.ascii_uppercase + string.ascii_lowercase


def _digest(*parts: object) -> bytes:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()


def det_uuid4(*parts: object) -> str:
    """A uuid4-looking id derived from ``parts`` (same parts, same id)."""
    b = bytearray(_digest(*parts)[:16])
    b[6] = (b[6] & 0x0F) | 0x40
    b[8] = (b[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(b)))


def det_uuid7(when: datetime, *parts: object) -> str:
    """A uuid7 (time-ordered, as Codex uses for thread and turn ids) for ``when``."""
    ms = int(when.timestamp() * 1000)
    b = bytearray(ms.to_bytes(6, "big") + _digest(*parts)[:10])
    b[6] = (b[6] & 0x0F) | 0x70
    b[8] = (b[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(b)))


class _Ids:
    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)

    def b62(self, n: int) -> str:
        return "".join(self.rng.choice(_B62) for _ in range(n))

    def hex(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def uuid4(self) -> str:
        b = bytearray(self.rng.getrandbits(128).to_bytes(16, "big"))
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        return str(uuid.UUID(bytes=bytes(b)))

    def step(self, lo: float = 0.2, hi: float = 2.5) -> float:
        return round(self.rng.uniform(lo, hi), 3)


def _dumps(obj: Any) -> str:
    # JSON.stringify / serde_json style: compact, non-ASCII kept as is.
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


# ---------------------------------------------------------------------------------------------
# the ledger: ground truth about every edit attempt


@dataclass
class EditRecord:
    provider: str  # claude_code | codex | gemini
    session_id: str  # the session the edit is attributed to (subagents: "agent-<agentId>")
    tool_call_id: str
    tool: str
    path: str  # absolute path of the file as edited (for a move: the source path)
    time: datetime
    status: str  # applied | rejected | failed
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    before: str | None = None
    after: str | None = None
    move_to: str | None = None
    repo_root: str | None = None  # worktree top level holding the file
    repo_common: str | None = None  # the repository's common git dir (same for all worktrees)
    transcript: str | None = None


@dataclass
class Ledger:
    edits: list[EditRecord] = field(default_factory=list)

    def add(self, rec: EditRecord) -> None:
        applied = [e for e in self.edits if e.status == "applied"]
        # One tool call may change several files at one instant (a multi-file apply_patch).
        same_call = applied and applied[-1].tool_call_id == rec.tool_call_id
        if rec.status == "applied" and applied and not same_call and not rec.time > applied[-1].time:
            raise AssertionError(f"edit times must increase strictly: {rec.time} after {applied[-1].time}")
        rec.repo_root, rec.repo_common = find_repo(Path(rec.move_to or rec.path))
        self.edits.append(rec)

    def by_call(self, tool_call_id: str) -> list[EditRecord]:
        return [e for e in self.edits if e.tool_call_id == tool_call_id]


def find_repo(path: Path) -> tuple[str | None, str | None]:
    """Top level and common git dir of the repository holding ``path`` (which may not exist)."""
    for d in [path, *path.parents]:
        dotgit = d / ".git"
        if dotgit.is_dir():
            return str(d), str(dotgit.resolve())
        if dotgit.is_file():
            m = re.match(r"gitdir:\s*(.+)", dotgit.read_text().strip())
            if m:
                gitdir = Path(m.group(1))
                if not gitdir.is_absolute():
                    gitdir = (d / gitdir).resolve()
                common = gitdir / "commondir"
                if common.is_file():
                    c = Path(common.read_text().strip())
                    return str(d), str((gitdir / c).resolve() if not c.is_absolute() else c.resolve())
                return str(d), str(gitdir.resolve())
    return None, None


# ---------------------------------------------------------------------------------------------
# text and diffs


def _split_keep(text: str) -> list[str]:
    """jsdiff's splitLines: lines with their trailing newline (the last may lack it)."""
    if text == "":
        return []
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1] != "":
        out.append(parts[-1])
    return out


def _opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()


def added_removed(before: str | None, after: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Lines added and removed going from ``before`` to ``after`` (same line diff as the
    patches the writers emit), without line terminators."""
    a, b = _split_keep(before or ""), _split_keep(after or "")
    added: list[str] = []
    removed: list[str] = []
    for tag, i1, i2, j1, j2 in _opcodes(a, b):
        if tag == "equal":
            continue
        removed += [x.rstrip("\n").rstrip("\r") for x in a[i1:i2]]
        added += [x.rstrip("\n").rstrip("\r") for x in b[j1:j2]]
    return tuple(added), tuple(removed)


def structured_patch(old: str, new: str, context: int = 3) -> list[dict[str, Any]]:
    """Claude Code's ``structuredPatch``: a port of jsdiff ``structuredPatch`` (hunks with
    1-based oldStart/newStart, 3 lines of context, "\\ No newline at end of file" markers)."""
    a, b = _split_keep(old), _split_keep(new)
    comps: list[tuple[str, list[str]]] = []
    for tag, i1, i2, j1, j2 in _opcodes(a, b):
        if tag == "equal":
            comps.append(("eq", a[i1:i2]))
        else:
            if i2 > i1:
                comps.append(("rem", a[i1:i2]))
            if j2 > j1:
                comps.append(("add", b[j1:j2]))
    comps.append(("eq", []))  # jsdiff appends an empty value "to make cleanup easier"
    hunks: list[dict[str, Any]] = []
    old_rs = new_rs = 0
    cur: list[str] = []
    old_line = new_line = 1
    for i, (kind, lines) in enumerate(comps):
        if kind != "eq":
            if not old_rs:
                old_rs, new_rs = old_line, new_line
                if i > 0:
                    prev = comps[i - 1][1]
                    ctx = prev[-context:] if context > 0 else []
                    cur = [" " + x for x in ctx]
                    old_rs -= len(ctx)
                    new_rs -= len(ctx)
            cur += [("+" if kind == "add" else "-") + x for x in lines]
            if kind == "add":
                new_line += len(lines)
            else:
                old_line += len(lines)
        else:
            if old_rs:
                if len(lines) <= context * 2 and i < len(comps) - 2:
                    cur += [" " + x for x in lines]
                else:
                    cs = min(len(lines), context)
                    cur += [" " + x for x in lines[:cs]]
                    hunks.append({
                        "oldStart": old_rs, "oldLines": old_line - old_rs + cs,
                        "newStart": new_rs, "newLines": new_line - new_rs + cs, "lines": cur,
                    })
                    old_rs = new_rs = 0
                    cur = []
            old_line += len(lines)
            new_line += len(lines)
    for h in hunks:
        out: list[str] = []
        for x in h["lines"]:
            if x.endswith("\n"):
                out.append(x[:-1])
            else:
                out += [x, "\\ No newline at end of file"]
        h["lines"] = out
    return hunks


def apply_structured_patch(old: str, hunks: list[dict[str, Any]]) -> str:
    """Inverse check for ``structured_patch`` (used by the writers to verify themselves)."""
    src = old.split("\n")
    trailing = old.endswith("\n")
    if trailing:
        src.pop()
    out: list[str] = []
    pos = 0
    new_has_nl = trailing
    for h in hunks:
        start = h["oldStart"] - 1
        out += src[pos:start]
        pos = start
        lines = h["lines"]
        for k, x in enumerate(lines):
            if x.startswith("\\"):
                continue
            nl_missing = k + 1 < len(lines) and lines[k + 1].startswith("\\")
            if x[0] == " ":
                assert src[pos] == x[1:], (src[pos], x)
                out.append(x[1:])
                pos += 1
                if nl_missing:
                    new_has_nl = False
            elif x[0] == "-":
                assert src[pos] == x[1:], (src[pos], x)
                pos += 1
            elif x[0] == "+":
                out.append(x[1:])
                new_has_nl = not nl_missing
    out += src[pos:]
    if pos < len(src):
        new_has_nl = trailing
    text = "\n".join(out)
    return text + "\n" if out and new_has_nl else text


def _range_unified(start: int, stop: int) -> str:
    beginning = start + 1
    length = stop - start
    if length == 1:
        return str(beginning)
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def codex_unified_diff(old: str, new: str, context: int = 1) -> str:
    """The ``unified_diff`` of Codex ``patch_apply_end`` (the ``similar`` crate, context radius
    1, no file header), e.g. ``@@ -65,5 +65,6 @@\\n type messageEntry struct {\\n-…``."""
    a, b = _split_keep(old), _split_keep(new)
    out: list[str] = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context):
        if all(g[0] == "equal" for g in group):
            continue
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_range_unified(i1, i2)} +{_range_unified(j1, j2)} @@\n")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                rows = [(" ", x) for x in a[a1:a2]]
            else:
                rows = [("-", x) for x in a[a1:a2]] + [("+", x) for x in b[b1:b2]]
            for sign, x in rows:
                out.append(sign + x if x.endswith("\n") else sign + x + "\n\\ No newline at end of file\n")
    return "".join(out)


def _patch_hunks(old: str, new: str, context: int) -> list[list[str]]:
    a = _lines(old)
    b = _lines(new)
    hunks = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context):
        rows: list[str] = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                rows += [" " + x for x in a[a1:a2]]
            else:
                rows += ["-" + x for x in a[a1:a2]] + ["+" + x for x in b[b1:b2]]
        if any(r[0] != " " for r in rows):
            hunks.append(rows)
    return hunks


def _lines(text: str) -> list[str]:
    if not text:
        return []
    out = text.split("\n")
    if out[-1] == "":
        out.pop()
    return out


def apply_patch_text(patch: str, read: Callable[[str], str]) -> dict[str, tuple[str, str | None, str | None]]:
    """A small re-implementation of Codex ``apply_patch`` (exact context matching, hunks located
    in order), used to verify the patches the Codex writer emits. Returns path ->
    (kind, new_text, move_to)."""
    lines = patch.split("\n")
    assert lines[0] == "*** Begin Patch", lines[0]
    result: dict[str, tuple[str, str | None, str | None]] = {}
    i = 1
    while i < len(lines) and lines[i] != "*** End Patch":
        line = lines[i]
        if line.startswith("*** Add File: "):
            path = line[len("*** Add File: "):]
            i += 1
            body = []
            while i < len(lines) and lines[i].startswith("+"):
                body.append(lines[i][1:])
                i += 1
            result[path] = ("add", "\n".join(body) + "\n", None)
        elif line.startswith("*** Delete File: "):
            result[line[len("*** Delete File: "):]] = ("delete", None, None)
            i += 1
        elif line.startswith("*** Update File: "):
            path = line[len("*** Update File: "):]
            i += 1
            move_to = None
            if lines[i].startswith("*** Move to: "):
                move_to = lines[i][len("*** Move to: "):]
                i += 1
            src = _lines(read(path))
            out: list[str] = []
            pos = 0
            while i < len(lines) and lines[i].startswith("@@"):
                i += 1
                old_rows: list[str] = []
                new_rows: list[str] = []
                while i < len(lines) and lines[i][:1] in (" ", "-", "+") and not lines[i].startswith("*** "):
                    row = lines[i]
                    if row[0] in " -":
                        old_rows.append(row[1:])
                    if row[0] in " +":
                        new_rows.append(row[1:])
                    i += 1
                # locate old_rows at or after pos
                at = None
                for k in range(pos, len(src) - len(old_rows) + 1):
                    if src[k:k + len(old_rows)] == old_rows:
                        at = k
                        break
                if at is None:
                    raise ValueError(f"Failed to find expected lines in {path}")
                out += src[pos:at] + new_rows
                pos = at + len(old_rows)
            out += src[pos:]
            result[path] = ("update", "\n".join(out) + "\n" if out else "", move_to)
        else:
            raise ValueError(f"bad patch line {line!r}")
    return result


def _read_text(path: Path) -> tuple[str, bool]:
    """File text with LF line ends, and whether the file used CRLF."""
    raw = path.read_bytes().decode("utf-8")
    crlf = "\r\n" in raw
    return (raw.replace("\r\n", "\n") if crlf else raw), crlf


def _write_text(path: Path, text: str, crlf: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.replace("\n", "\r\n") if crlf else text
    path.write_bytes(data.encode("utf-8"))


def encode_cwd(cwd: str) -> str:
    """Claude Code's project folder name: every non-alphanumeric character becomes '-'."""
    return re.sub(r"[^a-zA-Z0-9]", "-", cwd)


# ---------------------------------------------------------------------------------------------
# Claude Code


REJECTED_TEXT = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a "
    "file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n"
)


@dataclass
class _Pending:
    tool_use_id: str
    assistant_uuid: str
    run: Callable[[str], tuple[Any, Any, bool]]  # tid -> (toolUseResult, tool_result content, is_error)
    snapshot_path: str | None = None


class ClaudeWriter:
    """Writes ``<home>/projects/<encoded-cwd>/<session_id>.jsonl`` like Claude Code 2.1.x
    (``style="2.1"``) or 1.0.x (``style="1.0"``, the versions that still had MultiEdit).
    ``patches=False``: edit results keep the strings but not the file's text nor a
    ``structuredPatch`` (as sessions rebuilt from git-ai's notes, or exported, have them)."""

    provider = "claude_code"

    def __init__(
        self,
        home: Path,
        cwd: Path | str,
        session_id: str,
        start_time: datetime | Clock,
        *,
        ledger: Ledger | None = None,
        style: str = "2.1",
        version: str | None = None,
        model: str | None = None,
        git_branch: str = "main",
        slug: str | None = None,
        patches: bool = True,
        _sidechain: tuple[str, Path, str] | None = None,  # (agentId, file, parent session id)
    ) -> None:
        self.home = Path(home)
        self.cwd = str(cwd)
        self.session_id = session_id
        self.clock = start_time if isinstance(start_time, Clock) else Clock(start_time)
        self.ledger = ledger if ledger is not None else Ledger()
        self.style = style
        self.patches = patches
        self.version = version or ("2.1.119" if style == "2.1" else "1.0.111")
        self.model = model or ("claude-opus-4-7" if style == "2.1" else "claude-sonnet-4-20250514")
        self.git_branch = git_branch
        self.slug = slug
        self.ids = _Ids(f"claude/{session_id}/{_sidechain[0] if _sidechain else ''}")
        self.agent_id: str | None = None
        if _sidechain:
            self.agent_id, self.path, self._parent_session = _sidechain
            self.attributed_session = f"agent-{self.agent_id}"
        else:
            self.path = self.home / "projects" / encode_cwd(self.cwd) / f"{session_id}.jsonl"
            self.attributed_session = session_id
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.last_uuid: str | None = None
        self.prompt_id: str | None = None
        self.prompt_uuid: str | None = None
        self._group: list[_Pending] | None = None
        self._group_msg: tuple[str, str] | None = None
        self._backups: dict[str, int] = {}

    # -- low level --------------------------------------------------------------------------

    def _ts(self) -> str:
        return iso_z(self.clock.advance(self.ids.step()))

    def _emit(self, rec: dict[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(_dumps(rec) + "\n")

    def _envelope(self, kind: str, body: dict[str, Any], *, ts: str, uid: str,
                  extra: dict[str, Any] | None = None) -> dict[str, Any]:
        side = self.agent_id is not None
        if self.style == "1.0":
            rec: dict[str, Any] = {
                "parentUuid": self.last_uuid, "isSidechain": side, "userType": "external", "cwd": self.cwd,
                "sessionId": self.session_id, "version": self.version, "gitBranch": self.git_branch,
            }
            if side:
                rec["agentId"] = self.agent_id
            rec["type"] = kind
            rec.update(body)
            rec["uuid"] = uid
            rec["timestamp"] = ts
            rec.update(extra or {})
            return rec
        rec = {"parentUuid": self.last_uuid, "isSidechain": side}
        if side:
            rec["agentId"] = self.agent_id
        if kind == "user" and self.prompt_id:
            rec["promptId"] = self.prompt_id
        if kind == "assistant":
            rec.update(body)
            rec["type"] = kind
        else:
            rec["type"] = kind
            rec.update(body)
        rec["uuid"] = uid
        rec["timestamp"] = ts
        rec.update(extra or {})
        rec.update({"userType": "external", "entrypoint": "cli", "cwd": self.cwd, "sessionId": self.session_id,
                    "version": self.version, "gitBranch": self.git_branch})
        if self.slug:
            rec["slug"] = self.slug
        return rec

    def _usage(self) -> dict[str, Any]:
        return {
            "input_tokens": self.ids.rng.randint(1, 9),
            "cache_creation_input_tokens": self.ids.rng.randint(100, 5000),
            "cache_read_input_tokens": self.ids.rng.randint(10000, 60000),
            "output_tokens": self.ids.rng.randint(20, 900),
            "service_tier": "standard",
        }

    def _assistant(self, block: dict[str, Any], stop_reason: str | None) -> str:
        if self._group_msg:
            msg_id, req_id = self._group_msg
        else:
            msg_id, req_id = "msg_01" + self.ids.b62(22), "req_011C" + self.ids.b62(20)
        message: dict[str, Any]
        if self.style == "1.0":
            message = {"id": msg_id, "type": "message", "role": "assistant", "model": self.model, "content": [block],
                       "stop_reason": stop_reason, "stop_sequence": None, "usage": self._usage()}
            body = {"message": message, "requestId": req_id}
        else:
            message = {"model": self.model, "id": msg_id, "type": "message", "role": "assistant", "content": [block],
                       "stop_reason": stop_reason, "stop_sequence": None, "stop_details": None, "usage": self._usage()}
            body = {"message": message, "requestId": req_id}
        uid = self.ids.uuid4()
        self._emit(self._envelope("assistant", body, ts=self._ts(), uid=uid))
        self.last_uuid = uid
        return uid

    # -- conversation -------------------------------------------------------------------------

    def prompt(self, text: str) -> str:
        uid = self.ids.uuid4()
        ts = self._ts()
        if self.agent_id is None:
            self._emit({"type": "file-history-snapshot", "messageId": uid,
                        "snapshot": {"messageId": uid, "trackedFileBackups": {}, "timestamp": ts},
                        "isSnapshotUpdate": False})
        self.prompt_id = self.ids.uuid4() if self.style == "2.1" else None
        self.prompt_uuid = uid
        extra = {} if self.style == "1.0" or self.agent_id else {"permissionMode": "default"}
        rec = self._envelope("user", {"message": {"role": "user", "content": text}}, ts=ts, uid=uid, extra=extra)
        self._emit(rec)
        self.last_uuid = uid
        return uid

    def say(self, text: str) -> None:
        self._assistant({"type": "text", "text": text}, None)

    @contextmanager
    def message(self) -> Iterator[None]:
        """Several tool_use blocks in one API message (one JSONL line each, same message.id);
        the tools run, in order, after the message is complete."""
        self._group = []
        self._group_msg = ("msg_01" + self.ids.b62(22), "req_011C" + self.ids.b62(20))
        try:
            yield
        finally:
            pending, self._group, self._group_msg = self._group, None, None
            for p in pending:
                self._finish(p)

    def _tool(self, name: str, tool_input: dict[str, Any], run: Callable[[str], tuple[Any, Any, bool]],
              snapshot_path: str | None = None) -> str:
        tid = "toolu_01" + self.ids.b62(22)
        block: dict[str, Any] = {"type": "tool_use", "id": tid, "name": name, "input": tool_input}
        if self.style == "2.1":
            block["caller"] = {"type": "direct"}
        a_uuid = self._assistant(block, "tool_use" if self.style == "2.1" else None)
        p = _Pending(tid, a_uuid, run, snapshot_path)
        if self._group is not None:
            self._group.append(p)
        else:
            self._finish(p)
        return tid

    def _finish(self, p: _Pending) -> None:
        result, content, is_error = p.run(p.tool_use_id)
        if not self.patches and isinstance(result, dict) and "filePath" in result:
            result = {k: v for k, v in result.items()
                      if k not in ("structuredPatch", "originalFile", "originalFileContents", "type")}
        if p.snapshot_path and not is_error and self.agent_id is None:
            rel = p.snapshot_path
            try:
                rel = str(Path(p.snapshot_path).relative_to(self.cwd))
            except ValueError:
                pass
            version = self._backups.get(rel, 0) + 1
            self._backups[rel] = version
            backups = {k: {"backupFileName": hashlib.sha256(f"{self.session_id}{k}".encode()).hexdigest()[:16] + f"@v{v}",
                           "version": v, "backupTime": iso_z(self.clock.now())} for k, v in self._backups.items()}
            self._emit({"type": "file-history-snapshot", "messageId": p.assistant_uuid,
                        "snapshot": {"messageId": self.prompt_uuid, "trackedFileBackups": backups,
                                     "timestamp": iso_z(self.clock.now())}, "isSnapshotUpdate": True})
        block: dict[str, Any] = {"tool_use_id": p.tool_use_id, "type": "tool_result", "content": content}
        if is_error:
            block = {"type": "tool_result", "content": content, "is_error": True, "tool_use_id": p.tool_use_id}
        uid = self.ids.uuid4()
        extra: dict[str, Any] = {"toolUseResult": result}
        if self.style == "2.1":
            extra["sourceToolAssistantUUID"] = p.assistant_uuid
        rec = self._envelope("user", {"message": {"role": "user", "content": [block]}}, ts=self._pending_ts, uid=uid, extra=extra)
        self._emit(rec)
        self.last_uuid = uid

    # The result record's timestamp is taken when the tool runs (before the edit is recorded).
    _pending_ts: str = ""

    def _record(self, tool: str, tid: str, path: str, status: str, before: str | None,
                after: str | None, move_to: str | None = None) -> None:
        added, removed = added_removed(before, after)
        self.ledger.add(EditRecord(
            provider=self.provider, session_id=self.attributed_session, tool_call_id=tid, tool=tool,
            path=path, time=self.clock.now(), status=status, added=added, removed=removed, before=before,
            after=after, move_to=move_to, transcript=str(self.path)))

    # -- tools ----------------------------------------------------------------------------------

    def edit(self, file_path: Path | str, old_string: str, new_string: str, *, replace_all: bool = False,
             reject: str | None = None, user_modified: str | None = None) -> str:
        """Edit tool. ``reject``: the user refuses (is_error result, file untouched).
        ``user_modified``: the user changed the proposed text in the diff view; this text is applied."""
        path = str(file_path)

        def run(tid: str) -> tuple[Any, Any, bool]:
            self._pending_ts = self._ts()
            p = Path(path)
            before, crlf = _read_text(p)
            if reject is not None:
                would = before.replace(old_string, new_string, 1)
                self._record("Edit", tid, path, "rejected", before, would)
                return "Error: " + REJECTED_TEXT + reject, REJECTED_TEXT + reject, True
            applied_new = user_modified if user_modified is not None else new_string
            count = before.count(old_string)
            if count == 0 or (count > 1 and not replace_all):
                raise AssertionError(f"Edit old_string must occur exactly once in {path} (found {count})")
            after = before.replace(old_string, applied_new) if replace_all else before.replace(old_string, applied_new, 1)
            _write_text(p, after, crlf)
            patch = self._patch(before, after)
            self._record("Edit", tid, path, "applied", before, after)
            result = {"filePath": path, "oldString": old_string, "newString": applied_new, "originalFile": before,
                      "structuredPatch": patch, "userModified": user_modified is not None, "replaceAll": replace_all}
            msg = f"The file {path} has been updated successfully."
            if user_modified is not None:
                msg = f"The user modified your proposed changes before accepting them. {msg}"
            return result, msg, False

        inp = {"replace_all": replace_all, "file_path": path, "old_string": old_string, "new_string": new_string}
        return self._tool("Edit", inp, run, snapshot_path=path)

    def multi_edit(self, file_path: Path | str, edits: Sequence[tuple[str, str]]) -> str:
        """MultiEdit (Claude Code 1.0.x): several replacements in one call."""
        path = str(file_path)

        def run(tid: str) -> tuple[Any, Any, bool]:
            self._pending_ts = self._ts()
            p = Path(path)
            before, crlf = _read_text(p)
            after = before
            for old, new in edits:
                if after.count(old) != 1:
                    raise AssertionError(f"MultiEdit old_string must occur once in {path}: {old!r}")
                after = after.replace(old, new, 1)
            _write_text(p, after, crlf)
            self._record("MultiEdit", tid, path, "applied", before, after)
            result = {"filePath": path,
                      "edits": [{"old_string": o, "new_string": n, "replace_all": False} for o, n in edits],
                      "originalFileContents": before, "structuredPatch": self._patch(before, after), "userModified": False}

            def short(s: str) -> str:
                return s[:50] + "..." if len(s) > 50 else s

            lines = [f"Applied {len(edits)} edits to {path}:"]
            lines += [f'{k}. Replaced "{short(o)}" with "{short(n)}"' for k, (o, n) in enumerate(edits, 1)]
            return result, "\n".join(lines), False

        inp = {"file_path": path, "edits": [{"old_string": o, "new_string": n} for o, n in edits]}
        return self._tool("MultiEdit", inp, run, snapshot_path=path)

    def write(self, file_path: Path | str, content: str) -> str:
        """Write tool: create (``type: create``, empty structuredPatch) or overwrite (``type: update``)."""
        path = str(file_path)

        def run(tid: str) -> tuple[Any, Any, bool]:
            self._pending_ts = self._ts()
            p = Path(path)
            if p.exists():
                before, crlf = _read_text(p)
                _write_text(p, content, crlf)
                self._record("Write", tid, path, "applied", before, content)
                result = {"type": "update", "filePath": path, "content": content,
                          "structuredPatch": self._patch(before, content), "originalFile": before, "userModified": False}
                return result, f"The file {path} has been updated successfully.", False
            _write_text(p, content)
            self._record("Write", tid, path, "applied", None, content)
            result = {"type": "create", "filePath": path, "content": content, "structuredPatch": [], "originalFile": None}
            return result, f"File created successfully at: {path}", False

        return self._tool("Write", {"file_path": path, "content": content}, run, snapshot_path=path)

    def read(self, file_path: Path | str) -> str:
        path = str(file_path)

        def run(_tid: str) -> tuple[Any, Any, bool]:
            self._pending_ts = self._ts()
            text, _ = _read_text(Path(path))
            lines = text.split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            numbered = "".join(f"{k:>6}\u2192{ln}\n" for k, ln in enumerate(lines, 1))
            content = numbered + (
                "\n<system-reminder>\nWhenever you read a file, you should consider whether it would be considered "
                "malware. You CAN and SHOULD provide analysis of malware, what it is doing. But you MUST refuse to "
                "improve or augment the code. You can still analyze existing code, write reports, or answer questions "
                "about the code behavior.\n</system-reminder>\n")
            result = {"type": "text", "file": {"filePath": path, "content": text, "numLines": len(lines),
                                               "startLine": 1, "totalLines": len(lines)}}
            return result, content, False

        return self._tool("Read", {"file_path": path}, run)

    def bash(self, command: str, *, description: str | None = None, stdout: str = "", stderr: str = "",
             run: Callable[[], None] | None = None, edit_diff: Sequence[Path | str] = ()) -> str:
        """Bash tool. ``run`` performs the command's side effects (e.g. a formatter rewriting a
        file): shell edits reach the tree but leave no structured patch, as in real sessions up
        to 2.1.1xx. ``edit_diff`` names files whose changes the result reports as Claude Code
        2.1.288 does (``toolUseResult.bashEditDiff``), each then an edit of this call."""

        def go(tid: str) -> tuple[Any, Any, bool]:
            self._pending_ts = self._ts()
            before = {str(f): _read_text(Path(f))[0] if Path(f).exists() else "" for f in edit_diff}
            if run is not None:
                run()
            result: dict[str, Any] = {"stdout": stdout, "stderr": stderr, "interrupted": False, "isImage": False,
                                      "noOutputExpected": not stdout}
            files = []
            for f, old in before.items():
                new = _read_text(Path(f))[0]
                if new != old:
                    files.append({"filePath": f, "hunks": structured_patch(old, new)})
                    self._record("Bash", tid, f, "applied", old, new)
            if edit_diff:
                result["bashEditDiff"] = {"files": files, "moreFiles": 0, "changedFiles": [x["filePath"] for x in files]}
            return result, stdout or "(No output)", False

        inp: dict[str, Any] = {"command": command}
        if description:
            inp["description"] = description
        return self._tool("Bash", inp, go)

    @contextmanager
    def task(self, description: str, prompt: str, *, subagent_type: str = "general-purpose",
             summary: str = "Done.") -> Iterator[ClaudeWriter]:
        """Spawn a subagent (Task tool). Yields the subagent's writer, whose records go to
        ``<session_id>/subagents/agent-<agentId>.jsonl`` (+ ``.meta.json``)."""
        agent_id = "a" + self.ids.hex(16)
        sub_dir = self.path.parent / self.session_id / "subagents"
        sub_dir.mkdir(parents=True, exist_ok=True)
        sub_file = sub_dir / f"agent-{agent_id}.jsonl"
        holder: dict[str, Any] = {}

        tid = "toolu_01" + self.ids.b62(22)
        block: dict[str, Any] = {"type": "tool_use", "id": tid, "name": "Task",
                                 "input": {"description": description, "prompt": prompt, "subagent_type": subagent_type}}
        if self.style == "2.1":
            block["caller"] = {"type": "direct"}
        a_uuid = self._assistant(block, "tool_use")
        (sub_dir / f"agent-{agent_id}.meta.json").write_text(
            _dumps({"agentType": subagent_type, "description": description, "toolUseId": tid}))
        sub = ClaudeWriter(self.home, self.cwd, self.session_id, self.clock, ledger=self.ledger, style=self.style,
                           version=self.version, model="claude-haiku-4-5-20251001", git_branch=self.git_branch,
                           patches=self.patches, _sidechain=(agent_id, sub_file, self.session_id))
        sub.prompt(prompt)
        started = self.clock.now()
        yield sub

        def run(_tid: str) -> tuple[Any, Any, bool]:
            self._pending_ts = self._ts()
            ms = int((self.clock.now() - started).total_seconds() * 1000)
            result = {"status": "completed", "prompt": prompt, "agentId": agent_id,
                      "content": [{"type": "text", "text": summary}], "totalDurationMs": ms,
                      "totalTokens": self.ids.rng.randint(5000, 40000), "totalToolUseCount": sub.tool_count}
            content = [{"type": "text", "text": summary},
                       {"type": "text", "text": f"agentId: {agent_id} (for resuming to continue this agent's work if needed)"}]
            return result, content, False

        holder["p"] = _Pending(tid, a_uuid, run)
        self._finish(holder["p"])

    @property
    def tool_count(self) -> int:
        return sum(1 for line in self.path.read_text().splitlines() if '"tool_use"' in line) if self.path.exists() else 0

    def _patch(self, before: str, after: str) -> list[dict[str, Any]]:
        hunks = structured_patch(before, after)
        rebuilt = apply_structured_patch(before, hunks)
        if rebuilt != after:
            raise AssertionError("structuredPatch does not reproduce the edit")
        # Claude Code shows tabs as two spaces in structuredPatch lines (observed in all samples).
        for h in hunks:
            h["lines"] = [x.replace("\t", "  ") for x in h["lines"]]
        return hunks


# ---------------------------------------------------------------------------------------------
# Codex CLI


@dataclass
class PatchOp:
    kind: str  # add | update | delete
    path: str
    content: str | None = None
    replacements: tuple[tuple[str, str], ...] = ()
    move_to: str | None = None


def Add(path: Path | str, content: str) -> PatchOp:  # reads like the patch grammar
    return PatchOp("add", str(path), content=content)


def Update(path: Path | str, *replacements: tuple[str, str], move_to: Path | str | None = None) -> PatchOp:
    return PatchOp("update", str(path), replacements=tuple(replacements), move_to=str(move_to) if move_to else None)


def Delete(path: Path | str) -> PatchOp:
    return PatchOp("delete", str(path))


class CodexWriter:
    """Writes ``<home>/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`` like Codex CLI 0.125."""

    provider = "codex"

    def __init__(
        self,
        home: Path,
        cwd: Path | str,
        session_id: str | None,
        start_time: datetime | Clock,
        *,
        ledger: Ledger | None = None,
        git_commit: str | None = None,
        git_branch: str | None = "main",
        repository_url: str | None = None,
        cli_version: str = "0.125.0",
        model: str = "gpt-5.5",
        originator: str = "codex-tui",
    ) -> None:
        self.home = Path(home)
        self.cwd = str(cwd)
        self.clock = start_time if isinstance(start_time, Clock) else Clock(start_time)
        start = self.clock.advance(0.5)
        self.session_id = session_id or det_uuid7(start, "codex", self.cwd)
        self.attributed_session = self.session_id
        self.ledger = ledger if ledger is not None else Ledger()
        self.model = model
        self.ids = _Ids(f"codex/{self.session_id}")
        stamp = start.strftime("%Y-%m-%dT%H-%M-%S")
        self.path = (self.home / "sessions" / start.strftime("%Y") / start.strftime("%m") / start.strftime("%d")
                     / f"rollout-{stamp}-{self.session_id}.jsonl")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.turn_id: str | None = None
        self.turns = 0
        meta: dict[str, Any] = {
            "id": self.session_id, "timestamp": iso_z(start), "cwd": self.cwd, "originator": originator,
            "cli_version": cli_version, "source": "cli", "model_provider": "openai",
            "base_instructions": {"text": "You are Codex, a coding agent based on GPT-5. You and the user share one "
                                          "workspace, and your job is to collaborate with them until their goal is "
                                          "genuinely handled."},
        }
        if git_commit is not None or git_branch:
            git: dict[str, Any] = {}
            if git_commit:
                git["commit_hash"] = git_commit
            if git_branch:
                git["branch"] = git_branch
            if repository_url:
                git["repository_url"] = repository_url
            meta["git"] = git
        self._emit("session_meta", meta)

    def _ts(self) -> str:
        return iso_z(self.clock.advance(self.ids.step()))

    def _emit(self, kind: str, payload: dict[str, Any], ts: str | None = None) -> None:
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(_dumps({"timestamp": ts or iso_z(self.clock.now()), "type": kind, "payload": payload}) + "\n")

    def _tokens(self) -> None:
        n = self.ids.rng.randint(20000, 120000)
        self._emit("event_msg", {"type": "token_count", "info": {
            "total_token_usage": {"input_tokens": n, "cached_input_tokens": n - 900, "output_tokens": 300,
                                  "reasoning_output_tokens": 40, "total_tokens": n + 300},
            "last_token_usage": {"input_tokens": 900, "cached_input_tokens": 0, "output_tokens": 300,
                                 "reasoning_output_tokens": 40, "total_tokens": 1200},
            "model_context_window": 258400}, "rate_limits": {"limit_id": "codex", "limit_name": None, "primary": None,
                                                           "secondary": None, "credits": None, "plan_type": "plus",
                                                           "rate_limit_reached_type": None}}, ts=self._ts())

    def prompt(self, text: str) -> None:
        ts = self._ts()
        self.turn_id = det_uuid7(self.clock.now(), "turn", self.session_id, self.turns)
        self.turns += 1
        self._emit("event_msg", {"type": "task_started", "turn_id": self.turn_id,
                                 "started_at": int(self.clock.now().timestamp()), "model_context_window": 258400,
                                 "collaboration_mode_kind": "default"}, ts)
        if self.turns == 1:
            self._emit("response_item", {"type": "message", "role": "developer", "content": [
                {"type": "input_text", "text": "<permissions instructions>\nFilesystem sandboxing defines which files "
                                               "can be read or written. `sandbox_mode` is `workspace-write`.\n"
                                               "</permissions instructions>"}]}, ts)
            self._emit("response_item", {"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n  <shell>bash</shell>\n"
                                               f"  <current_date>{self.clock.now():%Y-%m-%d}</current_date>\n"
                                               "  <timezone>UTC</timezone>\n</environment_context>"}]}, ts)
        self._emit("turn_context", {
            "turn_id": self.turn_id, "cwd": self.cwd, "current_date": f"{self.clock.now():%Y-%m-%d}",
            "timezone": "UTC", "approval_policy": "on-request",
            "sandbox_policy": {"type": "workspace-write", "writable_roots": [], "network_access": False,
                               "exclude_tmpdir_env_var": False, "exclude_slash_tmp": False},
            "model": self.model, "personality": "pragmatic", "realtime_active": False, "effort": "high",
            "summary": "none", "truncation_policy": {"mode": "tokens", "limit": 10000}}, ts)
        ts = self._ts()
        self._emit("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}, ts)
        self._emit("event_msg", {"type": "user_message", "message": text, "images": [], "local_images": [],
                                 "text_elements": []}, ts)

    def say(self, text: str, phase: str = "commentary") -> None:
        ts = self._ts()
        self._emit("event_msg", {"type": "agent_message", "message": text, "phase": phase, "memory_citation": None}, ts)
        self._emit("response_item", {"type": "message", "role": "assistant",
                                     "content": [{"type": "output_text", "text": text}], "phase": phase}, ts)

    def end_turn(self, last_message: str = "Done.") -> None:
        self.say(last_message, phase="final_answer")
        self._emit("event_msg", {"type": "task_complete", "turn_id": self.turn_id, "last_agent_message": last_message,
                                 "completed_at": int(self.clock.now().timestamp()), "duration_ms": 42000,
                                 "time_to_first_token_ms": 2100}, self._ts())

    def _abs(self, p: str) -> str:
        return p if Path(p).is_absolute() else str(Path(self.cwd) / p)

    def apply_patch(self, *ops: PatchOp, fail: bool = False, script: bool = False) -> str:
        """One ``apply_patch`` call (custom_tool_call). ``fail=True`` records a verification
        failure: plain-string output, no patch_apply_end, files untouched. ``script=True`` writes
        it as code mode does (a real Codex 0.147 rollout): an ``exec`` call whose JavaScript
        binds the patch to a name and passes it to ``tools.apply_patch``, then, as the only
        report, an ``item_completed`` event whose ``FileChange`` item carries the nested call's
        own id, and an output of content blocks printing ``{}``; the ``exec`` call is the one
        that made the edit."""
        call_id = "call_" + self.ids.b62(24)
        plan: list[tuple[PatchOp, str | None, str | None, bool]] = []  # op, before, after, crlf
        chunks = ["*** Begin Patch"]
        for op in ops:
            path = self._abs(op.path)
            if op.kind == "add":
                assert op.content is not None and op.content.endswith("\n")
                chunks.append(f"*** Add File: {path}")
                chunks += ["+" + ln for ln in _lines(op.content)]
                plan.append((op, None, op.content, False))
            elif op.kind == "delete":
                before, crlf = _read_text(Path(path))
                chunks.append(f"*** Delete File: {path}")
                plan.append((op, before, None, crlf))
            else:
                before, crlf = _read_text(Path(path))
                after = before
                for old, new in op.replacements:
                    if after.count(old) != 1:
                        raise AssertionError(f"patch context must occur once in {path}: {old!r}")
                    after = after.replace(old, new, 1)
                chunks.append(f"*** Update File: {path}")
                if op.move_to:
                    chunks.append(f"*** Move to: {self._abs(op.move_to)}")
                hunks = None
                for ctx in (3, 5, 8, 100000):
                    hunks = _patch_hunks(before, after, ctx)
                    trial = "\n".join(["*** Begin Patch", f"*** Update File: {path}"]
                                      + [r for h in hunks for r in ["@@", *h]] + ["*** End Patch"])
                    try:
                        got = apply_patch_text(trial, lambda _p, b=before: b)[path][1]
                    except ValueError:
                        continue
                    if got == after:
                        break
                else:
                    raise AssertionError(f"cannot express the update of {path} as apply_patch hunks")
                for h in hunks:
                    chunks.append("@@")
                    chunks += h
                plan.append((op, before, after, crlf))
        chunks.append("*** End Patch")
        patch = "\n".join(chunks) + "\n"
        if not fail:
            check = apply_patch_text(patch, lambda p: _read_text(Path(p))[0])
            for op, _before, after, _crlf in plan:
                if op.kind != "delete":
                    assert check[self._abs(op.path)][1] == after, op.path
        if script:
            self._emit("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": call_id,
                                         "namespace": "functions", "name": "exec",
                                         "input": f"const patch = {_dumps(patch)};\ntext(await tools.apply_patch(patch));\n"},
                       self._ts())
        else:
            self._emit("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": call_id,
                                         "name": "apply_patch", "input": patch}, self._ts())
        if fail:
            first = plan[0]
            path = self._abs(first[0].path)
            missing = ("\n".join(r[1:] for r in _patch_hunks(first[1] or "", first[2] or "", 3)[0] if r[0] in " -")
                       if first[0].kind == "update" else "")
            out = f"apply_patch verification failed: Failed to find expected lines in {path}:\n{missing}"
            for op, before, after, _ in plan:
                self._record(call_id, op, "failed", before, after)
            self._emit("response_item", {"type": "custom_tool_call_output", "call_id": call_id, "output": out}, self._ts())
            return call_id
        self._tokens()
        changes: dict[str, Any] = {}
        summary = {"A": [], "M": [], "D": []}
        for op, before, after, crlf in plan:
            path = self._abs(op.path)
            if op.kind == "add":
                _write_text(Path(path), after or "")
                changes[path] = {"type": "add", "content": after}
                summary["A"].append(path)
            elif op.kind == "delete":
                Path(path).unlink()
                changes[path] = {"type": "delete", "content": before}
                summary["D"].append(path)
            else:
                dest = self._abs(op.move_to) if op.move_to else path
                _write_text(Path(dest), after or "", crlf)
                if op.move_to:
                    Path(path).unlink()
                changes[path] = {"type": "update", "unified_diff": codex_unified_diff(before or "", after or ""),
                                 "move_path": dest if op.move_to else None}
                summary["M"].append(dest)
        ts = self._ts()
        for op, before, after, _ in plan:
            self._record(call_id, op, "applied", before, after)
        stdout = "Success. Updated the following files:\n" + "".join(
            f"{k} {p}\n" for k in ("A", "M", "D") for p in summary[k])
        if script:
            at = int(self.clock.now().timestamp() * 1000)
            self._emit("event_msg", {"type": "item_completed", "thread_id": self.session_id, "turn_id": self.turn_id,
                                     "item": {"type": "FileChange", "id": "exec-" + self.ids.uuid4(), "changes": changes,
                                              "status": "completed", "stdout": stdout, "stderr": ""},
                                     "started_at_ms": at - 2, "completed_at_ms": at}, ts)
        else:
            self._emit("event_msg", {"type": "patch_apply_end", "call_id": call_id, "turn_id": self.turn_id,
                                     "stdout": stdout, "stderr": "", "success": True, "changes": changes,
                                     "status": "completed"}, ts)
        output: Any = ([{"type": "input_text", "text": "Script completed\nWall time 0.5 seconds\nOutput:\n"},
                        {"type": "input_text", "text": "{}"}] if script
                       else _dumps({"output": stdout, "metadata": {"exit_code": 0, "duration_seconds": 0.0}}))
        self._emit("response_item", {"type": "custom_tool_call_output", "call_id": call_id, "output": output},
                   self._ts())
        return call_id

    def _record(self, call_id: str, op: PatchOp, status: str, before: str | None, after: str | None) -> None:
        added, removed = added_removed(before, after)
        self.ledger.add(EditRecord(
            provider=self.provider, session_id=self.session_id, tool_call_id=call_id, tool="apply_patch",
            path=self._abs(op.path), time=self.clock.now(), status=status, added=added, removed=removed,
            before=before, after=after, move_to=self._abs(op.move_to) if op.move_to else None,
            transcript=str(self.path)))

    def exec(self, cmd: str, *, output: str = "", exit_code: int = 0, workdir: str | None = None,
             run: Callable[[], None] | None = None, parsed_cmd: list[dict[str, Any]] | None = None,
             tool: str = "exec_command") -> str:
        """``exec_command`` function call + ``exec_command_end`` + output. ``run`` performs the
        command's side effects on the tree (invisible to patch records). ``parsed_cmd`` is what
        Codex's command parser recorded (e.g. ``[{"type": "read", "cmd": ..., "name": "f.py",
        "path": "src/f.py"}]`` for ``sed -n '1,80p' src/f.py``); by default ``unknown``."""
        call_id = "call_" + self.ids.b62(24)
        wd = workdir or self.cwd
        self._emit("response_item", {"type": "function_call", "name": tool, "arguments": _dumps(
            {"cmd": cmd, "workdir": wd, "yield_time_ms": 1000, "max_output_tokens": 12000}), "call_id": call_id}, self._ts())
        if run is not None:
            run()
        ts = self._ts()
        self._emit("event_msg", {"type": "exec_command_end", "call_id": call_id,
                                 "process_id": str(self.ids.rng.randint(1000, 99999)), "turn_id": self.turn_id,
                                 "command": ["/bin/bash", "-lc", cmd], "cwd": wd,
                                 "parsed_cmd": parsed_cmd or [{"type": "unknown", "cmd": cmd}], "source": "unified_exec_startup",
                                 "stdout": output, "stderr": "", "aggregated_output": output, "exit_code": exit_code,
                                 "duration": {"secs": 0, "nanos": self.ids.rng.randint(1000, 999999)},
                                 "formatted_output": output, "status": "completed" if exit_code == 0 else "failed"}, ts)
        tokens = len(output.split())
        self._emit("response_item", {"type": "function_call_output", "call_id": call_id, "output": (
            f"Chunk ID: {self.ids.hex(6)}\nWall time: 0.0000 seconds\nProcess exited with code {exit_code}\n"
            f"Original token count: {tokens}\nOutput:\n{output}")}, self._ts())
        return call_id

    def local_shell(self, argv: list[str], *, output: str = "", exit_code: int = 0,
                    run: Callable[[], None] | None = None) -> str:
        """A ``local_shell_call`` item (Codex's built-in local shell): the argv in ``action``,
        the result as a ``function_call_output``. ``run`` performs its side effects."""
        call_id = "call_" + self.ids.b62(24)
        self._emit("response_item", {"type": "local_shell_call", "id": "lsh_" + self.ids.hex(24), "call_id": call_id,
                                     "status": "completed", "action": {
                                         "type": "exec", "command": argv, "timeout_ms": 10000,
                                         "working_directory": self.cwd, "env": {}, "user": None}}, self._ts())
        if run is not None:
            run()
        self._emit("response_item", {"type": "function_call_output", "call_id": call_id, "output": _dumps(
            {"output": output, "metadata": {"exit_code": exit_code, "duration_seconds": 0.1}})}, self._ts())
        return call_id


# ---------------------------------------------------------------------------------------------
# Gemini CLI


GEMINI_REPLACE_DESCRIPTION = (
    "Replaces text within a file. By default, replaces a single occurrence, but can replace multiple occurrences "
    "when `expected_replacements` is specified. This tool requires providing significant context around the change "
    "to ensure precise targeting. Always use the read_file tool to examine the file's current content before "
    "attempting a text replacement.")
GEMINI_WRITE_DESCRIPTION = (
    "Writes content to a specified file in the local filesystem.\n\n      The user has the ability to modify "
    "`content`. If modified, this will be stated in the response.")


class GeminiWriter:
    """Writes the legacy single-JSON chat file ``<home>/.gemini/tmp/<sha256(root)>/chats/
    session-<YYYY-MM-DDTHH-MM>-<id8>.json``, rewritten whole on every update."""

    provider = "gemini"

    def __init__(self, home: Path, project_root: Path | str, session_id: str, start_time: datetime | Clock, *,
                 ledger: Ledger | None = None, model: str = "gemini-2.5-pro") -> None:
        self.home = Path(home)
        # Gemini CLI's project root is process.cwd() (a physical path: symlinks resolved), and
        # the legacy folder and ``projectHash`` are sha256 of exactly that string.
        self.root = os.path.realpath(str(project_root))
        self.session_id = session_id
        self.attributed_session = session_id
        self.clock = start_time if isinstance(start_time, Clock) else Clock(start_time)
        self.ledger = ledger if ledger is not None else Ledger()
        self.model = model
        self.ids = _Ids(f"gemini/{session_id}")
        start = self.clock.advance(0.5)
        self.project_hash = hashlib.sha256(self.root.encode()).hexdigest()
        self.path = (self.home / ".gemini" / "tmp" / self.project_hash / "chats"
                     / f"session-{start:%Y-%m-%dT%H-%M}-{session_id[:8]}.json")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.data: dict[str, Any] = {"sessionId": session_id, "projectHash": self.project_hash,
                                     "startTime": iso_z(start), "lastUpdated": iso_z(start), "messages": []}
        self._flush()

    def _ts(self) -> str:
        return iso_z(self.clock.advance(self.ids.step()))

    def _flush(self) -> None:
        self.data["lastUpdated"] = iso_z(self.clock.now())
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(self.data, ensure_ascii=False, indent=2), encoding="utf-8")
        tmp.replace(self.path)

    def prompt(self, text: str) -> None:
        self.data["messages"].append({"id": self.ids.uuid4(), "timestamp": self._ts(), "type": "user", "content": text})
        self._flush()

    def _gemini(self, text: str, tool_calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        msg: dict[str, Any] = {
            "id": self.ids.uuid4(), "timestamp": self._ts(), "type": "gemini", "content": text,
            "thoughts": [{"subject": "Planning the change", "description": "I'm working out the smallest change "
                          "that satisfies the request.", "timestamp": iso_z(self.clock.now())}],
            "tokens": {"input": self.ids.rng.randint(5000, 20000), "output": self.ids.rng.randint(40, 400),
                       "cached": self.ids.rng.randint(0, 5000), "thoughts": self.ids.rng.randint(50, 300), "tool": 0,
                       "total": 0},
            "model": self.model,
        }
        msg["tokens"]["total"] = msg["tokens"]["input"] + msg["tokens"]["output"] + msg["tokens"]["thoughts"]
        if tool_calls is not None:
            msg["toolCalls"] = tool_calls
        self.data["messages"].append(msg)
        return msg

    def say(self, text: str) -> None:
        self._gemini(text)
        self._flush()

    def _abs(self, file_path: str) -> str:
        return file_path if Path(file_path).is_absolute() else str(Path(self.root) / file_path)

    def _call(self, name: str, args: dict[str, Any], text: str, run: Callable[[], tuple[str, dict[str, Any], str | None]],
              display: str, description: str) -> str:
        msg = self._gemini(text, [])
        call_id = f"{name}-{int(self.clock.now().timestamp() * 1000)}-{self.ids.hex(13)}"
        ts = self._ts()
        status, response, result_display = run()
        call: dict[str, Any] = {"id": call_id, "name": name, "args": args,
                                "result": [{"functionResponse": {"id": call_id, "name": name, "response": response}}],
                                "status": status, "timestamp": ts}
        if result_display is not None:
            call["resultDisplay"] = result_display
        call.update({"displayName": display, "description": description, "renderOutputAsMarkdown": True})
        msg["toolCalls"].append(call)
        self._last_call = call_id
        self._flush()
        return call_id

    def replace(self, file_path: str, old_string: str, new_string: str, *, status: str = "success",
                text: str = "I will update the file.", instruction: str = "Apply the requested change.") -> str:
        """``replace`` (display "Edit"). status ``error`` (tool failed) or ``cancelled`` (user
        refused) leaves the file untouched."""
        abs_path = self._abs(file_path)
        holder: list[str] = []

        def run() -> tuple[str, dict[str, Any], str | None]:
            p = Path(abs_path)
            before, crlf = _read_text(p)
            if status != "success":
                msg = ("Failed to edit, could not find the string to replace." if status == "error"
                       else "[Operation Cancelled] Reason: User did not allow tool call")
                holder.append("failed" if status == "error" else "rejected")
                self._pending = (before, None)
                return status, {"error": msg}, msg
            if before.count(old_string) != 1:
                raise AssertionError(f"replace old_string must occur once in {abs_path}")
            after = before.replace(old_string, new_string, 1)
            _write_text(p, after, crlf)
            holder.append("applied")
            self._pending = (before, after)
            return "success", {"output": f"Successfully modified file: {abs_path} (1 replacements)."}, None

        args = {"file_path": file_path, "old_string": old_string, "new_string": new_string, "instruction": instruction}
        cid = self._call("replace", args, text, run, "Edit", GEMINI_REPLACE_DESCRIPTION)
        self._record(cid, "replace", abs_path, holder[0])
        return cid

    def write_file(self, file_path: str, content: str, *, text: str = "I will write the file.") -> str:
        abs_path = self._abs(file_path)

        def run() -> tuple[str, dict[str, Any], str | None]:
            p = Path(abs_path)
            before = _read_text(p)[0] if p.exists() else None
            _write_text(p, content)
            self._pending = (before, content)
            if before is None:
                return "success", {"output": f"Successfully created and wrote to new file: {abs_path}."}, None
            return "success", {"output": f"Successfully overwrote file: {abs_path}."}, None

        cid = self._call("write_file", {"file_path": file_path, "content": content}, text, run, "WriteFile",
                         GEMINI_WRITE_DESCRIPTION)
        self._record(cid, "write_file", abs_path, "applied")
        return cid

    def shell(self, command: str, *, output: str = "(empty)", run: Callable[[], None] | None = None,
              text: str = "I will run a command.") -> str:
        def go() -> tuple[str, dict[str, Any], str | None]:
            if run is not None:
                run()
            out = (f"Command: {command}\nDirectory: (root)\nOutput: {output}\nError: (none)\nExit Code: 0\n"
                   "Signal: 0\nBackground PIDs: (none)\nProcess Group PGID: 4242")
            return "success", {"output": out}, "" if output == "(empty)" else output

        return self._call("run_shell_command", {"command": command, "description": "Run a shell command."}, text, go,
                          "Shell", "This tool executes a given shell command as `bash -c <command>`.")

    _pending: tuple[str | None, str | None] = (None, None)

    def _record(self, call_id: str, tool: str, path: str, status: str) -> None:
        before, after = self._pending
        added, removed = added_removed(before, after) if status == "applied" else ((), ())
        if status != "applied":
            # what the refused call would have added
            added, removed = (), ()
        self.ledger.add(EditRecord(
            provider=self.provider, session_id=self.session_id, tool_call_id=call_id, tool=tool, path=path,
            time=self.clock.now(), status=status, added=added, removed=removed, before=before, after=after,
            transcript=str(self.path)))


# ---------------------------------------------------------------------------------------------
# Small Claude Code transcripts for the search, memory and transcript-window tests and the
# search scripts: text turns and tool calls, no files touched.


@dataclass
class Transcript:
    session_id: str
    cwd: str = "/tmp/project"
    start: str = "2026-03-01T10:00:00"  # UTC, seconds precision
    lines: list[dict[str, Any]] = field(default_factory=list)
    _t: int = 0
    _parent: str | None = None

    def _ts(self) -> str:
        self._t += 7
        t = datetime.fromisoformat(self.start) + timedelta(seconds=self._t)
        return t.strftime("%Y-%m-%dT%H:%M:%S.000Z")

    def _rec(self, typ: str, message: dict[str, Any], **extra: Any) -> str:
        u = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.session_id}/{len(self.lines)}"))
        rec = {"parentUuid": self._parent, "isSidechain": False, "userType": "external", "cwd": self.cwd,
               "sessionId": self.session_id, "version": "2.1.0", "gitBranch": "main", "type": typ,
               "message": message, "uuid": u, "timestamp": extra.pop("timestamp", None) or self._ts(), **extra}
        self.lines.append(rec)
        self._parent = u
        return u

    def user(self, text: str, **kw: Any) -> str:
        return self._rec("user", {"role": "user", "content": text}, **kw)

    def assistant(self, text: str, **kw: Any) -> str:
        return self._rec("assistant", {"role": "assistant", "model": "claude-test", "type": "message",
                                       "content": [{"type": "text", "text": text}]}, **kw)

    def tool(self, name: str, input: dict[str, Any], output: str, call_id: str | None = None,
             result: Any = None) -> str:
        """A tool call and its result; ``result`` is the ``toolUseResult`` (default: a shell's)."""
        cid = call_id or "toolu_" + uuid.uuid5(uuid.NAMESPACE_URL, f"{self.session_id}/c{len(self.lines)}").hex[:20]
        self._rec("assistant", {"role": "assistant", "model": "claude-test", "type": "message",
                                "content": [{"type": "tool_use", "id": cid, "name": name, "input": input}]})
        self._rec("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": cid, "content": output}]},
                  toolUseResult=result if result is not None else {"stdout": output, "stderr": "", "interrupted": False})
        return cid

    def write(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        p = folder / f"{self.session_id}.jsonl"
        p.write_text("".join(json.dumps(r) + "\n" for r in self.lines))
        return p

    def write_home(self, home: Path) -> Path:
        """Where Claude Code keeps it: ``home/projects/<encoded cwd>/<session id>.jsonl``."""
        return self.write(home / "projects" / encode_cwd(self.cwd))


@dataclass
class Rollout:
    """Codex rollout lines given record by record (``add(kind, payload)``, each 2 s after the
    last) and written at once: the record-level counterpart of :class:`CodexWriter`, which runs
    its patches against real files."""

    session_id: str
    start: datetime  # aware (UTC)
    lines: list[dict[str, Any]] = field(default_factory=list)
    _t: datetime | None = None

    def now(self) -> str:
        return iso_z(self._t or self.start)

    def add(self, kind: str, payload: dict[str, Any]) -> None:
        self._t = (self._t or self.start) + timedelta(seconds=2)
        self.lines.append({"timestamp": iso_z(self._t), "type": kind, "payload": payload})

    def write_home(self, home: Path) -> Path:
        """Where Codex keeps it: ``home/sessions/YYYY/MM/DD/rollout-<start>-<session id>.jsonl``."""
        day = home / "sessions" / self.start.strftime("%Y/%m/%d")
        day.mkdir(parents=True, exist_ok=True)
        p = day / f"rollout-{self.start.strftime('%Y-%m-%dT%H-%M-%S')}-{self.session_id}.jsonl"
        p.write_text("".join(json.dumps(x) + "\n" for x in self.lines))
        return p


def iso_ms(t: float) -> str:
    """A Claude Code timestamp (milliseconds, Z) of ``t`` seconds since the epoch."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def edit_strings(a: list[str], b: list[str]) -> tuple[str, str]:
    """old_string/new_string for an Edit turning lines a into b: the changed region plus one line
    of context on each side (with unique lines, old_string occurs once)."""
    p = 0
    while p < min(len(a), len(b)) and a[p] == b[p]:
        p += 1
    s = 0
    while s < min(len(a), len(b)) - p and a[-1 - s] == b[-1 - s]:
        s += 1
    lo = max(0, p - 1)
    ea, eb = min(len(a), len(a) - s + 1), min(len(b), len(b) - s + 1)
    return "\n".join(a[lo:ea]), "\n".join(b[lo:eb])


class SeededClaudeTranscript:
    """One Claude Code 2.1.119 transcript, collected in memory from a seeded ``random.Random``
    (ids, timing) and written at the end: for benchmarks that make thousands of sessions over
    files that never exist on disk (scripts/bench_history.py builds its repository with git
    fast-import). An edit takes the file's lines before and after; nothing is read or written
    but the transcript. :class:`ClaudeWriter` is the one that edits real files."""

    def __init__(self, rng: random.Random, repo: Path | str, sid: str, t: float) -> None:
        self.rng, self.repo, self.sid, self.t = rng, str(repo), sid, t
        self.recs: list[dict[str, Any]] = []
        self.last: str | None = None
        self.prompt_id = self._uuid()

    def _uuid(self) -> str:
        h = f"{self.rng.getrandbits(128):032x}"
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:]}"

    def _b62(self, n: int) -> str:
        return "".join(self.rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(n))

    def _ts(self) -> str:
        self.t += self.rng.uniform(0.5, 6.0)
        return iso_ms(self.t)

    def _tail(self, rec: dict[str, Any]) -> dict[str, Any]:
        rec.update(userType="external", entrypoint="cli", cwd=self.repo, sessionId=self.sid, version="2.1.119",
                   gitBranch="main")
        self.recs.append(rec)
        self.last = rec["uuid"]
        return rec

    def prompt(self, text: str) -> None:
        uid = self._uuid()
        ts = self._ts()
        self.recs.append({"type": "file-history-snapshot", "messageId": uid,
                          "snapshot": {"messageId": uid, "trackedFileBackups": {}, "timestamp": ts},
                          "isSnapshotUpdate": False})
        self._tail({"parentUuid": self.last, "isSidechain": False, "promptId": self.prompt_id, "type": "user",
                    "message": {"role": "user", "content": text}, "uuid": uid, "timestamp": ts,
                    "permissionMode": "default"})

    def _assistant(self, block: dict[str, Any], stop: str | None) -> str:
        msg = {"model": "claude-opus-4-7", "id": "msg_01" + self._b62(22), "type": "message", "role": "assistant",
               "content": [block], "stop_reason": stop, "stop_sequence": None, "stop_details": None,
               "usage": {"input_tokens": 3, "cache_creation_input_tokens": 900, "cache_read_input_tokens": 30000,
                         "output_tokens": 200, "service_tier": "standard"}}
        uid = self._uuid()
        self._tail({"parentUuid": self.last, "isSidechain": False, "message": msg, "requestId": "req_011C" + self._b62(20),
                    "type": "assistant", "uuid": uid, "timestamp": self._ts()})
        return uid

    def say(self, text: str) -> None:
        self._assistant({"type": "text", "text": text}, "end_turn")

    def _tool(self, name: str, inp: dict[str, Any], result: Any, content: str, is_error: bool = False) -> None:
        tid = "toolu_01" + self._b62(22)
        a = self._assistant({"type": "tool_use", "id": tid, "name": name, "input": inp, "caller": {"type": "direct"}},
                            "tool_use")
        block: dict[str, Any] = {"tool_use_id": tid, "type": "tool_result", "content": content}
        if is_error:
            block["is_error"] = True
        self._tail({"parentUuid": self.last, "isSidechain": False, "promptId": self.prompt_id, "type": "user",
                    "message": {"role": "user", "content": [block]}, "uuid": self._uuid(), "timestamp": self._ts(),
                    "toolUseResult": result, "sourceToolAssistantUUID": a})

    def edit(self, rel: str, before: list[str], after: list[str]) -> None:
        path = f"{self.repo}/{rel}"
        old, new = edit_strings(before, after)
        result = {"filePath": path, "oldString": old, "newString": new, "originalFile": "\n".join(before) + "\n",
                  "structuredPatch": structured_patch("\n".join(before) + "\n", "\n".join(after) + "\n"),
                  "userModified": False, "replaceAll": False}
        self._tool("Edit", {"replace_all": False, "file_path": path, "old_string": old, "new_string": new}, result,
                   f"The file {path} has been updated successfully.")

    def bash(self, command: str, output: str, exit_code: int = 0) -> None:
        if exit_code:
            text = f"Exit code {exit_code}\n{output}"
            self._tool("Bash", {"command": command, "description": "Run tests"}, f"Error: {text}", text, True)
        else:
            self._tool("Bash", {"command": command, "description": "Run tests"},
                       {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}, output)

    def write(self, home: Path) -> None:
        """To ``home/.claude/projects/<encoded cwd>/<session id>.jsonl``."""
        folder = home / ".claude" / "projects" / "".join(c if c.isalnum() or c == "-" else "-" for c in self.repo)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{self.sid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in self.recs))


# ---------------------------------------------------------------------------------------------
# Story: a repository and its agent sessions from a list of steps (the shape of `hansard demo`,
# whose shipped data fixtures_repos/demo.py generates with it). Steps: write, replace, commit,
# claude (Edit calls, applied), codex (one apply_patch adding a file). Agent homes and
# HANSARD_HOME point under ``root/home``; the repository is ``root/<repo>``.


class Story:
    def __init__(self, root: Path, repo: str = "upload-service") -> None:
        self.root = root
        self.repo = root / repo
        self.env = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
        # The same homes `hansard demo` uses, so a story can extend the shipped demo.
        from hansard.demo import point_homes

        point_homes(root)
        self.commits: list[dict[str, Any]] = []  # each commit's message, author, date and changed files
        self.transcripts: list[Path] = []
        self._committed: dict[str, str] = {}

    def git(self, *args: str, env: dict[str, str] | None = None) -> None:
        subprocess.run(["git", *args], cwd=self.repo, env=env or self.env, check=True, capture_output=True)

    def run(self, steps: list[dict[str, Any]]) -> None:
        self.repo.mkdir(parents=True)
        self.git("init", "-q", "-b", "main")
        for step in steps:
            getattr(self, "do_" + step["do"])(step)

    def do_write(self, s: dict[str, Any]) -> None:
        p = self.repo / s["path"]
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(s["text"])

    def do_replace(self, s: dict[str, Any]) -> None:
        p = self.repo / s["path"]
        p.write_text(p.read_text().replace(s["old"], s["new"]))

    def do_commit(self, s: dict[str, Any]) -> None:
        name, _, mail = s["author"].partition(" <")
        env = dict(self.env, GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=mail.rstrip(">"), GIT_COMMITTER_NAME=name,
                   GIT_COMMITTER_EMAIL=mail.rstrip(">"), GIT_AUTHOR_DATE=s["date"], GIT_COMMITTER_DATE=s["date"])
        self.git("add", "-A")
        self.git("commit", "-q", "-m", s["message"], env=env)
        tree = {p.relative_to(self.repo).as_posix(): p.read_text() for p in sorted(self.repo.rglob("*"))
                if p.is_file() and ".git" not in p.relative_to(self.repo).parts}
        changed: dict[str, str | None] = {k: v for k, v in tree.items() if self._committed.get(k) != v}
        changed.update({k: None for k in self._committed if k not in tree})
        self._committed = tree
        self.commits.append({"message": s["message"], "author": s["author"], "date": s["date"], "files": changed})

    def do_claude(self, s: dict[str, Any]) -> None:
        cwd = str(self.repo)
        t = datetime.fromisoformat(s["start"].replace("Z", "+00:00"))
        sid = s["session"]
        base = {"isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": sid, "version": "2.1.119",
                "gitBranch": "main", "entrypoint": "cli"}
        recs: list[dict[str, Any]] = []
        parent = None

        def add(rec: dict[str, Any]) -> str:
            nonlocal parent, t
            t += timedelta(seconds=3)
            uid = f"{sid[:8]}-0000-4000-8000-{len(recs):012d}"
            recs.append({"parentUuid": parent, **base, **rec, "uuid": uid, "timestamp": iso_z(t)})
            parent = uid
            return uid

        add({"type": "user", "message": {"role": "user", "content": s["prompt"]}, "permissionMode": "default"})
        for n, e in enumerate(s["edits"]):
            path = self.repo / e["path"]
            before = path.read_text()
            after = before.replace(e["old"], e["new"], 1)
            call = f"toolu_01{sid[:6]}{n:04d}Demo"
            add({"type": "assistant", "message": {"id": f"msg_demo{n}", "type": "message", "role": "assistant",
                 "model": "claude-opus-4-5", "content": [{"type": "tool_use", "id": call, "name": "Edit",
                 "input": {"file_path": str(path), "old_string": e["old"], "new_string": e["new"], "replace_all": False}}]}})
            path.write_text(after)
            add({"type": "user", "message": {"role": "user", "content": [{"tool_use_id": call, "type": "tool_result",
                 "content": f"The file {path} has been updated successfully."}]},
                 "toolUseResult": {"filePath": str(path), "oldString": e["old"], "newString": e["new"], "originalFile": before,
                                   "structuredPatch": structured_patch(before, after), "userModified": False,
                                   "replaceAll": False}})
        add({"type": "assistant", "message": {"id": "msg_demo_end", "type": "message", "role": "assistant",
             "model": "claude-opus-4-5", "content": [{"type": "text", "text": s["reply"]}]}})
        folder = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects" / encode_cwd(cwd)
        folder.mkdir(parents=True, exist_ok=True)
        out = folder / f"{sid}.jsonl"
        out.write_text("".join(json.dumps(r) + "\n" for r in recs))
        self.transcripts.append(out)

    def do_codex(self, s: dict[str, Any]) -> None:
        cwd = str(self.repo)
        t = datetime.fromisoformat(s["start"].replace("Z", "+00:00"))
        sid = s["session"]
        path = self.repo / s["add"]["path"]
        text = s["add"]["text"]
        patch = (f"*** Begin Patch\n*** Add File: {path}\n" + "".join("+" + ln + "\n" for ln in text.splitlines())
                 + "*** End Patch\n")
        lines: list[dict[str, Any]] = []

        def add(kind: str, payload: dict[str, Any]) -> None:
            nonlocal t
            t += timedelta(seconds=2)
            lines.append({"timestamp": iso_z(t), "type": kind, "payload": payload})

        add("session_meta", {"id": sid, "timestamp": iso_z(t), "cwd": cwd, "originator": "codex-tui", "cli_version": "0.125.0",
                             "source": "cli", "model_provider": "openai",
                             "git": {"branch": "main", "repository_url": "https://example.com/upload-service.git"}})
        add("turn_context", {"turn_id": "turn-1", "cwd": cwd, "approval_policy": "on-request", "model": "gpt-5.4"})
        add("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": s["prompt"]}]})
        add("event_msg", {"type": "user_message", "message": s["prompt"], "images": []})
        add("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": "call_demo0001",
                              "name": "apply_patch", "input": patch})
        add("event_msg", {"type": "patch_apply_begin", "call_id": "call_demo0001", "auto_approved": True,
                          "changes": {str(path): {"add": {"content": text}}}})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        add("event_msg", {"type": "patch_apply_end", "call_id": "call_demo0001", "turn_id": "turn-1",
                          "stdout": f"Success. Updated the following files:\nA {path}\n", "stderr": "", "success": True,
                          "changes": {str(path): {"type": "add", "content": text}}})
        add("response_item", {"type": "custom_tool_call_output", "call_id": "call_demo0001",
                              "output": json.dumps({"output": f"Success. Updated the following files:\nA {path}\n",
                                                    "metadata": {"exit_code": 0, "duration_seconds": 0.1}})})
        add("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": s["reply"]}]})
        day = Path(os.environ["CODEX_HOME"]) / "sessions" / s["start"][:4] / s["start"][5:7] / s["start"][8:10]
        day.mkdir(parents=True, exist_ok=True)
        out = day / f"rollout-{s['start'][:19].replace(':', '-')}-{sid}.jsonl"
        out.write_text("".join(json.dumps(x) + "\n" for x in lines))
        self.transcripts.append(out)


# =============================================================================================
# A seeded corpus at scale, for scripts/bench_index.py and scripts/bench_redact.py: thousands of
# Claude Code sessions (with subagents) and Codex rollouts in the real record shapes, written
# with orjson and never touching a working tree. Same seed, same bytes.

GEN_VERSION = 1
MB = 1_000_000
RESCAN_FILES = 1000
BIG_SHARE = 0.2  # share of corpus bytes in multi-MB lines
CODEX_SHARE = 0.35
SUBAGENT_SHARE = 0.05
SIZE_CALIBRATION = 0.8

# ---------------------------------------------------------------------------------------------
# text pools
# ---------------------------------------------------------------------------------------------

WORDS = """alpha beta gamma delta config handler request response session message token buffer index
record offset parser writer reader store cache value result error context client server event stream
batch queue worker task plan patch diff line file path repo commit branch tree node edge graph state
model schema table column query cursor items count total limit start end size name kind status output
input source target mode flags options args user agent tool call edit hunk text data bytes blob hash key
uuid stamp retry timeout delay ready done payload header footer chunk frame layout render widget button
metrics tracer span logger policy sandbox workspace compact transcript capability protocol""".split()
PROSE = """the a to of and in that is for it with as was on be by this are or from at which an but not have
we can will should would could all so if then there their when what how more some other only also into
after before because while about over such these those first last next new old same each every both
function change update test build fix check run make sure file code error case value return type field
method call handle read write parse index store record session agent commit branch patch line diff""".split()
TYPES = ["int", "str", "bytes", "bool", "float", "dict[str, Any]", "list[str]", "None", "Path", "Iterator[Record]"]
INDENTS = ["", "    ", "    ", "        ", "        ", "            ", "\t", "\t\t", "\t\t\t"]
EXTS = [".py", ".go", ".ts", ".rs", ".md", ".tsx", ".json", ".toml"]
DIRS = ["src", "src/core", "internal/pi", "internal/protocol", "lib", "tests", "cmd/app", "pkg/store", "web/components"]
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
HEX = "0123456789abcdef"
BASH_CMDS = [
    "git status --short", "git diff --stat", "go test ./... 2>&1 | tail -40", "pytest -q -x 2>&1 | tail -30",
    "ls -la", "rg -n \"{w}\" src/", "go build ./... && go vet ./...", "npm test -- --runInBand 2>&1 | tail -50",
    "cat {f}", "sed -n '1,200p' {f}", "git log --oneline -20", "make lint 2>&1 | tail -20", "wc -l {f}",
    "grep -rn '{w}' .", "python -m mypy src 2>&1 | tail -20", "cargo check 2>&1 | tail -30",
]


class Text:
    """Pseudo-random but plausible code and prose, drawn from pools built from the seed."""

    def __init__(self, seed: int) -> None:
        r = random.Random(seed ^ 0x5EED)
        self.code_pool = [self._code_line(r) for _ in range(40000)]
        self.prose_pool = [self._sentence(r) for _ in range(6000)]
        self.avg_code = sum(len(x) + 1 for x in self.code_pool) / len(self.code_pool)
        self.avg_prose = sum(len(x) + 1 for x in self.prose_pool) / len(self.prose_pool)
        # Long fixed texts repeated in every session, as the agents do.
        self.base_instructions = self.prose_bytes(r, 21000)
        self.permissions = "<permissions instructions>\n" + self.prose_bytes(r, 6900) + "\n</permissions instructions>"
        self.collab = "<collaboration_mode># Collaboration Mode: Default\n\n" + self.prose_bytes(r, 980) + "</collaboration_mode>"
        self.skills = "<skills_instructions>\n## Skills\n" + self.prose_bytes(r, 8200) + "\n</skills_instructions>"
        self.plugins = "<plugins_instructions>\n## Plugins\n" + self.prose_bytes(r, 2400) + "\n</plugins_instructions>"
        self.agents_md = "# External Agent Builder\n\n" + self.prose_bytes(r, 2100)
        self.hook_context = self.prose_bytes(r, 5900)

    @staticmethod
    def _sentence(r: random.Random) -> str:
        words = r.choices(PROSE + WORDS, k=r.randint(5, 18))
        return " ".join(words).capitalize() + r.choice([".", ".", ".", ":", "?"])

    @staticmethod
    def _code_line(r: random.Random) -> str:
        a, b, c, d = (r.choice(WORDS) for _ in range(4))
        n = r.randrange(1000)
        ind = r.choice(INDENTS)
        k = r.randrange(18)
        if k == 0:
            s = f"def {a}_{b}(self, {c}: {r.choice(TYPES)}, {d}: int = {n}) -> {r.choice(TYPES)}:"
        elif k == 1:
            s = f"{a}_{b} = self.{c}.get({d!r}, {n})"
        elif k == 2:
            s = f"if {a} is not None and len({b}_{c}) > {n}:"
        elif k == 3:
            s = f"return {a}.{b}_{c}({d}, timeout={n})"
        elif k == 4:
            s = f"for {a} in {b}.{c}s:"
        elif k == 5:
            s = "# " + " ".join(r.choices(PROSE, k=r.randint(4, 10)))
        elif k == 6:
            s = f"{a}, err := {b}.{c.capitalize()}{d.capitalize()}(ctx, {n})"
        elif k == 7:
            s = f'return nil, fmt.Errorf("{a} {b}: %w", err)'
        elif k in (8, 9):
            s = r.choice(["}", "", "", ")", "]", "end", "})"])
        elif k == 10:
            s = f'const {a}{b.capitalize()} = "{c}-{d}"'
        elif k == 11:
            s = f"self.{a} = {b}({c}={n}, {d}=True)"
        elif k == 12:
            s = f'raise {a.capitalize()}Error(f"{b} {c} failed: {{{d}}}")'
        elif k == 13:
            s = f'logger.debug("{a} %s %d", {b}, {n})'
        elif k == 14:
            s = f"{a}.append(({b}, {c}[{n % 10}]))"
        elif k == 15:
            s = f"export function {a}{b.capitalize()}({c}: string): Promise<{d.capitalize()}> {{"
        elif k == 16:
            s = f"assert {a}_{b} == {n}, {c}"
        else:
            s = f"\t{a}{b.capitalize()} {r.choice(['string', 'int', 'bool', '[]byte'])} `json:\"{a}_{b},omitempty\"`"
        return ind + s

    def code_lines(self, r: random.Random, nbytes: int) -> list[str]:
        return r.choices(self.code_pool, k=max(1, int(nbytes / self.avg_code)))

    def prose(self, r: random.Random, n: int) -> str:
        return " ".join(r.choices(self.prose_pool, k=max(1, n)))

    def prose_bytes(self, r: random.Random, nbytes: int) -> str:
        out = []
        size = 0
        while size < nbytes:
            para = " ".join(r.choices(self.prose_pool, k=r.randint(2, 6)))
            out.append(para)
            size += len(para) + 2
        return "\n\n".join(out)[:nbytes]


def rid(r: random.Random, prefix: str, n: int) -> str:
    return prefix + "".join(r.choices(ALNUM, k=n))


def uuid4(r: random.Random) -> str:
    return str(uuid.UUID(int=r.getrandbits(128), version=4))


def uuid7(r: random.Random, t: float) -> str:
    ms = int(t * 1000) & ((1 << 48) - 1)
    v = (ms << 80) | (0x7 << 76) | (r.getrandbits(12) << 64) | (0b10 << 62) | r.getrandbits(62)
    h = f"{v:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def lognorm(r: random.Random, median: float, sigma: float, lo: float, hi: float) -> int:
    return int(min(hi, max(lo, median * pow(2.718281828, r.gauss(0, sigma)))))


def make_hunk(before: list[str], i: int, k_old: int, new: list[str], ctx: int) -> dict[str, Any]:
    """A jsdiff-style hunk (1-based numbers) replacing before[i:i+k_old] with new."""
    n = len(before)
    s = max(0, i - ctx)
    e = min(n, i + k_old + ctx)
    lines = [" " + x for x in before[s:i]] + ["-" + x for x in before[i:i + k_old]] + ["+" + x for x in new] \
        + [" " + x for x in before[i + k_old:e]]
    old_lines = e - s
    return {"oldStart": s + 1, "oldLines": old_lines, "newStart": s + 1, "newLines": old_lines - k_old + len(new),
            "lines": lines}


# ---------------------------------------------------------------------------------------------
# writers
# ---------------------------------------------------------------------------------------------


class _Out:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.fh = open(path, "wb", buffering=1 << 20)
        self.size = 0
        self.lines = 0
        self.max_line = 0
        self.big_lines = 0  # lines of 1 MB or more

    def emit(self, obj: dict[str, Any]) -> None:
        b = orjson.dumps(obj)
        self.fh.write(b)
        self.fh.write(b"\n")
        self.size += len(b) + 1
        self.lines += 1
        if len(b) > self.max_line:
            self.max_line = len(b)
        if len(b) >= MB:
            self.big_lines += 1

    def close(self) -> None:
        self.fh.close()


USAGE_CC = {"input_tokens": 1, "cache_creation_input_tokens": 4450, "cache_read_input_tokens": 39980, "output_tokens": 300,
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0}, "service_tier": "standard",
            "cache_creation": {"ephemeral_1h_input_tokens": 4450, "ephemeral_5m_input_tokens": 0}, "inference_geo": "",
            "iterations": [{"input_tokens": 1, "output_tokens": 300, "cache_read_input_tokens": 39980,
                            "cache_creation_input_tokens": 4450,
                            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 4450},
                            "type": "message"}], "speed": "standard"}
REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, "
            "the new_string was NOT written to the file). To tell you how to proceed, the user said:\n")
TODO_OK = ("Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. "
           "Please proceed with the current tasks if applicable")


class ClaudeSession:
    """One Claude Code transcript (2.1.119 shapes), written line by line."""

    VERSION = "2.1.119"
    MODEL = "claude-opus-4-7"

    def __init__(self, tx: Text, r: random.Random, out: _Out, sid: str, cwd: str, t0: float, branch: str,
                 agent_id: str | None = None, proj_dir: Path | None = None, stats: dict[str, int] | None = None) -> None:
        self.tx, self.r, self.out = tx, r, out
        self.sid, self.cwd, self.t, self.branch = sid, cwd, t0, branch
        self.root_cwd = cwd
        self.agent_id = agent_id
        self.proj_dir = proj_dir
        self.last: str | None = None
        self.files: dict[str, list[str]] = {}
        self.read: set[str] = set()
        self.prompt_id = uuid4(r)
        self.stats = stats if stats is not None else {}
        self.children: list[_Out] = []
        self.want_task = False  # spawn one subagent (Task) in this session

    # -- envelope --

    def ts(self, lo: float = 0.05, hi: float = 6.0) -> str:
        self.t += self.r.uniform(lo, hi)
        return iso(self.t)

    def _head(self) -> dict[str, Any]:
        d: dict[str, Any] = {"parentUuid": self.last, "isSidechain": self.agent_id is not None}
        if self.agent_id:
            d["agentId"] = self.agent_id
        return d

    def _tail(self, d: dict[str, Any]) -> dict[str, Any]:
        d.update(userType="external", entrypoint="cli", cwd=self.cwd, sessionId=self.sid, version=self.VERSION,
                 gitBranch=self.branch)
        return d

    def _count(self, k: str, n: int = 1) -> None:
        self.stats[k] = self.stats.get(k, 0) + n

    # -- records --

    def meta_line(self, kind: str) -> None:
        if self.agent_id:
            return
        if kind == "permission-mode":
            self.out.emit({"type": "permission-mode", "permissionMode": "default", "sessionId": self.sid})
        elif kind == "last-prompt":
            self.out.emit({"type": "last-prompt", "lastPrompt": self.tx.prose(self.r, 1)[:200], "sessionId": self.sid})
        elif kind == "custom-title":
            self.out.emit({"type": "custom-title", "customTitle": "-".join(self.r.choices(WORDS, k=3)),
                           "sessionId": self.sid})

    def attachment(self, att: dict[str, Any]) -> None:
        u = uuid4(self.r)
        d = self._head()
        d.update(attachment=att, type="attachment", uuid=u, timestamp=self.ts(0.01, 0.3))
        self.out.emit(self._tail(d))
        self.last = u

    def snapshot(self, tracked: dict[str, Any] | None = None, update: bool = False) -> None:
        if self.agent_id:
            return
        mid = uuid4(self.r)
        self.out.emit({"type": "file-history-snapshot", "messageId": mid,
                       "snapshot": {"messageId": mid, "trackedFileBackups": tracked or {}, "timestamp": iso(self.t)},
                       "isSnapshotUpdate": update})

    def user_prompt(self, content: Any) -> None:
        u = uuid4(self.r)
        self.prompt_id = uuid4(self.r)
        d = self._head()
        d.update(promptId=self.prompt_id, type="user", message={"role": "user", "content": content}, uuid=u,
                 timestamp=self.ts(5, 120), permissionMode="default")
        self.out.emit(self._tail(d))
        self.last = u
        self._count("messages")

    def assistant(self, block: dict[str, Any], msg_id: str, req_id: str, stop: str | None) -> str:
        u = uuid4(self.r)
        d = self._head()
        d.update(message={"model": self.MODEL, "id": msg_id, "type": "message", "role": "assistant", "content": [block],
                          "stop_reason": stop, "stop_sequence": None, "stop_details": None, "usage": USAGE_CC},
                 requestId=req_id, type="assistant", uuid=u, timestamp=self.ts(0.2, 4))
        self.out.emit(self._tail(d))
        self.last = u
        self._count("messages")
        return u

    def tool_result(self, src_uuid: str, tool_id: str, content: Any, tur: Any, is_error: bool | None) -> None:
        u = uuid4(self.r)
        block: dict[str, Any] = {"tool_use_id": tool_id, "type": "tool_result", "content": content}
        if is_error is not None:
            block["is_error"] = is_error
        d = self._head()
        d.update(promptId=self.prompt_id, type="user", message={"role": "user", "content": [block]}, uuid=u,
                 timestamp=self.ts(0.05, 20), toolUseResult=tur, sourceToolAssistantUUID=src_uuid)
        self.out.emit(self._tail(d))
        self.last = u
        self._count("messages")

    def system(self, subtype: str) -> None:
        u = uuid4(self.r)
        d = self._head()
        d.update(type="system", subtype=subtype)
        if subtype == "stop_hook_summary":
            d.update(hookCount=1, hookInfos=[{"command": "entire hooks claude-code stop", "durationMs": 3299}],
                     hookErrors=[], preventedContinuation=False, stopReason="", hasOutput=False, level="suggestion")
        else:
            d.update(durationMs=self.r.randint(2000, 400000), messageCount=self.r.randint(4, 80))
        d.update(timestamp=self.ts(0.01, 1), uuid=u)
        if subtype == "turn_duration":
            d["isMeta"] = False
        self.out.emit(self._tail(d))
        self.last = u

    # -- files --

    def new_path(self) -> str:
        r = self.r
        return f"{self.root_cwd}/{r.choice(DIRS)}/{r.choice(WORDS)}_{r.choice(WORDS)}{r.choice(EXTS)}"

    def file_for_edit(self, nbytes: int | None = None) -> str:
        if self.files and nbytes is None and self.r.random() < 0.7:
            return self.r.choice(list(self.files))
        p = self.new_path()
        size = nbytes if nbytes is not None else lognorm(self.r, 6000, 1.2, 300, 200_000)
        self.files[p] = self.tx.code_lines(self.r, size)
        return p

    # -- tools: each returns (name, input, result content, toolUseResult, is_error) --

    def t_read(self, path: str | None = None) -> tuple:
        p = path or (self.r.choice(list(self.files)) if self.files and self.r.random() < 0.5 else self.file_for_edit())
        lines = self.files.setdefault(p, self.tx.code_lines(self.r, lognorm(self.r, 6000, 1.2, 300, 200_000)))
        shown = lines[:2000]
        self.read.add(p)
        body = "\n".join(shown)
        numbered = "\n".join(f"{i + 1}\t{x}" for i, x in enumerate(shown))
        tur = {"type": "text", "file": {"filePath": p, "content": body, "numLines": len(shown), "startLine": 1,
                                        "totalLines": len(lines)}}
        return "Read", {"file_path": p}, numbered, tur, None

    def t_bash(self) -> tuple:
        r = self.r
        cmd = r.choice(BASH_CMDS).format(w=r.choice(WORDS), f=self.new_path())
        n = lognorm(r, 700, 1.6, 0, 30000)
        out = "\n".join(self.tx.code_lines(r, n)) if n > 40 else ""
        inp = {"command": cmd, "description": self.tx.prose(r, 1)[:80]}
        if r.random() < 0.1:
            err = f"Exit code 1\n{out[:4000]}"
            return "Bash", inp, err, "Error: " + err, True
        tur = {"stdout": out, "stderr": "", "interrupted": False, "isImage": False, "noOutputExpected": False}
        return "Bash", inp, out or "(Bash completed with no output)", tur, False

    def t_grep(self) -> tuple:
        r = self.r
        w = r.choice(WORDS)
        hits = [f"{self.new_path()[len(self.root_cwd) + 1:]}:{r.randint(1, 900)}:{x}"
                for x in r.choices(self.tx.code_pool, k=lognorm(r, 12, 1.0, 0, 250))]
        text = "\n".join(hits)
        tur = {"mode": "content", "numFiles": len({h.split(':')[0] for h in hits}), "filenames": [], "content": text,
               "numLines": len(hits)}
        inp = {"pattern": w, "path": self.cwd, "output_mode": "content", "-n": True}
        return "Grep", inp, text or "No matches found", tur, None

    def t_todo(self) -> tuple:
        r = self.r
        todos = [{"content": self.tx.prose(r, 1)[:90], "status": r.choice(["pending", "in_progress", "completed"]),
                  "activeForm": self.tx.prose(r, 1)[:60]} for _ in range(r.randint(2, 7))]
        return "TodoWrite", {"todos": todos}, TODO_OK, {"oldTodos": todos[1:], "newTodos": todos}, None

    def t_edit(self, nbytes: int | None = None, path: str | None = None) -> tuple:
        r = self.r
        p = path or self.file_for_edit(nbytes)
        lines = self.files[p]
        inp_base = {"replace_all": False, "file_path": p}
        if r.random() < 0.05 or len(lines) < 3:
            # rejected or failed: nothing changes
            old, new = "\n".join(lines[:2]), "\n".join(self.tx.code_lines(r, 80))
            inp = {**inp_base, "old_string": old, "new_string": new}
            if r.random() < 0.5:
                said = self.tx.prose(r, 1)
                self._count("edits_rejected")
                return "Edit", inp, REJECTED + said, "Error: " + REJECTED + said, True
            self._count("edits_failed")
            msg = f"<tool_use_error>String to replace not found in file.\nString: {old[:200]}</tool_use_error>"
            return "Edit", inp, msg, "Error: String to replace not found in file.\nString: " + old[:200], True
        i = r.randrange(0, max(1, len(lines) - 2))
        k_old = min(len(lines) - i, r.randint(2, 6))
        new = self.tx.code_lines(r, r.randint(40, 600))
        old_s, new_s = "\n".join(lines[i:i + k_old]), "\n".join(new)
        before = "\n".join(lines) + "\n"
        hunk = make_hunk(lines, i, k_old, new, 3)
        self.files[p] = lines[:i] + new + lines[i + k_old:]
        tur = {"filePath": p, "oldString": old_s, "newString": new_s, "originalFile": before, "structuredPatch": [hunk],
               "userModified": False, "replaceAll": False}
        self._count("edits_applied")
        return "Edit", {**inp_base, "old_string": old_s, "new_string": new_s}, \
            f"The file {p} has been updated successfully.", tur, None

    def t_write(self, nbytes: int | None = None) -> tuple:
        r = self.r
        if nbytes is None and self.files and r.random() < 0.35:
            p = r.choice(list(self.files))
            lines = self.files[p]
            if len(lines) >= 3:
                i = r.randrange(0, len(lines) - 2)
                k_old = min(len(lines) - i, r.randint(1, 8))
                new = self.tx.code_lines(r, r.randint(40, 1500))
                before = "\n".join(lines) + "\n"
                after_lines = lines[:i] + new + lines[i + k_old:]
                content = "\n".join(after_lines) + "\n"
                hunk = make_hunk(lines, i, k_old, new, 3)
                self.files[p] = after_lines
                tur = {"type": "update", "filePath": p, "content": content, "structuredPatch": [hunk],
                       "originalFile": before, "userModified": False}
                self._count("edits_applied")
                return "Write", {"file_path": p, "content": content}, \
                    f"The file {p} has been updated successfully.", tur, None
        p = self.new_path()
        lines = self.tx.code_lines(r, nbytes if nbytes is not None else lognorm(r, 3000, 1.1, 100, 60000))
        self.files[p] = lines
        content = "\n".join(lines) + "\n"
        tur = {"type": "create", "filePath": p, "content": content, "structuredPatch": [], "originalFile": None}
        self._count("edits_applied")
        return "Write", {"file_path": p, "content": content}, f"File created successfully at: {p}", tur, None

    def t_task(self) -> tuple | None:
        if self.agent_id or self.proj_dir is None:
            return None
        r = self.r
        aid = "a" + "".join(r.choices(HEX, k=16))
        desc = " ".join(r.choices(WORDS, k=3))
        prompt = self.tx.prose(r, r.randint(3, 10))
        call_id = rid(r, "toolu_01", 22)
        path = self.proj_dir / self.sid / "subagents" / f"agent-{aid}.jsonl"
        out = _Out(path)
        sub = ClaudeSession(self.tx, random.Random(r.getrandbits(64)), out, self.sid, self.cwd, self.t, self.branch,
                            agent_id=aid, stats=self.stats)
        sub.user_prompt(prompt)
        target = lognorm(r, 60_000, 0.8, 8_000, 400_000)
        while out.size < target:
            sub.step()
        final = self.tx.prose(r, r.randint(2, 8))
        sub.assistant({"type": "text", "text": final}, rid(r, "msg_01", 22), rid(r, "req_011C", 18), "end_turn")
        out.close()
        (path.parent / f"agent-{aid}.meta.json").write_bytes(
            orjson.dumps({"agentType": "general-purpose", "description": desc, "toolUseId": call_id}))
        self.children.append(out)
        self._count("subagents")
        content = [{"type": "text", "text": final},
                   {"type": "text", "text": f"agentId: {aid} (use SendMessage with to: '{aid}' to continue this agent)"}]
        tur = {"status": "completed", "prompt": prompt, "agentId": aid, "content": [{"type": "text", "text": final}],
               "totalDurationMs": r.randint(5000, 400000), "totalTokens": r.randint(5000, 90000),
               "totalToolUseCount": r.randint(2, 40)}
        self.t = max(self.t, sub.t)
        return ("Task", {"description": desc, "prompt": prompt, "subagent_type": "general-purpose"}, content, tur, None,
                call_id)

    # -- structure --

    def tools(self, calls: list[tuple]) -> None:
        """One API message: optional thinking and text lines, one line per tool_use, then the results."""
        r = self.r
        msg_id, req_id = rid(r, "msg_01", 22), rid(r, "req_011C", 18)
        if r.random() < 0.55:
            sig = base64.b64encode(r.randbytes(lognorm(r, 600, 0.6, 200, 6000))).decode()
            self.assistant({"type": "thinking", "thinking": "", "signature": sig}, msg_id, req_id, "tool_use")
        if r.random() < 0.4:
            self.assistant({"type": "text", "text": self.tx.prose(r, r.randint(1, 4))}, msg_id, req_id, "tool_use")
        uses = []
        for c in calls:
            call_id = c[5] if len(c) > 5 else rid(r, "toolu_01", 22)
            u = self.assistant({"type": "tool_use", "id": call_id, "name": c[0], "input": c[1],
                                "caller": {"type": "direct"}}, msg_id, req_id, "tool_use")
            uses.append((u, call_id, c))
            self._count("tool_calls")
        for u, call_id, c in uses:
            self.tool_result(u, call_id, c[2], c[3], c[4])

    def step(self, big: tuple[str, int] | None = None) -> None:
        r = self.r
        if big is not None:
            kind, size = big
            if kind == "cc_edit":
                self.tools([self.t_edit(size)])
            elif kind == "cc_write":
                self.tools([self.t_write(size)])
            else:  # cc_image: a pasted screenshot
                data = base64.b64encode(r.randbytes(size * 3 // 4)).decode()
                self.user_prompt([{"type": "text", "text": self.tx.prose(r, 2)},
                                  {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}])
            return
        n = 1 if r.random() < 0.8 else r.randint(2, 3)
        calls: list[tuple] = []
        for _ in range(n):
            x = r.random()
            if x < 0.26:
                calls.append(self.t_read())
            elif x < 0.56:
                calls.append(self.t_bash())
            elif x < 0.76:
                p = self.file_for_edit()
                if p not in self.read:
                    self.tools([self.t_read(p)])  # Claude Code refuses to edit an unread file
                calls.append(self.t_edit(path=p))
            elif x < 0.83:
                calls.append(self.t_write())
            elif x < 0.93:
                calls.append(self.t_grep())
            elif self.want_task and x >= 0.97:
                self.want_task = False
                c = self.t_task()
                calls.append(c if c else self.t_todo())
            else:
                calls.append(self.t_todo())
        if calls:
            self.tools(calls)

    def turn(self, target: int, big: list[tuple[str, int]]) -> None:
        r = self.r
        self.meta_line("permission-mode")
        if r.random() < 0.3 and not self.agent_id:
            self.attachment({"type": "hook_success", "hookName": "SessionStart:startup", "toolUseID": uuid4(r),
                             "hookEvent": "SessionStart", "content": "", "stdout": self.tx.hook_context[:r.randint(200, 5900)],
                             "stderr": "", "exitCode": 0, "command": "entire hooks claude-code session-start",
                             "durationMs": r.randint(50, 400)})
        self.snapshot()
        paste = r.random() < 0.1
        self.user_prompt(self.tx.prose(r, r.randint(1, 4)) + ("\n\n" + "\n".join(self.tx.code_lines(r, r.randint(500, 8000)))
                                                           if paste else ""))
        if r.random() < 0.3:
            self.attachment({"type": "skill_listing", "content": self.tx.prose_bytes(r, r.randint(800, 7000))})
        for _ in range(r.randint(2, 14)):
            if big and self.out.size >= big[0][2]:
                kind, size, _at = big.pop(0)
                self.step((kind, size))
            self.step()
            if self.out.size >= target and not big:
                break
        if r.random() < 0.15 and self.cwd == self.root_cwd:
            self.cwd = self.root_cwd + "/" + r.choice(DIRS)  # `cd` in Bash persists
        msg_id, req_id = rid(r, "msg_01", 22), rid(r, "req_011C", 18)
        self.assistant({"type": "text", "text": self.tx.prose(r, r.randint(2, 10))}, msg_id, req_id, "end_turn")
        self.system("stop_hook_summary")
        self.system("turn_duration")
        self.meta_line("last-prompt")


def big_bytes(big: list[tuple[str, int]]) -> int:
    """Bytes the multi-MB items add: Write content and apply_patch adds appear in two lines."""
    return sum(n * (2 if k in ("cc_write", "cx_add") else 1) for k, n in big)


def gen_claude(tx: Text, spec: dict[str, Any]) -> dict[str, Any]:
    r = random.Random(spec["seed"])
    sid = uuid4(r)
    cwd = spec["cwd"]
    proj = Path(spec["claude_home"]) / "projects" / encode_cwd(cwd)
    out = _Out(proj / f"{sid}.jsonl")
    stats: dict[str, int] = {}
    s = ClaudeSession(tx, r, out, sid, cwd, spec["t0"], r.choice(["main", "dev", "feature/" + r.choice(WORDS), "HEAD"]),
                      proj_dir=proj if spec.get("subagents", True) else None, stats=stats)
    s.want_task = spec.get("subagents", True) and r.random() < SUBAGENT_SHARE * 2  # about half of them get spawned
    target = spec["target"] + big_bytes(spec["big"])
    big = sorted(((k, n, int(r.uniform(0.05, 0.6) * target)) for k, n in spec["big"]), key=lambda b: b[2])
    if r.random() < 0.05:
        s.meta_line("custom-title")
    while out.size < target or big:
        s.turn(target, big)
    out.close()
    files = [(str(o.path), o.size, o.max_line, o.big_lines) for o in [out, *s.children]]
    return {"files": files, "sessions": 1 + stats.get("subagents", 0), "stats": stats, "last_uuid": s.last,
            "sid": sid, "cwd": s.cwd}


# ---------------------------------------------------------------------------------------------
# Codex
# ---------------------------------------------------------------------------------------------


class CodexSession:
    """One Codex rollout (0.125 shapes)."""

    def __init__(self, tx: Text, r: random.Random, out: _Out, tid: str, cwd: str, t0: float, stats: dict[str, int]) -> None:
        self.tx, self.r, self.out, self.tid, self.cwd, self.t = tx, r, out, tid, cwd, t0
        self.stats = stats
        self.files: dict[str, list[str]] = {}
        self.turn_id = ""
        self.tokens = 0

    def ts(self, lo: float = 0.001, hi: float = 3.0) -> str:
        self.t += self.r.uniform(lo, hi)
        return iso(self.t)

    def line(self, typ: str, payload: dict[str, Any], lo: float = 0.001, hi: float = 3.0) -> None:
        self.out.emit({"timestamp": self.ts(lo, hi), "type": typ, "payload": payload})

    def _count(self, k: str, n: int = 1) -> None:
        self.stats[k] = self.stats.get(k, 0) + n

    def token_count(self) -> None:
        self.tokens += self.r.randint(2000, 100000)
        self.line("event_msg", {"type": "token_count", "info": {
            "total_token_usage": {"input_tokens": self.tokens, "cached_input_tokens": self.tokens * 4 // 5,
                                  "output_tokens": self.tokens // 50, "reasoning_output_tokens": self.tokens // 150,
                                  "total_tokens": self.tokens + self.tokens // 50},
            "last_token_usage": {"input_tokens": 100647, "cached_input_tokens": 97664, "output_tokens": 5394,
                                 "reasoning_output_tokens": 101, "total_tokens": 106041},
            "model_context_window": 258400},
            "rate_limits": {"limit_id": "codex", "limit_name": None, "primary": None, "secondary": None, "credits": None,
                            "plan_type": "team", "rate_limit_reached_type": None}})

    def session_meta(self, branch: str) -> None:
        r = self.r
        self.line("session_meta", {
            "id": self.tid, "timestamp": iso(self.t), "cwd": self.cwd, "originator": "codex-tui", "cli_version": "0.125.0",
            "source": "cli", "model_provider": "openai", "base_instructions": {"text": self.tx.base_instructions},
            "git": {"commit_hash": "".join(r.choices(HEX, k=40)), "branch": branch,
                    "repository_url": f"https://github.com/example/{self.cwd.rsplit('/', 1)[-1]}.git"}})

    def start_turn(self, first: bool) -> None:
        r = self.r
        self.turn_id = uuid7(r, self.t)
        self.line("event_msg", {"type": "task_started", "turn_id": self.turn_id, "started_at": int(self.t),
                                "model_context_window": 258400, "collaboration_mode_kind": "default"}, 5, 200)
        if first:
            dev = (self.tx.permissions, self.tx.collab, self.tx.skills, self.tx.plugins)
            self.line("response_item", {"type": "message", "role": "developer", "content": [
                {"type": "input_text", "text": t} for t in dev]})
            self.line("response_item", {"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": f"# AGENTS.md instructions for {self.cwd}\n\n<INSTRUCTIONS>\n"
                                               f"{self.tx.agents_md}\n</INSTRUCTIONS>"},
                {"type": "input_text", "text": f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n  <shell>zsh</shell>\n"
                                               f"  <current_date>{iso(self.t)[:10]}</current_date>\n"
                                               "  <timezone>America/Los_Angeles</timezone>\n</environment_context>"}]})
        self.line("turn_context", {
            "turn_id": self.turn_id, "cwd": self.cwd, "current_date": iso(self.t)[:10], "timezone": "America/Los_Angeles",
            "approval_policy": "on-request",
            "sandbox_policy": {"type": "workspace-write", "writable_roots": ["/Users/dev/.codex/memories"],
                               "network_access": False, "exclude_tmpdir_env_var": False, "exclude_slash_tmp": False},
            "model": "gpt-5.5", "personality": "pragmatic",
            "collaboration_mode": {"mode": "default", "settings": {"model": "gpt-5.5", "reasoning_effort": "xhigh",
                                                                   "developer_instructions": self.tx.collab}},
            "realtime_active": False, "effort": "xhigh", "summary": "none", "user_instructions": self.tx.agents_md,
            "truncation_policy": {"mode": "tokens", "limit": 10000}})
        prompt = self.tx.prose(r, r.randint(1, 4))
        if r.random() < 0.1:
            prompt += "\n\n" + "\n".join(self.tx.code_lines(r, r.randint(500, 6000)))
        self.line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]})
        self.line("event_msg", {"type": "user_message", "message": prompt, "images": [], "local_images": [],
                                "text_elements": []})
        self._count("messages")
        self.token_count()

    def end_turn(self) -> None:
        text = self.tx.prose(self.r, self.r.randint(2, 10))
        self.line("response_item", {"content": None, "summary": [], "type": "reasoning"})
        self.line("event_msg", {"type": "agent_message", "message": text, "phase": "final_answer", "memory_citation": None})
        self.line("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}],
                                    "phase": "final_answer"})
        self.token_count()
        self.line("event_msg", {"type": "task_complete", "turn_id": self.turn_id, "last_agent_message": text,
                                "completed_at": int(self.t), "duration_ms": self.r.randint(5000, 900000),
                                "time_to_first_token_ms": self.r.randint(500, 9000)})
        self._count("messages")

    def commentary(self) -> None:
        text = self.tx.prose(self.r, self.r.randint(1, 3))
        self.line("event_msg", {"type": "agent_message", "message": text, "phase": "commentary", "memory_citation": None})
        self.line("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}],
                                    "phase": "commentary"})
        self._count("messages")

    def path(self) -> str:
        r = self.r
        return f"{self.cwd}/{r.choice(DIRS)}/{r.choice(WORDS)}_{r.choice(WORDS)}{r.choice(EXTS)}"

    def execs(self, n: int, big: int | None = None) -> None:
        r = self.r
        calls = []
        for _ in range(n):
            call_id = rid(r, "call_", 24)
            f = r.choice(list(self.files)) if self.files and r.random() < 0.5 else self.path()
            cmd = r.choice(BASH_CMDS).format(w=r.choice(WORDS), f=f)
            args = {"cmd": cmd, "workdir": self.cwd, "yield_time_ms": 1000, "max_output_tokens": 12000}
            self.line("response_item", {"type": "function_call", "name": "exec_command", "arguments": orjson.dumps(args).decode(),
                                        "call_id": call_id})
            self._count("tool_calls")
            calls.append((call_id, cmd))
        self.token_count()
        for call_id, cmd in calls:
            size = big if big is not None else lognorm(r, 1500, 1.4, 0, 60000)
            out = "\n".join(self.tx.code_lines(r, size)) + "\n" if size > 40 else ""
            code = 0 if r.random() < 0.88 else 1
            self.line("event_msg", {"type": "exec_command_end", "call_id": call_id, "process_id": str(r.randint(1000, 99999)),
                                    "turn_id": self.turn_id, "command": ["/bin/zsh", "-lc", cmd], "cwd": self.cwd,
                                    "parsed_cmd": [{"type": "unknown", "cmd": cmd}], "source": "unified_exec_startup",
                                    "stdout": "", "stderr": "", "aggregated_output": out, "exit_code": code,
                                    "duration": {"secs": r.randint(0, 30), "nanos": r.randint(0, 999999999)},
                                    "formatted_output": "", "status": "completed"})
            self.line("response_item", {"type": "function_call_output", "call_id": call_id, "output":
                                        f"Chunk ID: {''.join(r.choices(HEX, k=6))}\nWall time: {r.random() * 5:.4f} seconds\n"
                                        f"Process exited with code {code}\nOriginal token count: {len(out) // 4}\n"
                                        f"Output:\n{out}"})
            self._count("messages")
            big = None

    def plan(self) -> None:
        r = self.r
        call_id = rid(r, "call_", 24)
        plan = [{"step": self.tx.prose(r, 1)[:80], "status": r.choice(["pending", "in_progress", "completed"])}
                for _ in range(r.randint(2, 6))]
        self.line("response_item", {"type": "function_call", "name": "update_plan",
                                    "arguments": orjson.dumps({"plan": plan}).decode(), "call_id": call_id})
        self.line("response_item", {"type": "function_call_output", "call_id": call_id, "output": "Plan updated"})
        self._count("tool_calls")

    def patch(self, big_add: int | None = None) -> None:
        r = self.r
        call_id = rid(r, "call_", 24)
        parts = ["*** Begin Patch"]
        changes: dict[str, Any] = {}
        summary = []
        nfiles = 1 if big_add else r.choice([1, 1, 1, 2, 2, 3])
        for _ in range(nfiles):
            if big_add or not self.files or r.random() < 0.25:
                p = self.path()
                lines = self.tx.code_lines(r, big_add or lognorm(r, 2500, 1.0, 100, 40000))
                self.files[p] = lines
                parts.append(f"*** Add File: {p}")
                parts += ["+" + x for x in lines]
                changes[p] = {"type": "add", "content": "\n".join(lines) + "\n"}
                summary.append("A " + p)
                continue
            p = r.choice(list(self.files))
            lines = self.files[p]
            if len(lines) < 3:
                lines = self.files[p] = lines + self.tx.code_lines(r, 400)
            parts.append(f"*** Update File: {p}")
            diffs = []
            for _h in range(r.randint(1, 3)):
                i = r.randrange(0, len(lines) - 1)
                k_old = min(len(lines) - i, r.randint(0, 5))
                new = self.tx.code_lines(r, r.randint(40, 800))
                h = make_hunk(lines, i, k_old, new, 3)
                parts.append("@@")
                parts += h["lines"]
                u = make_hunk(lines, i, k_old, new, 1)
                diffs.append(f"@@ -{u['oldStart']},{u['oldLines']} +{u['newStart']},{u['newLines']} @@\n"
                             + "\n".join(u["lines"]) + "\n")
                lines = lines[:i] + new + lines[i + k_old:]
            self.files[p] = lines
            changes[p] = {"type": "update", "unified_diff": "".join(diffs), "move_path": None}
            summary.append("M " + p)
        parts.append("*** End Patch")
        self.line("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": call_id,
                                    "name": "apply_patch", "input": "\n".join(parts)})
        self._count("tool_calls")
        self.token_count()
        if r.random() < 0.05 and not big_add:
            self.line("response_item", {"type": "custom_tool_call_output", "call_id": call_id, "output":
                                        f"apply_patch verification failed: Failed to find expected lines in {summary[0][2:]}:\n"
                                        + "\n".join(self.tx.code_lines(r, 200))})
            self._count("edits_failed", nfiles)
            return
        stdout = "Success. Updated the following files:\n" + "\n".join(summary) + "\n"
        self.line("event_msg", {"type": "patch_apply_end", "call_id": call_id, "turn_id": self.turn_id, "stdout": stdout,
                                "stderr": "", "success": True, "changes": changes, "status": "completed"})
        self.line("response_item", {"type": "custom_tool_call_output", "call_id": call_id, "output": orjson.dumps(
            {"output": stdout, "metadata": {"exit_code": 0, "duration_seconds": round(r.random(), 1)}}).decode()})
        self._count("edits_applied", nfiles)
        self._count("messages")

    def step(self, big: tuple[str, int] | None = None) -> None:
        r = self.r
        self.line("response_item", {"content": None, "summary": [], "type": "reasoning"}, 1, 30)
        if r.random() < 0.35:
            self.commentary()
        if big is not None:
            kind, size = big
            if kind == "cx_add":
                self.patch(big_add=size)
            else:
                self.execs(1, big=size)
            return
        x = r.random()
        if x < 0.62:
            self.execs(1 if r.random() < 0.5 else r.randint(2, 6))
        elif x < 0.93:
            self.patch()
        else:
            self.plan()


def gen_codex(tx: Text, spec: dict[str, Any]) -> dict[str, Any]:
    r = random.Random(spec["seed"])
    t0 = spec["t0"]
    tid = uuid7(r, t0)
    lt = time.localtime(t0)
    day = Path(spec["codex_home"]) / "sessions" / f"{lt.tm_year:04d}" / f"{lt.tm_mon:02d}" / f"{lt.tm_mday:02d}"
    out = _Out(day / f"rollout-{time.strftime('%Y-%m-%dT%H-%M-%S', lt)}-{tid}.jsonl")
    stats: dict[str, int] = {}
    s = CodexSession(tx, r, out, tid, spec["cwd"], t0, stats)
    s.session_meta(r.choice(["main", "dev", "feature/" + r.choice(WORDS)]))
    target = spec["target"] + big_bytes(spec["big"])
    big = sorted(((k, n, int(r.uniform(0.05, 0.6) * target)) for k, n in spec["big"]), key=lambda b: b[2])
    first = True
    while out.size < target or big:
        s.start_turn(first)
        first = False
        for _ in range(r.randint(2, 16)):
            if big and out.size >= big[0][2]:
                kind, size, _at = big.pop(0)
                s.step((kind, size))
            s.step()
            if out.size >= target and not big:
                break
        s.end_turn()
    out.close()
    return {"files": [(str(out.path), out.size, out.max_line, out.big_lines)], "sessions": 1, "stats": stats}


# ---------------------------------------------------------------------------------------------
# corpus
# ---------------------------------------------------------------------------------------------

_TX: Text | None = None
_TX_SEED: int | None = None


def _gen_one(args: tuple[int, dict[str, Any]]) -> dict[str, Any]:
    global _TX, _TX_SEED
    seed, spec = args
    if _TX is None or _TX_SEED != seed:
        _TX, _TX_SEED = Text(seed), seed
    return gen_claude(_TX, spec) if spec["kind"] == "cc" else gen_codex(_TX, spec)


def plan_specs(seed: int, sessions: int, total_bytes: int, claude_home: Path, codex_home: Path, repos: Path, *,
               big: bool = True, subagents: bool = True, tag: str = "main") -> list[dict[str, Any]]:
    r = random.Random(f"{seed}:{tag}")
    projects = [str(repos / f"{tag}-{r.choice(WORDS)}-{r.choice(WORDS)}-{i}") for i in range(max(3, sessions // 50))]
    kinds = ["codex" if r.random() < CODEX_SHARE else "cc" for _ in range(sessions)]
    bigs: list[list[tuple[str, int]]] = [[] for _ in range(sessions)]
    big_total = 0
    if big:
        budget = int(total_bytes * BIG_SHARE)
        while big_total < budget:
            i = r.randrange(sessions)
            if kinds[i] == "cc":
                kind = r.choices(["cc_edit", "cc_write", "cc_image"], weights=[5, 3, 2])[0]
            else:
                kind = r.choice(["cx_add", "cx_exec"])
            size = int(r.uniform(1.0, 4.0) * MB)
            bigs[i].append((kind, size))
            big_total += big_bytes([(kind, size)])
    # Sessions end on a whole turn and Codex rollouts carry ~45 kB of preamble: aim lower so the
    # corpus lands near the requested size.
    rest = max(total_bytes - big_total, sessions * 4000) * SIZE_CALIBRATION
    weights = [pow(2.718281828, r.gauss(0, 1.0)) for _ in range(sessions)]
    wsum = sum(weights)
    t_start = time.mktime((2026, 1, 5, 9, 0, 0, 0, 0, -1))
    specs = []
    for i in range(sessions):
        specs.append({
            "kind": kinds[i], "seed": r.getrandbits(64), "target": max(3000, int(rest * weights[i] / wsum)),
            "big": bigs[i], "cwd": r.choice(projects), "t0": t_start + r.uniform(0, 110 * 86400),
            "claude_home": str(claude_home), "codex_home": str(codex_home), "subagents": subagents,
        })
    return specs


def _run_specs(seed: int, specs: list[dict[str, Any]], workers: int) -> dict[str, Any]:
    agg: dict[str, Any] = {"files": 0, "bytes": 0, "sessions": 0, "max_line": 0, "lines_ge_1mb": 0, "stats": {},
                           "by_kind": {}}
    items = [(seed, s) for s in specs]
    if workers > 1 and len(items) > 8:
        with ProcessPoolExecutor(workers) as ex:
            results = list(ex.map(_gen_one, items, chunksize=4))
    else:
        results = [_gen_one(x) for x in items]
    for spec, res in zip(specs, results, strict=True):
        agg["sessions"] += res["sessions"]
        bk = agg["by_kind"].setdefault(spec["kind"], {"files": 0, "bytes": 0})
        for _p, n, m, nb in res["files"]:
            agg["files"] += 1
            agg["bytes"] += n
            bk["files"] += 1
            bk["bytes"] += n
            agg["max_line"] = max(agg["max_line"], m)
            agg["lines_ge_1mb"] += nb
        for k, v in res["stats"].items():
            agg["stats"][k] = agg["stats"].get(k, 0) + v
    agg["results"] = results
    return agg


def make_repos(cwds: set[str], seed: int) -> None:
    """Each session cwd is a real git repository (one commit, a CLAUDE.md and an AGENTS.md), so
    the link step and the memory refresh inside `index` do the work they do on a real machine."""
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.com", GIT_COMMITTER_NAME="bench",
               GIT_COMMITTER_EMAIL="bench@example.com", GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
               GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    tx = Text(seed)
    r = random.Random(f"{seed}:repos")
    for cwd in sorted(cwds):
        d = Path(cwd)
        if (d / ".git").exists():
            continue
        d.mkdir(parents=True, exist_ok=True)
        (d / "CLAUDE.md").write_text("# Project notes\n\n" + tx.prose_bytes(r, 1500) + "\n")
        (d / "AGENTS.md").write_text("# Agent instructions\n\n" + tx.prose_bytes(r, 1200) + "\n")
        for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "init"],
                    ["git", "remote", "add", "origin", f"https://github.com/example/{d.name}.git"]):
            subprocess.run(cmd, cwd=d, env=env, check=True, capture_output=True)


def generate_corpus(root: Path, sessions: int, mb: float, seed: int, workers: int = 2, log=print, *,
                    rescan_files: int = RESCAN_FILES) -> dict[str, Any]:
    """Write main/, rescan/, append/ and repos/ under ``root`` and a manifest.json."""
    t0 = time.perf_counter()
    root = root.resolve()
    root.mkdir(parents=True, exist_ok=True)
    repos = root / "repos"
    specs_main = plan_specs(seed, sessions, int(mb * MB), root / "main/claude", root / "main/codex", repos)
    specs_rescan = plan_specs(seed, rescan_files, rescan_files * 12_000, root / "rescan/claude", root / "rescan/codex", repos,
                              big=False, subagents=False, tag="rescan")
    app_cwds = {str(repos / "append-small"), str(repos / "append-big")}
    make_repos({s["cwd"] for s in specs_main + specs_rescan} | app_cwds, seed)
    log(f"  {len({s['cwd'] for s in specs_main + specs_rescan}) + 2} git repositories ({time.perf_counter() - t0:.1f}s)")
    t0 = time.perf_counter()
    main = _run_specs(seed, specs_main, workers)
    log(f"  main corpus: {main['files']} files, {main['bytes'] / MB:.1f} MB ({time.perf_counter() - t0:.1f}s)")
    # 1,000 single-file sessions for the no-change re-scan (no subagents: exactly 1,000 files).
    t1 = time.perf_counter()
    rescan = _run_specs(seed, specs_rescan, workers)
    log(f"  re-scan set: {rescan['files']} files, {rescan['bytes'] / MB:.1f} MB ({time.perf_counter() - t1:.1f}s)")
    # Two Claude sessions for the append test: a small one and a multi-MB one.
    tx = Text(seed)
    r = random.Random(f"{seed}:append")
    t_app = time.mktime((2026, 4, 20, 9, 0, 0, 0, 0, -1))
    small = gen_claude(tx, {"kind": "cc", "seed": r.getrandbits(64), "target": 20_000, "big": [],
                            "cwd": str(repos / "append-small"), "t0": t_app, "claude_home": str(root / "append/claude"),
                            "subagents": False})
    bigf = gen_claude(tx, {"kind": "cc", "seed": r.getrandbits(64), "target": 1_500_000,
                           "big": [("cc_edit", 4 * MB), ("cc_write", 2 * MB)], "cwd": str(repos / "append-big"),
                           "t0": t_app, "claude_home": str(root / "append/claude"), "subagents": False})
    manifest = {
        "version": GEN_VERSION, "seed": seed, "sessions": sessions, "mb": mb,
        "main": {k: main[k] for k in ("files", "bytes", "sessions", "max_line", "lines_ge_1mb", "stats", "by_kind")},
        "rescan": {k: rescan[k] for k in ("files", "bytes", "sessions")},
        "append": {
            name: {"path": res["files"][0][0], "bytes": res["files"][0][1], "last_uuid": res["last_uuid"], "sid": res["sid"],
                   "cwd": res["cwd"]}
            for name, res in (("small", small), ("big", bigf))
        },
        "generate_s": round(time.perf_counter() - t0, 1),
    }
    (root / "manifest.json").write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2))
    return manifest


def claude_append_record(r: random.Random, parent: str | None, *, cwd: str, sid: str, text: str,
                         role: str = "assistant") -> tuple[str, bytes]:
    """One more Claude Code line (a user prompt or an assistant text reply, stamped now) for a
    session of the corpus: its uuid and its bytes with the newline."""
    u = uuid4(r)
    ts = iso(time.time())
    if role == "assistant":
        rec = {"parentUuid": parent, "isSidechain": False, "message": {
            "model": ClaudeSession.MODEL, "id": rid(r, "msg_01", 22), "type": "message", "role": "assistant",
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
            "stop_details": None, "usage": USAGE_CC}, "requestId": rid(r, "req_011C", 18), "type": "assistant",
            "uuid": u, "timestamp": ts}
    else:
        rec = {"parentUuid": parent, "isSidechain": False, "promptId": uuid4(r), "type": "user",
               "message": {"role": "user", "content": text}, "uuid": u, "timestamp": ts,
               "permissionMode": "default"}
    rec.update(userType="external", entrypoint="cli", cwd=cwd, sessionId=sid, version=ClaudeSession.VERSION,
               gitBranch="main")
    return u, orjson.dumps(rec) + b"\n"


def code_text(r: random.Random, nbytes: int) -> str:
    """About ``nbytes`` of code lines joined into one text (a pasted log or file)."""
    return "\n".join(Text(1).code_lines(r, nbytes))
