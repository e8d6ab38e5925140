"""Claude Code transcripts (``~/.claude/projects/<encoded-cwd>/*.jsonl``).

One JSON object per line, append-only. The parser handles main transcripts, subagent
transcripts in both layouts (flat ``agent-<id>.jsonl`` next to the sessions, and
``<session>/subagents/agent-<id>.jsonl`` with an ``agent-<id>.meta.json`` sidecar) and the
old inline sidechain records (``isSidechain: true`` + ``agentId`` inside a main file).

Sessions
  * A record's session is its ``sessionId``. Subagent records carry the *parent's*
    sessionId, so a subagent gets its own session ``agent-<agentId>`` whose
    ``parent_session_id`` is that sessionId. In a file named ``agent-<id>.jsonl`` whose
    records name no agentId (seen in git-ai fixtures) the id comes from the file name.
  * A record without any sessionId falls back to the last sessionId seen in the file, then
    to the file name's stem (a main transcript is named ``<sessionId>.jsonl``).
  * A file may hold several sessionIds (a resumed session replays its predecessor's
    records, same uuid, other sessionId). Every record is emitted under its own sessionId
    with key = uuid; the store dedupes by key. ``resumed_from`` is set when a later
    session's first DAG record points (parentUuid / logicalParentUuid) at a recent record
    of an earlier session of the same file.

Edits (FORMATS 1.5): an Edit/MultiEdit/Write/NotebookEdit counts as applied only when its
tool_result exists, is not ``is_error`` and ``toolUseResult`` is an object with
``filePath`` (NotebookEdit: any non-error object). An error result makes a "rejected"
(user refused / interrupted) or "failed" EditItem; no result, or a success text with no
``toolUseResult`` object (hand-made fixtures), makes no EditItem at all.

A shell command's result may carry ``bashEditDiff`` (2.1.288: the files the command changed,
with hunks): each file listed is an applied edit of that call (:func:`_shell_edits`).

``structuredPatch`` is display text: Claude Code expands every tab to two spaces in it
(observed in all samples from 2.0.76 to 2.1.119). Where the whole-file text before
(``originalFile``) and the text after (computed by replaying old/new strings) are known,
the hunk lines are restored to the exact file text, position by position, and ``after``
is kept only if it agrees with every hunk line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from hansard.agents.base import as_text as _as_text_base
from hansard.agents.base import dict_of, first_json_lines, glued_records, list_of, load_json, record_key
from hansard.agents.base import nonempty_str as _s
from hansard.agents.claude_code import AGENT
from hansard.agents.edits import diff_replacements, diff_texts, hunks_from_structured_patch, lines_of
from hansard.files import safeopen
from hansard.values.models import (
    EditItem,
    EditStatus,
    Item,
    LeafTitle,
    MessageItem,
    RawRecord,
    Role,
    SessionInfo,
    Skip,
    StepsItem,
    ToolCallItem,
    ToolResultItem,
    ToolStatus,
)

NAME = AGENT.name
STATE_VERSION = 1

# Record types that carry nothing we keep (session bookkeeping, telemetry): ignored, not skipped.
_IGNORED_TYPES = frozenset({
    "progress", "file-history-snapshot", "permission-mode", "mode", "last-prompt", "agent-name",
    "queue-operation", "pr-link", "agent-setting", "worktree-state", "atis-latch", "bridge-session",
    "tag",
})
# system subtypes that are pure telemetry.
_IGNORED_SYSTEM = frozenset({"stop_hook_summary", "turn_duration"})

_EDIT_TOOLS = AGENT.edit_tools
_SHELL_TOOLS = AGENT.shell_tools
_AGENT_TOOLS = AGENT.task_tools

# User-record texts Claude Code writes on the user's behalf (slash commands, local command
# output, hook/runtime notices). They stay searchable, as kind "meta".
_META_TAGS = frozenset({
    "command-name", "command-message", "command-args", "command-contents", "local-command-stdout",
    "local-command-stderr", "local-command-caveat", "bash-input", "bash-stdout", "bash-stderr",
    "task-notification", "system-reminder", "user-memory-input", "user-prompt-submit-hook",
})
_LEADING_TAG = re.compile(r"^<([a-z][a-z0-9-]*)>")
# A user record's ``turnOrigin`` (Claude Code 2.1.2xx) when something other than the person
# started the turn: another session's message, a finished background task, a continuation or a
# notice the harness wrote. "sdk" and "scheduled" stay the person's: the prompt is theirs.
_NOT_THE_PERSON = frozenset({"peer", "task_notification", "auto_continuation", "system"})
_META_PREFIXES = ("[Request interrupted by user", "Operation stopped by hook:")
_COMPACT_PREFIX = "This session is being continued from a previous conversation"

_REJECTED = re.compile(r"user doesn't want to (?:proceed|take this action)|user rejected", re.IGNORECASE)
_EXIT_CODE = re.compile(r"^\s*(?:Error: )?Exit code (-?\d+)")
_AGENT_ID_TAIL = re.compile(r"agentId:\s*([A-Za-z0-9_-]+)")
_FILE_AGENT = re.compile(r"(?:^|[^A-Za-z0-9])agent-([A-Za-z0-9][A-Za-z0-9_-]*)$")
_TASK_NUM = re.compile(r"Task #(\w+)")

# Limits that keep the resumable state small.
_MAX_PENDING = 64
_MAX_PENDING_TEXT = 32 * 1024
_RECENT_UUIDS = 32
_META_MAX_BYTES = 1 << 20

_STEP_STATUS = {
    "pending": "pending", "in_progress": "in_progress", "completed": "completed",
    "cancelled": "cancelled", "canceled": "cancelled", "deleted": "cancelled",
}


# -- small helpers ---------------------------------------------------------------------------


def _as_text(v: Any) -> str:
    """as_text that never raises (a pathological value becomes empty text)."""
    try:
        return _as_text_base(v)
    except Exception:
        return ""


def _squash(s: str) -> str:
    return "".join(s.split())


def _exact_map(text: str | None) -> dict[str, str]:
    """whitespace-free form -> exact line, for the lines of ``text``; ambiguous forms dropped."""
    out: dict[str, str] = {}
    bad: set[str] = set()
    for ln in lines_of(text):
        k = _squash(ln)
        if not k or k in bad:
            continue
        if k in out and out[k] != ln:
            bad.add(k)
            del out[k]
            continue
        out[k] = ln
    return out


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _restore_patch(
    patch: list[Any], before: str | None, after: str | None, new_src: str | None, old_src: str | None
) -> tuple[list[dict[str, Any]], bool, bool]:
    """Put the exact file text back into structuredPatch lines (Claude Code expands tabs in
    them). Context/removed lines come from ``before`` and context/added lines from ``after``
    at the hunk's positions, accepted only when equal up to whitespace; otherwise the
    edit's own old/new strings are used, else the patch text stays. Returns the patch,
    whether ``after`` agreed with every hunk line it was checked against, and whether every
    hunk's lines add up to its header counts (Entire's secret redaction can eat a line's
    ``+``/``-`` marker, leaving a patch that no longer describes the change)."""
    b = lines_of(before) if before is not None else None
    a = lines_of(after) if after is not None else None
    add_map = _exact_map(new_src)
    rem_map = _exact_map(old_src)
    after_ok = a is not None
    consistent = True
    out: list[dict[str, Any]] = []
    for h in patch:
        if not isinstance(h, dict):
            continue
        raw = list_of(h.get("lines"))
        os_ = _int(h.get("oldStart"))
        ns_ = _int(h.get("newStart"))
        o = os_ - 1 if os_ is not None and os_ > 0 else None
        n = ns_ - 1 if ns_ is not None and ns_ > 0 else None
        n_old = n_new = 0
        lines: list[str] = []
        for ln in raw:
            if not isinstance(ln, str):
                continue
            tag, body = ln[:1], ln[1:]
            if tag not in (" ", "-", "+"):
                if tag != "\\":
                    consistent = False
                lines.append(ln)
                continue
            n_old += tag != "+"
            n_new += tag != "-"
            # The whitespace-free form only where the line differs: most are equal as they are.
            key: str | None = None
            exact_old = exact_new = None
            if tag in (" ", "-"):
                if b is not None and o is not None and 0 <= o < len(b):
                    if b[o] == body or _squash(b[o]) == (key := _squash(body)):
                        exact_old = b[o]
                if o is not None:
                    o += 1
            if tag in (" ", "+"):
                if a is not None and n is not None and 0 <= n < len(a) and (
                        a[n] == body or _squash(a[n]) == (key if key is not None else (key := _squash(body)))):
                    exact_new = a[n]
                elif a is not None:
                    after_ok = False
                if n is not None:
                    n += 1
            if tag == " ":
                text = exact_old if exact_old is not None else exact_new if exact_new is not None else body
            elif tag == "-":
                text = exact_old if exact_old is not None else rem_map.get(_squash(body) if key is None else key, body)
            else:
                text = exact_new if exact_new is not None else add_map.get(_squash(body) if key is None else key, body)
            lines.append(tag + text)
        if (_int(h.get("oldLines")), _int(h.get("newLines"))) != (n_old, n_new):
            consistent = False
        out.append({**h, "lines": lines})
    return out, after_ok, consistent


def _apply_replacements(before: str | None, edits: list[tuple[Any, Any, Any]]) -> str | None:
    """The file text after replaying Edit/MultiEdit replacements, or None if not reliable."""
    if before is None or not edits:
        return None
    text = before
    for old, new, replace_all in edits:
        if not isinstance(old, str) or not isinstance(new, str):
            return None
        if old == "":
            if text != "":
                return None
            text = new
            continue
        if old not in text:
            return None
        text = text.replace(old, new) if replace_all is True else text.replace(old, new, 1)
    return text


def _shell_edits(diff: dict[str, Any], name: str, call_id: str, sid: str, msg_key: str | None, cwd: str | None,
                 ts: str | None) -> list[Item]:
    """The files a shell command changed, as Claude Code 2.1.2xx reports them on its result
    (``toolUseResult.bashEditDiff``: ``files`` [{filePath, hunks in structuredPatch form}],
    ``moreFiles`` it left out): one applied edit per file listed. Claude Code saw the changes
    on disk after the command, whatever its exit code, so they happened. Files it left out are
    not guessed."""
    out: list[Item] = []
    for seq, f in enumerate(list_of(diff.get("files"))):
        path = _s(f.get("filePath")) if isinstance(f, dict) else None
        hunks = f.get("hunks") if isinstance(f, dict) and isinstance(f.get("hunks"), list) else None
        if not path or not hunks:
            continue
        added, removed, parsed = hunks_from_structured_patch(hunks)
        out.append(EditItem(sid, call_id, name, path, cwd, "update", "applied", ts, msg_key,
                            added=added, removed=removed, hunks=parsed, seq=seq))
    return out


def _unreadable(common: dict[str, Any], user_modified: bool) -> list[Item]:
    """An applied edit whose text the record does not keep (no patch, no strings, no content):
    an edit of its file all the same, and a skip that says so."""
    return [EditItem(**common, kind="unreadable", status="applied", user_modified=user_modified),
            Skip("unreadable_edit", 0, f"{common['tool']}: {common['path']}"[:300])]


def _edit_pairs(src: Any, key_old: str, key_new: str, key_all: str) -> list[tuple[Any, Any, Any]]:
    if not isinstance(src, dict):
        return []
    return [(src.get(key_old), src.get(key_new), src.get(key_all))]


def _multi_pairs(edits: Any) -> list[tuple[Any, Any, Any]]:
    if not isinstance(edits, list):
        return []
    out = []
    for e in edits:
        if isinstance(e, dict):
            out.append((e.get("old_string"), e.get("new_string"), e.get("replace_all")))
    return out


def _join_strings(values: list[Any]) -> str | None:
    parts = [v for v in values if isinstance(v, str)]
    return "\n".join(parts) if parts else None


def _summary(name: str, inp: dict[str, Any]) -> str:
    """A short human line for a tool call: ``Edit src/app.py``, the shell command, ..."""
    if name in _SHELL_TOOLS and isinstance(inp.get("command"), str):
        return inp["command"]
    for key in ("file_path", "notebook_path"):
        if isinstance(inp.get(key), str):
            return f"{name} {inp[key]}"
    if name == "TodoWrite" and isinstance(inp.get("todos"), list):
        return f"TodoWrite ({len(inp['todos'])} items)"
    if name == "TaskUpdate":
        bits = [f"#{inp['taskId']}" if isinstance(inp.get("taskId"), (str, int)) else "", _s(inp.get("status")) or "",
                _s(inp.get("subject")) or ""]
        return " ".join(["TaskUpdate", *[b for b in bits if b]])
    for key in ("subject", "description", "pattern", "url", "query", "path", "skill", "prompt", "command"):
        v = inp.get(key)
        if isinstance(v, str) and v:
            v = v if len(v) <= 300 else v[:300] + "…"
            return f"{name} {v}"
    return name


def _step_status(v: Any) -> str | None:
    return _STEP_STATUS.get(v) if isinstance(v, str) else None


def _small_input(name: str, inp: dict[str, Any]) -> dict[str, Any]:
    """The part of a tool input needed once its result arrives, capped in size."""
    base = _base_tool(name)
    if base in _EDIT_TOOLS:
        keep: dict[str, Any] = {k: inp[k] for k in ("file_path", "notebook_path", "old_string", "new_string",
                                                    "replace_all", "content", "edits", "edit_mode", "new_source") if k in inp}
        if len(orjson.dumps(keep, default=str)) > _MAX_PENDING_TEXT:
            keep = {k: keep[k] for k in ("file_path", "notebook_path", "edit_mode") if k in keep}
        return keep
    if base == "TodoWrite":
        todos = inp.get("todos")
        if isinstance(todos, list) and len(orjson.dumps(todos, default=str)) <= _MAX_PENDING_TEXT:
            return {"todos": todos}
        return {}
    if base in ("TaskCreate", "TaskUpdate"):
        keep = {k: inp[k] for k in ("subject", "taskId", "status") if k in inp}
        if len(orjson.dumps(keep, default=str)) > _MAX_PENDING_TEXT:
            return {}
        return keep
    return {}


def _base_tool(name: str) -> str:
    # Zed's ACP bridge exposes the same tools as mcp__acp__Edit etc.
    return name[len("mcp__acp__"):] if name.startswith("mcp__acp__") else name


def _infer_tool(tur: Any) -> str | None:
    """The edit tool behind a result whose tool_use was not seen (file cut, state pruned)."""
    if not isinstance(tur, dict) or not isinstance(tur.get("filePath"), str):
        return None
    if "originalFileContents" in tur or isinstance(tur.get("edits"), list):
        return "MultiEdit"
    if "oldString" in tur and "newString" in tur:
        return "Edit"
    if tur.get("type") in ("create", "update") and "content" in tur:
        return "Write"
    return None


# -- the parser ------------------------------------------------------------------------------


def _message_blocks(obj: dict[str, Any], record: RawRecord, role: str,
                    bad_content: str) -> tuple[dict[str, Any], list[Any]] | Skip:
    """A user or assistant record's message and its content blocks (text content as one text
    block), or the Skip for a message that is not an object or content that is neither."""
    msg = obj.get("message")
    if not isinstance(msg, dict):
        return Skip("bad_field", record.offset, f"{role}.message is not an object")
    content = msg.get("content")
    if isinstance(content, str):
        return msg, [{"type": "text", "text": content}]
    if isinstance(content, list):
        return msg, content
    return Skip("bad_field", record.offset, bad_content)


def _item_keys(obj: dict[str, Any], record: RawRecord) -> Callable[[], str]:
    """Keys for the items one record yields, in order: the record's uuid (or the hash of its
    bytes), then ``uuid#1``, ``uuid#2``…"""
    base = _s(obj.get("uuid")) or record_key(record)
    n = 0

    def key() -> str:
        nonlocal n
        k = base if n == 0 else f"{base}#{n}"
        n += 1
        return k

    return key


