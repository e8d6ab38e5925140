"""Text renderers for the CLI: plain dicts in, strings out; they never query."""

from __future__ import annotations

from typing import Any


def whose(row: Any) -> str:
    """"alice's " before a teammate's session (a row of hansard team with ``member``, named by
    ``member_name`` when known), else nothing."""
    return f"{row.get('member_name') or row['member']}'s " if row.get("member") else ""
