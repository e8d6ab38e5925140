"""HTML building for `hansard ui`: the one escaping rule and the page frame.

Always true: a value reaches the page through ``esc`` (markupsafe's escape) unless it is a
``Markup`` this package built; ``Markup.format`` and ``join`` escape every argument that is
not. No transcript, git or file text is ever marked safe: only tags written here are.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, urlencode

from markupsafe import Markup, escape

__all__ = ["Markup", "esc", "join", "page", "Links"]


def esc(value: Any) -> Markup:
    """``value`` as HTML text: every ``<``, ``&`` and quote escaped (a Markup stays as it is)."""
    return escape("" if value is None else value)


def join(parts: Iterable[Any], sep: str = "") -> Markup:
    return Markup(sep).join(esc(p) for p in parts)


class Links:
    """The server's URLs, each carrying the token (the page works with cookies off, and the
    Referrer-Policy keeps the token from leaving)."""

    def __init__(self, token: str) -> None:
        self.token = token

    def url(self, route: str, fragment: str | None = None, /, **params: Any) -> str:
        q = {k: v for k, v in params.items() if v is not None and v != "" and v is not False}
        q["token"] = self.token
        out = quote(route, safe="/") + "?" + urlencode(q)
        return out + ("#" + quote(fragment, safe="") if fragment else "")

    def file(self, rel: str, line: int | None = None) -> str:
        return self.url("/file/" + rel, f"L{line}" if line else None, line=line)

    def folder(self, rel: str) -> str:
        return self.url("/folder/" + rel) if rel else self.url("/")

    def session(self, sid: str, around: int | None = None) -> str:
        return self.url("/session/" + sid, f"m{around}" if around is not None else None, around=around)

    def static(self, name: str) -> str:
        return self.url("/static/" + name)


def page(links: Links, title: str, body: Markup, *, repo: str, active: str = "", query: str = "",
         body_class: str = "") -> Markup:
    nav = Markup('<a href="{}" class="{}">Repository</a> <a href="{}" class="{}">Review</a> '
                 '<a href="{}" class="{}">Search</a>').format(
        links.url("/"), "on" if active == "repo" else "", links.url("/review"), "on" if active == "review" else "",
        links.url("/search"), "on" if active == "search" else "")
    form = Markup(
        '<form class="qs" method="get" action="/search" role="search"><input type="hidden" name="token" value="{}">'
        '<input name="q" value="{}" placeholder="Search sessions" aria-label="Search sessions"></form>'
    ).format(links.token, query)
    return Markup(
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        '<title>{title} · hansard</title><link rel="stylesheet" href="{css}"><script src="{js}" defer></script>'
        '</head><body class="{bc}"><header><strong class="brand">hansard</strong> <span class="repo">{repo}</span> '
        '<nav>{nav}</nav>{form}</header><main>{body}</main></body></html>'
    ).format(title=title, css=links.static("ui.css"), js=links.static("ui.js"), bc=body_class, repo=repo, nav=nav,
             form=form, body=body)
