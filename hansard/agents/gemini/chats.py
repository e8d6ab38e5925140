"""Gemini CLI chat files: the legacy single JSON document and the 2026 JSONL log.

Two on-disk shapes, two providers sharing one message decoder:

* ``PROVIDER_JSON`` reads the legacy ``session-*.json`` document, which Gemini rewrites in
  place on every update. The scanner hands the whole file over as one record and re-parses
  it from scratch whenever it changes, so this parser keeps no state: every parse emits
  every fact again and the store dedupes them by key.
* ``PROVIDER`` reads the append-only ``*.jsonl`` log: an optional metadata line, then
  MessageRecord lines, ``{"$set": {...}}`` metadata updates and ``{"$rewindTo": id}``.
  A message is re-appended whole each time it changes (new tool calls, tokens, results), so
  the last copy wins: every MessageItem carries ``replace=True``. Tool calls, results and
  edits are emitted once per call id; the state remembers which calls were already emitted
  and which already reached a final status (success/error/cancelled).

Invariant: an EditItem is ``applied`` only when Gemini recorded ``status: "success"`` for
the call; error → ``failed``; cancelled → ``rejected`` when the user refused it, else
``failed``. Paths are kept as written (Gemini often writes them relative to the project
root and records no per-message cwd); ``cwd`` is the project root when the metadata names
one (``directories[0]``), else None.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson

from hansard.agents.base import as_text, dict_of, first_json_lines, load_json, snapshot_steps, str_of
from hansard.agents.edits import diff_replacements, lines_of, parse_unified_diff
from hansard.agents.gemini import AGENT
from hansard.text.diffs import Hunk
from hansard.values.models import (
    EditItem,
    Item,
    MessageItem,
    RawRecord,
    Rewind,
    Role,
    SessionInfo,
    Skip,
    StepsItem,
    ToolCallItem,
    ToolResultItem,
)

NAME = AGENT.name

# Message `type` → (role, kind) of the MessageItem holding its text.
_MESSAGE_TYPES: dict[str, tuple[Role, str]] = {
    "user": ("user", "text"),
    "gemini": ("assistant", "text"),
    "info": ("system", "meta"),
    "warning": ("system", "meta"),
    "error": ("system", "error"),
}
_FINAL = {"success", "error", "cancelled"}
_EDIT_TOOLS = AGENT.edit_tools
_SHELL_TOOLS = AGENT.shell_tools
_EXIT_CODE = re.compile(r"^Exit Code: (-?\d+)\s*$", re.M)
# The scheduler's words when the user answers "no" to a confirmation prompt:
# "User did not allow tool call" / "[Operation Cancelled] Reason: User did not allow tool call".
_REJECTED = re.compile(r"did not allow|user (?:rejected|denied|declined)", re.I)
_CREATED = re.compile(r"created and wrote to new file|^created new file", re.I | re.M)
_USER_MODIFIED = re.compile(r"user modified the `", re.I)
_REFERENCED = "--- Content from referenced files ---"
_TITLE_MAX = 100


class _Decoder:
    """Turns Gemini MessageRecords into items. Holds exactly the resumable state."""

    def __init__(self, path: str, state: dict[str, Any] | None = None) -> None:
        st = state or {}
        self.path = path
        self.sid: str | None = st.get("sid")
        self.root: str | None = st.get("root")
        self.titled: bool = bool(st.get("titled"))
        # call id → 0 (ToolCallItem emitted, status not final yet) | 1 (result/edit emitted too)
        self.calls: dict[str, int] = dict(st.get("calls") or {})
        self._undo: list[tuple[str, int | None]] = []

    def state(self) -> dict[str, Any]:
        return {"sid": self.sid, "root": self.root, "titled": self.titled, "calls": dict(self.calls)}

    # -- transactions: a record that blows up half-way must not leave calls marked as emitted

    def begin(self) -> tuple[Any, ...]:
        self._undo = []
        return (self.sid, self.root, self.titled)

    def rollback(self, saved: tuple[Any, ...]) -> None:
        self.sid, self.root, self.titled = saved
        for call_id, old in reversed(self._undo):
            if old is None:
                self.calls.pop(call_id, None)
            else:
                self.calls[call_id] = old
        self._undo = []

    def _mark(self, call_id: str, value: int) -> None:
        self._undo.append((call_id, self.calls.get(call_id)))
        self.calls[call_id] = value

    # -- session facts

    def metadata(self, meta: dict[str, Any]) -> list[Item]:
        """SessionInfo from a metadata line, a ``$set`` or the legacy document's top level."""
        sid = meta.get("sessionId")
        if self.sid is None and isinstance(sid, str) and sid:
            self.sid = sid
        dirs = meta.get("directories")
        if isinstance(dirs, list) and dirs and isinstance(dirs[0], str) and dirs[0]:
            self.root = dirs[0]
        if self.sid is None:
            return []
        extra: dict[str, Any] = {}
        if isinstance(meta.get("projectHash"), str):
            extra["projectHash"] = meta["projectHash"]
        kind = meta.get("kind")
        if isinstance(kind, str):
            extra["kind"] = kind
        if isinstance(sid, str) and sid and sid != self.sid:
            extra["recordedSessionId"] = sid  # a $set renamed the session after we fixed its id
        if isinstance(dirs, list) and all(isinstance(d, str) for d in dirs) and dirs:
            extra["directories"] = dirs
        summary = meta.get("summary")
        title = summary.strip() if isinstance(summary, str) and summary.strip() else None
        started = meta.get("startTime") if isinstance(meta.get("startTime"), str) else None
        parent = self._parent() if kind == "subagent" else None
        cwd = self.root if isinstance(dirs, list) else None
        if not (extra or title or started or parent or cwd or isinstance(sid, str)):
            return []  # e.g. {"$set": {"lastUpdated": ...}}: nothing worth a SessionInfo
        return [
            SessionInfo(
                session_id=self.sid, provider=NAME, cwd=cwd, started_at=started, title=title,
                title_rank=2 if title else 0, parent_session_id=parent, extra=extra,
            )
        ]

    def _parent(self) -> str | None:
        """Subagent chats live in ``chats/<parentSessionId>/<sessionId>.jsonl``."""
        folder = Path(self.path).parent.name
        return folder if folder and folder != "chats" else None

    def ensure_session(self) -> list[Item]:
        """A message before any metadata (abridged logs): derive a stable id from the file name."""
        if self.sid is not None:
            return []
        self.sid = f"{NAME}:{Path(self.path).stem}"
        return [SessionInfo(session_id=self.sid, provider=NAME, extra={"derivedSessionId": True})]

    # -- messages

    def message(self, msg: dict[str, Any], offset: int) -> list[Item]:
        mid, mtype = msg.get("id"), msg.get("type")
        if not isinstance(mid, str) or not mid:
            return [Skip("bad_field", offset, "message id")]
        if not isinstance(mtype, str):
            return [Skip("bad_field", offset, "message type")]
        if mtype not in _MESSAGE_TYPES:
            return [Skip("unknown_type", offset, mtype[:100])]
        out = self.ensure_session()
        sid = self.sid
        assert sid is not None
        role, kind = _MESSAGE_TYPES[mtype]
        ts = _str(msg.get("timestamp"))
        model = _str(msg.get("model"))
        if mtype == "gemini":
            thinking = _thoughts_text(msg.get("thoughts"))
            if thinking:
                out.append(MessageItem(sid, f"{mid}#thinking", "assistant", thinking, ts, self.root, "thinking", model, True))
        text = as_text(msg.get("content"))
        if text.strip():
            out.append(MessageItem(sid, mid, role, text, ts, self.root, kind, model, True))
            if mtype == "user" and not self.titled:
                title = _title_from_prompt(text)
                if title:
                    self.titled = True
                    out.append(SessionInfo(sid, NAME, title=title, title_rank=1))
        calls = msg.get("toolCalls") if mtype == "gemini" else None
        if isinstance(calls, list):
            for tc in calls:
                if isinstance(tc, dict) and isinstance(tc.get("id"), str) and tc["id"]:
                    out += self.tool_call(mid, tc, ts, model)
        return out

    def tool_call(self, mid: str, tc: dict[str, Any], msg_ts: str | None, model: str | None) -> list[Item]:
        sid = self.sid
        assert sid is not None
        call_id: str = tc["id"]
        name = _str(tc.get("name")) or "unknown"
        args = dict_of(tc.get("args"))
        ts = _str(tc.get("timestamp")) or msg_ts
        status = _str(tc.get("status"))  # an object or a list here is no status: the call has no result yet
        seen = self.calls.get(call_id)
        out: list[Item] = []
        use_key = f"{mid}#{call_id}"
        if seen is None:
            cwd = self.root
            if name in _SHELL_TOOLS:
                cwd = _str(args.get("dir_path")) or _str(args.get("directory")) or self.root
            out.append(MessageItem(sid, use_key, "assistant", _summary(name, args), ts, cwd, "tool_use", model, True))
            out.append(ToolCallItem(sid, call_id, name, args, use_key, ts, cwd))
            self._mark(call_id, 0)
        if seen == 1 or status not in _FINAL:
            return out
        self._mark(call_id, 1)
        output = _result_text(tc)
        rejected = status == "cancelled" and bool(_REJECTED.search(output))
        tool_status = {"success": "ok", "error": "error"}.get(status, "rejected" if rejected else "interrupted")
        res_key = f"{mid}#{call_id}#result"
        exit_code = None
        m = _EXIT_CODE.search(output) if name in _SHELL_TOOLS else None
        if m:
            exit_code = int(m[1])
        out.append(MessageItem(sid, res_key, "tool", output, ts, self.root, "tool_result", None, True))
        out.append(ToolResultItem(sid, call_id, tool_status, output, exit_code, res_key, ts))  # type: ignore[arg-type]
        if name in _EDIT_TOOLS:
            edit_status = "applied" if status == "success" else ("rejected" if rejected else "failed")
            edit = self._edit(call_id, name, args, tc.get("resultDisplay"), output, edit_status, ts, use_key)
            if edit is not None:
                out.append(edit)
        elif name == "write_todos" and status == "success":
            steps = snapshot_steps(args.get("todos"), ("description", "content"))
            if steps is not None:
                out.append(StepsItem(sid, call_id, True, steps, ts))
        return out

    def _edit(
        self, call_id: str, name: str, args: dict[str, Any], display: Any, output: str,
        status: str, ts: str | None, use_key: str,
    ) -> EditItem | None:
        path = _str(args.get("file_path")) or _str(args.get("absolute_path")) or _str(args.get("path"))
        if not path and isinstance(display, dict):
            path = _str(display.get("filePath")) or _str(display.get("fileName"))
        if not path:
            return None
        is_write = name == "write_file"
        hunks: tuple[Hunk, ...] = ()
        before = after = None
        new_file = bool(_CREATED.search(output))
        if isinstance(display, dict) and isinstance(display.get("fileDiff"), str):
            # FileDiff: a real unified diff of the whole file, with real line numbers.
            added, removed, hunks = parse_unified_diff(display["fileDiff"])
            before = _str(display.get("originalContent"))
            after = _str(display.get("newContent"))
            new_file = new_file or display.get("isNewFile") is True
        elif is_write:
            content = str_of(args.get("content"))
            added, removed = tuple(lines_of(content)), ()
            after = content
        else:
            old = str_of(args.get("old_string"))
            added, removed, hunks = diff_replacements([(old, str_of(args.get("new_string")))])
            new_file = new_file and old == ""
        return EditItem(
            session_id=self.sid or "", call_id=call_id, tool=name, path=path, cwd=self.root,
            kind="create" if new_file else "update", status=status,  # type: ignore[arg-type]
            timestamp=ts, message_key=use_key, added=added, removed=removed, hunks=hunks,
            before=before, after=after, user_modified=bool(_USER_MODIFIED.search(output)),
        )


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _thoughts_text(thoughts: Any) -> str:
    if not isinstance(thoughts, list):
        return ""
    parts = []
    for t in thoughts:
        if not isinstance(t, dict):
            continue
        subject = (_str(t.get("subject")) or "").strip()
        desc = (_str(t.get("description")) or "").strip()
        text = "\n".join(x for x in (subject, desc) if x)
        if text:
            parts.append(text)
    return "\n\n".join(parts)


