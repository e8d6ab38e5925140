"""One line's answer in `why`: what the engine decided for it, and its form in the JSON contract.

A line has a ``kind`` (agent, agent_modified, pasted, human, unknown, uncommitted) and the
``rule`` that decided it; a line that names a session also names the edit, tool call and
message that wrote it. Every field is a keyword: an answer is built by the rule that decides it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

_NO_TUPLE: tuple[str, ...] = ()


class LineAnswer(NamedTuple):
    """Immutable; built by keyword. A tuple with named fields rather than a dataclass (the
    dataclasses module, with inspect, is a heavy import for a one-line `why`) or a slotted
    class (setting each slot of an immutable one costs a call: a file's answer builds one of
    these a line). It equals another LineAnswer alone, never a plain tuple."""

    line: int
    content: str
    kind: str
    commit: str | None = None
    session_id: str | None = None
    provider: str | None = None
    message_index: int | None = None
    tool_call_id: str | None = None
    rule: str | None = None
    confidence: float = 0.0
    similarity: float | None = None
    later_sessions: tuple[str, ...] | list[str] = _NO_TUPLE
    edit_id: int | None = None
    tool: str | None = None
    block: int | None = None
    alternatives: tuple[str, ...] = _NO_TUPLE
    original_commit: str | None = None
    restoring_commit: str | None = None
    # What another tool recorded about the line (hansard.answers.why.recorded), and the tools
    # whose record disagrees with this answer.
    recorded: dict[str, Any] | None = None
    disagrees_with: tuple[str, ...] = _NO_TUPLE
    # The path the edit wrote, when it is not the asked file's (its name before a rename, or a
    # file the line's commit deleted and moved the text from).
    edit_path: str | None = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LineAnswer) and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:  # of every field (a dict's raises)
        return tuple.__hash__(self)

    def replace(self, **changes: Any) -> LineAnswer:
        return self._replace(**changes)

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
