"""The pages of `hansard ui`, rendered on the server from the core's answers (``hansard.web.core``).

Always true: every transcript, git, file and path string goes through ``hansard.web.html``'s
escaping (``Markup.format`` / ``esc``); a page links only to this server's URLs (with the token);
a gutter mark names its session in text as well as in colour; and no page holds more than one
transcript page (``core.PAGE_MESSAGES`` messages), so a 50 MB session paints as fast as a small one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hansard.render import provenance, teammate
from hansard.render.answers import PROVIDER_NAMES
from hansard.render.answers import short as _short
from hansard.web import charts
from hansard.web.html import Links, Markup, esc, join, page

KIND_TEXT = {"agent": "agent", "agent_modified": "agent, modified by a person", "pasted": "pasted from a web chat",
             "human": "a person", "unknown": "unknown", "uncommitted": "not committed yet"}
# Session colours: a block's colour class is its session's place among the file's sessions.
COLOURS = 8
# Files listed first on the repository page (most agent lines first); the rest are folded.
TOP_FILES = 40


def provider_name(provider: str | None) -> str:
    return PROVIDER_NAMES.get(provider or "", provider or "agent")


def _when(ts: str | None) -> str:
    return (ts or "")[:16].replace("T", " ")


# -- repository ----------------------------------------------------------------------------------


def repository(links: Links, top: str, sessions: list[dict[str, Any]], total_sessions: int | None = None) -> Markup:
    """The page paints at once; its stats come in their own request (``stats``), which the
    script fetches (without the script, a link opens them)."""
    shown = Markup("")
    if total_sessions is not None and total_sessions > len(sessions):
        shown = Markup(' <span class="dim">(the {:,} most recent of {:,})</span>').format(len(sessions), total_sessions)
    parts = [Markup('<h1>{}</h1>').format(top.rsplit("/", 1)[-1]), _stats_slot(links, None),
             Markup('<section><h2>Recent sessions{}</h2>{}</section>').format(shown, session_table(links, sessions)),
             Markup('<section><h2>Search</h2>{}</section>').format(search_form(links, {}, ""))]
    return page(links, "Repository", join(parts), repo=top, active="repo")


def _stats_slot(links: Links, rel: str | None) -> Markup:
    src = links.url("/stats", path=rel)
    return Markup('<div id="stats" data-src="{}"><p class="dim">Counting the lines agents wrote… (a first count '
                  'answers every file; later ones reuse what did not change) <a href="{}">open the count</a></p>'
                  '</div>').format(src, src)


def folder_page(links: Links, top: str, rel: str) -> Markup:
    """One folder of the repository: the path to it (each step a link), and its stats (its own
    folders and files, each opening its page), fetched as the repository page's are."""
    return page(links, rel + "/", join([_crumbs(links, top, rel), _stats_slot(links, rel)]), repo=top, active="repo")


def _crumbs(links: Links, top: str, rel: str) -> Markup:
    parts = rel.split("/")
    steps = [Markup('<a href="{}">{}</a>').format(links.url("/"), top.rsplit("/", 1)[-1])]
    for i, name in enumerate(parts):
        here = "/".join(parts[:i + 1])
        steps.append(Markup("{}/").format(name) if i == len(parts) - 1 else
                     Markup('<a href="{}">{}</a>').format(links.folder(here), name))
    return Markup('<h1 class="crumbs">{}</h1>').format(join(steps, " / "))


def stats(links: Links, top: str, stats: Mapping[str, Any] | None, error: str | None) -> Markup:
    """The stats of the repository, or of one folder of it, as a fragment: totals, charts,
    funnel, its folders and files (each a link down), by agent, the largest files."""
    if stats is None:
        return Markup('<p class="error">The stats could not be counted: {}</p>').format(error)
    k = stats["kinds"]
    agents = k["agent"] + k["agent_modified"]
    files = stats.get("file_count", len(stats["files"]))
    where = Markup(" under <code>{}/</code>").format(stats["paths"][0]) if stats.get("paths") else Markup("")
    parts = [Markup('<section class="summary"><p class="big">Agents wrote <b>{}</b> ({:,}) of the {:,} lines in {:,} '
                    'file{}{} at <code>{}</code></p>{}</section>').format(
        f"{100.0 * agents / stats['counted_lines']:.1f}%" if stats["counted_lines"] else "–", agents,
        stats["counted_lines"], files, "" if files == 1 else "s", where, stats["rev"][:10], charts.kinds_bar(stats))]
    parts.append(Markup('<section class="charts"><div><h2>Agent share over time</h2>{}</div>'
                        '<div><h2>By folder</h2>{}</div></section>').format(charts.months(stats), charts.folders(stats)))
    f = stats["funnel"]
    parts.append(Markup('<p class="funnel">Sessions {:,} → commits {:,} → lines their edits added {:,} → agent '
                        'lines alive {:,}</p>').format(f["sessions"], f["commits"], f["lines_added"], f["lines_alive"]))
    parts.append(_entries(links, stats))
    parts.append(_by_agent(stats))
    parts.append(_files(links, stats))
    return join(parts)


