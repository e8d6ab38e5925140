"""OpenAI Codex CLI / IDE / Desktop rollouts.

Two on-disk shapes, told apart per record (the parser remembers which one it saw):

* wrapped (2025-H2 on): ``{"timestamp", "type": session_meta|response_item|event_msg|
  turn_context|compacted|…, "payload": {…}}``;
* legacy (≤ ~0.3x): a bare header ``{"id", "timestamp", "instructions", "git"?}``, then
  ``{"record_type": "state"}`` markers and bare ResponseItems without timestamps.

Decisions worth knowing:

* Identity: the first ``session_meta`` (or legacy header) owns the session id. A later one
  with another id (a fork copying history) only yields ``resumed_from``.
* Messages: ``response_item`` messages and ``event_msg`` user_message/agent_message say the
  same thing twice, in either order (user: response_item first; assistant: event first).
  Whichever copy comes first is emitted and the other is dropped: the parser keeps a small
  ring of (source, role, text hash) in its state and an incoming copy consumes a matching
  entry of the *other* source. Injected context (AGENTS.md, ``<environment_context>``,
  ``<permissions instructions>``, ``<turn_aborted>``…) and developer messages become
  kind "meta", as does a ``response_item`` ``agent_message`` (one agent of a run writing to
  another, its payload often encrypted).
* Keys: a payload ``id`` when present, else ``record_key`` of the line; tool calls use their
  ``call_id`` (tool_use message key = call_id, tool_result message key = call_id + "#result"),
  so a continued copy of a rollout (Entire stores the growing file several times) yields the
  same keys for its shared prefix.
* Edits: every apply_patch call (custom tool, JSON function tool with ``input``/``patch``,
  ``shell``/``exec_command``/``local_shell`` running ``apply_patch`` argv or heredoc) stays
  pending, with its patch text, until decided:
  - ``event_msg`` ``patch_apply_end`` decides when it comes first (always, in every real
    sample: 26 of 26 calls have it before the tool output): per-file EditItems with the real
    unified diff (line numbers), ``success`` → applied, else failed;
  - otherwise the tool output decides: exit code 0 / "Success. Updated the following files"
    → applied, anything else → failed, with added/removed lines from the parsed patch and
    hunks without line numbers;
  - a ``patch_apply_end`` arriving after the output already decided the call is ignored
    (never observed; the first decision wins, as the store keeps the first EditItem anyway);
  - ``turn_aborted`` gives every pending call an interrupted result and its undecided edits
    "failed".
  Each (call_id, file) yields exactly one EditItem.
* Code mode (:mod:`code_mode`): an ``exec`` custom tool call whose input is a JavaScript
  script calling ``tools.apply_patch(...)``/``tools.exec_command(...)`` is a patch call when
  the script applies one; the patch text is kept only when every patch in it is a literal.
  Its patch is reported by an ``event_msg`` under the nested call's own id, which no record
  names: ``item_completed`` with a ``FileChange`` item (``{id: "exec-<uuid>", changes,
  status}``, the only report in a real 0.147 rollout, whose script printed ``{}``) or a
  ``patch_apply_end``, read alike and once per id. It decides the pending script whose patch
  names every changed file, or the only pending script whose patch could not be read;
  otherwise it stays an edit of no known call. A script that reports nothing decides from its
  output like any call (no "Success" text: failed).
* Copies of another thread's history (read in openai/codex, code index, 2026 sources; paths
  under codex-rs/):
  - ``history/src/lib.rs`` (RolloutLine): a line is ``{"timestamp", "ordinal"?, "type",
    "payload"}``; ``rollout/src/ordinal.rs``: "legacy" rollouts write no ordinal, "paginated"
    ones (``session_meta.payload.history_mode``) number every line from 0, +1 per line, a
    resumed file going on from its last line's ordinal.
  - ``core/src/agent/control/spawn.rs`` (``spawn_forked_thread``, ``keep_forked_rollout_item``):
    a subagent spawned with a fork (``fork_turns``/``fork_context``) gets its own rollout whose
    first line is its own session_meta (``source.subagent.thread_spawn.parent_thread_id``,
    ``forked_from_id`` = the parent), then the parent's history filtered: the parent's
    session_meta, turn_context, user/developer/system messages, final answers, compactions and
    *every* event_msg (``patch_apply_end`` included), but no tool call or output.
  - ``subagent_history_start_ordinal`` (on that first session_meta, paginated files) is the
    first ordinal that is the child's own; openai/codex's own readers keep only lines with
    ``ordinal >= start`` (thread-store projection and a timing reader, seen as index excerpts).
    Here every line below it except the owner's session_meta is ``Skip("copied_history")``:
    the raw archive keeps it, the child gets none of the parent's messages or edits, and the
    child still names its parent (parent_session_id from thread_spawn or the top-level
    ``parent_thread_id``, resumed_from from ``forked_from_id``).
  - Unnumbered (legacy) copies have no boundary: the copied messages stay (nothing says where
    the copy ends), but once a second session_meta of another thread was seen, a
    ``patch_apply_end`` whose call is not in this file is the copy's (calls are never copied)
    and is skipped as ``copied_history``.
  - ``history_base {thread_id, end_ordinal_exclusive, end_byte_offset}`` (+ ``forked_from_id``,
    ``forked_from_ordinal_exclusive`` on a fork) marks a paginated thread that continues
    another rollout *by reference*: this file holds no copy, its own lines are numbered from
    ``end_ordinal_exclusive`` (thread-store projection: ``initial_ordinal =
    history_base.end_ordinal_exclusive``). Nothing is skipped; these fields, ``thread_source``
    and ``history_mode`` are kept in ``extra``. ``forked_from_ordinal_exclusive`` is not used
    as a boundary (the source does not show a copy below it in the same file).
  - ``history/src/lib.rs`` CodexHarnessMetadata: a ``response_item`` line may carry a sibling
    ``"metadata"``; ``inherited_user_message: true`` marks "copied parent user/assistant
    context" and is skipped as ``copied_history`` too.
  - ``history/src/rollout_payload.rs`` (RolloutItemWire) names every line type: besides the five
    read here, ``inter_agent_communication``, ``inter_agent_communication_metadata``
    (``{trigger_turn}``), ``token_usage_record``, ``world_state``, ``retained_context``,
    ``security_risk_score``, ``realtime_item`` — all ignored without a skip.
  - ``session_meta.payload.session_id`` is the *root* thread's id on a subagent; ``id`` is the
    thread's own and is the one used here.
  Compressed rollouts (``rollout/src/compression.rs``): cold (mtime ≥ 7 days) files under
  ``archived_sessions/`` become ``rollout-….jsonl.zst`` (one zstd frame, level 3, mtime kept,
  the ``.jsonl`` removed); a plain ``.jsonl`` beside it wins; appending decompresses it back.
  This module reads lines only: reading ``.zst`` is the ingest reader's business.
"""

