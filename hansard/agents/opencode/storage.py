"""OpenCode (sst/opencode): its session store, in both shapes found in the wild.

Sources read: sst/opencode ``packages/opencode/src/session/`` (``message-v2.ts`` part and message
schemas, ``index.ts``, ``processor.ts``) and ``src/storage/`` of the 0.x-1.1 file storage and the
1.2 SQLite storage (Drizzle tables ``session``, ``message``, ``part``; the 1.2 release migrates the
flat files into ``opencode.db`` on first run) and public notes on the migration.
Home: ``$XDG_DATA_HOME/opencode`` (default ``~/.local/share/opencode``; OpenCode uses XDG on
macOS too), overridable with ``OPENCODE_DATA_DIR`` for hansard.

* Files (≤ 1.1): ``storage/session/<projectID>/<sessionID>.json`` (``id``, ``projectID``,
  ``directory``, ``parentID`` for a subagent's session, ``title``, ``version``, ``time.created``
  ms), ``storage/message/<sessionID>/<messageID>.json`` (``id``, ``sessionID``, ``role``
  user|assistant, ``time.created``/``completed`` ms, ``modelID``, ``providerID``, ``path.cwd``/
  ``root``), ``storage/part/<messageID>/<partID>.json`` (``id``, ``sessionID``, ``messageID``,
  ``type``). A file is rewritten while its part runs (``state.status`` pending → running →
  completed | error).
* SQLite (≥ 1.2): ``opencode.db``, tables ``session`` (the fields above as columns:
  ``id``, ``project_id``, ``parent_id``, ``directory``, ``title``, ``version``, ``time_created``,
  ``time_updated``), ``message(id, session_id, time_created, time_updated, data)`` and
  ``part(id, message_id, session_id, time_created, time_updated, data)``, ``data`` the same JSON.

Part types: ``text`` (``text``, ``synthetic`` for injected text), ``reasoning``, ``tool``
(``callID``, ``tool``, ``state`` {``status``, ``input``, ``output``, ``error``, ``metadata``,
``time``}), ``step-start``/``step-finish``, ``patch``, ``file``, ``agent``, ``subtask``,
``compaction``. Edit tools: ``edit`` {filePath, oldString, newString, replaceAll} (metadata
``diff`` = unified diff with line numbers, ``filediff`` {before, after}), ``write`` {filePath,
content} (metadata ``exists``), ``multiedit`` {filePath, edits[]}, ``patch``/``apply_patch``
{patchText} (apply_patch grammar). Shell: ``bash``; plans: ``todowrite``; subagents: ``task``
(metadata ``sessionId`` names the child session).

Always true of what this module emits: a tool part yields its call, result and edits once, when
its status is final; an edit is ``applied`` only for ``completed`` (``error`` → ``failed``, or
``rejected`` when the error says the user refused). Text parts are messages keyed by part id,
with the role of their message. Both shapes are read through ``records()`` into archive records
``{"t": "session"|"message"|"part", ...}`` so the parser is one.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import orjson

from hansard.agents.base import JsonParser, as_text, dict_of, diff_texts, lines_of, parse_unified_diff, str_of
from hansard.agents.base import iso_from_epoch_ms as _iso
from hansard.agents.base import nonempty_str as _str
from hansard.agents.edits import PatchError, parse_patch
from hansard.files import safeopen
from hansard.values.models import (
    EditItem,
    EditKind,
    Item,
    MessageItem,
    RawRecord,
    Role,
    SessionInfo,
    Skip,
    StepsItem,
    ToolCallItem,
    ToolResultItem,
)

NAME = "opencode"
DB_FILE = "opencode.db"
EDIT_TOOLS = frozenset({"edit", "write", "multiedit", "patch", "apply_patch"})
SHELL_TOOLS = frozenset({"bash"})
READ_TOOLS = frozenset({"read", "grep", "glob", "list", "webfetch"})
PLAN_TOOLS = frozenset({"todowrite"})
SUBAGENT_TOOLS = frozenset({"task"})
MEMORY_FILES = ("AGENTS.md", "CLAUDE.md", ".opencode/agent")
_REJECTED = re.compile(r"rejected|denied|user dismissed", re.I)
_DEFAULT_TITLE = re.compile(r"^(New session|Child session) - \d{4}-")
_TITLE_MAX = 100
_KINDS = ("session", "message", "part")

# apply_patch operations -> edit kinds (an update with a new name is a move).
_OP_KINDS: dict[str, EditKind] = {"add": "create", "delete": "delete"}


# -------------------------------------------------------------------------- readers

def storage_records(root: str, cursor: dict[str, Any] | None) -> tuple[list[RawRecord], dict[str, Any]]:
    """Files under ``storage/{session,message,part}`` changed since ``cursor`` (newest mtime read,
    and the files read at exactly that mtime), as records in creation order."""
    cur = dict(cursor or {})
    since = int(cur.get("mtime") or 0)
    at_since = set(cur.get("at") or ())
    found: list[tuple[int, str, str, int]] = []  # (kind order, id, relpath, mtime)
    for order, kind in enumerate(_KINDS):
        base = os.path.join(root, kind)
        for dirpath, _dirs, files in os.walk(base):
            for name in files:
                if not name.endswith(".json"):
                    continue
                full = os.path.join(dirpath, name)
                try:
                    m = os.stat(full).st_mtime_ns
                except OSError:
                    continue
                rel = os.path.relpath(full, root)
                if m > since or (m == since and rel not in at_since):
                    found.append((order, name[:-5], rel, m))
    # OpenCode ids sort by creation time: sessions, then messages, then parts, each in order.
    found.sort()
    seq = int(cur.get("seq") or 0)
    out: list[RawRecord] = []
    new_max, at_max = since, set(at_since)
    for order, _id, rel, m in found:
        try:
            text = safeopen.read_bytes(os.path.join(root, rel))
        except OSError:
            continue
        out.append(RawRecord(root, seq, orjson.dumps({"t": _KINDS[order], "file": rel,
                                                      "json": text.decode("utf-8", "replace")})))
        seq += 1
        if m > new_max:
            new_max, at_max = m, {rel}
        elif m == new_max:
            at_max.add(rel)
    return out, {"mtime": new_max, "at": sorted(at_max), "seq": seq}


def db_records(path: str, cursor: dict[str, Any] | None) -> tuple[list[RawRecord], dict[str, Any]] | None:
    """Rows of ``opencode.db`` updated since ``cursor``, sessions first, then messages, then parts."""
    from hansard.agents import foreign

    cur = dict(cursor or {})
    seq = int(cur.get("seq") or 0)
    out: list[RawRecord] = []
    for kind in _KINDS:
        rows = foreign.rows_since(path, kind, "time_updated", int(cur.get(kind) or 0))
        if rows is None:
            return None
        rows.sort(key=lambda r: (str(r.get("time_created") or ""), str(r.get("id") or "")))
        for row in rows:
            out.append(RawRecord(path, seq, orjson.dumps({"t": kind, "row": row}, default=str)))
            seq += 1
            tu = row.get("time_updated")
            if isinstance(tu, int) and tu > int(cur.get(kind) or 0):
                cur[kind] = tu
    cur["seq"] = seq
    return out, cur


# -------------------------------------------------------------------------- providers


class _Provider:
    """The SQLite store (``opencode.db``)."""

    name = NAME
    whole_file = False
    container = "sqlite"

    def sniff(self, path: Path, head: bytes) -> bool:
        return (head.startswith(b"SQLite format 3\x00") and b"CREATE TABLE `part`" in head
                and b"CREATE TABLE `session`" in head) or (head.startswith(b"SQLite format 3\x00")
                                                          and b"message_id" in head and b"opencode" in head)

    def records(self, path: str, cursor: dict[str, Any] | None) -> tuple[list[RawRecord], dict[str, Any]] | None:
        return db_records(path, cursor)

    def new_parser(self, path: str, state: dict[str, Any] | None = None) -> _Parser:
        return _Parser(path, state)


class _StorageProvider(_Provider):
    """The flat JSON files (``storage/``): one source per storage folder."""

    container = "dir"

    def sniff(self, path: Path, head: bytes) -> bool:
        return path.is_dir() and (path / "session").is_dir() and (path / "part").is_dir()

    def records(self, path: str, cursor: dict[str, Any] | None) -> tuple[list[RawRecord], dict[str, Any]] | None:
        return storage_records(path, cursor)


def _normalise(obj: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """One shape for both readers: the JSON object with ``id``/``sessionID``/``messageID``."""
    kind = obj.get("t")
    if kind not in _KINDS:
        return None
    if isinstance(obj.get("json"), str):
        try:
            doc = orjson.loads(obj["json"])
        except orjson.JSONDecodeError:
            return None
        return (kind, doc) if isinstance(doc, dict) else None
    row = obj.get("row")
    if not isinstance(row, dict):
        return None
    d: dict[str, Any] = {}
    if isinstance(row.get("data"), str):
        try:
            parsed = orjson.loads(row["data"])
        except orjson.JSONDecodeError:
            return None
        if isinstance(parsed, dict):
            d.update(parsed)
    for col, key in (("id", "id"), ("session_id", "sessionID"), ("message_id", "messageID"),
                     ("parent_id", "parentID"), ("directory", "directory"), ("title", "title"),
                     ("version", "version"), ("project_id", "projectID")):
        if row.get(col) is not None and key not in d:
            d[key] = row[col]
    if kind == "session" and "time" not in d and isinstance(row.get("time_created"), int):
        d["time"] = {"created": row["time_created"]}
    return kind, d


class _Parser(JsonParser):
    """State: the ids of user messages (a part inherits its message's role), and the tool
    calls whose final outcome was emitted."""

    def __init__(self, path: str, state: dict[str, Any] | None) -> None:
        st = state or {}
        self.path = path
        self.user_msgs: set[str] = set(st.get("user") or ())
        self.cwd: dict[str, str] = dict(st.get("cwd") or {})  # session → directory
        self.done: set[str] = set(st.get("done") or ())
        self.titled: set[str] = set(st.get("titled") or ())

    def state(self) -> dict[str, Any]:
        return {"user": sorted(self.user_msgs), "cwd": self.cwd, "done": sorted(self.done),
                "titled": sorted(self.titled)}

    def _parse(self, obj: Any, record: RawRecord) -> list[Item]:
        if not isinstance(obj, dict):
            return [Skip("not_an_object", record.offset)]
        norm = _normalise(obj)
        if norm is None:
            return [Skip("malformed_json", record.offset)]
        kind, d = norm
        if not isinstance(d.get("id"), str):
            return [Skip("bad_field", record.offset, "id")]
        if kind == "session":
            return self._session(d)
        if kind == "message":
            return self._message(d, record.offset)
        return self._part(d, record.offset)

    def _session(self, d: dict[str, Any]) -> list[Item]:
        sid = d["id"]
        title = _str(d.get("title"))
        rank = 0 if not title else 1 if _DEFAULT_TITLE.match(title) else 2
        if title and rank == 1:
            title = None  # OpenCode's placeholder; the first prompt says more
        if _str(d.get("directory")):
            self.cwd[sid] = d["directory"]
        if title:
            self.titled.add(sid)
        t = dict_of(d.get("time"))
        extra = {k: d[k] for k in ("projectID", "slug") if isinstance(d.get(k), str)}
        return [SessionInfo(sid, NAME, cwd=_str(d.get("directory")), started_at=_iso(t.get("created")),
                            title=title[:_TITLE_MAX] if title else None, title_rank=2 if title else 0,
                            parent_session_id=_str(d.get("parentID")), version=_str(d.get("version")), extra=extra)]

    def _message(self, d: dict[str, Any], offset: int) -> list[Item]:
        sid = _str(d.get("sessionID"))
        role = d.get("role")
        if not sid or role not in ("user", "assistant"):
            return [Skip("bad_field", offset, "message sessionID/role")]
        if role == "user":
            self.user_msgs.add(d["id"])
        path = dict_of(d.get("path"))
        if _str(path.get("cwd")) and sid not in self.cwd:
            self.cwd[sid] = path["cwd"]
        return [SessionInfo(sid, NAME, cwd=self.cwd.get(sid))] if sid not in self.titled and sid in self.cwd else []

    def _part(self, d: dict[str, Any], offset: int) -> list[Item]:
        sid, mid, ptype = _str(d.get("sessionID")), _str(d.get("messageID")), d.get("type")
        if not sid or not mid:
            return [Skip("bad_field", offset, "part sessionID/messageID")]
        pid = d["id"]
        cwd = self.cwd.get(sid)
        t = dict_of(d.get("time"))
        ts = _iso(t.get("start") or t.get("created"))
        role: Role = "user" if mid in self.user_msgs else "assistant"
        if ptype == "text":
            text = str_of(d.get("text"))
            if not text.strip():
                return [Skip("empty_message", offset)]
            kind = "meta" if d.get("synthetic") else "text"
            out: list[Item] = [MessageItem(sid, pid, role, text, ts, cwd, kind, replace=True)]
            if role == "user" and kind == "text" and sid not in self.titled:
                self.titled.add(sid)
                out.append(SessionInfo(sid, NAME, title=" ".join(text.split())[:_TITLE_MAX], title_rank=1))
            return out
        if ptype == "reasoning":
            text = str_of(d.get("text"))
            return [MessageItem(sid, pid, "assistant", text, ts, cwd, "thinking", replace=True)] if text.strip() else []
        if ptype == "tool":
            return self._tool(sid, pid, d, cwd, offset)
        return [Skip("unused_part", offset, str(ptype)[:50])]

    def _tool(self, sid: str, pid: str, d: dict[str, Any], cwd: str | None, offset: int) -> list[Item]:
        call_id = _str(d.get("callID")) or pid
        if call_id in self.done:
            return []
        name = _str(d.get("tool")) or "unknown"
        st = dict_of(d.get("state"))
        status = st.get("status")
        args = dict_of(st.get("input"))
        t = dict_of(st.get("time"))
        ts = _iso(t.get("start"))
        out: list[Item] = [MessageItem(sid, pid, "assistant", name, ts, cwd, "tool_use", replace=True),
                           ToolCallItem(sid, call_id, name, args, pid, ts, cwd)]
        if status not in ("completed", "error"):
            return out  # pending/running: the part is rewritten when it ends
        self.done.add(call_id)
        meta = dict_of(st.get("metadata"))
        if status == "completed":
            tstatus, output = "ok", as_text(st.get("output"))
        else:
            err = as_text(st.get("error"))
            tstatus, output = ("rejected" if _REJECTED.search(err) else "error"), err
        end_ts = _iso(t.get("end")) or ts
        out.append(ToolResultItem(sid, call_id, tstatus, output[:100000], _int(meta.get("exit")), pid, end_ts))  # type: ignore[arg-type]
        if name in PLAN_TOOLS and isinstance(args.get("todos"), list):
            steps = tuple({"text": str(x.get("content") or ""), "status": x.get("status") if x.get("status") in
                           ("pending", "in_progress", "completed", "cancelled") else "pending",
                           **({"id": x["id"]} if isinstance(x.get("id"), str) else {})}
                          for x in args["todos"] if isinstance(x, dict))
            out.append(StepsItem(sid, call_id, True, steps, ts))
        if name in SUBAGENT_TOOLS and _str(meta.get("sessionId")):
            out.append(SessionInfo(meta["sessionId"], NAME, parent_session_id=sid, spawn_call_id=call_id))
        if name in EDIT_TOOLS:
            estatus = "applied" if tstatus == "ok" else "rejected" if tstatus == "rejected" else "failed"
            out += [it if not isinstance(it, Skip) else Skip(it.reason, offset, it.detail)
                    for it in _edits(sid, call_id, name, args, meta, estatus, end_ts, pid, cwd)]
        return out


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _edits(sid: str, call_id: str, tool: str, args: dict[str, Any], meta: dict[str, Any], status: str,
           ts: str | None, mkey: str, cwd: str | None) -> list[Item]:
    base: dict[str, Any] = {"session_id": sid, "call_id": call_id, "tool": tool, "cwd": cwd, "status": status,
            "timestamp": ts, "message_key": mkey}
    patch = args.get("patchText") if isinstance(args.get("patchText"), str) else args.get("patch")
    if tool in ("patch", "apply_patch") and isinstance(patch, str):
        try:
            ops = parse_patch(patch)
        except PatchError as exc:
            return [Skip("bad_patch", 0, str(exc)[:200])]
        return [EditItem(**base, path=op.path, kind=_OP_KINDS.get(op.op, "move" if op.move_to else "update"),
                         added=op.added, removed=op.removed, after=op.content, move_to=op.move_to, seq=i)
                for i, op in enumerate(ops)]
    path = _str(args.get("filePath"))
    if not path:
        return [Skip("bad_field", 0, f"{tool}: no filePath")]
    if tool == "write":
        content = str_of(args.get("content"))
        kind: EditKind = "update" if meta.get("exists") else "create"
        return [EditItem(**base, path=path, kind=kind, added=tuple(lines_of(content)), after=content)]
    diff = meta.get("diff")
    if isinstance(diff, str) and "@@" in diff:
        added, removed, hunks = parse_unified_diff(diff)
        return [EditItem(**base, path=path, kind="update", added=added, removed=removed, hunks=hunks)]
    fd = dict_of(meta.get("filediff"))
    if isinstance(fd.get("after"), str):
        added, removed, hunks = diff_texts(str_of(fd.get("before")), fd["after"])
        return [EditItem(**base, path=path, kind="update", added=added, removed=removed, hunks=hunks,
                         before=fd.get("before") if isinstance(fd.get("before"), str) else None, after=fd["after"])]
    pairs: list[Any] = args["edits"] if tool == "multiedit" and isinstance(args.get("edits"), list) else [args]
    out: list[Item] = []
    for i, e in enumerate(pairs):
        if not isinstance(e, dict) or not isinstance(e.get("newString"), str):
            continue
        added, removed, _ = diff_texts(str_of(e.get("oldString")), e["newString"])
        out.append(EditItem(**base, path=_str(e.get("filePath")) or path, kind="update", added=added,
                            removed=removed, seq=i))
    return out or [Skip("bad_field", 0, f"{tool}: no newString")]


class _ExportParser(_Parser):
    """One ``opencode export`` document: ``{"info": session, "messages": [{"info": message,
    "parts": [part, ...]}, ...]}``, the objects the stores hold. An export may leave out the ids
    that nest: a message gets its session's, a part its message's, and one without an id of its
    own is named by its place (``<message id>#<n>``), the same in every reading of the file."""

    def _parse(self, obj: Any, record: RawRecord) -> list[Item]:
        if not isinstance(obj, dict) or not isinstance(obj.get("info"), dict) or not isinstance(obj.get("messages"), list):
            return [Skip("not_a_transcript", record.offset)]
        info = obj["info"]
        sid = _str(info.get("id"))
        if not sid:
            return [Skip("bad_field", record.offset, "info.id")]
        out = self._session(info)
        for i, m in enumerate(obj["messages"]):
            minfo = m.get("info") if isinstance(m, dict) else None
            if not isinstance(minfo, dict):
                out.append(Skip("bad_field", record.offset, f"messages[{i}].info"))
                continue
            mid = _str(minfo.get("id")) or f"{sid}#{i}"
            out += self._message({**minfo, "id": mid, "sessionID": _str(minfo.get("sessionID")) or sid}, record.offset)
            for j, part in enumerate(m.get("parts") if isinstance(m.get("parts"), list) else ()):
                if not isinstance(part, dict):
                    out.append(Skip("bad_field", record.offset, f"messages[{i}].parts[{j}]"))
                    continue
                out += self._part({**part, "id": _str(part.get("id")) or f"{mid}#{j}",
                                   "sessionID": _str(part.get("sessionID")) or sid,
                                   "messageID": _str(part.get("messageID")) or mid}, record.offset)
        return out


class _ExportProvider:
    """A session written out by ``opencode export`` (Entire keeps OpenCode sessions so): one
    JSON document, read whole each time it changes."""

    name = NAME
    whole_file = True

    def sniff(self, path: Path, head: bytes) -> bool:
        return (head.lstrip()[:1] == b"{" and b'"info"' in head and b'"messages"' in head
                and re.search(rb'"id"\s*:\s*"ses_', head) is not None)

    def new_parser(self, path: str, state: dict[str, Any] | None = None) -> _ExportParser:
        return _ExportParser(path, state)


PROVIDER = _Provider()
PROVIDER_STORAGE = _StorageProvider()
PROVIDER_EXPORT = _ExportProvider()