def _entries(links: Links, stats: Mapping[str, Any]) -> Markup:
    """The folders and files directly in the path counted, folders first: a folder opens its own
    page, a file its code with the marks."""
    trees = stats.get("tree") or []
    nodes = (trees[0].get("children") or []) if len(trees) == 1 else trees
    if not nodes:
        return Markup("")
    body = join(Markup('<tr class="{}"><td><a href="{}">{}</a></td><td class=num>{:,}</td><td class=num>{}</td>'
                       '<td class=num>{}</td></tr>').format(
        n["type"], links.folder(n["path"]) if n["type"] == "dir" else links.file(n["path"]),
        n["name"] + ("/" if n["type"] == "dir" else ""), n.get("lines", 0), _share(n),
        f"{n.get('entries', 0):,}" if n["type"] == "dir" else "") for n in nodes)
    return Markup('<section><h2>Folders and files</h2><table class="grid entries"><thead><tr><th>name</th>'
                  '<th>lines</th><th>agents</th><th>entries</th></tr></thead><tbody>{}</tbody></table></section>'
                  ).format(body)


def _share(row: Mapping[str, Any]) -> str:
    lines = row.get("lines", 0)
    return f"{100.0 * (row.get('agent', 0) + row.get('agent_modified', 0)) / lines:.0f}%" if lines else "–"


def _by_agent(stats: Mapping[str, Any]) -> Markup:
    rows = (stats.get("by") or {}).get("agent") or {}
    if not rows:
        return Markup("")
    body = join(Markup("<tr><td>{}</td><td class=num>{:,}</td><td class=num>{:,}</td><td class=num>{:,}</td></tr>").format(
        provider_name(name) if name != "(no session)" else "no session (people, unknown)", r.get("agent", 0),
        r.get("agent_modified", 0), r.get("lines", 0)) for name, r in rows.items())
    return Markup('<section><h2>By agent</h2><table class="grid"><thead><tr><th>agent</th><th>agent lines</th>'
                  '<th>modified by people</th><th>all lines</th></tr></thead><tbody>{}</tbody></table></section>'
                  ).format(body)


def _files(links: Links, stats: Mapping[str, Any]) -> Markup:
    """The files with the most agent lines first; the others (by path) folded below them."""
    ranked = sorted(stats["files"].items(), key=lambda x: (-(x[1].get("agent", 0) + x[1].get("agent_modified", 0)),
                                                           x[0]))

    def table(rows: list[tuple[str, dict[str, int]]]) -> Markup:
        body = join(Markup('<tr><td><a href="{}">{}</a></td><td class=num>{:,}</td><td class=num>{}</td></tr>').format(
            links.file(rel), rel, r.get("lines", 0), _share(r)) for rel, r in rows)
        return Markup('<table class="grid files"><thead><tr><th>file</th><th>lines</th><th>agents</th></tr></thead>'
                      '<tbody>{}</tbody></table>').format(body)

    rest = sorted(ranked[TOP_FILES:])
    more = Markup('<details><summary>{:,} more files</summary>{}</details>').format(len(rest), table(rest)) if rest \
        else Markup("")
    shown = stats.get("files_shown")
    note = Markup('<p class="dim">Showing the {:,} largest of {:,} files.</p>').format(shown["shown"], shown["of"]) \
        if shown else Markup("")
    return Markup('<section><h2>Files with the most agent lines</h2>{}{}{}</section>').format(
        table(ranked[:TOP_FILES]), more, note)


