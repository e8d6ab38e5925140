"""`hansard stats` as text: the totals, the tree of each path asked (the repository's root by
default) with counts and shares, the breakdowns asked for with --by, the months, the agent lines
alive by age and the funnel. Compact: one line per row; every count is a total, and a folder
shown closed still counts everything under it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SHORT = {"agent": "agent", "agent_modified": "modified", "pasted": "pasted", "human": "human", "unknown": "unknown",
         "uncommitted": "uncommitted"}
# Rows of the text tree, about: without --depth, the largest folders are opened first while
# their entries fit (--json has the whole tree).
ROWS = 60
MIN_OPEN = 8  # a folder opened in part shows at least this many of its largest entries
MAX_ROWS = 20


def _pct(n: int, total: int) -> str:
    return f"{100.0 * n / total:5.1f}%" if total else "    -"


def _split(row: dict[str, int]) -> str:
    total = row.get("lines", 0)
    agents = row.get("agent", 0) + row.get("agent_modified", 0)
    parts = [f"{total:>7,} {'line ' if total == 1 else 'lines'}", f"agents {_pct(agents, total)}"]
    parts += [f"{SHORT[k]} {row[k]:,}" for k in SHORT if row.get(k)]
    return "  ".join(parts)


def _collapsed(node: dict[str, Any]) -> dict[str, Any]:
    """The node with each folder that holds one folder and nothing else folded into that folder
    (``cmd/`` holding only ``entire/`` is one row, ``cmd/entire/``): the same counts, fewer rows."""
    if "children" not in node:
        return node
    kids = []
    for k in node["children"]:
        k = _collapsed(k)
        while k["type"] == "dir" and len(k.get("children") or ()) == 1 and k["children"][0]["type"] == "dir":
            inner = k["children"][0]
            k = {**inner, "name": f"{k['name']}/{inner['name']}"}
        kids.append(k)
    return {**node, "children": kids}


def _opened(root: dict[str, Any], depth: int | None) -> dict[int, int | None]:
    """The folders whose rows are followed by their entries, each with how many of its entries
    are shown (None: all). With a depth, every folder the tree holds children of, whole. Without
    one, from the root, the largest folder first: whole while its entries fit in about ``ROWS``
    rows; the first that does not fit shows its largest entries in the rows left (at least
    ``MIN_OPEN``) and one row for the rest, and no folder opens after it."""
    if depth is not None:
        out: dict[int, int | None] = {}
        todo = [root]
        while todo:
            n = todo.pop()
            if n.get("children"):
                out[id(n)] = None
                todo.extend(n["children"])
        return out
    kids = root.get("children") or ()
    if len(kids) > ROWS:
        return {id(root): ROWS - 1}
    opened: dict[int, int | None] = {id(root): None}
    rows = 1 + len(kids)
    while True:
        shown = [k for n in _walk(root, opened) if id(n) in opened for k in n.get("children") or ()]
        closed = sorted((k for k in shown if k.get("children") and id(k) not in opened), key=lambda k: -k["lines"])
        if not closed:
            return opened
        pick = closed[0]
        entries = len(pick["children"])
        if rows + entries <= ROWS:
            opened[id(pick)] = None
            rows += entries
            continue
        if ROWS - rows - 1 >= MIN_OPEN:
            opened[id(pick)] = ROWS - rows - 1
        return opened


def _walk(node: dict[str, Any], opened: dict[int, int | None]) -> list[dict[str, Any]]:
    """The node and, below each opened folder, its entries, in the order they print."""
    out = [node]
    if id(node) in opened:
        for k in _shown(node, opened[id(node)])[0]:
            out += _walk(k, opened)
    return out


def _shown(node: dict[str, Any], limit: int | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the entries shown, in their order, the rest): all, or the ``limit`` largest."""
    kids = list(node.get("children") or ())
    if limit is None or len(kids) <= limit:
        return kids, []
    keep = {id(k) for k in sorted(kids, key=lambda k: -k["lines"])[:limit]}
    return [k for k in kids if id(k) in keep], [k for k in kids if id(k) not in keep]


