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
