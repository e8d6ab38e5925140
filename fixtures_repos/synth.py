"""Small synthetic Claude Code transcripts, in the real on-disk format, for tests and the
search scripts (``scripts/eval_search.py``, ``scripts/bench_search.py``)."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Transcript:
    session_id: str
    cwd: str = "/tmp/project"
    start: str = "2026-03-01T10:00:00"  # UTC, seconds precision
    lines: list[dict[str, Any]] = field(default_factory=list)
    _t: int = 0
    _parent: str | None = None

    def _ts(self) -> str:
        import datetime as dt

        self._t += 7
        t = dt.datetime.fromisoformat(self.start) + dt.timedelta(seconds=self._t)
        return t.strftime("%Y-%m-%dT%H:%M:%S.000Z")

    def _rec(self, typ: str, message: dict[str, Any], **extra: Any) -> str:
        u = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.session_id}/{len(self.lines)}"))
        rec = {"parentUuid": self._parent, "isSidechain": False, "userType": "external", "cwd": self.cwd,
               "sessionId": self.session_id, "version": "2.1.0", "gitBranch": "main", "type": typ,
               "message": message, "uuid": u, "timestamp": extra.pop("timestamp", None) or self._ts(), **extra}
        self.lines.append(rec)
        self._parent = u
        return u

    def user(self, text: str, **kw: Any) -> str:
        return self._rec("user", {"role": "user", "content": text}, **kw)

    def assistant(self, text: str, **kw: Any) -> str:
        return self._rec("assistant", {"role": "assistant", "model": "claude-test", "type": "message",
                                       "content": [{"type": "text", "text": text}]}, **kw)

    def tool(self, name: str, input: dict[str, Any], output: str, call_id: str | None = None) -> str:  # noqa: A002
        cid = call_id or "toolu_" + uuid.uuid5(uuid.NAMESPACE_URL, f"{self.session_id}/c{len(self.lines)}").hex[:20]
        self._rec("assistant", {"role": "assistant", "model": "claude-test", "type": "message",
                                "content": [{"type": "tool_use", "id": cid, "name": name, "input": input}]})
        self._rec("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": cid, "content": output}]},
                  toolUseResult={"stdout": output, "stderr": "", "interrupted": False})
        return cid

    def write(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        p = folder / f"{self.session_id}.jsonl"
        p.write_text("".join(json.dumps(r) + "\n" for r in self.lines))
        return p