def session_table(links: Links, rows: list[dict[str, Any]]) -> Markup:
    if not rows:
        return Markup('<p class="empty">No session of this repository is indexed.</p>')
    body = join(Markup('<tr><td>{}</td><td>{}</td><td><a href="{}">{}</a></td><td>{}</td></tr>').format(
        _when(r.get("last_at") or r.get("started_at")), provider_name(r.get("provider")), links.session(r["session_id"]),
        r["session_id"][:13], _short(r.get("title") or r.get("first_prompt"), 90)) for r in rows)
    return Markup('<table class="grid"><thead><tr><th>last active</th><th>agent</th><th>session</th><th>title</th>'
                  '</tr></thead><tbody>{}</tbody></table>').format(body)


# -- file ----------------------------------------------------------------------------------------


def file_page(links: Links, top: str, ans: Mapping[str, Any], code: list[Markup], selected: int | None,
              side: Markup | None) -> Markup:
    """The code with its gutter; ``side`` (the conversation of line ``selected``) beside it."""
    from hansard.lsp.marks import blocks

    rel = ans["path"]
    colour: dict[str, int] = {}
    block_of: dict[int, Any] = {}
    member: dict[int, bool] = {}
    for b in blocks(ans, provider_name):
        for i in range(b.first, b.last + 1):
            block_of[i] = b
        if b.session_id:
            colour.setdefault(b.session_id, len(colour) % COLOURS)
            s = (ans.get("sessions") or {}).get(b.session_id) or {}
            member[b.first] = bool(s.get("member"))
    # One f-string per row, each dynamic part through esc: Markup.format per row is slow on a
    # long file. The line number is text: the script opens a line on click.
    rows: list[str] = []
    for i, ln in enumerate(ans["lines"]):
        kind = ln["kind"]
        sid = ln.get("session_id")
        cls = f"k-{esc(kind)}" + (f" c{colour[sid]}" if sid in colour else "") + (" sel" if selected == i + 1 else "")
        blk = block_of.get(i)
        if blk is not None and blk.first == i:
            mark = f'<span class="lab">{esc(_gutter_label(ln))}</span>{_gutter_tag(ln, member.get(i, False))}'
            title = f' title="{esc(blk.label)}"'
        elif blk is not None:
            mark, title = '<span class="cont">┆</span>', ""
        else:
            mark, title = "", ""
        rows.append(f'<tr id="L{i + 1}" class="{cls}" data-line="{i + 1}"><td class="g"{title}>{mark}</td>'
                    f'<td class="n">{i + 1}</td><td class="c"><code>{code[i]}</code></td></tr>')
    notice = Markup("")
    if ans.get("notice"):
        notice = Markup('<p class="notice">{}</p>').format(ans["notice"].get("message") if isinstance(
            ans["notice"], dict) else ans["notice"])
    body = Markup('<div class="filehead"><h1>{rel}</h1><p class="hint">Click a marked line, or move with j/k (or ↑/↓) '
                  'and press Enter, to open the conversation that wrote it; Esc closes it.</p>{notice}</div>'
                  '<div class="split"><div class="code" data-path="{rel}" data-conv="{conv}"><table class="src" '
                  'role="grid" aria-label="{rel}"><tbody>{rows}</tbody></table></div>'
                  '<aside id="conv" aria-live="polite" class="{open}">{side}</aside></div>').format(
        rel=rel, notice=notice, conv=links.url("/conversation", path=rel), rows=Markup("".join(rows)),
        open="open" if side is not None else "", side=side or Markup(""))
    return page(links, rel, body, repo=top, body_class="filepage")


def _gutter_label(ln: Mapping[str, Any]) -> str:
    if ln["kind"] == "unknown":
        return "? unknown"
    if ln["kind"] == "pasted" and not ln.get("session_id"):
        return "pasted (web chat)"  # web chats are named only where asked for
    if not ln.get("session_id"):
        return str(ln.get("session") or KIND_TEXT.get(ln["kind"], ln["kind"]))
    return f"{provider_name(ln.get('provider'))} {ln['session_id'][:8]}"


def _gutter_tag(ln: Mapping[str, Any], team: bool) -> Markup:
    tags = []
    if ln["kind"] == "agent_modified":
        tags.append("modified")
    elif ln["kind"] == "pasted":
        tags.append("pasted")
    elif ln["kind"] == "uncommitted":
        tags.append("uncommitted")
    if team:
        tags.append("team")
    return join(Markup('<span class="tag">{}</span>').format(t) for t in tags)


