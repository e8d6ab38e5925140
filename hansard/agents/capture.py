"""Deliveries between agents that an agent reported through `capture_subagent_messages`.

Codex's native subagents do not always leave their assignments, follow-ups and results in a
transcript, so the receiving agent can record each delivery. Captures are archived like any
transcript record (source ``capture://<session_id>``, one JSON record each) and parsed by this
provider into a companion session ``<session_id>/captured`` whose parent is the capturing
session. They are agent-reported evidence, never an independent observation: every message
says so in its kind (``captured``). A companion session, rather than messages appended to the
capturing session, keeps that session's message_index numbering exactly as its transcript
gives it, before and after a reindex.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hansard.agents.base import load_json
from hansard.values.models import Item, MessageItem, RawRecord, Role, SessionInfo, Skip

SCHEME = "capture://"
ROLES: dict[str, Role] = {"assignment": "user", "follow_up": "user", "result": "assistant"}


def companion_id(session_id: str) -> str:
    return f"{session_id}/captured"


class CaptureParser:
    def __init__(self, path: str, state: dict[str, Any] | None) -> None:
        self.session = path[len(SCHEME):] if path.startswith(SCHEME) else path
        self.announced = bool(state and state.get("announced"))

    def feed(self, record: RawRecord) -> list[Item]:
        obj, skip = load_json(record)
        if skip is not None:
            return [skip]
        if not isinstance(obj, dict) or obj.get("message_type") not in ROLES or not isinstance(obj.get("text"), str):
            return [Skip("bad_capture", record.offset)]
        sid = companion_id(self.session)
        items: list[Item] = []
        if not self.announced:
            self.announced = True
            items.append(SessionInfo(sid, "capture", title=f"Deliveries captured by {self.session}",
                                     title_rank=3, parent_session_id=self.session, started_at=obj.get("captured_at"),
                                     extra={"agent_reported": True}))
        head = f"[{obj['message_type']}] from {obj.get('sender') or '?'} to {obj.get('recipient_path') or '?'}"
        items.append(MessageItem(sid, obj["id"], ROLES[obj["message_type"]], head + "\n" + obj["text"],
                                 timestamp=obj.get("captured_at"), kind="captured"))
        return items

    def finish(self) -> list[Item]:
        return []

    def state(self) -> dict[str, Any]:
        return {"announced": self.announced}


class CaptureProvider:
    name = "capture"
    whole_file = False

    def sniff(self, path: Path, head: bytes) -> bool:
        return False  # captures are never discovered on disk; the capture tool writes them

    def new_parser(self, path: str, state: dict[str, Any] | None = None) -> CaptureParser:
        return CaptureParser(path, state)


PROVIDER = CaptureProvider()
