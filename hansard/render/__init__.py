"""Text renderers for the CLI: plain dicts in, strings out; they never query."""

from __future__ import annotations

from typing import Any


def teammate(row: Any) -> str:
    """A teammate as the database owner registered them: ``member`` is the email of their
    login role (the server refuses a member row with any other), so it names them. The name a
    member gives themselves (``member_name``: git's user.name, or whatever their config says)
    only follows in brackets: anyone can call themselves "Alice Example"."""
    name = " ".join(str(row.get("member_name") or "").split())
    return f"{row['member']} ({name})" if name and name != row["member"] else str(row["member"])


def whose(row: Any) -> str:
    """"alice@example.com (Alice)'s " before a teammate's session (a row of hansard team with
    ``member``, see ``teammate``), else nothing."""
    return f"{teammate(row)}'s " if row.get("member") else ""


def provenance(source: Any) -> str | None:
    """Where a session was read (hansard.agents.origin.source_of), for people; None for this
    machine's own sessions, which is what an answer names unless it says otherwise."""
    if not source:
        return None
    kind = source.get("kind")
    if kind == "member":  # the session is named as the teammate's already (``whose``)
        mine = provenance(source.get("origin"))
        return f"{teammate(source)}'s push to the team store, who read it from {mine}" if mine else None
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
        return f"team: {teammate(source)}"
    return {"repository": "from the repository's refs", "repository_file": "from a file in the repository",
            "import": "imported"}.get(kind or "")