def conversation(links: Links, rel: str, view: Mapping[str, Any]) -> Markup:
    """Beside the code: who wrote line N, the prompt, the edit's diff, the commit, the messages."""
    ln = view["line"]
    kind = ln["kind"]
    parts: list[Markup] = [Markup('<div class="convhead"><button type="button" class="close" aria-label="Close">×</button>'
                                  '<h2>Line {} · <span class="badge k-{}">{}</span></h2></div>').format(
        ln["line"], kind, KIND_TEXT.get(kind, kind))]
    s = view.get("session")
    if s:
        who = provider_name(s.get("provider"))
        if s.get("member"):
            who += f" (team: {teammate(s)})"
        parts.append(Markup('<p class="who">{} session <a class="sess" href="{}">{}</a>{}</p>').format(
            who, links.session(s["session_id"], ln.get("message_index")), s["session_id"][:13],
            Markup(" · {}").format(_short(s.get("title"), 80)) if s.get("title") else ""))
        src = provenance(s.get("source"))
        if src:  # not this machine's own record
            parts.append(Markup('<p class="source">read from {}</p>').format(src))
    elif ln.get("session"):
        parts.append(Markup('<p class="who">{}</p>').format(ln["session"]))
    from hansard.render.answers import why_evidence

    parts.append(Markup('<p class="evidence">{}</p>').format(why_evidence(ln)))
    if view.get("prompt"):
        parts.append(Markup('<h3>Prompt</h3><blockquote class="prompt">{}</blockquote>').format(view["prompt"]))
    if view.get("then"):
        parts.append(Markup('<p class="then dim">then: <q>{}</q></p>').format(_short(view["then"], 200)))
    if view.get("first"):
        parts.append(Markup('<p class="first dim">first asked: <q>{}</q></p>').format(_short(view["first"], 300)))
    call = view.get("call")
    if call:
        parts.append(Markup('<h3>The edit · {} (message {})</h3>{}').format(call.get("name"), call["message_index"],
                                                                            _edits(call.get("edits") or [], rel)))
    c = view.get("commit")
    if c:
        parts.append(Markup('<h3>Commit</h3><p class="commit"><code>{}</code> {} <span class="dim">{}</span></p>').format(
            c["sha"][:10], c.get("summary") or "", c.get("author") or ""))
    if view.get("messages"):
        parts.append(Markup("<h3>Conversation</h3>"))
        parts.append(join(message(links, m, current=ln.get("message_index"), compact=True) for m in view["messages"]))
        parts.append(Markup('<p><a href="{}">Open the whole session at this message →</a></p>').format(
            links.session(s["session_id"], ln.get("message_index")) if s else "#"))
    return join(parts)


def _edits(edits: list[dict[str, Any]], rel: str | None = None) -> Markup:
    out = []
    for e in edits:
        hunks = e.get("hunks") or []
        lines: list[Markup] = []
        for h in hunks:
            if not isinstance(h, (list, tuple)) or len(h) < 5:
                continue
            lines.append(Markup('<span class="hh">@@ -{},{} +{},{} @@</span>').format(h[0], h[1], h[2], h[3]))
            for t in h[4]:
                t = str(t)
                cls = "add" if t.startswith("+") else "del" if t.startswith("-") else "ctx"
                lines.append(Markup('<span class="{}">{}</span>').format(cls, t))
        here = " here" if rel and (e.get("path") or "").endswith(rel) else ""
        out.append(Markup('<div class="edit{}"><div class="path">{} <span class="dim">{} · {}</span></div>'
                          '<pre class="diff">{}</pre></div>').format(here, e.get("path"), e.get("kind"), e.get("status"),
                                                                     join(lines)))
    return join(out)