class ClaudeCodeParser:
    def __init__(self, path: str, state: dict[str, Any] | None = None) -> None:
        self.path = str(path)
        stem = Path(self.path).name
        if stem.endswith(".jsonl"):
            stem = stem[: -len(".jsonl")]
        self.stem = stem or "unknown"
        m = _FILE_AGENT.search(self.stem)
        self.file_agent: str | None = m.group(1) if m else None
        self.meta = self._read_meta()
        # -- resumable state --
        self.file_sid: str | None = None  # the file's session (last main sessionId; agent session in agent files)
        self.cwd: str | None = None  # last cwd seen
        self.sessions: dict[str, list[Any]] = {}  # sid -> [cwd_done, start_done, branch, version, resume_check]
        self.pending: dict[str, list[Any]] = {}  # call_id -> [name, sid, msg_key, cwd, small_input]
        self.recent: list[list[str]] = []  # [[uuid, sid]] of recent main-session records
        self.meta_done = False
        if state and state.get("v") == STATE_VERSION:
            self.file_sid = state.get("sid")
            self.cwd = state.get("cwd")
            self.sessions = {k: list(v) for k, v in (state.get("sessions") or {}).items()}
            self.pending = {k: list(v) for k, v in (state.get("pending") or {}).items()}
            self.recent = [list(x) for x in state.get("recent") or []]
            self.meta_done = bool(state.get("meta_done"))

    # -- protocol --

    def state(self) -> dict[str, Any]:
        return {
            "v": STATE_VERSION, "sid": self.file_sid, "cwd": self.cwd, "sessions": self.sessions,
            "pending": self.pending, "recent": self.recent, "meta_done": self.meta_done,
        }

    def finish(self) -> list[Item]:
        try:
            return self._meta_items()
        except Exception:
            return []

    def feed(self, record: RawRecord) -> list[Item]:
        try:
            items = self._feed(record)
            if self.meta is not None and not self.meta_done:
                items.extend(self._meta_items())
            return items
        except Exception as exc:  # a parser bug must cost one record, not the file
            return [Skip("parser_error", record.offset, repr(exc)[:300])]

    # -- sidecar --

    def _read_meta(self) -> dict[str, Any] | None:
        if not self.path.endswith(".jsonl") or not self.file_agent:
            return None
        meta_path = self.path[: -len(".jsonl")] + ".meta.json"
        try:
            if os.path.getsize(meta_path) > _META_MAX_BYTES:
                return None
            data = orjson.loads(safeopen.read_bytes(meta_path, _META_MAX_BYTES + 1))
        except (OSError, orjson.JSONDecodeError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def _meta_fields(self) -> dict[str, Any]:
        meta = self.meta or {}
        extra = {k: meta[k] for k in ("agentType", "description") if isinstance(meta.get(k), str)}
        return {"spawn_call_id": _s(meta.get("toolUseId")), "extra": extra}

    def _meta_items(self) -> list[Item]:
        """The sidecar's facts, once, if it appeared after the agent's session was first seen."""
        if self.meta is None or self.meta_done or not self.file_agent:
            return []
        sid = "agent-" + self.file_agent
        if sid not in self.sessions:
            return []
        self.meta_done = True
        return [SessionInfo(sid, NAME, agent_id=self.file_agent, **self._meta_fields())]

    # -- routing and session facts --

    def _route(self, obj: dict[str, Any]) -> tuple[str, list[Item]]:
        raw_sid = _s(obj.get("sessionId")) or _s(obj.get("session_id"))
        rec_agent = _s(obj.get("agentId"))
        agent: str | None = None
        if self.file_agent:
            agent = rec_agent or self.file_agent
        elif rec_agent and obj.get("isSidechain") is True:
            agent = rec_agent
        if agent:
            sid = "agent-" + agent
            parent = raw_sid or (None if self.file_agent else self.file_sid)
            if self.file_agent:
                self.file_sid = sid
        else:
            sid = raw_sid or self.file_sid or self.stem
            parent = None
            self.file_sid = sid
        cwd = _s(obj.get("cwd"))
        if cwd:
            self.cwd = cwd
        return sid, self._facts(sid, obj, agent, parent)

    def _facts(self, sid: str, obj: dict[str, Any], agent: str | None, parent: str | None,
               title: str | None = None, rank: int = 0) -> list[Item]:
        st = self.sessions.get(sid)
        new = st is None
        if st is None:
            earlier_main = any(not k.startswith("agent-") for k in self.sessions)
            st = self.sessions[sid] = [False, False, None, None, bool(earlier_main and not agent)]
        fields: dict[str, Any] = {}
        cwd = _s(obj.get("cwd"))
        if cwd and not st[0]:
            fields["cwd"] = cwd
            st[0] = True
        ts = _s(obj.get("timestamp"))
        if ts and not st[1]:
            fields["started_at"] = ts
            st[1] = True
        branch = _s(obj.get("gitBranch"))
        if branch and branch != st[2]:
            fields["git_branch"] = branch
            st[2] = branch
        version = _s(obj.get("version"))
        if version and version != st[3]:
            fields["version"] = version
            st[3] = version
        if st[4] and "uuid" in obj:
            # First DAG record of a later session in this file: does it continue an earlier one?
            st[4] = False
            for ref in (_s(obj.get("parentUuid")), _s(obj.get("logicalParentUuid"))):
                hit = next((s for u, s in reversed(self.recent) if u == ref), None) if ref else None
                if hit and hit != sid:
                    fields["resumed_from"] = hit
                    break
        if not agent:
            uuid = _s(obj.get("uuid"))
            if uuid:
                self.recent.append([uuid, sid])
                del self.recent[:-_RECENT_UUIDS]
        if new and agent:
            fields["agent_id"] = agent
            fields["parent_session_id"] = parent
            if self.meta is not None and agent == self.file_agent and not self.meta_done:
                fields.update(self._meta_fields())
                self.meta_done = True
        if title:
            fields["title"] = title
            fields["title_rank"] = rank
        if new or fields:
            return [SessionInfo(sid, NAME, **fields)]
        return []

    # -- records --

    def _feed(self, record: RawRecord) -> list[Item]:
        obj, skip = load_json(record)
        if skip is not None and skip.reason == "malformed_json":
            parts = glued_records(record)
            if parts is not None:  # two records on one line: each read as its own
                return [item for part in parts for item in self._feed(part)]
        if skip is not None:
            return [skip]
        off = record.offset
        if not isinstance(obj, dict):
            return [Skip("not_object", off, type(obj).__name__)]
        rtype = obj.get("type")
        if not isinstance(rtype, str):
            return [Skip("empty_object" if not obj else "no_type", off)]
        if rtype == "user":
            return self._user(obj, record)
        if rtype == "assistant":
            return self._assistant(obj, record)
        if rtype == "system":
            return self._system(obj, record)
        if rtype == "summary":
            return self._summary(obj, off)
        if rtype in ("custom-title", "ai-title"):
            return self._title(obj, rtype, off)
        if rtype == "attachment":
            return self._attachment(obj, record)
        if rtype in _IGNORED_TYPES:
            sid_ = _s(obj.get("sessionId"))
            if sid_ and (obj.get("cwd") or obj.get("timestamp") or sid_ not in self.sessions):
                # Still a fact about the session (first sight, start time, cwd).
                _sid, items = self._route(obj)
                return items
            return []
        return [Skip("unknown_type", off, rtype[:100])]

    def _summary(self, obj: dict[str, Any], off: int) -> list[Item]:
        leaf = _s(obj.get("leafUuid"))
        title = _s(obj.get("summary"))
        if not leaf or not title:
            return [Skip("bad_field", off, "summary without leafUuid/summary")]
        return [LeafTitle(leaf, title, self.file_sid)]

    def _title(self, obj: dict[str, Any], rtype: str, off: int) -> list[Item]:
        if rtype == "custom-title":
            title, rank = _s(obj.get("customTitle")) or _s(obj.get("title")), 3
        else:
            title, rank = _s(obj.get("aiTitle")) or _s(obj.get("title")), 1
        if not title:
            return [Skip("bad_field", off, f"{rtype} without title")]
        sid = _s(obj.get("sessionId")) or self.file_sid or self.stem
        if self.file_sid is None:
            self.file_sid = sid
        return self._facts(sid, obj, None, None, title=title, rank=rank)

    def _attachment(self, obj: dict[str, Any], record: RawRecord) -> list[Item]:
        att = dict_of(obj.get("attachment"))
        queued = att.get("type") == "queued_command"
        if not queued and not (_s(obj.get("sessionId")) or _s(obj.get("agentId"))):
            return []
        sid, items = self._route(obj)
        if not queued:
            return items
        # A message the user typed while the agent was working, absorbed mid-turn: it has
        # no user record of its own.
        text = _as_text(att.get("prompt") if "prompt" in att else att.get("content"))
        if not text.strip():
            return items
        origin = att.get("origin") if isinstance(att.get("origin"), dict) else obj.get("origin")
        kind = "meta" if isinstance(origin, dict) and origin.get("kind") not in (None, "human") else "text"
        key = _s(obj.get("uuid")) or record_key(record)
        items.append(MessageItem(sid, key, "user", text, _s(obj.get("timestamp")), self.cwd, kind))
        return items

    def _system(self, obj: dict[str, Any], record: RawRecord) -> list[Item]:
        sid, items = self._route(obj)
        sub = obj.get("subtype")
        if sub in _IGNORED_SYSTEM:
            return items
        content = obj.get("content")
        text = content if isinstance(content, str) else ""
        if sub == "compact_boundary":
            meta = dict_of(obj.get("compactMetadata"))
            bits = [f"{k}={meta[k]}" for k in ("trigger", "preTokens") if isinstance(meta.get(k), (str, int))]
            text = (text or "Conversation compacted") + (f" ({', '.join(bits)})" if bits else "")
        if not text.strip():
            return items
        kind = "error" if sub == "api_error" or obj.get("level") == "error" else "meta"
        key = _s(obj.get("uuid")) or record_key(record)
        items.append(MessageItem(sid, key, "system", text, _s(obj.get("timestamp")), self.cwd, kind))
        return items

    def _assistant(self, obj: dict[str, Any], record: RawRecord) -> list[Item]:
        got = _message_blocks(obj, record, "assistant", "assistant.message.content is not a list")
        if isinstance(got, Skip):
            return [got]
        msg, content = got
        sid, items = self._route(obj)
        ts = _s(obj.get("timestamp"))
        cwd = self.cwd
        model = _s(msg.get("model"))
        key = _item_keys(obj, record)
        for block in content:
            if not isinstance(block, dict):
                continue
            bt = block.get("type")
            if bt == "text":
                text = block.get("text")
                if isinstance(text, str) and text.strip():
                    kind = "error" if obj.get("isApiErrorMessage") is True else "text"
                    items.append(MessageItem(sid, key(), "assistant", text, ts, cwd, kind, model))
            elif bt == "thinking":
                text = block.get("thinking")
                if isinstance(text, str) and text.strip():
                    items.append(MessageItem(sid, key(), "assistant", text, ts, cwd, "thinking", model))
            elif bt == "tool_use":
                name = _s(block.get("name")) or "unknown"
                inp = block.get("input")
                if not isinstance(inp, dict):
                    inp = {} if inp is None else {"value": inp}
                k = key()
                items.append(MessageItem(sid, k, "assistant", _summary(name, inp), ts, cwd, "tool_use", model))
                call_id = _s(block.get("id"))
                if call_id:
                    items.append(ToolCallItem(sid, call_id, name, inp, k, ts, cwd))
                    self.pending[call_id] = [name, sid, k, cwd, _small_input(name, inp)]
                    while len(self.pending) > _MAX_PENDING:
                        self.pending.pop(next(iter(self.pending)))
        return items

    def _user(self, obj: dict[str, Any], record: RawRecord) -> list[Item]:
        got = _message_blocks(obj, record, "user", "user.message.content is neither text nor a list")
        if isinstance(got, Skip):
            return [got]
        _, blocks = got
        sid, items = self._route(obj)
        ts = _s(obj.get("timestamp"))
        cwd = self.cwd
        key = _item_keys(obj, record)
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        tur = obj.get("toolUseResult") if len(results) == 1 else None
        rest: list[Any] = []
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                items.extend(self._tool_result(obj, block, tur, sid, key(), ts, cwd))
            else:
                rest.append(block)
        text = _as_text(rest)
        if text.strip():
            kind, role = self._user_kind(obj, text)
            items.append(MessageItem(sid, key(), role, text, ts, cwd, kind))
        return items

    @staticmethod
    def _user_kind(obj: dict[str, Any], text: str) -> tuple[str, Role]:
        stripped = text.lstrip()
        if obj.get("isCompactSummary") is True or stripped.startswith(_COMPACT_PREFIX):
            return "compaction_summary", "system"
        if obj.get("isMeta") is True:
            return "meta", "user"
        origin = obj.get("origin")
        if isinstance(origin, dict) and origin.get("kind") not in (None, "human"):
            return "meta", "user"
        if obj.get("turnOrigin") in _NOT_THE_PERSON:
            return "meta", "user"
        if stripped.startswith(_META_PREFIXES):
            return "meta", "user"
        m = _LEADING_TAG.match(stripped)
        if m and m.group(1) in _META_TAGS:
            return "meta", "user"
        return "text", "user"

    # -- tool results, edits, steps --

    def _tool_result(self, obj: dict[str, Any], block: dict[str, Any], tur: Any, sid: str, k: str,
                     ts: str | None, cwd: str | None) -> list[Item]:
        items: list[Item] = []
        output = _as_text(block.get("content"))
        is_error = block.get("is_error") is True or output.lstrip().startswith("<tool_use_error>")
        items.append(MessageItem(sid, k, "tool", output, ts, cwd, "tool_result"))
        call_id = _s(block.get("tool_use_id"))
        if not call_id:
            return items
        pend = self.pending.pop(call_id, None)
        if pend is not None:
            name, call_sid, call_key, call_cwd, inp = pend
        else:
            name = _infer_tool(tur) or ""
            call_sid, call_key, call_cwd, inp = sid, _s(obj.get("sourceToolAssistantUUID")), cwd, {}
        inp = inp if isinstance(inp, dict) else {}
        base = _base_tool(name)

        # status
        status: ToolStatus
        if is_error:
            if output.lstrip().startswith("[Request interrupted by user"):
                status = "interrupted"
            elif (obj.get("toolDenialKind") or _REJECTED.search(output)
                  or (isinstance(tur, str) and _REJECTED.search(tur))):
                status = "rejected"
            else:
                status = "error"
        elif isinstance(tur, dict) and tur.get("interrupted") is True:
            status = "interrupted"
        else:
            status = "ok"
        exit_code = None
        if base in _SHELL_TOOLS or (not name and isinstance(tur, dict) and "stdout" in tur):
            if status == "ok":
                exit_code = 0
            elif status == "error":
                m = _EXIT_CODE.match(output) or (_EXIT_CODE.match(tur) if isinstance(tur, str) else None)
                exit_code = int(m.group(1)) if m else None
        items.append(ToolResultItem(sid, call_id, status, output, exit_code, k, ts))

        if base in _EDIT_TOOLS:
            items.extend(self._edit(name, base, call_id, inp, tur, status, call_sid, call_key, call_cwd, ts))
        elif base in _SHELL_TOOLS and isinstance(tur, dict) and isinstance(tur.get("bashEditDiff"), dict):
            items.extend(_shell_edits(tur["bashEditDiff"], name, call_id, call_sid, call_key, call_cwd, ts))
        elif status == "ok" and base in ("TodoWrite", "TaskCreate", "TaskUpdate"):
            items.extend(self._steps(base, call_id, inp, tur, output, call_sid, ts))
        elif status == "ok" and (base in _AGENT_TOOLS or (not name and isinstance(tur, dict) and "agentId" in tur)):
            agent = _s(tur.get("agentId")) if isinstance(tur, dict) else None
            if not agent:
                found = _AGENT_ID_TAIL.findall(output)
                agent = found[-1] if found else None
            if agent:
                items.append(SessionInfo("agent-" + agent, NAME, parent_session_id=call_sid, agent_id=agent,
                                         spawn_call_id=call_id))
        return items

    def _edit(self, name: str, base: str, call_id: str, inp: dict[str, Any], tur: Any, status: str,
              sid: str, msg_key: str | None, cwd: str | None, ts: str | None) -> list[Item]:
        tdict = tur if isinstance(tur, dict) else {}
        path = _s(inp.get("notebook_path" if base == "NotebookEdit" else "file_path")) or _s(tdict.get("filePath")) \
            or _s(tdict.get("notebook_path"))
        if not path:
            return []
        common: dict[str, Any] = {"session_id": sid, "call_id": call_id, "tool": name, "path": path, "cwd": cwd,
                  "timestamp": ts, "message_key": msg_key}
        if base == "NotebookEdit":
            applied = status == "ok" and isinstance(tur, dict) and not tur.get("error")
        else:
            applied = status == "ok" and isinstance(_s(tdict.get("filePath")), str)
        if not applied:
            if status == "ok":
                # Success text but no toolUseResult object: nothing proves the change (hand-made
                # fixtures, truncated records). Not an error either, so no EditItem.
                if base == "NotebookEdit" and isinstance(tur, dict) and tur.get("error"):
                    pass
                else:
                    return []
            st: EditStatus = "rejected" if status in ("rejected", "interrupted") else "failed"
            added, removed = self._proposed_lines(base, inp)
            return [EditItem(**common, kind="update", status=st, added=added, removed=removed)]

        user_modified = tdict.get("userModified") is True
        if base == "NotebookEdit":
            mode = inp.get("edit_mode") if isinstance(inp.get("edit_mode"), str) else tdict.get("edit_mode")
            src = inp.get("new_source") if isinstance(inp.get("new_source"), str) else tdict.get("new_source")
            added = tuple(lines_of(src)) if mode != "delete" and isinstance(src, str) else ()
            return [EditItem(**common, kind="update", status="applied", added=added, user_modified=user_modified)]

        patch = list_of(tdict.get("structuredPatch"))
        if base == "Write":
            content = tdict.get("content") if isinstance(tdict.get("content"), str) else inp.get("content")
            content = content if isinstance(content, str) else None
            before = tdict.get("originalFile") if isinstance(tdict.get("originalFile"), str) else None
            wtype = tdict.get("type")
            kind = "create" if wtype == "create" or (wtype != "update" and before is None) else "update"
            if content is None and not patch:
                return _unreadable(common, user_modified)
            if kind == "create":
                added, removed, hunks = diff_texts(None, content)
                return [EditItem(**common, kind="create", status="applied", added=added, removed=removed,
                                 hunks=hunks, before=None, after=content, user_modified=user_modified)]
            restored, ok, consistent = _restore_patch(patch, before, content, content, before)
            if patch and (consistent or before is None or content is None):
                added, removed, hunks = hunks_from_structured_patch(restored)
                after = content if ok or not user_modified else None
            elif before is not None and content is not None:
                added, removed, hunks = diff_texts(before, content)
                after = content
            else:
                added, removed, hunks, after = tuple(lines_of(content)), (), (), content
            return [EditItem(**common, kind="update", status="applied", added=added, removed=removed, hunks=hunks,
                             before=before, after=after, user_modified=user_modified)]

        # Edit / MultiEdit
        if base == "MultiEdit":
            before = tdict.get("originalFileContents")
            if not isinstance(before, str):
                before = tdict.get("originalFile")
            pairs = _multi_pairs(tdict.get("edits")) or _multi_pairs(inp.get("edits"))
        else:
            before = tdict.get("originalFile")
            pairs = _edit_pairs(tdict, "oldString", "newString", "replaceAll")
            if not all(isinstance(x, str) for x in pairs[0][:2]):
                pairs = _edit_pairs(inp, "old_string", "new_string", "replace_all")
        before = before if isinstance(before, str) else None
        new_src = _join_strings([p[1] for p in pairs])
        old_src = _join_strings([p[0] for p in pairs])
        candidate = _apply_replacements(before, pairs)
        restored, ok, consistent = _restore_patch(patch, before, candidate, new_src, old_src)
        if patch and (consistent or candidate is None or user_modified):
            added, removed, hunks = hunks_from_structured_patch(restored)
            after = candidate if ok and candidate is not None else None
        elif candidate is not None and not user_modified:
            # No patch, or one that does not add up: diff the whole texts instead.
            added, removed, hunks = diff_texts(before, candidate)
            after = candidate
        elif not any(isinstance(p[1], str) for p in pairs):
            return _unreadable(common, user_modified)
        else:
            # Neither a patch that adds up nor the file's text (older versions, rebuilt or
            # exported transcripts): each replacement's own diff says what it wrote.
            added, removed, hunks = diff_replacements((p[0], p[1]) for p in pairs)
            after = None
        return [EditItem(**common, kind="update", status="applied", added=added, removed=removed, hunks=hunks,
                         before=before, after=after, user_modified=user_modified)]

    @staticmethod
    def _proposed_lines(base: str, inp: dict[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """What a refused or failed edit would have written (never evidence)."""
        if base == "Edit":
            return tuple(lines_of(_s(inp.get("new_string")))), tuple(lines_of(_s(inp.get("old_string"))))
        if base == "MultiEdit":
            pairs = _multi_pairs(inp.get("edits"))
            return (tuple(lines_of(_join_strings([p[1] for p in pairs]))),
                    tuple(lines_of(_join_strings([p[0] for p in pairs]))))
        if base == "Write":
            return tuple(lines_of(_s(inp.get("content")))), ()
        if base == "NotebookEdit":
            return tuple(lines_of(_s(inp.get("new_source")))), ()
        return (), ()

    def _steps(self, base: str, call_id: str, inp: dict[str, Any], tur: Any, output: str, sid: str,
               ts: str | None) -> list[Item]:
        tdict = tur if isinstance(tur, dict) else {}
        if base == "TodoWrite":
            todos = inp.get("todos")
            if not isinstance(todos, list):
                todos = tdict.get("newTodos")
            if not isinstance(todos, list):
                return []
            steps = []
            for t in todos:
                if not isinstance(t, dict):
                    continue
                step: dict[str, Any] = {"text": _as_text(t.get("content")), "status": _step_status(t.get("status")) or "pending"}
                if isinstance(t.get("id"), (str, int)):
                    step["id"] = str(t["id"])
                steps.append(step)
            return [StepsItem(sid, call_id, True, tuple(steps), ts)]
        if base == "TaskCreate":
            task = dict_of(tdict.get("task"))
            tid = task.get("id")
            if not isinstance(tid, (str, int)):
                m = _TASK_NUM.search(output)
                tid = m.group(1) if m else None
            text = _s(inp.get("subject")) or _s(task.get("subject")) or ""
            step = {"text": text, "status": "pending"}
            if tid is not None:
                step["id"] = str(tid)
            return [StepsItem(sid, call_id, False, (step,), ts)]
        # TaskUpdate
        tid = inp.get("taskId") if isinstance(inp.get("taskId"), (str, int)) else tdict.get("taskId")
        status = _step_status(inp.get("status"))
        if status is None:
            change = dict_of(tdict.get("statusChange"))
            status = _step_status(change.get("to"))
        subject = _s(inp.get("subject"))
        if status is None and subject is None:
            return []
        step = {"text": subject or "", "status": status}
        if isinstance(tid, (str, int)):
            step["id"] = str(tid)
        return [StepsItem(sid, call_id, False, (step,), ts)]


# -- the provider ----------------------------------------------------------------------------

_META_TYPES = frozenset({"permission-mode", "custom-title", "ai-title", "last-prompt", "agent-name",
                         "queue-operation", "mode"})


def _looks_like_claude(o: dict[str, Any]) -> bool:
    if "payload" in o:  # Codex rollout envelope
        return False
    t = o.get("type")
    if not isinstance(t, str):
        return False  # one odd line must not stop the others from being looked at
    if t in ("user", "assistant"):
        msg = o.get("message")
        return isinstance(msg, dict) and ("content" in msg or "role" in msg)
    if t == "summary":
        return isinstance(o.get("leafUuid"), str)
    if t == "file-history-snapshot":
        return "snapshot" in o or "messageId" in o
    if t in ("system", "progress", "attachment"):
        return isinstance(o.get("sessionId"), str) and "uuid" in o
    if t in _META_TYPES:
        return isinstance(o.get("sessionId"), str)
    return False


class ClaudeCodeProvider:
    name = NAME
    whole_file = False

    def sniff(self, path: Path, head: bytes) -> bool:
        try:
            objs = first_json_lines(head, limit=20)
            if any(_looks_like_claude(o) for o in objs):
                return True
            if objs:
                return False
            # No complete line in the head (a first line over 64 KiB): look at its opening.
            frag = head.lstrip()[:65536]
            if not frag.startswith(b"{"):
                return False
            if b'"parentUuid"' in frag and b'"isSidechain"' in frag and b'"payload"' not in frag[:2048]:
                return True
            return b'"type":"summary"' in frag[:4096] and b'"leafUuid"' in frag[:4096]
        except Exception:
            return False

    def new_parser(self, path: str, state: dict[str, Any] | None = None) -> ClaudeCodeParser:
        return ClaudeCodeParser(str(path), state)


PROVIDER = ClaudeCodeProvider()
