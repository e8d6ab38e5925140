"""The Starlette application of `hansard ui`: routes as thin adapters over ``hansard.web.core``,
and the guard every request passes first.

Always true of a response: the request was GET or HEAD (anything else is 405), its Host was
this server's (127.0.0.1 or localhost at its port; anything else is 403, so a DNS-rebound name
reaches nothing), any Origin it carried was this server's, and it carried the token (403
otherwise, before any route runs). Every response forbids framing, sniffing, caching and
referrers, and its Content-Security-Policy allows only this server's own script and style.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from hansard.errors import HansardError, InvalidArgument, NotFound, ScopeNotGranted
from hansard.web import core, pages
from hansard.web.html import Links

if TYPE_CHECKING:
    from hansard.app.house import Request as Asked

STATIC = {"ui.css": "text/css; charset=utf-8", "ui.js": "text/javascript; charset=utf-8"}
HEADERS = {
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
    "cross-origin-resource-policy": "same-origin",
}
ASGIApp = Callable[[dict[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]


class Guard:
    """The checks before any route: method, Host, Origin, token (see the module docstring)."""

    def __init__(self, app: ASGIApp, token: str, port: int) -> None:
        self.app, self.token = app, token
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        self.origins = {f"http://{h}" for h in self.hosts}

    async def __call__(self, scope: dict[str, Any], receive: Callable[[], Awaitable[Any]],
                       send: Callable[[Any], Awaitable[None]]) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return  # websockets: none served
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or ()}
        status, why = 0, ""
        if scope["method"] not in ("GET", "HEAD"):
            status, why = 405, "this page is read-only: GET only"
        elif headers.get("host") not in self.hosts:
            status, why = 403, "this server answers requests for 127.0.0.1 only"
        elif "origin" in headers and headers["origin"] not in self.origins:
            status, why = 403, "requests from other origins are refused"
        elif headers.get("sec-fetch-site") == "cross-site":
            status, why = 403, "requests from other sites are refused"
        else:
            given = (parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token") or [""])[0]
            if not secrets.compare_digest(given.encode(), self.token.encode()):
                status, why = 403, "the token is missing or wrong: open the URL `hansard ui` printed"

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                hs = [(k, v) for k, v in message.get("headers") or [] if k.decode().lower() not in HEADERS]
                hs += [(k.encode(), v.encode()) for k, v in HEADERS.items()]
                message = {**message, "headers": hs}
            await send(message)

        if status:
            extra = {"allow": "GET, HEAD"} if status == 405 else {}
            resp = HTMLResponse(str(pages.error_page(None, status, "refused", why)), status_code=status, headers=extra)
            await resp(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)


def build_app(top: str, token: str, port: int) -> ASGIApp:
    """The application serving the repository at ``top`` (a real path) to holders of ``token``
    at 127.0.0.1:``port``."""
    links = Links(token)
    served = core.application()

    def answer(fn: Callable[[Request, Asked], Any]) -> Callable[[Request], Response]:
        def endpoint(request: Request) -> Response:
            rq = served.request()
            try:
                out = fn(request, rq)
            except Exception as exc:  # every failure is a page saying what it was
                from hansard.store.errors import typed

                err = exc if isinstance(exc, HansardError) else typed(exc)
                if err is None:
                    raise
                # what the request asked cannot be answered (a binary or untracked file, a bad
                # date): 400; a busy store: 503; only hansard's own failure is a 500
                status = 403 if isinstance(err, ScopeNotGranted) else 404 if isinstance(err, NotFound) or \
                    err.code == "not_a_repository" else 503 if err.retryable else 500 if err.code == "internal" \
                    else 400
                return HTMLResponse(str(pages.error_page(links, status, err.code, err.message)), status_code=status)
            finally:
                rq.close()
            return out if isinstance(out, Response) else HTMLResponse(str(out))
        return endpoint

    def _int(request: Request, name: str) -> int | None:
        v = request.query_params.get(name)
        if v is None or v == "":
            return None
        try:
            n = int(v)
        except ValueError:
            raise InvalidArgument(f"{name} must be a whole number", argument=name) from None
        if not 0 <= n < 2**31:
            raise InvalidArgument(f"{name} is out of range", argument=name)
        return n

    def repository(request: Request, rq: Asked) -> Any:
        rq.sync()
        return pages.repository(links, top, core.recent_sessions(rq.store, top), core.session_count(rq.store, top))

    def folder(request: Request, rq: Asked) -> Any:
        return pages.folder_page(links, top, core.check_folder(top, request.path_params["path"]))

    def stats(request: Request, rq: Asked) -> Any:
        # its own request: a large repository's first count answers every file (later ones
        # reuse each unchanged file's), and the page must not wait for it
        path = request.query_params.get("path") or None
        if path is not None:
            core.check_folder(top, path)  # a path out of the repository is refused, not counted
        try:
            return pages.stats(links, top, core.stats(rq, top, path), None)
        except HansardError as exc:
            return pages.stats(links, top, None, exc.message)

    def file(request: Request, rq: Asked) -> Any:
        from hansard.web.highlight import lines_html

        rel = core.check_rel(top, request.path_params["path"])
        ans = core.file_answer(rq, top, rel)
        line = _int(request, "line")
        side = None
        if line is not None:
            side = pages.conversation(links, ans["path"], core.line_view(rq, top, ans, line))
        code = lines_html(ans["path"], [ln["content"] for ln in ans["lines"]])
        return pages.file_page(links, top, ans, code, line, side)

    def conversation(request: Request, rq: Asked) -> Any:
        rel = core.check_rel(top, request.query_params.get("path") or "")
        line = _int(request, "line")
        if line is None:
            raise InvalidArgument("line is required", argument="line")
        ans = core.file_answer(rq, top, rel)
        return pages.conversation(links, ans["path"], core.line_view(rq, top, ans, line))

    def session(request: Request, rq: Asked) -> Any:
        sid = request.path_params["sid"]
        if len(sid) > 200:
            raise InvalidArgument("session ids are at most 200 characters", argument="session")
        around = _int(request, "around")
        cursor = request.query_params.get("next") or None
        data = core.transcript_page(rq, top, sid, around=around, cursor=cursor, offset=_int(request, "offset"))
        full = data["session"]["session_id"]
        commits = core.session_commits(rq.store, top, full)
        return pages.session_page(links, top, data, commits, bool(core.session_files(rq.store, full)), around)

    def alive(request: Request, rq: Asked) -> Any:
        # the scope check (and a teammate's session) as for the transcript
        full = core.transcript_page(rq, top, request.path_params["sid"], limit=1)["session"]["session_id"]
        files = core.session_files(rq.store, full)
        return pages.alive(links, core.alive_lines(rq, top, full, files), len(files))

    def search(request: Request, rq: Asked) -> Any:
        q = request.query_params.get("q") or ""
        f = {k: request.query_params.get(k) or "" for k in (*core.SEARCH_FILTERS, "mode", "web_chats")}
        if len(q) > 10_000 or any(len(v) > 4096 for v in f.values()):
            raise InvalidArgument("the query or a filter is too long", argument="q")
        out, error = None, None
        if q.strip() or any(f.get(k) for k in core.SEARCH_FILTERS):
            try:
                out = core.search(rq.store, top, q, f.get("mode") or "keyword", f, bool(f.get("web_chats")))
            except (InvalidArgument, ScopeNotGranted) as exc:
                error = exc.message
        return pages.search_page(links, top, q, f, out, error)

    def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return HTMLResponse(str(pages.error_page(links, 404, "not_found", "no such file")), status_code=404)
        data = resources.files("hansard.web").joinpath("static", name).read_bytes()
        return Response(data, media_type=STATIC[name])

    routes = [
        Route("/", answer(repository)),
        Route("/stats", answer(stats)),
        Route("/folder/{path:path}", answer(folder)),
        Route("/file/{path:path}", answer(file)),
        Route("/conversation", answer(conversation)),
        Route("/session/{sid}", answer(session)),
        Route("/session/{sid}/alive", answer(alive)),
        Route("/search", answer(search)),
        Route("/static/{name}", static),
    ]
    app = Starlette(routes=routes)
    return Guard(app, token, port)