def message(links: Links, m: Mapping[str, Any], current: int | None = None, compact: bool = False,
            sid: str | None = None) -> Markup:
    idx = m["message_index"]
    label = m["role"] if m["kind"] == "text" else f"{m['role']}/{m['kind']}"
    text = m.get("text") or ""
    if compact and len(text) > 1200:
        text = text[:1200] + "…"
    cut = Markup("")
    if m.get("truncated"):
        cut = Markup('<p class="dim">… cut at {:,} of {:,} characters{}</p>').format(
            m.get("content_offset", 0), m.get("content_chars", 0),
            Markup(' · <a href="{}">read on</a>').format(links.url("/session/" + sid, around=idx, offset=m["content_offset"]))
            if sid and m.get("content_offset") else "")
    calls = []
    for c in m.get("tool_calls") or ():
        status = c.get("status") or "no result"
        extra = Markup("")
        if c.get("test_run"):
            r = c["test_run"]
            extra = Markup(' <span class="tests {}">tests: {} passed, {} failed{}</span>').format(
                "ok" if r.get("ok") else "bad", r.get("passed") or 0, (r.get("failed") or 0) + (r.get("errors") or 0),
                Markup(" ({})").format(", ".join(r.get("failing") or [])[:200]) if r.get("failing") else "")
        calls.append(Markup('<div class="call"><span class="callname">↳ {}</span> <span class="dim">{}{}</span>{}{}</div>'
                            ).format(c.get("name"), status,
                                     f" · exit {c['exit_code']}" if c.get("exit_code") is not None else "", extra,
                                     _edits(c.get("edits") or [])))
    model = Markup(' <span class="dim">{}</span>').format(m["model"]) if m.get("model") else Markup("")
    return Markup('<article id="m{idx}" class="msg role-{role}{cur}"><div class="mh"><a href="#m{idx}">[{idx}]</a> '
                  '<b>{label}</b> <span class="dim">{when}</span>{model}</div><pre class="text">{text}</pre>{cut}'
                  '{calls}</article>').format(idx=idx, role=m["role"], cur=" current" if idx == current else "",
                                              label=label, when=_when(m.get("timestamp_local")), model=model, text=text,
                                              cut=cut, calls=join(calls))


# -- session -------------------------------------------------------------------------------------


def session_page(links: Links, top: str, data: Mapping[str, Any], commits: Sequence[Mapping[str, Any]],
                 edited: bool, around: int | None) -> Markup:
    s = data["session"]
    sid = s["session_id"]
    src = provenance(s.get("source"))
    head = Markup('<h1>{} session <code>{}</code></h1><p class="title">{}</p><p class="dim">started {} · {:,} messages'
                  ' · in {}{}</p>{}').format(
        provider_name(s.get("provider")), sid, s.get("title") or "", _when(s.get("started_at_local")),
        s.get("message_count") or 0, s.get("cwd") or "",
        Markup(" · team: {}").format(teammate(s)) if s.get("member") else "",
        Markup('<p class="source">read from {}</p>').format(src) if src else "")
    side = []
    if commits:
        side.append(Markup("<h2>Commits</h2><ul class=\"commits\">{}</ul>").format(join(
            Markup("<li><code>{}</code> {} <span class=\"dim\">{}</span></li>").format(
                c["sha"][:10], c.get("summary") or "", (c.get("how") or "").replace("_", " ")) for c in commits)))
    if edited:  # which of its lines are alive: a why answer per file, fetched apart
        src = links.url(f"/session/{sid}/alive")
        side.append(Markup('<h2>Its lines alive now</h2><div id="alive" data-src="{}"><p class="dim">Looking… '
                           '<a href="{}">open</a></p></div>').format(src, src))
    msgs = data["messages"]
    nav = _pager(links, sid, data, msgs)
    body = Markup('<div class="sesshead">{}</div><div class="split"><div class="transcript">{}{}{}</div>'
                  '<aside class="open">{}</aside></div>').format(
        head, nav, join(message(links, m, current=around, sid=sid) for m in msgs), nav, join(side))
    return page(links, sid[:13], body, repo=top, body_class="sessionpage")


def alive(links: Links, rows: list[dict[str, Any]], edited: int | None = None) -> Markup:
    """The files a session edited, each with how many of its lines `why` still gives to it;
    ``edited``: how many files it edited in all (said when more than are listed)."""
    if not rows:
        return Markup('<p class="dim">It edited no file of this repository.</p>')
    items = []
    for r in rows:
        if r["gone"]:
            items.append(Markup('<li>{} <span class="dim">not in the working tree now</span></li>').format(r["path"]))
        elif r["alive"]:
            items.append(Markup('<li><a href="{}">{}</a> {:,} line{} alive</li>').format(
                links.file(r["path"], r["first"]), r["path"], r["alive"], "" if r["alive"] == 1 else "s"))
        else:
            items.append(Markup('<li><a href="{}">{}</a> <span class="dim">none alive</span></li>').format(
                links.file(r["path"]), r["path"]))
    more = Markup('<p class="dim">Showing {:,} of the {:,} files it edited.</p>').format(len(rows), edited) \
        if edited is not None and edited > len(rows) else Markup("")
    return Markup('<ul class="files">{}</ul>{}').format(join(items), more)


