"""What a commit's agent trailers say: which agents co-wrote it and which Claude Code web
session made it, from the ``%(trailers:…)`` field of :data:`hansard.agents.trailers.FORMAT`.

``CO_AUTHORS`` is data: one row per identity an agent signs commits with, as found in public
commits and agents' own documentation (Claude Code signs ``Claude … <noreply@anthropic.com>``,
Codex ``Codex <noreply@openai.com>`` or ``<codex@openai.com>``, GitHub's Copilot agent
``Copilot <N+Copilot@users.noreply.github.com>``, Cursor ``Cursor Agent
<cursoragent@cursor.com>``, Gemini ``Gemini … <noreply@google.com>`` and its review bot,
Aider ``aider (MODEL) <noreply@aider.chat>``, qwen-code ``Qwen-Coder
<qwen-coder@alibabacloud.com>``). Agent names are hansard's provider names where hansard
reads that agent. A person's own ``Co-authored-by:`` matches no row and is left out.

Parsing never raises and never guesses: a line that matches no row names no agent, and a
``Claude-Session:`` value that is not a claude.ai session link or id names no session.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple


class CoAuthor(NamedTuple):
    agent: str
    email: str | None = None  # a regular expression the whole address must match (any case)
    name: str | None = None  # a regular expression the name must match from its start (any case)


CO_AUTHORS: tuple[CoAuthor, ...] = (
    CoAuthor("claude_code", email=r"noreply@anthropic\.com", name=r"claude\b"),
    CoAuthor("codex", email=r"noreply@openai\.com", name=r"(openai )?codex\b"),
    CoAuthor("codex", email=r"codex@openai\.com"),
    CoAuthor("codex", email=r"codex@users\.noreply\.github\.com"),
    CoAuthor("codex", name=r"chatgpt-codex-connector\[bot\]"),
    CoAuthor("copilot", email=r"\d+\+copilot@users\.noreply\.github\.com"),
    CoAuthor("copilot", email=r"copilot@github\.com"),
    CoAuthor("cursor", email=r"cursoragent@cursor\.com"),
    CoAuthor("gemini", email=r"noreply@google\.com", name=r"gemini\b"),
    CoAuthor("gemini", name=r"gemini-code-assist(\[bot\])?"),
    CoAuthor("aider", email=r"(noreply|aider)@aider\.chat"),
    CoAuthor("qwen_code", email=r"qwen-coder@alibabacloud\.com"),
    CoAuthor("devin", name=r"devin-ai-integration\[bot\]"),
)

_PERSON = re.compile(r"^\s*(.*?)\s*<([^<>\s]+)>\s*$")
_SESSION = re.compile(r"^(?:https://claude\.ai/code/)?(session_[A-Za-z0-9]{8,64})/?$")
_AIDER_MODEL = re.compile(r"^aider \(([^()]{1,120})\)$", re.I)
_CLAUDE_MODEL = re.compile(r"^(claude [^<>]{1,80})$", re.I)


class Trailers(NamedTuple):
    """One commit's agent trailers: agents (first named first, once each), what each signed
    as, and the Claude Code web sessions named."""

    agents: tuple[str, ...]
    names: tuple[str, ...]
    sessions: tuple[str, ...]
    models: tuple[str, ...]

    def recorded(self, sha: str) -> dict[str, Any]:
        """The ``recorded`` object `why` shows on a line of the commit (see the package doc)."""
        rec: dict[str, Any] = {"by": "trailer", "kind": "commit", "agent": self.agents[0], "commit": sha}
        if len(self.agents) > 1:
            rec["agents"] = list(self.agents)
        if self.names:
            rec["co_authored_by"] = list(self.names)
        if self.models:
            rec["model"] = self.models[0]
        if self.sessions:
            rec["session_url"] = "https://claude.ai/code/" + self.sessions[0]
        return rec


def agent_of(value: str) -> tuple[str, str, str | None] | None:
    """(agent, name signed, model) of one ``Co-authored-by:`` value; None for a person."""
    m = _PERSON.match(value)
    if m is None:
        name, email = value.strip(), ""
    else:
        name, email = m.group(1).strip().strip('"'), m.group(2)
    for row in CO_AUTHORS:
        if row.email is not None and not re.fullmatch(row.email, email, re.I):
            continue
        if row.name is not None and not re.match(row.name, name, re.I):
            continue
        model = None
        if row.agent == "aider":
            am = _AIDER_MODEL.match(name)
            model = am.group(1) if am else None
        elif row.agent == "claude_code" and _CLAUDE_MODEL.match(name) and name.lower() != "claude":
            model = name
        return row.agent, name[:200], model
    return None


def parse(field: str) -> Trailers | None:
    """The agent trailers in one ``%(trailers:…)`` field (``Key: value`` pairs separated by RS);
    None when none names an agent. Never raises."""
    if not field:
        return None
    agents: list[str] = []
    names: list[str] = []
    sessions: list[str] = []
    models: list[str] = []
    for pair in field.split("\x1e"):
        key, sep, value = pair.partition(":")
        if not sep:
            continue
        key, value = key.strip().lower(), value.strip()
        if key == "claude-session":
            m = _SESSION.match(value)
            if m is not None:
                sessions.append(m.group(1))
                agents.append("claude_code")
        elif key == "co-authored-by":
            got = agent_of(value)
            if got is not None:
                agents.append(got[0])
                names.append(got[1])
                if got[2]:
                    models.append(got[2])
    if not agents:
        return None
    return Trailers(tuple(dict.fromkeys(agents)), tuple(dict.fromkeys(names)), tuple(dict.fromkeys(sessions)),
                    tuple(dict.fromkeys(models)))