def _title_from_prompt(text: str) -> str | None:
    head = text.split(_REFERENCED, 1)[0].strip()
    first = head.split("\n", 1)[0].strip() if head else ""
    if not first:
        return None
    return first if len(first) <= _TITLE_MAX else first[: _TITLE_MAX - 1] + "…"


def _summary(name: str, args: dict[str, Any]) -> str:
    """A one-line human summary of a tool call, for the tool_use message."""
    path = _str(args.get("file_path")) or _str(args.get("absolute_path")) or _str(args.get("path"))
    if name in ("replace", "edit", "smart_edit"):
        return f"Edit {path or '?'}"
    if name == "write_file":
        return f"WriteFile {path or '?'}"
    if name == "read_file":
        return f"ReadFile {path or '?'}"
    if name in _SHELL_TOOLS:
        cmd = _str(args.get("command"))
        if cmd:
            return cmd
    if name == "write_todos" and isinstance(args.get("todos"), list):
        return f"WriteTodos ({len(args['todos'])} items)"
    try:
        rendered = orjson.dumps(args).decode()
    except TypeError:
        rendered = ""
    if len(rendered) > 300:
        rendered = rendered[:299] + "…"
    return f"{name} {rendered}".strip()


def _result_text(tc: dict[str, Any]) -> str:
    """The tool output as the model saw it: functionResponse output/error parts, else resultDisplay."""
    texts: list[str] = []
    result = tc.get("result")
    for part in result if isinstance(result, list) else [result] if isinstance(result, dict) else []:
        if not isinstance(part, dict):
            continue
        fr = part.get("functionResponse")
        if isinstance(fr, dict):
            resp = fr.get("response")
            if isinstance(resp, dict):
                for k in ("output", "error", "content"):
                    if k in resp and resp[k] not in (None, ""):
                        texts.append(as_text(resp[k]))
                        break
            elif resp is not None:
                texts.append(as_text(resp))
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
    if texts:
        return "\n".join(t for t in texts if t)
    display = tc.get("resultDisplay")
    if isinstance(display, str):
        return display
    if isinstance(display, dict) and isinstance(display.get("fileDiff"), str):
        return display["fileDiff"]
    return ""


