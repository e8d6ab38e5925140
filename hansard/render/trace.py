"""Text for `hansard trace`: what an export wrote and what an import kept. Plain lines, no
colour; the records themselves are JSON (`--json`, `--out`)."""

from __future__ import annotations

from typing import Any

TYPES = ("ai", "mixed", "human", "unknown")


def exported(commit: str, files: int, lines: dict[str, int], skipped: dict[str, str], written: str | None,
             merged: int | None = None, note: str | None = None) -> str:
    counts = ", ".join(f"{t} {lines[t]}" for t in TYPES if lines.get(t)) or "no lines of its own"
    out = f"{commit[:12]}  {files} file{'s' if files != 1 else ''}: {counts}"
    if merged is not None:
        out += f"  (a merge: what it changed against its first parent, {merged} commit{'s' if merged != 1 else ''}" \
               " brought in)"
    if note:
        out += f"\n  {note}"
    if skipped:
        out += f"  (no answer for {len(skipped)}: " + ", ".join(f"{p} [{c}]" for p, c in sorted(skipped.items())[:3]) + ")"
    if written:
        out += f"\n  wrote {written}"
    return out


def imported(summary: dict[str, Any]) -> str:
    lines = [f"Read {summary['records']} Agent Trace record(s) from {summary['files']} file(s): "
             f"{summary['added']} added, {summary['replaced']} replaced, {summary['unchanged']} unchanged "
             f"({summary['ranges']} line ranges)"]
    if summary["skipped"]:
        lines.append("skipped: " + ", ".join(f"{k} {v}" for k, v in summary["skipped"].items()))
        lines += [f"  {p}" for p in summary["problems"][:10]]
    return "\n".join(lines)
