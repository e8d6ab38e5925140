"""`hansard ui [TARGET] [--port N] [--open] [--repo PATH]`: start the page's server.

Always true: the socket is bound to 127.0.0.1 before the URL is printed (so the URL names the
real port), the token is 32 random bytes made fresh for each run, and the server stops on
Ctrl-C. uvicorn and Starlette load only here.
"""

from __future__ import annotations

import os
import secrets
import socket
import sys
import threading
from typing import Any

from hansard.errors import InvalidArgument


def bind(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        raise InvalidArgument(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}", argument="port") from None
    sock.listen(128)
    return sock


def start_url(top: str, port: int, token: str, target: str | None) -> str:
    """Where the page opens: TARGET (PATH or PATH:LINE) as a file page with that line's
    conversation; without one, the file the newest session of the repository edited last, at
    its first line an agent wrote; the repository page when there is none."""
    from hansard.web import core
    from hansard.web.html import Links

    links = Links(token)
    base = f"http://127.0.0.1:{port}"
    line: int | None = None
    if target:
        path, _, n = target.partition(":") if ":" in target and target.rsplit(":", 1)[1].isdigit() else (target, "", "")
        path = os.path.relpath(os.path.abspath(path), top) if os.path.exists(path) else path
        line = int(n) if n else None
    else:
        from hansard.errors import HansardError

        with core.application().request() as rq:
            try:
                path = core.default_target(rq.store, top) or ""
                if path:
                    ans = core.file_answer(rq, top, path)
                    line = next((ln["line"] for ln in ans["lines"] if ln["kind"] == "agent"), None)
            except HansardError:
                path = ""  # the file cannot be answered now: the repository page instead
    if not path:
        return base + links.url("/")
    return base + links.file(path, line)


def open_browser(url: str) -> bool:
    """The page in the browser (``$BROWSER``, else the system's), or, when there is none to
    open it (a server without a display), a line on standard error that says so."""
    import webbrowser

    try:
        opened = webbrowser.open(url)
    except webbrowser.Error:
        opened = False
    if not opened:
        print("hansard ui: found no browser to open the page (set BROWSER, or open the URL above)", file=sys.stderr,
              flush=True)
    return opened


def run(a: Any) -> int:
    import uvicorn

    from hansard.web import core
    from hansard.web.app import build_app

    top = core.repo_top(a.repo or os.getcwd())
    if not 0 <= a.port < 65536:
        raise InvalidArgument("--port must be between 0 and 65535", argument="port")
    sock = bind(a.port)
    port = sock.getsockname()[1]
    token = secrets.token_urlsafe(32)
    app = build_app(top, token, port)
    url = start_url(top, port, token, a.target) if (a.open or a.target) else f"http://127.0.0.1:{port}/?token={token}"
    print(f"hansard ui: serving {top} at\n  {url}\n(read-only, this machine only; Ctrl-C stops it)", flush=True)
    if a.open:
        threading.Timer(0.3, open_browser, args=(url,)).start()
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", server_header=False)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    print("hansard ui: stopped", file=sys.stderr)
    return 0
