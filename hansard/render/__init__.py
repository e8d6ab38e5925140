"""Text renderers for the CLI: plain dicts in, strings out; they never query."""

from __future__ import annotations

from typing import Any


def whose(row: Any) -> str:
    """"alice's " before a teammate's session (a row of hansard team with ``member``, named by
    ``member_name`` when known), else nothing."""
    return f"{row.get('member_name') or row['member']}'s " if row.get("member") else ""


def provenance(source: Any) -> str | None:
    """Where a session was read (hansard.agents.origin.source_of), for people; None for this
    machine's own sessions, which is what an answer names unless it says otherwise."""
    if not source:
        return None
    kind = source.get("kind")
    if kind == "member":
        mine = provenance(source.get("origin"))
        who = source.get("member_name") or source.get("member")
        return f"{who}'s push to the team store" + (f", who read it from {mine}" if mine else "")
    if kind == "repository":
        ref = str(source.get("ref") or "refs")
        for prefix in ("refs/heads/", "refs/remotes/"):
            if ref.startswith(prefix):
                ref = ref[len(prefix):]
        return f"the repository's {ref} (what the repository carries, not this machine's record)"
    if kind == "repository_file":
        return f"{source.get('path')} in the repository (what the repository carries, not this machine's record)"
    if kind == "import":
        return f"an import of {source.get('path')}"
    return None


def source_label(source: Any) -> str | None:
    """A few words for a list: where a session was read, when not this machine's agent home."""
    kind = (source or {}).get("kind")
    if kind == "member":
        return f"team: {source.get('member_name') or source.get('member')}"
    return {"repository": "from the repository's refs", "repository_file": "from a file in the repository",
            "import": "imported"}.get(kind or "")