from __future__ import annotations

import difflib
import hashlib
import re
import shlex
from pathlib import Path
from typing import Any

import orjson

from hansard.agents.base import as_text, dict_of, first_json_lines, list_of, load_json, record_key, snapshot_steps
from hansard.agents.base import nonempty_str as _str
from hansard.agents.codex import AGENT, code_mode
from hansard.agents.edits import FileOp, PatchError, extract_patch, lines_of, parse_patch, parse_unified_diff, scan_headers
from hansard.text.diffs import Hunk
from hansard.values.models import (
    EditItem,
    EditKind,
    EditStatus,
    Item,
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

_TOP_TYPES = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")
# Known newer rollout items that carry nothing we keep (the wire names of codex-rs/history's
# RolloutItemWire; see the module docstring).
_TOP_IGNORED = frozenset({
    "world_state", "inter_agent_communication", "inter_agent_communication_metadata", "token_usage_record",
    "retained_context", "security_risk_score", "realtime_item",
})
_RESPONSE_IGNORED = frozenset({
    "web_search_call", "ghost_snapshot", "compaction", "compaction_summary", "other", "image_generation_call",
    "tool_search_call", "tool_search_output", "mcp_list_tools", "mcp_approval_request", "mcp_approval_response",
    "file_search_call", "computer_call", "computer_call_output", "code_interpreter_call",
})
_SHELL_TOOLS = AGENT.shell_tools
# The tool that runs a code-mode script (:mod:`code_mode`): its input is JavaScript calling the
# other tools, apply_patch and exec_command among them.
_CODE_MODE_TOOLS = frozenset({"exec"})
# How a code-mode script's output begins when the script went on in the background (a later
# ``wait`` call collects it): its patch may not have been applied yet.
_SCRIPT_RUNNING = "Script running with cell ID"

_RING_MAX = 32
_PENDING_MAX = 256
_DONE_MAX = 128
_PATCH_MAX = 2_000_000
_SUMMARY_MAX = 2000
_TITLE_MAX = 100

_WRAPPED_HEAD = re.compile(
    rb'^\s*\{"timestamp":"[^"]*",(?:"ordinal":\d+,)?'
    rb'"type":"(?:session_meta|response_item|event_msg|turn_context|compacted)","payload":\{'
)
_LEGACY_HEAD = re.compile(rb'^\s*\{"id":"[0-9a-fA-F-]{32,36}","timestamp":"[^"]*"')
_EXIT_CODE = re.compile(r"^(?:Process exited with code|Exit code:)\s*(-?\d+)\s*$", re.M)
_CWD_TAG = re.compile(r"<cwd>([^<\n]+)</cwd>")
# Context blocks Codex injects look like <snake_case>…</snake_case> or <two words>…</two words>;
# a prompt that is just "<b>hi</b>" stays a prompt.
_WRAPPED_TAG = re.compile(r"^<([A-Za-z]+(?:[_ ][A-Za-z]+)+)>.*</\1>$", re.S)
_INJECTED_PREFIXES = (
    "<environment_context>", "<permissions instructions>", "<user_instructions>", "# AGENTS.md instructions for",
    "<INSTRUCTIONS>", "<turn_aborted>", "<collaboration_mode>", "<skills_instructions>", "<apps_instructions>",
    "<plugins_instructions>", "<personality_spec>", "<user_shell_command>", "<subagent_notification>",
    "<developer_instructions>",
)


class CodexParser:
    def __init__(self, path: str, state: dict[str, Any] | None = None) -> None:
        st = state or {}
        self.path = path
        self.sid: str | None = st.get("sid")
        self.fmt: str | None = st.get("fmt")
        self.cwd: str | None = st.get("cwd")
        self.model: str | None = st.get("model")
        self.titled: bool = bool(st.get("titled"))
        self.ring: list[list[str]] = [list(x) for x in st.get("ring") or []]
        self.pending: dict[str, dict[str, Any]] = {k: dict(v) for k, v in (st.get("pending") or {}).items()}
        self.done: list[str] = list(st.get("done") or [])  # calls whose edits are decided
        self.closed: list[str] = list(st.get("closed") or [])  # calls closed by turn_aborted
        self.forks: list[str] = list(st.get("forks") or [])
        # subagent_history_start_ordinal of the first session_meta: lines numbered below it
        # are the parent's history copied into this file.
        self.own_from: int | None = st.get("own_from")

    # -- protocol -------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        return {
            "sid": self.sid, "fmt": self.fmt, "cwd": self.cwd, "model": self.model, "titled": self.titled,
            "ring": [list(x) for x in self.ring], "pending": {k: dict(v) for k, v in self.pending.items()},
            "done": list(self.done), "closed": list(self.closed), "forks": list(self.forks),
            "own_from": self.own_from,
        }

    def finish(self) -> list[Item]:
        return []

    def feed(self, record: RawRecord) -> list[Item]:
        saved = self.state()
        try:
            obj, skip = load_json(record)
            if skip is not None:
                return [skip]
            if not isinstance(obj, dict):
                return [Skip("not_object", record.offset, type(obj).__name__)]
            items = self._dispatch(obj, record)
            if self.sid is None and any(not isinstance(i, Skip) for i in items):
                return [Skip("no_session_id", record.offset)]
            return items
        except Exception as exc:  # a parser must never raise on input
            self.__init__(self.path, saved)  # type: ignore[misc]
            return [Skip("parser_error", record.offset, repr(exc)[:300])]

    # -- dispatch -------------------------------------------------------------------

    def _dispatch(self, obj: dict[str, Any], rec: RawRecord) -> list[Item]:
        t = obj.get("type")
        if "payload" in obj:
            if self.fmt is None:
                self.fmt = "wrapped"
            ts = _str(obj.get("timestamp"))
            payload = obj.get("payload")
            if not isinstance(t, str):
                return [Skip("bad_field", rec.offset, "type")]
            if t in _TOP_IGNORED:
                return []
            if t not in _TOP_TYPES:
                return [Skip("unknown_type", rec.offset, t[:100])]
            if not isinstance(payload, dict):
                return [Skip("bad_field", rec.offset, f"{t}.payload")]
            ordinal = obj.get("ordinal")
            if (self.own_from is not None and isinstance(ordinal, int) and not isinstance(ordinal, bool)
                    and ordinal < self.own_from and not (t == "session_meta" and self.sid is None)):
                return [Skip("copied_history", rec.offset, f"{t} at ordinal {ordinal} < {self.own_from}")]
            if t == "session_meta":
                return self._session_meta(payload, rec)
            if t == "turn_context":
                self._turn_context(payload)
                return []
            if t == "response_item":
                meta = obj.get("metadata")
                if isinstance(meta, dict) and meta.get("inherited_user_message") is True:
                    return [Skip("copied_history", rec.offset, "response_item marked inherited_user_message")]
                return self._response_item(payload, ts, rec)
            if t == "event_msg":
                return self._event(payload, ts, rec)
            return self._compacted(payload, ts, rec)
        # legacy (or a bare ResponseItem)
        if "record_type" in obj:
            self.fmt = self.fmt or "legacy"
            return []
        if t is None:
            if isinstance(obj.get("id"), str) and "timestamp" in obj:
                self.fmt = self.fmt or "legacy"
                return self._session_meta(obj, rec)
            return [Skip("unknown_type", rec.offset, ",".join(list(obj)[:5])[:100])]
        if not isinstance(t, str):
            return [Skip("bad_field", rec.offset, "type")]
        self.fmt = self.fmt or "legacy"
        return self._response_item(obj, None, rec)

    # -- session facts ----------------------------------------------------------------

    def _session_meta(self, p: dict[str, Any], rec: RawRecord) -> list[Item]:
        sid = _str(p.get("id"))
        if not sid:
            return [Skip("no_session_id", rec.offset)]
        if self.sid is not None:
            if sid != self.sid and sid not in self.forks:
                self.forks = (self.forks + [sid])[-16:]
                return [SessionInfo(self.sid, NAME, resumed_from=sid)]
            return []
        self.sid = sid
        start = p.get("subagent_history_start_ordinal")
        if isinstance(start, int) and not isinstance(start, bool) and start > 0:
            self.own_from = start
        cwd = _str(p.get("cwd"))
        if cwd and not self.cwd:
            self.cwd = cwd
        git = dict_of(p.get("git"))
        extra: dict[str, Any] = {}
        for k in ("originator", "model_provider", "agent_nickname", "agent_role", "thread_source", "history_mode"):
            if _str(p.get(k)):
                extra[k] = p[k]
        for k in ("subagent_history_start_ordinal", "forked_from_ordinal_exclusive"):
            if isinstance(p.get(k), int) and not isinstance(p.get(k), bool):
                extra[k] = p[k]
        base = p.get("history_base")
        if isinstance(base, dict) and _str(base.get("thread_id")):
            extra["history_base"] = {k: base[k] for k in ("thread_id", "end_ordinal_exclusive")
                                     if isinstance(base.get(k), (str, int)) and not isinstance(base.get(k), bool)}
        parent = spawn = agent = None
        source = p.get("source")
        if isinstance(source, str):
            extra["source"] = source
        elif isinstance(source, dict):
            sub = source.get("subagent")
            extra["source"] = "subagent" if sub is not None else next(iter(source), "?")
            if isinstance(sub, dict) and isinstance(sub.get("thread_spawn"), dict):
                spawn_info = sub["thread_spawn"]
                parent = _str(spawn_info.get("parent_thread_id"))
                spawn = _str(spawn_info.get("spawn_call_id"))
                agent = _str(spawn_info.get("agent_nickname")) or _str(spawn_info.get("agent_path"))
                extra["subagent"] = {
                    k: v for k, v in spawn_info.items()
                    if k in ("depth", "agent_nickname", "agent_role", "agent_path", "forked_from_id")
                    and isinstance(v, (str, int))
                }
            elif sub is not None:
                extra["subagent"] = sub if isinstance(sub, str) else next(iter(sub), "?") if isinstance(sub, dict) else "?"
        parent = parent or _str(p.get("parent_thread_id"))
        forked = _str(p.get("forked_from_id"))
        return [SessionInfo(
            session_id=sid, provider=NAME, cwd=cwd, started_at=_str(p.get("timestamp")),
            parent_session_id=parent, agent_id=agent, spawn_call_id=spawn,
            git_branch=_str(git.get("branch")), git_commit=_str(git.get("commit_hash")),
            git_remote=_str(git.get("repository_url")), version=_str(p.get("cli_version")),
            resumed_from=forked if forked != sid else None, extra=extra,
        )]

    def _turn_context(self, p: dict[str, Any]) -> None:
        cwd = _str(p.get("cwd"))
        if cwd:
            self.cwd = cwd
        model = _str(p.get("model"))
        if model:
            self.model = model

    # -- response items ---------------------------------------------------------------

    def _response_item(self, p: dict[str, Any], ts: str | None, rec: RawRecord) -> list[Item]:
        it = p.get("type")
        if not isinstance(it, str):
            return [Skip("bad_field", rec.offset, "response_item.type")]
        if it == "message":
            return self._message(p, ts, rec)
        if it == "reasoning":
            return self._reasoning(p, ts, rec)
        if it in ("function_call", "custom_tool_call", "local_shell_call"):
            return self._call(p, ts, rec)
        if it in ("function_call_output", "custom_tool_call_output"):
            return self._output(p, ts, rec)
        if it == "agent_message":
            return self._between_agents(p, ts, rec)
        if it in _RESPONSE_IGNORED:
            return []
        return [Skip("unknown_type", rec.offset, f"response_item:{str(it)[:80]}")]

    def _between_agents(self, p: dict[str, Any], ts: str | None, rec: RawRecord) -> list[Item]:
        """A message one agent of a run sent another (a parent handing a subagent its task):
        kept as a "meta" message, readable and searchable but never taken for the person's
        request. Only its plain text is kept; a payload Codex encrypted is not readable."""
        text = "\n".join(x for x in _content_texts(p.get("content")) if x.strip()).strip()
        if not text:
            return []
        author, recipient = _str(p.get("author")), _str(p.get("recipient"))
        head = f"[{author or '?'} -> {recipient or '?'}]\n" if author or recipient else ""
        return [self._msg(_str(p.get("id")) or record_key(rec), "user", head + text, ts, "meta")]

    def _message(self, p: dict[str, Any], ts: str | None, rec: RawRecord) -> list[Item]:
        role = p.get("role")
        if role not in ("user", "assistant", "developer", "system"):
            return [Skip("bad_field", rec.offset, "message.role")]
        texts = _content_texts(p.get("content"))
        key = _str(p.get("id")) or record_key(rec)
        if role in ("developer", "system"):
            text = "\n\n".join(texts)
            return [self._msg(key, "system", text, ts, "meta")] if text.strip() else []
        if role == "user":
            if self.fmt == "legacy":
                for t in texts:
                    m = _CWD_TAG.search(t) if t.startswith("<environment_context>") else None
                    if m:
                        self.cwd = m.group(1).strip()
            real = [t for t in texts if not _is_injected(t)]
            if not real:
                text = "\n\n".join(texts)
                return [self._msg(key, "user", text, ts, "meta")] if text.strip() else []
            text = "\n\n".join(real)
        else:
            text = "\n".join(texts)
        if not text.strip() or self._duplicate("r", role, text):
            return []
        return self._text_message(key, "user" if role == "user" else "assistant", text, ts)

    def _text_message(self, key: str, role: Role, text: str, ts: str | None) -> list[Item]:
        out: list[Item] = [self._msg(key, role, text, ts, "text")]
        if role == "user" and not self.titled and self.sid:
            title = _title_from_prompt(text)
            if title:
                self.titled = True
                out.append(SessionInfo(self.sid, NAME, title=title, title_rank=1))
        return out

    def _reasoning(self, p: dict[str, Any], ts: str | None, rec: RawRecord) -> list[Item]:
        summary = list_of(p.get("summary"))
        parts = [b["text"] for b in summary if isinstance(b, dict) and isinstance(b.get("text"), str)]
        if not any(x.strip() for x in parts) and isinstance(p.get("content"), list):
            parts = [b["text"] for b in p["content"] if isinstance(b, dict) and isinstance(b.get("text"), str)]
        text = "\n\n".join(x for x in parts if x.strip())
        if not text.strip():
            return []
        return [self._msg(_str(p.get("id")) or record_key(rec), "assistant", text, ts, "thinking")]

    def _call(self, p: dict[str, Any], ts: str | None, rec: RawRecord) -> list[Item]:
        kind = p.get("type")
        call_id = _str(p.get("call_id")) or (_str(p.get("id")) if kind == "local_shell_call" else None)
        if not call_id:
            return [Skip("bad_field", rec.offset, f"{kind}.call_id")]
        name = _str(p.get("name")) or ("local_shell" if kind == "local_shell_call" else None)
        if not name:
            return [Skip("bad_field", rec.offset, f"{kind}.name")]
        namespace = _str(p.get("namespace"))
        # An MCP namespace prefixes its tools ("mcp__codex_apps__github" + "_fetch_pr");
        # "functions" is the built-in tools' own, which names them bare.
        full_name = namespace + name if namespace and namespace != "functions" and not name.startswith(namespace) \
            else name
        if kind == "custom_tool_call":
            raw = p.get("input")
            args: dict[str, Any] = {"input": raw if isinstance(raw, str) else as_text(raw)}
        elif kind == "local_shell_call":
            args = dict(p["action"]) if isinstance(p.get("action"), dict) else {}
        else:
            args = _parse_arguments(p.get("arguments"))

        cwd = self.cwd
        workdir = _str(args.get("workdir")) or _str(args.get("working_directory"))
        if workdir:
            cwd = _join(self.cwd, workdir)
        patch: str | None = None
        is_patch = False
        if name in AGENT.edit_tools:
            is_patch = True
            cand = args.get("input") if isinstance(args.get("input"), str) else args.get("patch")
            patch = cand if isinstance(cand, str) else None
        elif name in _SHELL_TOOLS:
            cmd = args.get("command") if args.get("command") is not None else args.get("cmd")
            found = extract_patch(cmd)
            if found is not None:
                is_patch = True
                patch, wd = found
                if wd:
                    cwd = _join(cwd, wd)
        script = kind == "custom_tool_call" and name in _CODE_MODE_TOOLS
        nested = code_mode.tool_calls(args["input"]) if script else []
        if nested:
            is_patch, patch, cwd, summary = _script(nested, cwd)
        else:
            summary = _summary(name, args, patch if is_patch else None)

        sid = self.sid or ""
        out: list[Item] = [
            MessageItem(sid, call_id, "assistant", summary, ts, cwd, "tool_use", self.model),
            ToolCallItem(sid, call_id, full_name, args, call_id, ts, cwd),
        ]
        if name == "update_plan":
            steps = snapshot_steps(args.get("plan"), ("step",))
            if steps is not None:
                out.append(StepsItem(sid, call_id, True, steps, ts))

        entry: dict[str, Any] = {"cwd": cwd}
        if is_patch:
            entry["ap"] = 1
            if script:
                entry["cm"] = 1  # its apply_patch events carry the nested call's own id
            if patch is not None and len(patch) <= _PATCH_MAX:
                entry["p"] = patch
        self.pending.pop(call_id, None)
        self.pending[call_id] = entry
        while len(self.pending) > _PENDING_MAX:
            self.pending.pop(next(iter(self.pending)))
        return out

    def _output(self, p: dict[str, Any], ts: str | None, rec: RawRecord) -> list[Item]:
        call_id = _str(p.get("call_id"))
        if not call_id:
            return [Skip("bad_field", rec.offset, f"{p.get('type')}.call_id")]
        text, exit_code = _output_text(p.get("output"))
        status = _result_status(text, exit_code, p.get("success"))
        pend = self.pending.get(call_id)
        if pend and pend.get("cm") and text.startswith(_SCRIPT_RUNNING):
            pend["bg"] = 1  # still running: its patch is decided by its report, or stays undecided
            pend = None
        else:
            self.pending.pop(call_id, None)
        sid = self.sid or ""
        mk = call_id + "#result"
        cwd = pend.get("cwd") if pend else self.cwd
        out: list[Item] = [
            MessageItem(sid, mk, "tool", text, ts, cwd, "tool_result"),
            ToolResultItem(sid, call_id, status, text, exit_code, mk, ts),
        ]
        if pend and pend.get("ap") and not pend.get("e") and call_id not in self.done:
            applied = exit_code == 0 if exit_code is not None else (
                status == "ok" and ("Success. Updated the following files" in text or text.strip().startswith("Done!"))
            )
            out += self._edits_from_patch(call_id, pend, "applied" if applied else "failed", ts, rec)
            self._mark(self.done, call_id, _DONE_MAX)
        return out

    # -- events -----------------------------------------------------------------------

    def _event(self, p: dict[str, Any], ts: str | None, rec: RawRecord) -> list[Item]:
        et = p.get("type")
        if et == "user_message" or et == "agent_message":
            text = _str(p.get("message")) or ""
            role: Role = "user" if et == "user_message" else "assistant"
            if not text.strip() or self._duplicate("e", role, text):
                return []
            return self._text_message(record_key(rec), role, text, ts)
        if et == "patch_apply_end":
            return self._patch_end(p, ts, rec)
        if et == "item_completed":
            item = p.get("item")
            if isinstance(item, dict) and item.get("type") == "FileChange":
                # 0.147 on: a patch applied inside a code-mode script is reported only so, under
                # the nested call's id, with the patch_apply_end fields and a status
                return self._patch_end({"call_id": item.get("id"), "changes": item.get("changes"),
                                        "status": item.get("status"), "success": item.get("success")}, ts, rec,
                                       "item_completed.item")
            return []  # CommandExecution and the rest repeat what the calls' outputs say
        if et == "turn_aborted":
            return self._aborted(ts)
        if et == "error":
            text = _str(p.get("message")) or ""
            return [self._msg(record_key(rec), "system", text, ts, "error")] if text.strip() else []
        if not isinstance(et, str):
            return [Skip("bad_field", rec.offset, "event_msg.type")]
        # token_count, task_started/complete, exec_command_*, agent_reasoning, web_search_*,
        # mcp_tool_call_*, context_compacted, turn_diff, …: UI/telemetry duplicating history.
        return []

    def _patch_end(self, p: dict[str, Any], ts: str | None, rec: RawRecord,
                   what: str = "patch_apply_end") -> list[Item]:
        call_id = _str(p.get("call_id"))
        if not call_id:
            return [Skip("bad_field", rec.offset, f"{what}.call_id")]
        changes = p.get("changes")
        if not isinstance(changes, dict):
            return [Skip("bad_field", rec.offset, f"{what}.changes")]
        pend = self.pending.get(call_id)
        if call_id in self.done or (pend and pend.get("e")):
            return []  # already decided (by the tool output, or a repeated event)
        if pend is None:
            owner = self._script_owner(list(changes))
            if owner is not None:  # a patch that a running code-mode script applied: the script's edit
                self._mark(self.done, call_id, _DONE_MAX)
                call_id, pend = owner
        if pend is None and self.forks:
            # A file holding another thread's session_meta holds a copy of its history; a
            # subagent's copy keeps the parent's events but not its tool calls, so an event
            # whose call is not in this file is the parent's edit, not this thread's.
            return [Skip("copied_history", rec.offset, f"{what} {call_id[:80]} without its call")]
        success = p.get("success")
        status_s = _str(p.get("status"))
        status: EditStatus
        if success is True or (success is None and status_s == "completed"):
            status = "applied"
        elif status_s in ("declined", "rejected"):
            status = "rejected"
        else:
            status = "failed"
        cwd = pend.get("cwd") if pend else self.cwd
        order = _path_order(list(changes), pend.get("p") if pend else None, cwd)
        out: list[Item] = []
        for seq, path in enumerate(order):
            ch = changes[path]
            if not isinstance(ch, dict):
                out.append(Skip("bad_field", rec.offset, f"{what}.changes[{path[:100]}]"))
                continue
            out.append(_edit_from_change(self.sid or "", call_id, path, ch, cwd, status, ts,
                                         call_id if pend else None, seq))
        if pend and pend.get("bg"):
            self.pending.pop(call_id, None)  # its output came before: nothing more to wait for
            self._mark(self.done, call_id, _DONE_MAX)
        elif pend:
            pend["e"] = 1
            pend.pop("p", None)
        else:
            self._mark(self.done, call_id, _DONE_MAX)
        return out

    def _script_owner(self, paths: list[str]) -> tuple[str, dict[str, Any]] | None:
        """The pending code-mode call whose patch applied ``paths``: the one whose patch names
        every path, or, where no pending script's patch text could be read, the only such
        script pending. None when that is not one call."""
        scripts = [(cid, pend) for cid, pend in self.pending.items() if pend.get("cm") and not pend.get("e")]
        named = [(cid, pend) for cid, pend in scripts
                 if pend.get("p") and all(_named(path, pend["p"], pend.get("cwd")) for path in paths)]
        if len(named) == 1:
            return named[0]
        if not named and len(scripts) == 1 and not scripts[0][1].get("p"):
            return scripts[0]
        return None

    def _aborted(self, ts: str | None) -> list[Item]:
        out: list[Item] = []
        sid = self.sid or ""
        for call_id, pend in list(self.pending.items()):
            out.append(ToolResultItem(sid, call_id, "interrupted", "", None, None, ts))
            if pend.get("ap") and not pend.get("e") and call_id not in self.done:
                out += self._edits_from_patch(call_id, pend, "failed", ts, None)
                self._mark(self.done, call_id, _DONE_MAX)
            self._mark(self.closed, call_id, _DONE_MAX)
        self.pending.clear()
        return out

    def _compacted(self, p: dict[str, Any], ts: str | None, rec: RawRecord) -> list[Item]:
        text = _str(p.get("message")) or ""
        if not text.strip():
            return []
        return [self._msg(record_key(rec), "user", text, ts, "compaction_summary")]

    # -- helpers ----------------------------------------------------------------------

    def _msg(self, key: str, role: Role, text: str, ts: str | None, kind: str) -> MessageItem:
        return MessageItem(self.sid or "", key, role, text, ts, self.cwd, kind,
                           self.model if role == "assistant" else None)

    def _duplicate(self, source: str, role: str, text: str) -> bool:
        """True when ``text`` repeats a message already emitted from the other source."""
        h = hashlib.blake2b(text.strip().encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
        for i, (src, r, hh) in enumerate(self.ring):
            if src != source and r == role and hh == h:
                del self.ring[i]
                return True
        self.ring.append([source, role, h])
        if len(self.ring) > _RING_MAX:
            del self.ring[: len(self.ring) - _RING_MAX]
        return False

    @staticmethod
    def _mark(lst: list[str], call_id: str, cap: int) -> None:
        if call_id not in lst:
            lst.append(call_id)
            if len(lst) > cap:
                del lst[: len(lst) - cap]

    def _edits_from_patch(self, call_id: str, pend: dict[str, Any], status: EditStatus, ts: str | None,
                          rec: RawRecord | None) -> list[Item]:
        patch = pend.get("p")
        cwd = pend.get("cwd")
        sid = self.sid or ""
        out: list[Item] = []
        try:
            ops = parse_patch(patch) if patch is not None else None
            err = None if patch is not None else "patch text not kept"
        except PatchError as exc:
            ops, err = None, str(exc)
        if ops is None:
            for seq, (verb, path, move_to) in enumerate(scan_headers(patch)):
                # what an add or an update wrote is not known: an unreadable edit of that file
                kind: EditKind = "delete" if verb == "delete" else "move" if move_to else "unreadable"
                out.append(EditItem(sid, call_id, "apply_patch", path, cwd, kind, status, ts,
                                    call_id, move_to=move_to, seq=seq))
            if status == "applied":
                out.append(Skip("bad_patch", rec.offset if rec else 0, f"{call_id}: {err}"[:300]))
            return out
        for seq, op in enumerate(ops):
            out.append(_edit_from_op(sid, call_id, op, cwd, status, ts, seq))
        return out


# ---- edits --------------------------------------------------------------------------------


def _edit_from_op(sid: str, call_id: str, op: FileOp, cwd: str | None, status: EditStatus, ts: str | None,
                  seq: int) -> EditItem:
    if op.op == "add":
        created = op.added
        return EditItem(sid, call_id, "apply_patch", op.path, cwd, "create", status, ts, call_id, added=created,
                        hunks=(Hunk(0, 0, 1, len(created), tuple("+" + x for x in created)),) if created else (),
                        after=op.content, seq=seq)
    if op.op == "delete":
        return EditItem(sid, call_id, "apply_patch", op.path, cwd, "delete", status, ts, call_id,
                        seq=seq)
    added: list[str] = []
    removed: list[str] = []
    hunks: list[Hunk] = []
    for ph in op.hunks:
        lines: list[str] = []
        old, new = ph.old_lines, ph.new_lines
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
            if tag == "equal":
                lines += [" " + x for x in old[i1:i2]]
                continue
            removed += old[i1:i2]
            added += new[j1:j2]
            lines += ["-" + x for x in old[i1:i2]] + ["+" + x for x in new[j1:j2]]
        hunks.append(Hunk(None, None, None, None, tuple(lines)))
    return EditItem(sid, call_id, "apply_patch", op.path, cwd, "move" if op.move_to else "update",
                    status, ts, call_id, added=tuple(added), removed=tuple(removed), hunks=tuple(hunks),
                    move_to=op.move_to, seq=seq)


def _edit_from_change(sid: str, call_id: str, path: str, ch: dict[str, Any], cwd: str | None, status: EditStatus,
                      ts: str | None, message_key: str | None, seq: int) -> EditItem:
    ctype = ch.get("type")
    if ctype == "add":
        content = _str(ch.get("content")) or ""
        created = tuple(lines_of(content))
        return EditItem(sid, call_id, "apply_patch", path, cwd, "create", status, ts, message_key, added=created,
                        hunks=(Hunk(0, 0, 1, len(created), tuple("+" + x for x in created)),) if created else (),
                        after=content, seq=seq)
    if ctype == "delete":
        before = _str(ch.get("content"))
        gone = tuple(lines_of(before))
        return EditItem(sid, call_id, "apply_patch", path, cwd, "delete", status, ts, message_key, removed=gone,
                        hunks=(Hunk(1, len(gone), 0, 0, tuple("-" + x for x in gone)),) if gone else (),
                        before=before, seq=seq)
    diff = _str(ch.get("unified_diff")) or ""
    added, removed, hunks = parse_unified_diff(diff)
    move = _str(ch.get("move_path"))
    return EditItem(sid, call_id, "apply_patch", path, cwd, "move" if move else "update", status, ts,
                    message_key, added=added, removed=removed, hunks=hunks, move_to=move, seq=seq)


def _script(nested: list[tuple[str, Any]], cwd: str | None) -> tuple[bool, str | None, str | None, str]:
    """For a code-mode script's calls, read once: (applies a patch, the patch text when every
    one of them could be read, the directory its paths are relative to, the tool_use summary:
    each call's own, "exec: apply_patch: Update a.py; npm test")."""
    patches: list[str] = []
    parts: list[str] = []
    unread = False
    for tool, arg in nested:
        if tool in AGENT.edit_tools:
            text = code_mode.text_of(arg, "input", "patch")
            unread |= text is None
            patches += [text] if text is not None else []
            parts.append(_summary(tool, {}, text or ""))
            continue
        cmd = code_mode.text_of(arg, "cmd", "command") if tool in _SHELL_TOOLS else None
        if cmd is None:
            parts.append(tool)
            continue
        found = extract_patch(cmd)
        parts.append(_summary(tool, {"cmd": cmd}, found[0] if found else None))
        if found is not None:
            patches.append(found[0])
            if len(nested) == 1:  # its directory is the patch's only when it is the only call
                for w in (code_mode.text_of(arg, "workdir"), found[1]):
                    cwd = _join(cwd, w) if w else cwd
    summary = "exec: " + "; ".join(parts)
    summary = summary if len(summary) <= _SUMMARY_MAX else summary[: _SUMMARY_MAX - 1] + "…"
    if not patches and not unread:
        return False, None, cwd, summary
    return True, (None if unread else code_mode.one_patch(patches)), cwd, summary


def _names(n: str, path: str, cwd: str | None) -> bool:
    """Does a patch's header path ``n`` name ``path`` (as it is, below ``cwd``, or as its tail)?"""
    return path == n or path == _join(cwd, n) or path.endswith("/" + n.lstrip("./"))


def _named(path: str, patch: str, cwd: str | None) -> bool:
    """Does ``patch`` name ``path``?"""
    return any(_names(n, path, cwd) for _, n, _ in scan_headers(patch))


def _path_order(paths: list[str], patch: str | None, cwd: str | None) -> list[str]:
    """The changed paths in the order the patch names them (the event's map order is not
    meaningful); paths the patch does not name follow in map order."""
    if not patch:
        return paths
    named = [p for _, p, _ in scan_headers(patch)]
    rank: dict[str, int] = {}
    for path in paths:
        for i, n in enumerate(named):
            if _names(n, path, cwd):
                rank[path] = i
                break
    return sorted(paths, key=lambda p: (rank.get(p, len(named)), paths.index(p)))


# ---- small helpers -------------------------------------------------------------------------


def _join(cwd: str | None, wd: str) -> str:
    if wd.startswith(("/", "\\\\")) or re.match(r"^[A-Za-z]:[\\/]", wd) or not cwd:
        return wd
    sep = "\\" if ("\\" in cwd and "/" not in cwd) else "/"
    return cwd.rstrip("/\\") + sep + wd


def _content_texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    out = []
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict):
            if isinstance(block.get("text"), str):
                out.append(block["text"])
            elif block.get("type") in ("input_image", "image"):
                out.append("[image]")
        elif isinstance(block, str):
            out.append(block)
    return out