def _each_message(dec: _Decoder, msgs: list[Any], offset: int, field: str) -> list[Item]:
    """The items of each message in a list; an entry that is not an object is a bad_field
    Skip naming ``field[i]``."""
    out: list[Item] = []
    for i, m in enumerate(msgs):
        if isinstance(m, dict):
            out += dec.message(m, offset)
        else:
            out.append(Skip("bad_field", offset, f"{field}[{i}]"))
    return out


def _safely(dec: _Decoder, record: RawRecord, work: Any) -> list[Item]:
    saved = dec.begin()
    try:
        return work()
    except Exception as exc:  # a parser must never raise on input
        dec.rollback(saved)
        return [Skip("parser_error", record.offset, repr(exc)[:300])]


# ---- JSONL chat log (2026) ---------------------------------------------------------------


class GeminiJsonlParser:
    """Incremental parser of one ``*.jsonl`` chat log."""

    def __init__(self, path: str, state: dict[str, Any] | None = None) -> None:
        self.dec = _Decoder(path, state)

    def feed(self, record: RawRecord) -> list[Item]:
        return _safely(self.dec, record, lambda: self._feed(record))

    def _feed(self, record: RawRecord) -> list[Item]:
        obj, skip = load_json(record)
        if skip is not None:
            return [skip]
        if not isinstance(obj, dict):
            return [Skip("not_object", record.offset, type(obj).__name__)]
        dec = self.dec
        # Same discrimination order as Gemini's own loader (chatRecordingService.loadConversationRecord).
        if "$rewindTo" in obj:
            target = obj["$rewindTo"]
            if not isinstance(target, str) or not target:
                return [Skip("bad_field", record.offset, "$rewindTo")]
            out = dec.ensure_session()
            assert dec.sid is not None
            return [*out, Rewind(dec.sid, target)]
        if "id" in obj:
            return dec.message(obj, record.offset)
        if "$set" in obj:
            upd = obj["$set"]
            if not isinstance(upd, dict):
                return [Skip("bad_field", record.offset, "$set")]
            out = dec.metadata(upd)
            msgs = upd.get("messages")
            if isinstance(msgs, list):
                # A full rewrite of the history (masking sync, synthetic summaries): upsert each.
                out += dec.ensure_session()
                out += _each_message(dec, msgs, record.offset, "$set.messages")
            return out
        if isinstance(obj.get("sessionId"), str):
            return dec.metadata(obj)
        return [Skip("unknown_type", record.offset, ",".join(list(obj)[:5])[:100])]

    def finish(self) -> list[Item]:
        return []

    def state(self) -> dict[str, Any]:
        return self.dec.state()


