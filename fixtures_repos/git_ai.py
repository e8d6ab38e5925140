"""Sessions rebuilt from the conversations git-ai embeds in its authorship notes
(``refs/notes/ai``, ``authorship/3.0.0``: each prompt's ``messages``, ``{type: user | assistant |
tool_use, text | name + input, timestamp}``), written in their agents' real on-disk formats, so
that hansard reads them as it reads those agents' own files.

What git-ai keeps, and so what these transcripts hold:

* Claude Code: every message timed; ``Edit`` keeps ``file_path``, ``old_string``, ``new_string``,
  ``replace_all``, ``Write`` its ``content``; no tool result. An edit call gets the result a
  version without ``structuredPatch`` records (``{filePath, oldString, newString, replaceAll,
  userModified}``, ``{filePath, content}``): git-ai lists only calls that ran.
* Cursor (read by git-ai from the editor's ``state.vscdb``, ``fullConversationHeadersOnly``):
  texts mostly timed, tool calls never, and an edit call keeps only its ``file_path`` (git-ai
  cleared the rest of ``rawArgs``). A tool bubble is written as git-ai left it: ``rawArgs`` with
  the path alone, no ``createdAt``, ``status: completed``.
* Codex: ``apply_patch`` with its patch text (a ``custom_tool_call`` with a successful output),
  ``exec_command``.

A conversation is often embedded by many notes, each holding it as it was at its commit:
``merge_copies`` puts one together. Ids (Claude Code's ``uuid`` and ``toolu_`` ids, Codex's
``call_`` ids) depend on a message's content and time, not on the session holding it, as a
resumed or forked copy of a conversation keeps them. Everything is a function of the messages.
"""

from __future__ import annotations

import collections
import hashlib
import json
import re
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any

CLAUDE_EDITS = {"Edit", "Write", "MultiEdit"}
CURSOR_EDITS = {"search_replace", "write", "apply_patch", "edit_file", "MultiEdit", "edit_file_v2_apply_patch",
                "edit_file_v2_search_replace", "Write", "StrReplace"}


def when(s: str | None) -> float | None:
    if not s:
        return None
    try:
        return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def digest(*parts: object) -> str:
    return hashlib.sha256("\0".join(map(str, parts)).encode()).hexdigest()


def det_uuid(*parts: object) -> str:
    h = digest(*parts)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:32]}"


def _mkey(m: dict) -> tuple:
    return (m.get("type"), m.get("timestamp") or "", m.get("text") or "", m.get("name") or "",
            json.dumps(m.get("input"), sort_keys=True) if "input" in m else "")


def merge_copies(copies: list[list[dict]]) -> list[dict]:
    """One conversation from the copies notes kept of it: the longest first, then each other
    copy's messages not seen yet, placed after the message they follow in that copy. A message
    is the same one when its content and time are (the n-th repeat of an untimed call is the
    n-th one of every copy)."""
    out: list[tuple] = []
    msgs: dict[tuple, dict] = {}
    for copy in sorted(copies, key=lambda c: -len(c)):
        seen: collections.Counter[tuple] = collections.Counter()
        prev: tuple | None = None
        for m in copy:
            if not isinstance(m, dict):
                continue
            base = _mkey(m)
            seen[base] += 1
            k = (base, seen[base])
            if k not in msgs:
                msgs[k] = m
                out.insert(out.index(prev) + 1 if prev is not None else 0, k)
            prev = k
    return [msgs[k] for k in out]


def message_ids(tool: str, msgs: list[dict]) -> list[str]:
    """An id for each message that depends on what it says and when, not on the session that
    holds it: a resumed or forked copy of a conversation repeats its records with their ids
    (Claude Code's ``uuid`` and the API's ``toolu_`` ids; Codex's ``call_`` ids), and so does
    this rebuild."""
    seen: collections.Counter[tuple] = collections.Counter()
    out = []
    for m in msgs:
        k = _mkey(m)
        seen[k] += 1
        out.append(digest(tool, *k, seen[k]))
    return out


def _claude_result(name: str, inp: dict) -> dict | None:
    """The tool result a Claude Code version without ``structuredPatch`` records for an edit."""
    fp = inp.get("file_path")
    if not isinstance(fp, str):
        return None
    if name == "Edit":
        return {"filePath": fp, "oldString": inp.get("old_string"), "newString": inp.get("new_string"),
                "replaceAll": bool(inp.get("replace_all")), "userModified": False}
    if name == "Write":
        return {"filePath": fp, "content": inp.get("content")}
    if name == "MultiEdit":
        return {"filePath": fp, "edits": inp.get("edits"), "userModified": False}
    return None


