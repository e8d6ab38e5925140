"""The repository page's charts as SVG, drawn on the server from `hansard stats`' answer.

Always true: a chart is inline SVG with a ``<title>`` and a text legend (never colour alone:
every bar carries its numbers in a ``<title>`` and its share as text), colours come from CSS
classes, and every name (a folder, a month) is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hansard.web.html import Markup, join

KIND_ORDER = ("agent", "agent_modified", "pasted", "human", "unknown", "uncommitted")
KIND_LABEL = {"agent": "agent", "agent_modified": "agent, modified", "pasted": "pasted", "human": "people",
              "unknown": "unknown", "uncommitted": "uncommitted"}
MAX_FOLDERS = 12


def _pct(n: int, total: int) -> str:
    return f"{100.0 * n / total:.0f}%" if total else "–"


def legend(names: list[tuple[str, str]]) -> Markup:
    return Markup('<ul class="legend">{}</ul>').format(join(
        Markup('<li><span class="sw k-{}"></span>{}</li>').format(cls, label) for cls, label in names))


def months(stats: Mapping[str, Any]) -> Markup:
    """Lines alive at the revision by the month of their commit: agents, people, unknown, with
    the agents' share above each bar."""
    rows = list((stats.get("months") or {}).items())[-24:]
    if not rows:
        return Markup('<p class="empty">No committed lines to count.</p>')
    w, h, top, bottom, left = 640, 220, 24, 36, 44
    n = len(rows)
    slot = (w - left - 8) / n
    bar = max(4.0, min(36.0, slot * 0.7))
    peak = max(m["agents"] + m["people"] + m["unknown"] for _, m in rows) or 1
    scale = (h - top - bottom) / peak
    parts: list[Markup] = []
    for i, (month, m) in enumerate(rows):
        x = left + i * slot + (slot - bar) / 2
        y = h - bottom
        total = m["agents"] + m["people"] + m["unknown"]
        for key, cls in (("agents", "agent"), ("people", "human"), ("unknown", "unknown")):
            hh = m[key] * scale
            if hh <= 0:
                continue
            y -= hh
            parts.append(Markup('<rect class="k-{}" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}">'
                                '<title>{}: {} {:,} of {:,} lines</title></rect>').format(
                cls, x, y, bar, hh, month, key, m[key], total))
        parts.append(Markup('<text class="share" x="{:.1f}" y="{:.1f}" text-anchor="middle">{}</text>').format(
            x + bar / 2, y - 4, _pct(m["agents"], total)))
        if n <= 12 or i % max(1, n // 12) == 0:
            parts.append(Markup('<text class="axis" x="{:.1f}" y="{}" text-anchor="middle">{}</text>').format(
                x + bar / 2, h - bottom + 16, month))
    parts.append(Markup('<text class="axis" x="4" y="{}">{:,}</text>').format(top, peak))
    parts.append(Markup('<line class="base" x1="{}" x2="{}" y1="{}" y2="{}"/>').format(left, w - 4, h - bottom,
                                                                                          h - bottom))
    svg = Markup('<svg class="chart" viewBox="0 0 {} {}" role="img" aria-labelledby="ch-months">'
                 '<title id="ch-months">Lines alive now, by the month of their commit: agents, people, unknown '
                 '(percent: agents\' share)</title>{}</svg>').format(w, h, join(parts))
    return svg + legend([("agent", "agents"), ("human", "people"), ("unknown", "unknown")])


def folders(stats: Mapping[str, Any]) -> Markup:
    """The folders of the path counted (the repository's top-level ones by default; and the
    files directly in it, as one row) by kind, agents' share as text."""
    rows: list[tuple[str, dict[str, int]]] = []
    here: dict[str, int] = {}
    trees = stats.get("tree") or []
    for node in (trees[0].get("children") or []) if len(trees) == 1 else trees:
        if node["type"] == "dir":
            rows.append((node["name"] + "/", node))
        else:
            for k in (*KIND_ORDER, "lines"):
                here[k] = here.get(k, 0) + node.get(k, 0)
    if here:
        rows.append(("(files here)" if stats.get("paths") else "(files at the root)", here))
    rows.sort(key=lambda r: -r[1].get("lines", 0))
    rows = rows[:MAX_FOLDERS]
    if not rows:
        return Markup('<p class="empty">No folders to count.</p>')
    w, rh, label_w = 640, 24, 190
    h = rh * len(rows) + 8
    peak = max(r.get("lines", 0) for _, r in rows) or 1
    span = w - label_w - 100
    parts: list[Markup] = []
    for i, (name, row) in enumerate(rows):
        y = 4 + i * rh
        total = row.get("lines", 0)
        parts.append(Markup('<text class="axis" x="{}" y="{}" text-anchor="end">{}</text>').format(
            label_w - 6, y + 15, name if len(name) <= 28 else "…" + name[-27:]))
        x = float(label_w)
        for k in KIND_ORDER:
            n = row.get(k, 0)
            if not n:
                continue
            ww = n / peak * span
            parts.append(Markup('<rect class="k-{}" x="{:.1f}" y="{}" width="{:.1f}" height="{}">'
                                '<title>{}: {} {:,} of {:,} lines</title></rect>').format(
                k, x, y + 3, ww, rh - 8, name, KIND_LABEL[k], n, total))
            x += ww
        agents = row.get("agent", 0) + row.get("agent_modified", 0)
        parts.append(Markup('<text class="share" x="{:.1f}" y="{}">{} agents</text>').format(
            x + 6, y + 15, _pct(agents, total)))
    svg = Markup('<svg class="chart" viewBox="0 0 {} {}" role="img" aria-labelledby="ch-folders">'
                 '<title id="ch-folders">Lines by folder and kind (percent: agents\' share)</title>{}</svg>').format(
        w, h, join(parts))
    return svg + legend([(k, KIND_LABEL[k]) for k in KIND_ORDER])


def kinds_bar(stats: Mapping[str, Any]) -> Markup:
    """One bar: the repository's lines by kind, each segment labelled in the legend with its count."""
    k = stats.get("kinds") or {}
    total = sum(k.values())
    if not total:
        return Markup("")
    x = 0.0
    parts = []
    for name in KIND_ORDER:
        n = k.get(name, 0)
        if not n:
            continue
        ww = n / total * 640
        parts.append(Markup('<rect class="k-{}" x="{:.1f}" y="0" width="{:.1f}" height="18"><title>{} {:,} lines'
                            '</title></rect>').format(name, x, ww, KIND_LABEL[name], n))
        x += ww
    svg = Markup('<svg class="chart kinds" viewBox="0 0 640 18" role="img" aria-label="lines by kind">{}</svg>').format(
        join(parts))
    return svg + legend([(name, f"{KIND_LABEL[name]} {k.get(name, 0):,} ({_pct(k.get(name, 0), total)})")
                         for name in KIND_ORDER if k.get(name)])