class GeminiJsonlProvider:
    name = NAME
    whole_file = False

    def sniff(self, path: Path, head: bytes) -> bool:
        objs = first_json_lines(head, limit=1)
        if not objs:
            return False
        obj = objs[0]
        if "messages" in obj:
            return False  # a one-line legacy document
        if isinstance(obj.get("sessionId"), str) and isinstance(obj.get("projectHash"), str):
            return True
        if set(obj) == {"$set"} and isinstance(obj["$set"], dict):
            return True
        if set(obj) == {"$rewindTo"} and isinstance(obj["$rewindTo"], str):
            return True
        return _looks_like_message(obj)

    def new_parser(self, path: str, state: dict[str, Any] | None = None) -> GeminiJsonlParser:
        return GeminiJsonlParser(path, state)


def _looks_like_message(obj: dict[str, Any]) -> bool:
    """A Gemini MessageRecord: {id, timestamp, type, content}, none of the other agents' keys."""
    if not (isinstance(obj.get("id"), str) and isinstance(obj.get("timestamp"), str) and "content" in obj):
        return False
    if not isinstance(obj.get("type"), str) or obj["type"] not in _MESSAGE_TYPES:
        return False
    foreign = {"uuid", "parentUuid", "sessionId", "message", "payload", "role"}
    return not (foreign & set(obj))