def claude_transcript(sid: str, cwd: str, model: str | None, msgs: list[dict]) -> bytes:
    """A Claude Code transcript of the messages."""
    lines: list[str] = []
    parent = None
    last_ts = None
    ids = message_ids("claude", msgs)
    for i, m in enumerate(msgs):
        ts = m.get("timestamp") or last_ts
        if ts is None:
            continue
        last_ts = ts
        uid = det_uuid("claude", ids[i])
        env = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": sid}
        t = m.get("type")
        if t == "user":
            rec = {**env, "type": "user", "message": {"role": "user", "content": m.get("text") or ""}, "uuid": uid,
                   "timestamp": ts}
        elif t == "assistant":
            rec = {**env, "type": "assistant", "message": {
                "id": "msg_" + digest("msg", sid, i)[:24], "type": "message", "role": "assistant", "model": model,
                "content": [{"type": "text", "text": m.get("text") or ""}], "stop_reason": None}, "uuid": uid,
                "timestamp": ts}
        elif t == "tool_use":
            tid = "toolu_" + ids[i][:24]
            name = m.get("name") or "unknown"
            inp = m.get("input") if isinstance(m.get("input"), dict) else {}
            rec = {**env, "type": "assistant", "message": {
                "id": "msg_" + digest("msg", sid, i)[:24], "type": "message", "role": "assistant", "model": model,
                "content": [{"type": "tool_use", "id": tid, "name": name, "input": inp}], "stop_reason": "tool_use"},
                "uuid": uid, "timestamp": ts}
            result = _claude_result(name, inp) if name in CLAUDE_EDITS else None
            if result is not None:
                lines.append(json.dumps(rec, ensure_ascii=False))
                parent = uid
                uid = det_uuid("claude-result", ids[i])
                rec = {**env, "parentUuid": parent, "type": "user", "message": {"role": "user", "content": [
                    {"tool_use_id": tid, "type": "tool_result",
                     "content": f"The file {inp.get('file_path')} has been updated successfully."}]},
                    "uuid": uid, "timestamp": ts, "toolUseResult": result}
        else:
            continue
        lines.append(json.dumps(rec, ensure_ascii=False))
        parent = uid
    return ("\n".join(lines) + "\n").encode()


def cursor_rows(cid: str, model: str | None, msgs: list[dict]) -> list[tuple[str, str]]:
    """(key, value) rows of ``cursorDiskKV`` for one composer: its bubbles, then the composer."""
    rows: list[tuple[str, str]] = []
    headers = []
    first = None
    for i, m in enumerate(msgs):
        t = m.get("type")
        bid = det_uuid("bubble", cid, i)
        body: dict[str, Any] = {"_v": 3, "bubbleId": bid}
        if m.get("timestamp"):
            body["createdAt"] = m["timestamp"]
            first = first or m["timestamp"]
        if t == "user":
            body.update(type=1, text=m.get("text") or "")
        elif t == "assistant":
            body.update(type=2, text=m.get("text") or "", modelInfo={"modelName": model or ""})
        elif t == "tool_use":
            name = m.get("name") or "unknown"
            body.update(type=2, text="", toolFormerData={"name": name, "status": "completed",
                                                         "rawArgs": json.dumps(m.get("input") or {}, ensure_ascii=False),
                                                         "toolCallId": "call_" + digest("call", cid, i)[:24]})
        else:
            continue
        rows.append((f"bubbleId:{cid}:{bid}", json.dumps(body, ensure_ascii=False)))
        headers.append({"bubbleId": bid, "type": body["type"]})
    created = int(when(first) * 1000) if first and when(first) else None
    comp = {"_v": 10, "composerId": cid, "name": "", "createdAt": created, "fullConversationHeadersOnly": headers,
            "modelConfig": {"modelName": model or ""}, "unifiedMode": "agent", "status": "completed"}
    rows.append((f"composerData:{cid}", json.dumps(comp, ensure_ascii=False)))
    return rows


def codex_rollout(sid: str, cwd: str, msgs: list[dict]) -> tuple[bytes, str]:
    """A Codex rollout of the messages, and its file name's timestamp."""
    timed = [m["timestamp"] for m in msgs if m.get("timestamp")]
    start = timed[0] if timed else "1970-01-01T00:00:00.000Z"
    out = [{"timestamp": start, "type": "session_meta", "payload": {"id": sid, "timestamp": start, "cwd": cwd,
                                                                      "originator": "codex_cli_rs"}}]
    ts = start
    ids = message_ids("codex", msgs)
    for i, m in enumerate(msgs):
        ts = m.get("timestamp") or ts
        t = m.get("type")
        call = "call_" + ids[i][:24]
        if t == "user":
            out.append({"timestamp": ts, "type": "response_item", "payload": {
                "type": "message", "role": "user", "content": [{"type": "input_text", "text": m.get("text") or ""}]}})
        elif t == "assistant":
            out.append({"timestamp": ts, "type": "response_item", "payload": {
                "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": m.get("text") or ""}]}})
        elif t == "tool_use" and m.get("name") == "apply_patch" and isinstance(m.get("input"), str):
            patch = m["input"]
            files = re.findall(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$", patch, re.M)
            said = "".join(f"{v[0]} {p}\n" for v, p in files)
            out.append({"timestamp": ts, "type": "response_item", "payload": {
                "type": "custom_tool_call", "status": "completed", "call_id": call, "name": "apply_patch",
                "input": patch}})
            out.append({"timestamp": ts, "type": "response_item", "payload": {
                "type": "custom_tool_call_output", "call_id": call, "output": json.dumps(
                    {"output": f"Success. Updated the following files:\n{said}",
                     "metadata": {"exit_code": 0, "duration_seconds": 0.0}})}})
        elif t == "tool_use":
            out.append({"timestamp": ts, "type": "response_item", "payload": {
                "type": "function_call", "name": m.get("name") or "unknown",
                "arguments": json.dumps(m.get("input") or {}, ensure_ascii=False), "call_id": call}})
    return ("\n".join(json.dumps(o, ensure_ascii=False) for o in out) + "\n").encode(), start


def write_vscdb(path: Path, conversations: list[tuple[str, str | None, list[dict]]]) -> None:
    """``state.vscdb`` (tables ``ItemTable`` and ``cursorDiskKV``) holding these Cursor
    conversations: (composer id, model, messages)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    try:
        db.execute("CREATE TABLE IF NOT EXISTS ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        db.execute("CREATE TABLE IF NOT EXISTS cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        for cid, model, msgs in conversations:
            db.executemany("INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)", cursor_rows(cid, model, msgs))
        db.commit()
    finally:
        db.close()
