"""Transcript writers that reproduce, field for field, what Claude Code, Codex CLI and Gemini CLI
write to disk (see shared/FORMATS.md and the real samples under shared/samples/).

Every writer *performs* the edits it records: an applied edit changes the file in the working
tree, a rejected or failed one leaves it alone. So a scenario's repository follows its
transcripts exactly, and the ``Ledger`` keeps a plain record of every edit attempt (who, when,
which lines it added) that the scenario checks use as ground truth.

Determinism: ids come from RNGs seeded by the session id, times from a shared ``Clock``.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import random
import re
import string
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

UTC = timezone.utc

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
    (``style="2.1"``) or 1.0.x (``style="1.0"``, the versions that still had MultiEdit)."""

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
        _sidechain: tuple[str, Path, str] | None = None,  # (agentId, file, parent session id)
    ) -> None:
        self.home = Path(home)
        self.cwd = str(cwd)
        self.session_id = session_id
        self.clock = start_time if isinstance(start_time, Clock) else Clock(start_time)
        self.ledger = ledger if ledger is not None else Ledger()
        self.style = style
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

    def _envelope(self, kind: str, body: dict[str, Any], *, ts: str, uid: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
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
             run: Callable[[], None] | None = None) -> str:
        """Bash tool. ``run`` performs the command's side effects (e.g. a formatter rewriting a
        file): shell edits reach the tree but leave no structured patch, as in real sessions."""

        def go(_tid: str) -> tuple[Any, Any, bool]:
            self._pending_ts = self._ts()
            if run is not None:
                run()
            result = {"stdout": stdout, "stderr": stderr, "interrupted": False, "isImage": False,
                      "noOutputExpected": not stdout}
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
                           _sidechain=(agent_id, sub_file, self.session_id))
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


def Add(path: Path | str, content: str) -> PatchOp:  # noqa: N802 - reads like the patch grammar
    return PatchOp("add", str(path), content=content)


def Update(path: Path | str, *replacements: tuple[str, str], move_to: Path | str | None = None) -> PatchOp:  # noqa: N802
    return PatchOp("update", str(path), replacements=tuple(replacements), move_to=str(move_to) if move_to else None)


def Delete(path: Path | str) -> PatchOp:  # noqa: N802
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

    def apply_patch(self, *ops: PatchOp, fail: bool = False) -> str:
        """One ``apply_patch`` call (custom_tool_call). ``fail=True`` records a verification
        failure: plain-string output, no patch_apply_end, files untouched."""
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
        self._emit("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": call_id,
                                     "name": "apply_patch", "input": patch}, self._ts())
        if fail:
            first = plan[0]
            path = self._abs(first[0].path)
            missing = "\n".join(r[1:] for r in _patch_hunks(first[1] or "", first[2] or "", 3)[0] if r[0] in " -") if first[0].kind == "update" else ""
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
        self._emit("event_msg", {"type": "patch_apply_end", "call_id": call_id, "turn_id": self.turn_id,
                                 "stdout": stdout, "stderr": "", "success": True, "changes": changes,
                                 "status": "completed"}, ts)
        self._emit("response_item", {"type": "custom_tool_call_output", "call_id": call_id, "output": _dumps(
            {"output": stdout, "metadata": {"exit_code": 0, "duration_seconds": 0.0}})}, self._ts())
        return call_id

    def _record(self, call_id: str, op: PatchOp, status: str, before: str | None, after: str | None) -> None:
        added, removed = added_removed(before, after)
        self.ledger.add(EditRecord(
            provider=self.provider, session_id=self.session_id, tool_call_id=call_id, tool="apply_patch",
            path=self._abs(op.path), time=self.clock.now(), status=status, added=added, removed=removed,
            before=before, after=after, move_to=self._abs(op.move_to) if op.move_to else None,
            transcript=str(self.path)))

    def exec(self, cmd: str, *, output: str = "", exit_code: int = 0, workdir: str | None = None,
             run: Callable[[], None] | None = None, parsed_cmd: list[dict[str, Any]] | None = None) -> str:
        """``exec_command`` function call + ``exec_command_end`` + output. ``run`` performs the
        command's side effects on the tree (invisible to patch records). ``parsed_cmd`` is what
        Codex's command parser recorded (e.g. ``[{"type": "read", "cmd": ..., "name": "f.py",
        "path": "src/f.py"}]`` for ``sed -n '1,80p' src/f.py``); by default ``unknown``."""
        call_id = "call_" + self.ids.b62(24)
        wd = workdir or self.cwd
        self._emit("response_item", {"type": "function_call", "name": "exec_command", "arguments": _dumps(
            {"cmd": cmd, "workdir": wd, "yield_time_ms": 1000, "max_output_tokens": 12000}), "call_id": call_id}, self._ts())
        if run is not None:
            run()
        ts = self._ts()
        self._emit("event_msg", {"type": "exec_command_end", "call_id": call_id, "process_id": str(self.ids.rng.randint(1000, 99999)),
                                 "turn_id": self.turn_id, "command": ["/bin/bash", "-lc", cmd], "cwd": wd,
                                 "parsed_cmd": parsed_cmd or [{"type": "unknown", "cmd": cmd}], "source": "unified_exec_startup",
                                 "stdout": output, "stderr": "", "aggregated_output": output, "exit_code": exit_code,
                                 "duration": {"secs": 0, "nanos": self.ids.rng.randint(1000, 999999)},
                                 "formatted_output": output, "status": "completed" if exit_code == 0 else "failed"}, ts)
        tokens = len(output.split())
        self._emit("response_item", {"type": "function_call_output", "call_id": call_id, "output": (
            f"Chunk ID: {self.ids.hex(6)}\nWall time: 0.0000 seconds\nProcess exited with code {exit_code}\n"
            f"Original token count: {tokens}\nOutput:\n{output}")}, self._ts())
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
