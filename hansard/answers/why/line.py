"""One line's answer in `why`: what the engine decided for it, and its form in the JSON contract.

A line has a ``kind`` (agent, agent_modified, pasted, human, unknown, uncommitted) and the
``rule`` that decided it; a line that names a session also names the edit, tool call and
message that wrote it. Every field is a keyword: an answer is built by the rule that decides it.
"""

from __future__ import annotations

from typing import Any

_NO_TUPLE: tuple[str, ...] = ()


class LineAnswer:
    """Immutable; every field a keyword. A plain slotted class rather than a dataclass: the
    dataclasses module (with inspect) is a heavy import for a one-line `why`."""

    __slots__ = ("line", "content", "kind", "commit", "session_id", "provider", "message_index", "tool_call_id",
                 "rule", "confidence", "similarity", "later_sessions", "edit_id", "tool", "block", "alternatives",
                 "original_commit", "restoring_commit", "recorded", "disagrees_with", "edit_path")

    line: int
    content: str
    kind: str
    commit: str | None
    session_id: str | None
    provider: str | None
    message_index: int | None
    tool_call_id: str | None
    rule: str | None
    confidence: float
    similarity: float | None
    later_sessions: tuple[str, ...] | list[str]
    edit_id: int | None
    tool: str | None
    block: int | None
    alternatives: tuple[str, ...]
    original_commit: str | None
    restoring_commit: str | None
    # What another tool recorded about the line (hansard.answers.why.recorded), and the tools
    # whose record disagrees with this answer.
    recorded: dict[str, Any] | None
    disagrees_with: tuple[str, ...]
    # The path the edit wrote, when it is not the asked file's (its name before a rename, or a
    # file the line's commit deleted and moved the text from).
    edit_path: str | None

    def __init__(self, *, line: int, content: str, kind: str, commit: str | None = None, session_id: str | None = None,
                 provider: str | None = None, message_index: int | None = None, tool_call_id: str | None = None,
                 rule: str | None = None, confidence: float = 0.0, similarity: float | None = None,
                 later_sessions: tuple[str, ...] | list[str] = _NO_TUPLE, edit_id: int | None = None,
                 tool: str | None = None, block: int | None = None, alternatives: tuple[str, ...] = _NO_TUPLE,
                 original_commit: str | None = None, restoring_commit: str | None = None,
                 recorded: dict[str, Any] | None = None, disagrees_with: tuple[str, ...] = _NO_TUPLE,
                 edit_path: str | None = None) -> None:
        put = object.__setattr__
        put(self, "line", line)
        put(self, "content", content)
        put(self, "kind", kind)
        put(self, "commit", commit)
        put(self, "session_id", session_id)
        put(self, "provider", provider)
        put(self, "message_index", message_index)
        put(self, "tool_call_id", tool_call_id)
        put(self, "rule", rule)
        put(self, "confidence", confidence)
        put(self, "similarity", similarity)
        put(self, "later_sessions", later_sessions)
        put(self, "edit_id", edit_id)
        put(self, "tool", tool)
        put(self, "block", block)
        put(self, "alternatives", alternatives)
        put(self, "original_commit", original_commit)
        put(self, "restoring_commit", restoring_commit)
        put(self, "recorded", recorded)
        put(self, "disagrees_with", disagrees_with)
        put(self, "edit_path", edit_path)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"LineAnswer is immutable: use .replace({name}=...)")

    def _fields(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LineAnswer) and self._fields() == other._fields()

    def __hash__(self) -> int:  # as a frozen dataclass's: of every field (a dict's raises)
        return hash(tuple(self._fields().values()))

    def __repr__(self) -> str:
        return "LineAnswer(" + ", ".join(f"{k}={v!r}" for k, v in self._fields().items()) + ")"

    def replace(self, **changes: Any) -> LineAnswer:
        return LineAnswer(**{**self._fields(), **changes})

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "line": self.line, "content": self.content, "kind": self.kind, "session_id": self.session_id,
            "provider": self.provider, "message_index": self.message_index, "tool_call_id": self.tool_call_id,
            "commit": self.commit, "rule": self.rule, "confidence": round(self.confidence, 2),
        }
        if self.similarity is not None:
            d["similarity"] = round(self.similarity, 2)
        if self.later_sessions:
            d["later_sessions"] = list(self.later_sessions)
        if self.tool:
            d["tool"] = self.tool
        if self.block is not None:
            d["block"] = self.block
        if self.alternatives:
            d["alternatives"] = list(self.alternatives)
        if self.original_commit:
            d["original_commit"] = self.original_commit
            d["restoring_commit"] = self.restoring_commit
        if self.recorded is not None:
            d["recorded"] = self.recorded
        if self.disagrees_with:
            d["disagrees_with"] = list(self.disagrees_with)
        if self.edit_path:
            d["edit_path"] = self.edit_path
        return d