def _pager(links: Links, sid: str, data: Mapping[str, Any], msgs: list[dict[str, Any]]) -> Markup:
    parts = []
    if msgs and msgs[0]["message_index"] > 0:
        parts.append(Markup('<a href="{}">⇤ first</a>').format(links.session(sid)))
        before = max(0, msgs[0]["message_index"] - 20)
        parts.append(Markup('<a href="{}" rel="prev">← earlier</a>').format(links.session(sid, before)))
    if msgs:
        parts.append(Markup('<span class="dim">messages {}–{} of {:,}</span>').format(
            msgs[0]["message_index"], msgs[-1]["message_index"], data["session"].get("message_count") or 0))
    if data.get("next"):
        parts.append(Markup('<a href="{}" rel="next">later →</a>').format(
            links.url("/session/" + sid, next=data["next"])))
    return Markup('<nav class="pager">{}</nav>').format(join(parts, " "))


# -- search --------------------------------------------------------------------------------------


def search_form(links: Links, f: dict[str, str], query: str) -> Markup:
    mode = f.get("mode") or "keyword"
    opts = join(Markup('<option value="{v}"{s}>{v}</option>').format(v=v, s=Markup(" selected") if v == mode else "")
                for v in ("keyword", "meaning", "hybrid"))
    fields = join(Markup('<label>{n} <input name="{n}" value="{v}"></label>').format(n=n, v=f.get(n) or "")
                  for n in ("provider", "since", "until", "roles", "tool", "command", "file", "commit"))
    web = Markup(" checked") if f.get("web_chats") else ""
    return Markup('<form class="search" method="get" action="/search"><input type="hidden" name="token" value="{}">'
                  '<input class="q" name="q" value="{}" placeholder="words, &quot;a phrase&quot;, a or b, -excluded" '
                  'aria-label="query"> <select name="mode" aria-label="mode">{}</select> <button>Search</button>'
                  '<details><summary>Filters</summary>{}<label><input type="checkbox" name="web_chats" value="1"{}> '
                  'include web chats</label></details></form>').format(links.token, query, opts, fields, web)


def search_page(links: Links, top: str, query: str, f: dict[str, str], out: Mapping[str, Any] | None,
                error: str | None) -> Markup:
    parts = [Markup("<h1>Search</h1>"), search_form(links, f, query)]
    if error:
        parts.append(Markup('<p class="error">{}</p>').format(error))
    if out is not None:
        hits = out.get("results") or []
        notes = [out.get("mode_notice"), out.get("notice")]
        total = max(out.get("total") or 0, len(hits))
        count = f"{len(hits):,} result{'' if len(hits) == 1 else 's'}" if total <= len(hits) else \
            f"showing {len(hits):,} of {total:,}{'' if out.get('total_exact', True) else '+'} results"
        parts.append(Markup('<p class="dim count">{} · {} search{}</p>').format(
            count, out.get("mode"), join(Markup(" · {}").format(n) for n in notes if n)))
        parts.append(Markup('<ol class="hits">{}</ol>').format(join(
            Markup('<li><a class="hit" href="{href}">{title}</a> <span class="dim">{prov} · {when} · message {mi} '
                   '({role})</span><p class="excerpt">{ex}</p></li>').format(
                href=links.session(h["session_id"], h.get("message_index")),
                title=_short(h.get("title") or h["session_id"], 100), prov=provider_name(h.get("provider")),
                when=_when(h.get("timestamp_local")), mi=h.get("message_index"), role=h.get("role"),
                ex=_highlighted(h.get("excerpt") or "")) for h in hits)))
    return page(links, "Search", join(parts), repo=top, active="search", query=query)


def _highlighted(excerpt: str) -> Markup:
    """A search excerpt with its matches («like this» in the answer) in <mark>, every part escaped."""
    import re

    from hansard.answers.search.text import MARK_CLOSE, MARK_OPEN

    parts = re.split(f"{MARK_OPEN}([^{MARK_OPEN}{MARK_CLOSE}]*){MARK_CLOSE}", excerpt)
    return join(Markup("<mark>{}</mark>").format(p) if k % 2 else p for k, p in enumerate(parts))


def error_page(links: Links | None, status: int, code: str, message: str) -> Markup:
    body = Markup('<h1>{}</h1><p class="error">{} <span class="dim">[{}]</span></p>').format(status, message, code)
    if links is None:
        return Markup('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{}</title></head><body>{}'
                      '</body></html>').format(status, body)
    return page(links, str(status), body, repo="")