def _tree(root: dict[str, Any], depth: int | None) -> tuple[list[str], int]:
    """The rows of one asked path's tree, and how many folders were left closed."""
    root = _collapsed(root)
    opened = _opened(root, depth)
    out, closed = [], 0
    label = "." if not root["path"] else root["path"] + ("/" if root["type"] == "dir" else "")
    out.append(f"  {label:<40} {_split(root)}")

    def rows(node: dict[str, Any], level: int) -> None:
        nonlocal closed
        shown, rest = _shown(node, opened[id(node)])
        for k in shown:
            name = k["name"] + ("/" if k["type"] == "dir" else "")
            out.append(f"{'  ' * (level + 1)}{name:<{max(1, 40 - 2 * level)}} {_split(k)}")
            if id(k) in opened:
                rows(k, level + 1)
            elif k["type"] == "dir":
                closed += 1
        if rest:
            total: dict[str, int] = {}
            for k in rest:
                for key in (*SHORT, "lines"):
                    total[key] = total.get(key, 0) + k.get(key, 0)
            n_dirs = sum(k["type"] == "dir" for k in rest)
            closed += n_dirs
            what = ", ".join(x for x in (f"{n_dirs} folder{'s' if n_dirs != 1 else ''}" if n_dirs else "",
                                         f"{len(rest) - n_dirs} file{'s' if len(rest) - n_dirs != 1 else ''}"
                                         if len(rest) - n_dirs else "") if x)
            label = f"… {what} more"
            out.append(f"{'  ' * (level + 1)}{label:<{max(1, 40 - 2 * level)}} {_split(total)}")

    if id(root) in opened:
        rows(root, 1)
    return out, closed


def stats_text(r: Mapping[str, Any], by: tuple[str, ...] = ("agent",), depth: int | None = None) -> str:
    """The stats as text; ``depth``: the tree was asked for that many levels down (else the
    largest folders are opened first, in about ``ROWS`` rows)."""
    total = r["counted_lines"]
    k = r["kinds"]
    lines = [f"{r['repo']} at {r['rev'][:12]}" + (f" under {', '.join(r['paths'])}" if r["paths"] else "")]
    if r.get("since") or r.get("until"):
        lines.append(f"  lines whose commit was made from {r.get('since') or 'the start'} to {r.get('until') or 'now'}")
    share = _pct(k["agent"] + k["agent_modified"], total).strip()
    files = r.get("file_count", len(r["files"]))
    lines.append(f"  {total:,} lines in {files:,} file{'' if files == 1 else 's'}; agents wrote {share}")
    lines.append("  " + "  ".join(f"{SHORT[name]} {k[name]:,} ({_pct(k[name], total).strip()})" for name in SHORT))
    if r["skipped"]["files"]:
        reasons = ", ".join(f"{n} {why}" for why, n in r["skipped"]["reasons"].items())
        lines.append(f"  skipped {r['skipped']['files']} files ({reasons})")
    trees = [t for t in r.get("tree") or () if t["type"] == "dir"]
    if trees and ("dir" in by or not r.get("paths") or r.get("file_count", len(r["files"])) > 1):
        lines.append("folders")
        closed = 0
        for t in trees:
            rows, shut = _tree(t, depth)
            lines += rows
            closed += shut
        if closed:
            lines.append(f"  ({closed} folder{'s' if closed != 1 else ''} shown closed: `hansard stats FOLDER` opens one,"
                         " `--depth N` opens every folder N levels down)")
    for name, rows in (r.get("by") or {}).items():
        lines.append(f"by {name}")
        for i, (key, row) in enumerate(rows.items()):
            if i == MAX_ROWS:
                rest = list(rows.values())[MAX_ROWS:]
                summed = {k: sum(r.get(k, 0) for r in rest) for k in (*SHORT, "lines")}
                lines.append(f"  {f'… {len(rest):,} more':<40} {_split(summed)}")
                lines.append(f"  (showing {MAX_ROWS} of {len(rows):,} {name} rows; --json has them all)")
                break
            label = key if name != "session" else f"{row.get('provider') or ''} {key[:13]} {row.get('title') or ''}"
            lines.append(f"  {label.strip()[:40]:<40} {_split(row)}")
    if r["months"] and ("month" in by or len(r["months"]) > 1):
        lines.append("lines alive at the revision, by the month of their commit (UTC)")
        for month, m in r["months"].items():
            n = m["agents"] + m["people"] + m["unknown"]
            lines.append(f"  {month}  agents {m['agents']:>7,}  people {m['people']:>7,}  unknown {m['unknown']:>6,}"
                         f"  agents {_pct(m['agents'], n)}")
    ages = r["alive_by_age"]
    lines.append("agent lines alive at the revision, by their commit's age: "
                 + "  ".join(f"{b} {n:,}" for b, n in ages.items()))
    dur = r.get("durability") or {}
    parts = []
    for days in ("7d", "30d", "90d"):
        d = dur.get(days)
        if d and d["added"]:
            parts.append(f"≥{days}: {d['alive']:,} alive of {d['added']:,} added ({_pct(d['alive'], d['added']).strip()})")
    if parts:
        lines.append("agent lines alive per line agents' edits added that long ago: " + "  ".join(parts))
    f = r["funnel"]
    lines.append(f"funnel  sessions {f['sessions']:,} → commits {f['commits']:,} → lines their edits added "
                 f"{f['lines_added']:,} → agent lines alive {f['lines_alive']:,}")
    c = r["cache"]
    lines.append(f"({c['answered']} files answered, {c['remembered']} remembered, {r['seconds']:.2f} s)")
    return "\n".join(lines)