def _is_injected(text: str) -> bool:
    s = text.strip()
    if not s:
        return True
    return s.startswith(_INJECTED_PREFIXES) or bool(_WRAPPED_TAG.match(s))


def _title_from_prompt(text: str) -> str | None:
    first = text.strip().split("\n", 1)[0].strip()
    if not first:
        return None
    return first if len(first) <= _TITLE_MAX else first[: _TITLE_MAX - 1] + "…"


def _parse_arguments(raw: Any) -> dict[str, Any]:
    """function_call ``arguments`` is a JSON string (sometimes already an object)."""
    if isinstance(raw, dict):
        return dict(raw)
    if isinstance(raw, str):
        try:
            val = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return {"raw": raw}
        return val if isinstance(val, dict) else {"value": val}
    return {} if raw is None else {"value": raw}


def _output_text(output: Any) -> tuple[str, int | None]:
    """The readable output and the exit code it states, for the three observed shapes:
    a JSON string ``{"output", "metadata": {"exit_code"}}``, plain text with "Process exited
    with code N" / "Exit code: N", or content-item lists."""
    exit_code: int | None = None
    text: str
    if isinstance(output, str):
        text = output
        if output.startswith("{"):
            try:
                val = orjson.loads(output)
            except orjson.JSONDecodeError:
                val = None
            if isinstance(val, dict) and "output" in val:
                text = as_text(val.get("output"))
                meta = val.get("metadata")
                if isinstance(meta, dict) and isinstance(meta.get("exit_code"), int) and not isinstance(
                        meta.get("exit_code"), bool):
                    exit_code = meta["exit_code"]
    elif isinstance(output, dict):
        text = as_text(output.get("content") if "content" in output else output)
    else:
        text = as_text(output)
    if exit_code is None:
        m = _EXIT_CODE.search(text[:2000])
        if m:
            exit_code = int(m.group(1))
    return text, exit_code


