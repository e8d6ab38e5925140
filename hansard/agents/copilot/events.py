"""GitHub Copilot CLI: the session event logs under ``~/.copilot/session-state/``.

Sources read: the event schema generated in github/copilot-sdk
(``python/copilot/generated/session_events.py``, e5b8c97, 2026), public readers of the on-disk
logs (copilot-session-viewer, tokentop's Copilot plugin) and their fixtures (Copilot CLI
0.0.369-0.0.407 and 1.x). Home: ``COPILOT_HOME`` or ``~/.copilot`` (``XDG_STATE_HOME`` is not used).

Layout: ``session-state/<sessionId>/events.jsonl`` (+ ``workspace.yaml`` with ``summary``,
``cwd``, ``git_root``, ``branch``; ``checkpoints/``, ``plan.md``) in current builds,
``session-state/<sessionId>.jsonl`` in older ones. Each line is one event
``{"type", "id", "timestamp", "parentId", "data"}``:

* ``session.start`` {sessionId, copilotVersion, producer, startTime, context {cwd, gitRoot,
  branch, repository}}; ``session.resume``, ``session.info``, ``session.error``,
  ``session.model_change`` {newModel}, ``session.truncation``, ``session.compaction_*``,
  ``session.shutdown``.
* ``user.message`` {content, attachments}; ``assistant.message`` {messageId, content,
  toolRequests [{toolCallId, name, arguments}], parentToolCallId for a subagent's turn};
  ``assistant.reasoning`` {reasoningId, content}; ``assistant.turn_start``/``turn_end``.
* ``tool.execution_start`` {toolCallId, toolName, arguments, parentToolCallId};
  ``tool.execution_complete`` {toolCallId, success, result {content, detailedContent},
  error {message}}. Edit tools: ``edit`` {path, old_str, new_str}, ``create`` {path, file_text},
  ``apply_patch`` (1.x, apply_patch grammar in ``input``/``patch``); shell ``bash``/``powershell``;
  subagents: ``task`` (events of the subagent carry ``parentToolCallId``).

Always true of what this module emits: an edit is ``applied`` only when its
``tool.execution_complete`` says ``success: true``; a call with no completion yields no edit. A
``detailedContent`` unified diff, when present, gives the edit's line numbers. Messages of a
subagent stay in the parent session, marked by their ``parentToolCallId`` in the tool call input.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from hansard.agents.base import JsonParser, dict_of, diff_texts, first_json_lines, lines_of, parse_unified_diff, str_of
from hansard.agents.base import nonempty_str as _str
from hansard.agents.edits import PatchError, parse_patch
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

NAME = "copilot"
EDIT_TOOLS = frozenset({"edit", "create", "apply_patch", "str_replace_editor", "write"})
SHELL_TOOLS = frozenset({"bash", "powershell", "shell"})
READ_TOOLS = frozenset({"view", "read", "grep", "glob"})
PLAN_TOOLS = frozenset({"update_todo", "todo_write"})
MEMORY_FILES = (".github/copilot-instructions.md", "AGENTS.md", ".github/instructions")
_TITLE_MAX = 100
# apply_patch operations -> edit kinds.
_OP_KINDS: dict[str, EditKind] = {"add": "create", "delete": "delete"}


def _storable(call: dict[str, Any]) -> dict[str, Any]:
    """A pending call as the state keeps it: arguments JSON cannot hold (nested past its depth
    limit) are dropped, so the call resumes without them and its edit becomes a counted skip."""
    try:
        orjson.dumps(call)
        return call
    except (TypeError, orjson.JSONEncodeError):
        return {**call, "args": {}}


class _Provider:
    name = NAME
    whole_file = False

    def sniff(self, path: Path, head: bytes) -> bool:
        objs = first_json_lines(head, 3)
        return bool(objs) and all(isinstance(o.get("type"), str) and "." in o["type"] and isinstance(o.get("data"), dict)
                                  for o in objs) and objs[0]["type"].split(".")[0] in ("session", "user", "assistant", "tool")

    def new_parser(self, path: str, state: dict[str, Any] | None = None) -> _Parser:
        return _Parser(path, state)


class _Parser(JsonParser):
    """State: session id, cwd, title flag, and the calls started but not yet completed."""

    def __init__(self, path: str, state: dict[str, Any] | None) -> None:
        st = state or {}
        p = Path(path)
        self.sid: str = st.get("sid") or (p.parent.name if p.name == "events.jsonl" else p.stem)
        self.cwd: str | None = st.get("cwd")
        self.titled: bool = bool(st.get("titled"))
        self.started: bool = bool(st.get("started"))
        self.model: str | None = st.get("model")
        self.pending: dict[str, dict[str, Any]] = dict(st.get("pending") or {})

    def state(self) -> dict[str, Any]:
        return {"sid": self.sid, "cwd": self.cwd, "titled": self.titled, "started": self.started,
                "model": self.model, "pending": {cid: _storable(call) for cid, call in self.pending.items()}}

    def _parse(self, obj: Any, record: RawRecord) -> list[Item]:
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            return [Skip("not_an_object", record.offset)]
        etype, data = obj["type"], obj.get("data")
        if not isinstance(data, dict):
            return [Skip("bad_field", record.offset, "data")]
        ts = _str(obj.get("timestamp"))
        key = _str(obj.get("id")) or f"o{record.offset}"
        out: list[Item] = []
        if not self.started:
            self.started = True
            out.append(SessionInfo(self.sid, NAME, started_at=ts))
        if etype == "session.start":
            ctx = dict_of(data.get("context"))
            self.cwd = _str(ctx.get("cwd")) or _str(ctx.get("gitRoot")) or self.cwd
            extra = {k: ctx[k] for k in ("gitRoot", "repository") if isinstance(ctx.get(k), str)}
            if _str(data.get("sessionId")) and data["sessionId"] != self.sid:
                extra["recordedSessionId"] = data["sessionId"]
            return out + [SessionInfo(self.sid, NAME, cwd=self.cwd, started_at=_str(data.get("startTime")) or ts,
                                      git_branch=_str(ctx.get("branch")), version=_str(data.get("copilotVersion")),
                                      extra=extra)]
        if etype == "session.model_change":
            self.model = _str(data.get("newModel")) or self.model
            return out
        if etype == "user.message":
            text = str_of(data.get("content"))
            if not text.strip():
                return out + [Skip("empty_message", record.offset)]
            out.append(MessageItem(self.sid, key, "user", text, ts, self.cwd))
            if not self.titled:
                self.titled = True
                out.append(SessionInfo(self.sid, NAME, title=" ".join(text.split())[:_TITLE_MAX], title_rank=1))
            return out
        if etype == "assistant.message":
            text = str_of(data.get("content"))
            if text.strip():
                out.append(MessageItem(self.sid, key, "assistant", text, ts, self.cwd, model=self.model))
            reqs = data.get("toolRequests")
            for req in reqs if isinstance(reqs, list) else ():
                if isinstance(req, dict) and (cid := _str(req.get("toolCallId"))) and cid not in self.pending:
                    # the call itself is recorded at tool.execution_start; remember its message
                    self.pending[cid] = {"msg": key, "name": _str(req.get("name")),
                                         "args": dict_of(req.get("arguments"))}
            return out if out or data.get("toolRequests") else [Skip("empty_message", record.offset)]
        if etype == "assistant.reasoning":
            text = str_of(data.get("content"))
            return out + ([MessageItem(self.sid, key, "assistant", text, ts, self.cwd, "thinking")] if text.strip() else [])
        if etype == "tool.execution_start":
            cid = _str(data.get("toolCallId")) or key
            name = _str(data.get("toolName")) or (self.pending.get(cid) or {}).get("name") or "unknown"
            args: dict[str, Any] = data["arguments"] if isinstance(data.get("arguments"), dict) \
                else (self.pending.get(cid) or {}).get("args") or {}
            if _str(data.get("parentToolCallId")):
                args = {**args, "parentToolCallId": data["parentToolCallId"]}
            mkey = f"{key}#tool"
            self.pending[cid] = {"msg": mkey, "name": name, "args": args, "ts": ts}
            return out + [MessageItem(self.sid, mkey, "assistant", name, ts, self.cwd, "tool_use"),
                          ToolCallItem(self.sid, cid, name, args, mkey, ts, self.cwd)]
        if etype == "tool.execution_complete":
            cid = _str(data.get("toolCallId"))
            call = self.pending.pop(cid, None) if cid else None
            if call is None or cid is None:
                return out + [Skip("result_without_call", record.offset)]
            res = dict_of(data.get("result"))
            err = dict_of(data.get("error"))
            ok = data.get("success") is True
            output = _str(res.get("content")) or _str(err.get("message")) or ""
            out.append(ToolResultItem(self.sid, cid, "ok" if ok else "error", output, None, call["msg"], ts))
            if call["name"] in EDIT_TOOLS:
                out += [it if not isinstance(it, Skip) else Skip(it.reason, record.offset, it.detail)
                        for it in self._edits(cid, call, "applied" if ok else "failed", res, ts)]
            return out
        return out + [Skip("unused_event", record.offset, etype[:50])]

    def _edits(self, cid: str, call: dict[str, Any], status: str, res: dict[str, Any], ts: str | None) -> list[Item]:
        name, args = call["name"], call["args"]
        base: dict[str, Any] = {"session_id": self.sid, "call_id": cid, "tool": name, "cwd": self.cwd, "status": status,
                "timestamp": ts, "message_key": call["msg"]}
        patch = next((v for k in ("input", "patch") if isinstance(v := args.get(k), str) and "*** Begin Patch" in v), None)
        if patch is not None:
            try:
                ops = parse_patch(patch)
            except PatchError as exc:
                return [Skip("bad_patch", 0, str(exc)[:200])]
            return [EditItem(**base, path=op.path, kind=_OP_KINDS.get(op.op, "update"),
                             added=op.added, removed=op.removed, after=op.content, move_to=op.move_to, seq=i)
                    for i, op in enumerate(ops)]
        path = _str(args.get("path")) or _str(args.get("file_path"))
        if not path:
            return [Skip("bad_field", 0, f"{name}: no path")]
        detailed = res.get("detailedContent")
        if name == "create" or isinstance(args.get("file_text"), str):
            text = str_of(args.get("file_text"))
            return [EditItem(**base, path=path, kind="create", added=tuple(lines_of(text)), after=text)]
        if isinstance(detailed, str) and "\n@@ " in "\n" + detailed:
            added, removed, hunks = parse_unified_diff(detailed)
            return [EditItem(**base, path=path, kind="update", added=added, removed=removed, hunks=hunks)]
        new = args.get("new_str") if isinstance(args.get("new_str"), str) else None
        if new is None:
            return [Skip("bad_field", 0, f"{name}: no new_str")]
        added, removed, _ = diff_texts(str_of(args.get("old_str")), new)
        return [EditItem(**base, path=path, kind="update", added=added, removed=removed)]


PROVIDER = _Provider()
