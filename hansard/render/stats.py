"""`hansard stats` as text: the totals, the folder tree with counts and shares, the breakdowns
asked for with --by, the months, the agent lines alive by age and the funnel. Compact: one
line per row."""

from __future__ import annotations

from typing import Any

SHORT = {"agent": "agent", "agent_modified": "modified", "pasted": "pasted", "human": "human", "unknown": "unknown",
         "uncommitted": "uncommitted"}
# Folders deeper than this are folded into their parent's row in the text tree (--json has all).
TREE_DEPTH = 3
MAX_ROWS = 20


def _pct(n: int, total: int) -> str:
    return f"{100.0 * n / total:5.1f}%" if total else "    -"


def _split(row: dict[str, int]) -> str:
    total = row.get("lines", 0)
    agents = row.get("agent", 0) + row.get("agent_modified", 0)
    parts = [f"{row.get('lines', 0):>7,} lines", f"agents {_pct(agents, total)}"]
    parts += [f"{SHORT[k]} {row[k]:,}" for k in SHORT if row.get(k)]
    return "  ".join(parts)


def _tree(folders: dict[str, dict[str, int]], files: dict[str, dict[str, int]]) -> list[str]:
    out = []
    rows = {**{d: (r, True) for d, r in folders.items() if d}, **{f: (r, False) for f, r in files.items()}}
    for path in sorted(rows):
        row, is_dir = rows[path]
        depth = path.count("/")
        if depth >= TREE_DEPTH:
            continue
        name = path.rsplit("/", 1)[-1] + ("/" if is_dir else "")
        out.append(f"{'  ' * (depth + 1)}{name:<{max(1, 40 - 2 * depth)}} {_split(row)}")
    return out


def stats_text(r: dict[str, Any], by: tuple[str, ...] = ("agent",)) -> str:
    total = r["counted_lines"]
    k = r["kinds"]
    lines = [f"{r['repo']} at {r['rev'][:12]}" + (f" under {', '.join(r['paths'])}" if r["paths"] else "")]
    if r.get("since") or r.get("until"):
        lines.append(f"  lines whose commit was made from {r.get('since') or 'the start'} to {r.get('until') or 'now'}")
    share = _pct(k["agent"] + k["agent_modified"], total).strip()
    lines.append(f"  {total:,} lines in {len(r['files']):,} files; agents wrote {share}")
    lines.append("  " + "  ".join(f"{SHORT[name]} {k[name]:,} ({_pct(k[name], total).strip()})" for name in SHORT))
    if r["skipped"]["files"]:
        reasons = ", ".join(f"{n} {why}" for why, n in r["skipped"]["reasons"].items())
        lines.append(f"  skipped {r['skipped']['files']} files ({reasons})")
    if "dir" in by or not r.get("paths") or len(r["files"]) > 1:
        lines.append("folders")
        lines.append(f"  {'.':<40} {_split(r['folders'].get('', {'lines': 0}))}")
        lines += _tree(r["folders"], r["files"])
    for name, rows in (r.get("by") or {}).items():
        lines.append(f"by {name}")
        for i, (key, row) in enumerate(rows.items()):
            if i == MAX_ROWS:
                lines.append(f"  … {len(rows) - MAX_ROWS} more (--json has them all)")
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