def _result_status(text: str, exit_code: int | None, success: Any) -> ToolStatus:
    head = text[:300].lower()
    if "rejected by user" in head or "declined by user" in head or "user rejected" in head:
        return "rejected"
    if exit_code not in (None, 0) or success is False:
        return "error"
    if head.startswith(("apply_patch verification failed", "failed to parse function arguments", "error:")):
        return "error"
    return "ok"


def _summary(name: str, args: dict[str, Any], patch: str | None) -> str:
    """A short human summary of a tool call, for its tool_use message."""
    text: str | None = None
    if patch is not None or name in AGENT.edit_tools:
        heads = scan_headers(patch or "")
        verbs = {"add": "Add", "delete": "Delete", "update": "Update"}
        files = [f"Move {p} -> {m}" if m else f"{verbs[o]} {p}" for o, p, m in heads]
        text = "apply_patch" + (": " + ", ".join(files) if files else "")
    elif name in _SHELL_TOOLS:
        cmd = args.get("command") if args.get("command") is not None else args.get("cmd")
        if isinstance(cmd, str):
            text = cmd
        elif isinstance(cmd, list) and all(isinstance(x, str) for x in cmd):
            if len(cmd) >= 3 and cmd[-2] in ("-c", "-lc"):
                text = cmd[-1]
            else:
                text = shlex.join(cmd)
    elif name == "update_plan":
        steps = snapshot_steps(args.get("plan"), ("step",)) or ()
        text = "update_plan: " + "; ".join(f"[{s['status']}] {s['text']}" for s in steps)
    elif name == "write_stdin":
        chars = args.get("chars")
        text = f"write_stdin {args.get('session_id', '?')}" + (f" {chars!r}" if chars else "")
    if text is None:
        try:
            rendered = orjson.dumps(args).decode()
        except TypeError:
            rendered = ""
        if len(rendered) > 300:
            rendered = rendered[:299] + "…"
        text = f"{name} {rendered}".strip()
    return text if len(text) <= _SUMMARY_MAX else text[: _SUMMARY_MAX - 1] + "…"


# ---- provider ---------------------------------------------------------------------------------


class CodexProvider:
    name = NAME
    whole_file = False

    def sniff(self, path: Path, head: bytes) -> bool:
        if _WRAPPED_HEAD.match(head[:4096]):
            return True
        objs = first_json_lines(head, limit=5)
        for o in objs:
            if _str(o.get("type")) in _TOP_TYPES and isinstance(o.get("payload"), dict) and "timestamp" in o:
                return True
        if not objs:
            return bool(_LEGACY_HEAD.match(head[:4096]))
        first = objs[0]
        if (isinstance(first.get("id"), str) and "timestamp" in first and "type" not in first
                and not any(k in first for k in ("sessionId", "messages", "projectHash", "uuid"))):
            if "instructions" in first or "git" in first:
                return True
            rest = objs[1:]
            return bool(rest) and all(
                o.get("record_type") == "state" or o.get("type") in ("message", "function_call", "reasoning",
                                                                      "function_call_output", "local_shell_call")
                for o in rest
            )
        return False

    def new_parser(self, path: str, state: dict[str, Any] | None = None) -> CodexParser:
        return CodexParser(path, state)


PROVIDER = CodexProvider()
