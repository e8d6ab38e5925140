"""Cursor: the agent transcripts (Cursor CLI / newer IDE) and the editor's ``state.vscdb``.

Sources read (no Cursor format is a published contract):

* ``~/.cursor/projects/<slug>/agent-transcripts/<conversationId>.jsonl`` (home: ``CURSOR_HOME``
  or ``~/.cursor``) -- read in the real sample ``samples/cursor/gitai_cursor-session-simple.jsonl``
  (git-ai fixture at 55a1d72, a 2025/2026 Cursor build) and git-ai's reader
  ``src/commands/checkpoint_agent/agent_preset.rs``. One JSON object per line:
  ``{"role": "user"|"assistant", "message": {"content": [block...]}}``; a block is
  ``{"type": "text", "text"}`` (user prompts wrapped in ``<user_query>…</user_query>``;
  reasoning replaced by ``[REDACTED]``) or ``{"type": "tool_use", "name", "input"}``. Lines
  carry no id, no timestamp and **no tool results**: the file lists the calls the agent ran.
  Edit tools: ``Write {path, contents}``, ``StrReplace {path, old_string, new_string}``,
  ``Delete {path}``, ``ApplyPatch {patch}`` (apply_patch grammar). Paths are absolute.
* ``state.vscdb`` (``…/Cursor/User/globalStorage/state.vscdb``; home ``CURSOR_CONFIG_DIR`` or
  the platform's ``Cursor/User``) -- read in the real sample ``samples/cursor/gitai_cursor_test.vscdb``
  (git-ai fixture at 2eb435b, composerData ``_v`` 10, bubbles ``_v`` 3, Cursor 1.7, Oct 2025).
  SQLite table ``cursorDiskKV(key TEXT UNIQUE ON CONFLICT REPLACE, value)``:
  ``composerData:<composerId>`` = one conversation (``name`` title, ``createdAt`` ms,
  ``fullConversationHeadersOnly`` [{bubbleId, type 1 user | 2 assistant}] in conversation order,
  ``subComposerIds`` subagent conversations, ``modelConfig.modelName``);
  ``bubbleId:<composerId>:<bubbleId>`` = one message (``type``, ``text``, ``createdAt`` ISO, and
  for tool calls ``toolFormerData`` {``name``, ``toolCallId`` ("call_…\\nfc_…"), ``status``
  loading|completed|error|cancelled, ``rawArgs`` JSON text, ``params`` JSON text, ``result``
  JSON text whose ``diff.chunks`` [{diffString, oldStart, oldLines, newStart, newLines}] are the
  applied change with post-edit line numbers (each diffString line has a two-character prefix:
  ``"+ "``, ``"- "``, ``"  "``), ``userDecision`` accepted|rejected}). ``checkpointId:*`` and
  ``codeBlockDiff:*`` repeat the same diffs and are not read.

Always true of what this module emits: an edit is ``applied`` only when Cursor recorded the call
as completed and the user did not reject it (``userDecision: "rejected"`` → ``rejected``; error or
cancelled → ``failed``); a call still loading yields nothing until its row is rewritten. For the
agent transcripts, which record no outcome, every edit call is ``applied`` (the file lists the
calls the agent ran) and carries no timestamp. Such an edit can never be placed before a commit,
so `why` never makes a line it added ``agent``: the line is ``unknown`` (rule ``untimed``), never
``human``; giving it a time (the file's mtime, the first scan that saw it) would be a guess. An
edit call that names its file and nothing it wrote (git-ai keeps Cursor's calls so: ``rawArgs``
with ``file_path`` alone, no result) is an edit of kind ``unreadable`` and a skip
``unreadable_edit``: the lines its session could have written are ``unknown``, never ``human``.

``state.vscdb`` is read with ``hansard.agents.foreign`` (read-only, never locked) through
``vscdb_records``: each changed row becomes one archived record ``{"k": key, "v": value}``. A
replaced key gets a larger rowid, so "rowid above the last one read" is exactly what changed.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import orjson

from hansard.agents.base import JsonParser, dict_of, diff_texts, first_json_lines, iso_from_epoch_ms, lines_of, str_of
from hansard.agents.base import nonempty_str as _str
from hansard.agents.edits import PatchError, parse_patch
from hansard.text.diffs import Hunk
from hansard.values.models import (
    EditItem,
    EditKind,
    Item,
    MessageItem,
    RawRecord,
    SessionInfo,
    Skip,
    ToolCallItem,
    ToolResultItem,
)

NAME = "cursor"
SQLITE_MAGIC = b"SQLite format 3\x00"
KV_TABLE = "cursorDiskKV"
KV_PREFIXES = ("composerData:", "bubbleId:")
_TITLE_MAX = 100

# Tool roles (the registry record exposes these; nothing outside hansard/agents names tools).
EDIT_TOOLS = frozenset({"Write", "StrReplace", "Delete", "ApplyPatch", "MultiEdit", "Edit",
                        "edit_file", "edit_file_v2", "search_replace", "apply_patch", "write", "delete_file",
                        "MultiStrReplace"})
SHELL_TOOLS = frozenset({"Shell", "run_terminal_cmd", "run_terminal_command_v2"})
READ_TOOLS = frozenset({"Read", "read_file", "Grep", "grep", "Glob", "LS", "list_dir", "codebase_search",
                        "file_search", "glob_file_search"})
PLAN_TOOLS = frozenset({"TodoWrite", "UpdateTodos", "todo_write"})
MEMORY_FILES = (".cursorrules", ".cursor/rules", "AGENTS.md")


def _iso_ms(v: Any) -> str | None:
    """A time in epoch milliseconds as ISO-8601; a string is taken as written."""
    return _str(v) if isinstance(v, str) else iso_from_epoch_ms(v)


def _json_field(v: Any) -> Any:
    """toolFormerData keeps rawArgs/params/result as JSON text; tolerate objects too."""
    if isinstance(v, str):
        try:
            return orjson.loads(v)
        except orjson.JSONDecodeError:
            return None
    return v


def _title(text: str) -> str | None:
    first = " ".join(text.split())
    return first[:_TITLE_MAX] if first else None


# -------------------------------------------------------------------------- edits, shared


def edit_items(sid: str, call_id: str, tool: str, args: dict[str, Any], status: str, ts: str | None,
               message_key: str, cwd: str | None = None, chunks: Any = None) -> list[Item]:
    """EditItems for one Cursor edit call. ``chunks`` is ``result.diff.chunks`` when known."""
    path = next((v for k in ("path", "file_path", "target_file", "targetFile", "relativeWorkspacePath",
                             "relative_workspace_path") if isinstance(v := args.get(k), str) and v), None)
    base: dict[str, Any] = {"session_id": sid, "call_id": call_id, "tool": tool, "cwd": cwd, "status": status,
            "timestamp": ts, "message_key": message_key}
    patch = args.get("patch") if isinstance(args.get("patch"), str) else None
    if patch is None and tool in ("ApplyPatch", "apply_patch") and isinstance(args.get("input"), str):
        patch = args["input"]
    if isinstance(chunks, list) and chunks and path:
        hunks: list[Hunk] = []
        plus: list[str] = []
        minus: list[str] = []
        for ch in chunks:
            if not isinstance(ch, dict) or not isinstance(ch.get("diffString"), str):
                continue
            lines: list[str] = []
            for ln in ch["diffString"].split("\n"):
                mark, body = ln[:1], ln[2:] if ln[1:2] == " " else ln[1:]
                if mark == "+":
                    plus.append(body)
                elif mark == "-":
                    minus.append(body)
                elif mark != " ":
                    continue
                lines.append(mark + body)
            hunks.append(Hunk(_int(ch.get("oldStart")), _int(ch.get("oldLines")), _int(ch.get("newStart")),
                              _int(ch.get("newLines")), tuple(lines)))
        return [EditItem(**base, path=path, kind="update", added=tuple(plus), removed=tuple(minus),
                         hunks=tuple(hunks))]
    if patch is not None:
        try:
            ops = parse_patch(patch)
        except PatchError as exc:
            return [Skip("bad_patch", 0, str(exc)[:200])]
        out: list[Item] = []
        for seq, op in enumerate(ops):
            kinds: dict[str, EditKind] = {"add": "create", "delete": "delete", "update": "move" if op.move_to else "update"}
            kind = kinds[op.op]
            out.append(EditItem(**base, path=op.path, kind=kind, added=op.added, removed=op.removed,
                                after=op.content, move_to=op.move_to, seq=seq))
        return out
    if not path:
        return [Skip("bad_field", 0, f"{tool}: no path")]
    if tool in ("Delete", "delete_file"):
        return [EditItem(**base, path=path, kind="delete")]
    content = next((v for k in ("contents", "content", "file_text") if isinstance(v := args.get(k), str)), None)
    if content is not None and tool in ("Write", "write"):
        return [EditItem(**base, path=path, kind="create", added=tuple(lines_of(content)), after=content)]
    old = next((v for k in ("old_string", "oldString", "old_str") if isinstance(v := args.get(k), str)), None)
    new = next((v for k in ("new_string", "newString", "new_str") if isinstance(v := args.get(k), str)), None)
    if new is not None:
        added, removed, _ = diff_texts(old or "", new)
        return [EditItem(**base, path=path, kind="update", added=added, removed=removed)]
    code = args.get("code_edit") if isinstance(args.get("code_edit"), str) else None
    if code is not None:
        # edit_file's sketch: "// ... existing code ..." marks lines the model left unchanged.
        added_lines = tuple(ln for ln in lines_of(code) if "... existing code ..." not in ln)
        return [EditItem(**base, path=path, kind="update", added=added_lines)]
    # The call named its file and nothing it wrote (git-ai keeps Cursor's edit calls so): an
    # edit all the same, whose lines cannot be told.
    return [EditItem(**base, path=path, kind="unreadable"), Skip("unreadable_edit", 0, f"{tool}: {path}"[:300])]


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


# -------------------------------------------------------------------------- agent transcripts


class _TranscriptProvider:
    name = NAME
    whole_file = False

    def sniff(self, path: Path, head: bytes) -> bool:
        objs = first_json_lines(head, 3)
        if not objs:
            return False
        o = objs[0]
        msg = o.get("message")
        return (o.get("role") in ("user", "assistant") and isinstance(msg, dict)
                and isinstance(msg.get("content"), list) and "type" not in o and "sessionId" not in o)

    def new_parser(self, path: str, state: dict[str, Any] | None = None) -> _TranscriptParser:
        return _TranscriptParser(path, state)


class _TranscriptParser(JsonParser):
    def __init__(self, path: str, state: dict[str, Any] | None) -> None:
        st = state or {}
        p = Path(path)
        self.sid: str = st.get("sid") or p.stem
        self.started: bool = bool(st.get("started"))
        self.titled: bool = bool(st.get("titled"))
        self.slug = p.parent.parent.name if p.parent.name == "agent-transcripts" else None

    def state(self) -> dict[str, Any]:
        return {"sid": self.sid, "started": self.started, "titled": self.titled}

    def _parse(self, obj: Any, record: RawRecord) -> list[Item]:
        if not isinstance(obj, dict):
            return [Skip("not_an_object", record.offset)]
        role, msg = obj.get("role"), obj.get("message")
        if role not in ("user", "assistant") or not isinstance(msg, dict):
            return [Skip("unknown_type", record.offset, str(role)[:100])]
        content = msg.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            return [Skip("bad_field", record.offset, "content")]
        out: list[Item] = []
        if not self.started:
            self.started = True
            out.append(SessionInfo(self.sid, NAME, extra={"projectSlug": self.slug} if self.slug else {}))
        key = f"{self.sid}:o{record.offset}"  # unique across transcript files
        texts = [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"
                 and isinstance(b.get("text"), str)]
        text = "\n".join(texts)
        if role == "user":
            text = text.replace("<user_query>", "").replace("</user_query>", "").strip()
        else:
            text = text.replace("[REDACTED]", "").strip()  # reasoning Cursor withheld
        if text:
            out.append(MessageItem(self.sid, key, role, text))
            if role == "user" and not self.titled and (title := _title(text)):
                self.titled = True
                out.append(SessionInfo(self.sid, NAME, title=title, title_rank=1))
        for i, b in enumerate(content):
            if not isinstance(b, dict) or b.get("type") != "tool_use":
                continue
            name = _str(b.get("name")) or "unknown"
            args = dict_of(b.get("input"))
            call_id = _str(b.get("id")) or f"{key}:{i}"
            mkey = f"{key}#tool{i}"
            out.append(MessageItem(self.sid, mkey, "assistant", f"{name}", kind="tool_use"))
            out.append(ToolCallItem(self.sid, call_id, name, args, mkey))
            if name in EDIT_TOOLS:
                out += [it if not isinstance(it, Skip) else Skip(it.reason, record.offset, it.detail)
                        for it in edit_items(self.sid, call_id, name, args, "applied", None, mkey)]
        return out


# -------------------------------------------------------------------------- state.vscdb


def vscdb_records(path: str, cursor: dict[str, Any] | None) -> tuple[list[RawRecord], dict[str, Any]] | None:
    """The rows of ``state.vscdb`` that changed since ``cursor`` as archive records, and the new
    cursor. Conversations come before their messages, messages in conversation order. None when
    the database cannot be read now (locked, mid-write): try again at the next scan."""
    from hansard.agents import foreign

    cur = dict(cursor or {})
    rows = foreign.kv_rows_since(path, KV_TABLE, int(cur.get("rowid") or 0), KV_PREFIXES)
    if rows is None:
        return None
    order: dict[str, int] = {}
    composers, bubbles = [], []
    for rowid, key, value in rows:
        if key.startswith("composerData:"):
            composers.append((rowid, key, value))
            try:
                data = orjson.loads(value) if isinstance(value, str | bytes) else None
            except orjson.JSONDecodeError:
                data = None
            heads = data.get("fullConversationHeadersOnly") if isinstance(data, dict) else None
            for i, h in enumerate(heads if isinstance(heads, list) else ()):
                if isinstance(h, dict) and isinstance(h.get("bubbleId"), str):
                    order[key.split(":", 1)[1] + ":" + h["bubbleId"]] = i
        else:
            bubbles.append((rowid, key, value))

    def bubble_key(row: tuple[int, str, Any]) -> tuple[Any, ...]:
        rowid, key, _ = row
        rest = key.split(":", 1)[1]
        return (rest.split(":", 1)[0], order.get(rest, 1 << 30), rowid)

    bubbles.sort(key=bubble_key)
    seq = int(cur.get("seq") or 0)
    out: list[RawRecord] = []
    for _rowid, key, value in composers + bubbles:
        if isinstance(value, bytes):
            try:
                value = value.decode("utf-8")
            except UnicodeDecodeError:
                out.append(RawRecord(path, seq, orjson.dumps({"k": key, "b64": base64.b64encode(value).decode()})))
                seq += 1
                continue
        out.append(RawRecord(path, seq, orjson.dumps({"k": key, "v": value})))
        seq += 1
    if rows:
        cur["rowid"] = max(r[0] for r in rows)
    cur["seq"] = seq
    return out, cur


class _VscdbProvider:
    name = NAME
    whole_file = False
    container = "sqlite"  # records come from ``records()``, not from byte offsets

    def sniff(self, path: Path, head: bytes) -> bool:
        return head.startswith(SQLITE_MAGIC) and KV_TABLE.encode() in head

    def records(self, path: str, cursor: dict[str, Any] | None) -> tuple[list[RawRecord], dict[str, Any]] | None:
        return vscdb_records(path, cursor)

    def new_parser(self, path: str, state: dict[str, Any] | None = None) -> _VscdbParser:
        return _VscdbParser(path, state)


_FINAL = {"completed": "ok", "error": "error", "cancelled": "interrupted", "aborted": "interrupted"}


class _VscdbParser(JsonParser):
    def __init__(self, path: str, state: dict[str, Any] | None) -> None:
        st = state or {}
        self.path = path
        self.titled: set[str] = set(st.get("titled") or ())
        # tool call ids whose final outcome was emitted (a loading row is rewritten later)
        self.done: set[str] = set(st.get("done") or ())

    def state(self) -> dict[str, Any]:
        return {"titled": sorted(self.titled), "done": sorted(self.done)}

    def _parse(self, obj: Any, record: RawRecord) -> list[Item]:
        if not isinstance(obj, dict) or not isinstance(obj.get("k"), str):
            return [Skip("not_an_object", record.offset)]
        if not isinstance(obj.get("v"), str):
            return [Skip("binary_value", record.offset, obj["k"][:100])]
        try:
            value = orjson.loads(obj["v"])
        except orjson.JSONDecodeError as exc:
            return [Skip("malformed_json", record.offset, str(exc)[:200])]
        if not isinstance(value, dict):
            return [Skip("not_an_object", record.offset, obj["k"][:100])]
        parts = obj["k"].split(":")
        if parts[0] == "composerData" and len(parts) == 2:
            return self._composer(parts[1], value)
        if parts[0] == "bubbleId" and len(parts) == 3:
            return self._bubble(parts[1], parts[2], value, record.offset)
        return [Skip("unknown_type", record.offset, obj["k"][:100])]

    def _composer(self, cid: str, d: dict[str, Any]) -> list[Item]:
        name = _str(d.get("name"))
        model = d.get("modelConfig", {}).get("modelName") if isinstance(d.get("modelConfig"), dict) else None
        extra = {k: v for k, v in (("unifiedMode", d.get("unifiedMode")), ("model", model),
                                   ("composerVersion", d.get("_v"))) if isinstance(v, str | int) and v is not None}
        out: list[Item] = [SessionInfo(cid, NAME, started_at=_iso_ms(d.get("createdAt")),
                                       title=name[:_TITLE_MAX] if name else None, title_rank=2 if name else 0,
                                       extra=extra)]
        if name:
            self.titled.add(cid)
        for sub in d.get("subComposerIds") or ():
            if isinstance(sub, str) and sub:
                out.append(SessionInfo(sub, NAME, parent_session_id=cid))
        return out

    def _bubble(self, cid: str, bid: str, b: dict[str, Any], offset: int) -> list[Item]:
        btype = b.get("type")
        ts = _iso_ms(b.get("createdAt"))
        text = str_of(b.get("text"))
        out: list[Item] = []
        if btype == 1:
            if text.strip():
                out.append(MessageItem(cid, bid, "user", text, ts, replace=True))
                if cid not in self.titled and (title := _title(text)):
                    self.titled.add(cid)
                    out.append(SessionInfo(cid, NAME, title=title, title_rank=1))
            return out or [Skip("empty_message", offset)]
        if btype != 2:
            return [Skip("unknown_type", offset, f"bubble type {btype!r}"[:100])]
        model = b.get("modelInfo", {}).get("modelName") if isinstance(b.get("modelInfo"), dict) else None
        if text.strip():
            out.append(MessageItem(cid, bid, "assistant", text, ts, model=_str(model), replace=True))
        tf = b.get("toolFormerData")
        if isinstance(tf, dict) and (name := _str(tf.get("name"))):
            out += self._tool(cid, bid, tf, name, ts, offset)
        return out

    def _tool(self, cid: str, bid: str, tf: dict[str, Any], name: str, ts: str | None, offset: int) -> list[Item]:
        raw_id = _str(tf.get("toolCallId")) or bid
        call_id = raw_id.split("\n", 1)[0]  # "call_…\nfc_…": the model call id, then the item id
        if call_id in self.done:
            return []
        args = _json_field(tf.get("rawArgs"))
        if not isinstance(args, dict):
            args = _json_field(tf.get("params"))
        args = args if isinstance(args, dict) else {}
        mkey = f"{bid}#tool"
        out: list[Item] = [MessageItem(cid, mkey, "assistant", name, ts, kind="tool_use", replace=True),
                           ToolCallItem(cid, call_id, name, args, mkey, ts)]
        status = _str(tf.get("status"))
        decision = _str(tf.get("userDecision"))
        if status not in _FINAL and decision != "rejected":
            return out  # still running: the row is rewritten when it ends
        result = _json_field(tf.get("result"))
        result = result if isinstance(result, dict) else {}
        self.done.add(call_id)
        tstatus = "rejected" if decision == "rejected" else _FINAL.get(status or "", "error")
        output = _str(result.get("resultForModel")) or (_str(tf.get("result")) or "")[:20000]
        out.append(ToolResultItem(cid, call_id, tstatus, output, message_key=mkey, timestamp=ts))  # type: ignore[arg-type]
        if name in EDIT_TOOLS:
            estatus = "applied" if tstatus == "ok" else "rejected" if tstatus == "rejected" else "failed"
            chunks = result.get("diff", {}).get("chunks") if isinstance(result.get("diff"), dict) else None
            # (a skip is counted only for an applied call: a refused one is never evidence)
            out += [it if not isinstance(it, Skip) else Skip(it.reason, offset, it.detail)
                    for it in edit_items(cid, call_id, name, args, estatus, ts, mkey, chunks=chunks)
                    if not isinstance(it, Skip) or estatus == "applied"]
        return out


PROVIDER = _TranscriptProvider()
PROVIDER_VSCDB = _VscdbProvider()
