"""One line's answer in `why`: what the engine decided for it, and its form in the JSON contract.

A line has a ``kind`` (agent, agent_modified, pasted, human, unknown, uncommitted) and the
``rule`` that decided it; a line that names a session also names the edit, tool call and
message that wrote it. Every field is a keyword: an answer is built by the rule that decides it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True, slots=True, kw_only=True)
class LineAnswer:
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
    later_sessions: tuple[str, ...] | list[str] = ()
    edit_id: int | None = None
    tool: str | None = None
    block: int | None = None
    alternatives: tuple[str, ...] = ()
    original_commit: str | None = None
    restoring_commit: str | None = None
    # What another tool recorded about the line (hansard.answers.why.recorded), and the tools
    # whose record disagrees with this answer.
    recorded: dict[str, Any] | None = None
    disagrees_with: tuple[str, ...] = ()

    def replace(self, **changes: Any) -> LineAnswer:
        return replace(self, **changes)

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
        return d
