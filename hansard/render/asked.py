"""The request behind an edit, as the `why` contract carries it (``sessions[id]["asked"]``,
``"prompts"``, ``"first_request"``: hansard.answers.asked decides them), read for display.

Always true of ``asked_text``: ``request`` is a prompt's text with its message index, or the
session's title (no index, ``fallback == "title"``), or None when the session has neither;
``then`` is the last user turn before the edit only when it is another message than the
request (an acknowledgement, a menu choice), else None; ``first`` is the session's first request
when the session has no title to say what it was about and that request is not ``request``.
Nothing here reads a store.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple


class Asked(NamedTuple):
    """What a reader shows for one edit: the request (its text and message index; the title,
    with no index, where the session has no request), and the last user turn after it when that
    is another message (an acknowledgement, a menu choice)."""

    request: str | None
    request_index: int | None
    then: str | None
    then_index: int | None
    fallback: str | None  # None, "first_request" or "title"
    first: str | None = None  # the session's first request, when it has no title and it is another message
    first_index: int | None = None


def asked_text(session: Mapping[str, Any], message_index: int | None) -> Asked:
    """``Asked`` for an edit of ``session`` (an entry of the `why` contract's ``sessions``) at
    ``message_index`` (the session's first request for an edit with no message index). An
    answer without ``asked`` (a teammate's older hansard, say) gives the newest prompt at or
    before the edit, as such answers always did."""
    prompts = session.get("prompts") or {}
    if "asked" not in session:
        best: tuple[int, str] | None = None
        for idx, text in prompts.items():
            i = int(idx)
            if message_index is not None and i <= message_index and (best is None or i > best[0]):
                best = (i, text)
        if best is None:
            return Asked(session.get("prompt"), None, None, None, None)
        return Asked(best[1], best[0], None, None, None)
    a = session["asked"].get(str(message_index)) or {"request": session.get("first_request"), "turn": None,
                                                     "fallback": "first_request"}
    ri, ti = a.get("request"), a.get("turn")
    request = prompts.get(str(ri)) if ri is not None else None
    then = prompts.get(str(ti)) if ti is not None and ti != ri else None
    if request is None:
        return Asked(session.get("title"), None, then, ti if then is not None else None, "title")
    fi = session.get("first_request")
    first = prompts.get(str(fi)) if fi is not None and fi != ri and not session.get("title") else None
    return Asked(request, ri, then, ti if then is not None else None, a.get("fallback"), first,
                 fi if first is not None else None)
