"""Agent Trace (github.com/cursor/agent-trace): the vendor-neutral JSON record of which
conversation wrote which line ranges of which files at a revision.

hansard writes such records from its own `why` answers (:mod:`hansard.trace.export`) and reads
the records other tools wrote as *recorded* evidence (:mod:`hansard.trace.read`, kept in the
store, shown by `why` beside hansard's own answer as ``recorded: {"by": "agent-trace", ...}``).
Both validate against the specification's own JSON schema, vendored with its licence in
``schema/`` (:mod:`hansard.trace.validate`).
"""

from __future__ import annotations

SPEC_VERSION = "0.1.0"  # the specification version hansard writes (its README's "Version")
BY = "agent-trace"  # as `recorded.by` names it in the why contract
# A conversation hansard wrote names its session as hansard://session/<id>; a message of it as
# hansard://session/<id>#message-<index> (the index `hansard show` and get_past_session use).
SESSION_URL = "hansard://session/"
MESSAGE_FRAGMENT = "#message-"

# The spec's contributor types, and the why kinds each stands for when read (hansard's own kinds
# are agent, agent_modified, pasted, human, unknown; see hansard.trace.export for the writing side).
KIND_OF_TYPE = {"ai": "agent", "mixed": "mixed", "human": "human", "unknown": "unknown"}


def session_url(session_id: str, message_index: int | None = None) -> str:
    from urllib.parse import quote

    url = SESSION_URL + quote(session_id, safe="-._~")
    return url if message_index is None else f"{url}{MESSAGE_FRAGMENT}{message_index}"


def session_of(url: str | None) -> str | None:
    """The session a hansard:// conversation url names; None for any other url."""
    if not url or not url.startswith(SESSION_URL):
        return None
    from urllib.parse import unquote

    sid = unquote(url[len(SESSION_URL):].split("#", 1)[0])
    return sid or None