# ---- legacy single JSON document ---------------------------------------------------------


class GeminiJsonParser:
    """Parser of a whole legacy document. Stateless: each feed re-parses everything."""

    def __init__(self, path: str, state: dict[str, Any] | None = None) -> None:
        self.path = path

    def feed(self, record: RawRecord) -> list[Item]:
        dec = _Decoder(self.path)
        return _safely(dec, record, lambda: self._feed(dec, record))

    def _feed(self, dec: _Decoder, record: RawRecord) -> list[Item]:
        obj, skip = load_json(record)
        if skip is not None:
            # Usually a file caught half-way through a rewrite: the scanner retries later.
            return [Skip("malformed_json", record.offset, skip.detail or skip.reason)]
        if not isinstance(obj, dict):
            return [Skip("not_object", record.offset, type(obj).__name__)]
        if not isinstance(obj.get("sessionId"), str) or not obj["sessionId"]:
            return [Skip("no_session_id", record.offset)]
        out = dec.metadata(obj)
        msgs = obj.get("messages")
        if not isinstance(msgs, list):
            out.append(Skip("bad_field", record.offset, "messages"))
            return out
        out += _each_message(dec, msgs, record.offset, "messages")
        return out

    def finish(self) -> list[Item]:
        return []

    def state(self) -> dict[str, Any]:
        return {}


_LEGACY_HEAD = re.compile(rb'\A\s*\{\s*"')


class GeminiJsonProvider:
    name = NAME
    whole_file = True

    def sniff(self, path: Path, head: bytes) -> bool:
        if not _LEGACY_HEAD.match(head):
            return False
        try:
            obj = orjson.loads(head)  # the whole file fits in the head
        except orjson.JSONDecodeError:
            obj = None
        if isinstance(obj, dict):
            return isinstance(obj.get("sessionId"), str) and isinstance(obj.get("messages"), list)
        if obj is not None:
            return False
        # A longer document: its first line must not be a complete record (that is JSONL), and
        # the top-level keys Gemini writes first must precede the messages array.
        first = head.split(b"\n", 1)[0]
        try:
            orjson.loads(first)
            return False
        except orjson.JSONDecodeError:
            pass
        m = re.search(rb'"messages"\s*:\s*\[', head)
        if not m:
            return False
        prefix = head[: m.start()]
        return re.search(rb'"sessionId"\s*:\s*"', prefix) is not None and b'"projectHash"' in prefix

    def new_parser(self, path: str, state: dict[str, Any] | None = None) -> GeminiJsonParser:
        return GeminiJsonParser(path, state)


PROVIDER = GeminiJsonlProvider()
PROVIDER_JSON = GeminiJsonProvider()
