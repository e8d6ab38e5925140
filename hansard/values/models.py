"""Value types that flow from the provider parsers into the store.

Everything here is a frozen, pure value. Identity in the store (row ids, message_index)
is a storage concern: parsers never number messages, the store does, in arrival order,
so that one numbering serves every later tool.

A parser turns one raw transcript record (one JSONL line, or one whole legacy JSON file)
into zero or more *items*. Items are facts, each keyed by the provider's own ids so that the
same fact read twice (a resumed session replaying its prefix, a Codex rollout copied into a
continued file, a Gemini message re-appended after an update) is stored once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from hansard.text.diffs import Hunk

Role = Literal["user", "assistant", "tool", "system"]
# unreadable: the call changed the file (it was applied), but what it wrote was not recorded
# (Cursor edit calls as git-ai keeps them: the path alone). Such an edit adds no line; `why`
# makes the lines it could have written ``unknown``, never ``human``.
EditKind = Literal["create", "update", "delete", "move", "unreadable"]
# applied: the tool reported success and the change reached the file.
# rejected: the user refused it. failed: the tool errored. Neither is ever evidence.
EditStatus = Literal["applied", "rejected", "failed"]
ToolStatus = Literal["ok", "error", "rejected", "interrupted"]


@dataclass(frozen=True)
class RawRecord:
    """One unit read from a source file, kept verbatim in the archive.

    ``offset`` is the byte offset of the record in its file (0 for whole-file JSON).
    ``data`` is the exact bytes, without the trailing newline.
    """

    source_path: str
    offset: int
    data: bytes


@dataclass(frozen=True)
class SessionInfo:
    """Facts about a session. Later items merge into earlier ones: a non-None field wins,
    except ``title``, where ``title_rank`` decides (a user's custom title beats an AI one)."""

    session_id: str
    provider: str
    cwd: str | None = None
    started_at: str | None = None  # ISO-8601 UTC, as recorded
    title: str | None = None
    title_rank: int = 0  # 3 custom-title, 2 summary, 1 ai-title / first prompt
    parent_session_id: str | None = None  # subagents link to the session that spawned them
    agent_id: str | None = None
    spawn_call_id: str | None = None  # the parent's tool call that spawned this subagent
    git_branch: str | None = None
    git_commit: str | None = None  # HEAD when the session started, where recorded
    git_remote: str | None = None
    version: str | None = None  # the agent's own version string
    resumed_from: str | None = None  # session whose records this one replays or continues
    # Any other provider fact worth keeping (e.g. Codex originator); stored as JSON.
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MessageItem:
    """One normalised message. ``key`` is the provider's id for it (Claude uuid, Gemini id);
    where the provider has none, a hash of the record bytes. ``text`` is what a person
    would read; tool calls and results are separate items that point at their message."""

    session_id: str
    key: str
    role: Role
    text: str
    timestamp: str | None = None
    cwd: str | None = None
    # text | tool_use | tool_result | compaction_summary | meta | thinking | error | captured
    kind: str = "text"
    model: str | None = None
    # Revisions of one message (Gemini re-append, Claude split lines) share a key;
    # replace=True means this item supersedes the stored text (Gemini: last one wins).
    replace: bool = False


@dataclass(frozen=True)
class ToolCallItem:
    """A tool invocation. ``message_key`` is the MessageItem that holds it."""

    session_id: str
    call_id: str
    name: str
    input: dict[str, Any]
    message_key: str
    timestamp: str | None = None
    cwd: str | None = None


@dataclass(frozen=True)
class ToolResultItem:
    """The outcome of a tool call. ``exit_code`` for shell-like tools where the output states it."""

    session_id: str
    call_id: str
    status: ToolStatus
    output: str
    exit_code: int | None = None
    message_key: str | None = None
    timestamp: str | None = None


@dataclass(frozen=True)
class EditItem:
    """One file changed (or attempted) by one tool call.

    ``path`` is the path as the transcript names it (absolute, or relative to ``cwd``).
    ``added`` / ``removed`` are the lines the edit added and removed, in order, whether or
    not hunks with line numbers are known. ``before`` / ``after`` hold whole-file text when
    the transcript carries it. Only status 'applied' is ever used as evidence.
    """

    session_id: str
    call_id: str
    tool: str
    path: str
    cwd: str | None
    kind: EditKind
    status: EditStatus
    timestamp: str | None = None
    message_key: str | None = None
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    hunks: tuple[Hunk, ...] = ()
    before: str | None = None
    after: str | None = None
    move_to: str | None = None
    # An edit the user changed before accepting (Claude userModified): applied, but the
    # text is the user's as much as the agent's.
    user_modified: bool = False
    seq: int = 0  # several files (or MultiEdit parts) under one call_id


@dataclass(frozen=True)
class StepsItem:
    """A full snapshot of a task list (TodoWrite, update_plan, write_todos) or one task
    change (TaskCreate/TaskUpdate). ``steps`` are dicts with at least ``text`` and
    ``status`` in pending|in_progress|completed|cancelled and, for tasks, ``id``."""

    session_id: str
    call_id: str
    snapshot: bool
    steps: tuple[dict[str, Any], ...]
    timestamp: str | None = None


@dataclass(frozen=True)
class LeafTitle:
    """Claude ``summary`` record: a title for the session that holds message ``leaf_uuid``,
    usually another session's file. ``session_id`` is the session of the file it was read in,
    when known, which links the two conversations (a continuation)."""

    leaf_uuid: str
    title: str
    session_id: str | None = None


@dataclass(frozen=True)
class Rewind:
    """Gemini ``$rewindTo``: drop this message and everything after it in the session."""

    session_id: str
    message_key: str


@dataclass(frozen=True)
class Skip:
    """A record that could not be used, with a short machine-readable reason."""

    reason: str
    offset: int = 0
    detail: str = ""


Item = (
    SessionInfo | MessageItem | ToolCallItem | ToolResultItem | EditItem | StepsItem | LeafTitle | Rewind | Skip
)
