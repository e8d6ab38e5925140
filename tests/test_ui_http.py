"""`hansard ui` over real HTTP: the server started as a user starts it, over a
real repository and store (tests/ui_server.py), asked with urllib.

What must hold: no token, a wrong one, another Host or Origin, and any method but GET/HEAD are
refused before anything is read; a path outside the repository (``..``, encoded, absolute, a
symlink out, the .git folder) is refused and a missing one is not found; another repository's
session is refused in the same words as an id of none and never named; every transcript, git and
file string is escaped; a secret in the code is served redacted; and the pages answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import ui_server
from tests.ui_server import Served


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with ui_server.serving(tmp_path_factory.mktemp("ui")) as s:
        yield s


def test_a_request_without_the_right_token_is_refused(served: Served) -> None:
    assert served.get("/", token=False)[0] == 403
    assert served.get("/file/app/retry.py", token=False)[0] == 403
    assert served.get("/static/ui.js", token=False)[0] == 403
    status, _, body = served.get("/?token=wrong" + served.token[:-1], token=False)
    assert status == 403 and "token" in body
    assert served.get("/")[0] == 200


def test_only_this_host_and_origin_and_only_get(served: Served) -> None:
    port = served.base.rsplit(":", 1)[1]
    assert served.get("/", headers={"Host": f"evil.example:{port}"})[0] == 403  # DNS rebinding
    assert served.get("/", headers={"Host": "127.0.0.1"})[0] == 403
    assert served.get("/", headers={"Host": f"localhost:{port}"})[0] == 200
    assert served.get("/", headers={"Origin": "http://evil.example"})[0] == 403
    assert served.get("/", headers={"Sec-Fetch-Site": "cross-site"})[0] == 403
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        status, headers, _ = served.get("/", method=method)
        assert status == 405 and headers["allow"] == "GET, HEAD"
    assert served.get("/", method="HEAD")[0] == 200


def test_every_response_carries_the_security_headers(served: Served) -> None:
    for path, status in (("/", 200), ("/file/nope.py", 404)):
        got, headers, _ = served.get(path)
        assert got == status
        assert "script-src 'self'" in headers["content-security-policy"]
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert headers["referrer-policy"] == "no-referrer" and headers["x-content-type-options"] == "nosniff"
    assert served.get("/", token=False)[1]["x-frame-options"] == "DENY"


@pytest.mark.parametrize("path", ["/file/../../../etc/passwd", "/file/%2e%2e/%2e%2e/etc/passwd", "/file//etc/passwd",
                                  "/file/app/../../demo/hansard", "/file/escape", "/file/.git/config",
                                  "/conversation?path=../x&line=1", "/conversation?path=/etc/passwd&line=1",
                                  "/folder/../../etc", "/folder/%2e%2e/%2e%2e", "/folder//etc", "/folder/.git",
                                  "/stats?path=../..", "/stats?path=/etc", "/stats?path=app/../../demo"])
def test_a_path_outside_the_repository_is_refused(served: Served, path: str) -> None:
    status, _, body = served.get(path)
    assert status in (403, 404), (path, status)
    assert "root:" not in body and "HANSARD_HOME" not in body


def test_a_missing_file_is_not_found(served: Served) -> None:
    assert served.get("/file/app/nope.py")[0] == 404
    assert served.get("/folder/nope")[0] == 404 and served.get("/stats?path=nope")[0] == 404
    assert served.get("/conversation?path=app/retry.py&line=999")[0] == 400


def test_another_repositorys_session_is_refused_like_none_and_never_named(served: Served) -> None:
    for tail in ("", "/alive", "?around=1"):
        other = served.get(f"/session/{ui_server.OTHER_SESSION}{tail}")
        none = served.get(f"/session/0bbbbbbb-0000-4000-8000-000000000000{tail}")
        assert other[0] == none[0] == 403
        assert other[2].replace(ui_server.OTHER_SESSION, "ID") == none[2].replace("0bbbbbbb-0000-4000-8000-000000000000",
                                                                                  "ID")
    for path in ("/", "/stats", "/search?q=OTHER-REPOSITORY-PROMPT", "/search?q=never+shown", "/file/app/retry.py"):
        status, _, body = served.get(path)
        assert status == 200
        assert ui_server.OTHER_PROMPT not in body and ui_server.OTHER_SESSION[:8] not in body


@pytest.mark.parametrize("path", ["/file/app/shared.py", "/file/app/shared.py?line=1",
                                  "/conversation?path=app/shared.py&line=1", "/", "/stats", "/search?q=shared"])
def test_a_line_of_another_repositorys_session_is_said_so_on_every_page(served: Served, path: str) -> None:
    status, _, body = served.get(path)
    assert status == 200, body[-2000:]
    assert ui_server.OTHER_PROMPT not in body and ui_server.OTHER_SESSION[:8] not in body
    if "shared.py" in path and "search" not in path:
        assert "another repository&#39;s session" in body or "another repository's session" in body


def test_transcript_git_and_file_strings_are_escaped(served: Served) -> None:
    status, _, body = served.get("/file/app/banner.py?line=1")
    assert status == 200
    assert "<script>alert" not in body and "<img src=x" not in body and "<b>banner</b>" not in body
    assert "&lt;script&gt;alert(&#34;prompt&#34;)&lt;/script&gt;" in body  # the prompt
    assert "&lt;img src=x onerror=alert(1)&gt;" in body  # the code
    assert "add &lt;b&gt;banner&lt;/b&gt; &amp; &lt;script&gt;x&lt;/script&gt;" in body  # the commit
    for path in (f"/session/{ui_server.XSS_SESSION}", "/search?q=banner", "/", "/stats",
                 f"/session/{ui_server.XSS_SESSION}/alive", "/file/we%3Cird%3E/a%26b%3Ci%3E.py"):
        status, _, body = served.get(path)
        assert status == 200 and "<script>alert" not in body and "<img src=x" not in body, path
        assert "<ird>" not in body and "<i>" not in body, path
    status, _, body = served.get("/stats")
    assert "we&lt;ird&gt;/" in body and "/file/we%3Cird%3E/a%26b%3Ci%3E.py?token=" in body  # chart and link


def test_a_secret_in_the_code_is_served_redacted(served: Served) -> None:
    for path in ("/file/app/banner.py", "/file/app/banner.py?line=2", "/conversation?path=app/banner.py&line=2",
                 f"/session/{ui_server.XSS_SESSION}"):
        status, _, body = served.get(path)
        assert status == 200 and ui_server.SECRET not in body, path
    assert "REDACTED" in served.get("/file/app/banner.py")[2]


def test_the_pages_answer(served: Served) -> None:
    status, _, body = served.get("/")
    assert status == 200 and "4f0f2c6e-9d1b" in body and 'data-src="/stats?token=' in body
    status, _, body = served.get("/stats")  # the charts come in their own request
    assert status == 200 and "<svg" in body and "Agent share over time" in body and "By folder" in body
    assert "app/retry.py" in body and "Claude Code" in body and "Codex" in body
    status, _, body = served.get("/file/app/retry.py?line=10")
    assert status == 200
    assert 'id="L10" class="k-agent' in body and "Claude Code 4f0f2c6e" in body and ">modified<" in body
    assert "uploads fail on the first 502; add a capped exponential backoff" in body  # the prompt
    assert "+        backoff = min(cap, base * 2 ** attempt)" in body  # the edit's diff
    assert "Add capped backoff to upload retry" in body  # the commit
    status, _, body = served.get("/session/4f0f2c6e?around=3")
    assert status == 200 and 'id="m3"' in body and "Add capped backoff to upload retry" in body
    status, _, body = served.get("/session/4f0f2c6e/alive")  # which of its lines are alive, linked
    assert status == 200 and "/file/app/retry.py?line=4&amp;token=" in body and "3 lines alive" in body
    from hansard.web import pages
    from hansard.web.html import Links

    one = str(pages.alive(Links("t"), [{"path": "a.py", "alive": 1, "first": 2, "gone": False}], edited=30))
    assert "1 line alive" in one and "1 lines" not in one and "Showing 1 of the 30 files it edited." in one
    status, _, body = served.get("/search?q=backoff")
    assert status == 200 and "/session/4f0f2c6e-9d1b-4c7a-a35e-0c8f5b2d7e11?around=" in body
    assert "<mark>backoff</mark>" in body and "«" not in body and "»" not in body  # matches marked, not quoted


def test_a_long_session_is_paged(served: Served) -> None:
    """The transcript comes a page at a time; following `later` reaches every message once."""
    import html
    import re

    from hansard.web.core import PAGE_MESSAGES

    path = served.url(f"/session/{ui_server.XSS_SESSION}")[len(served.base):]
    seen: list[int] = []
    pages = 0
    while path:
        status, _, body = served.get(path, token=False)
        assert status == 200
        pages += 1
        got = [int(x) for x in re.findall(r'<article id="m(\d+)"', body)]
        assert 0 < len(got) <= PAGE_MESSAGES
        seen += got
        nxt = re.search(r'<a href="([^"]+)" rel="next">', body)
        path = html.unescape(nxt.group(1)) if nxt else ""
    assert pages >= 2 and seen == sorted(set(seen)) and seen[0] == 0 and len(seen) > PAGE_MESSAGES


def test_a_long_tool_output_is_cut_and_reads_on(served: Served) -> None:
    import html
    import re

    status, _, body = served.get(f"/session/{ui_server.XSS_SESSION}")
    assert status == 200 and "output line 10\n" in body and "output line 1499" not in body
    link = re.search(r'<a href="([^"]+)">read on</a>', body)
    assert link, "no read-on link"
    status, _, body = served.get(html.unescape(link.group(1)), token=False)
    assert status == 200 and "output line 1499" in body and "read on" not in body


def test_a_session_written_while_the_server_runs_shows_on_reload(served: Served) -> None:
    from datetime import datetime

    from fixtures_repos.writers import ClaudeWriter

    assert "LATE-SESSION-PROMPT" not in served.get("/")[2]
    w = ClaudeWriter(Path(served.env["CLAUDE_CONFIG_DIR"]), served.repo, "1a7e1a7e-1111-4222-8333-444455556666",
                     datetime(2026, 11, 30, 9, 0, 0))
    w.prompt("LATE-SESSION-PROMPT what changed since yesterday?")
    w.say("Nothing yet.")
    assert "LATE-SESSION-PROMPT" in served.get("/")[2]


def test_the_static_files_ship_in_the_package() -> None:
    root = Path(__file__).resolve().parents[1] / "hansard" / "web" / "static"
    assert {p.name for p in root.iterdir()} >= {"ui.js", "ui.css"}


def test_open_with_no_browser_says_so(served: Served, tmp_path: Path) -> None:
    """`hansard ui --open` where no browser can be started (a server without a display): the
    URL is printed, and a line on stderr says the page was not opened; the server still serves."""
    env = {k: v for k, v in served.env.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    s = ui_server.start(served.repo, {**env, "BROWSER": str(tmp_path / "no-such-browser")}, "--open")
    try:
        assert s.get("/")[0] == 200
    finally:
        ui_server.stop(s)
    err = s.proc.stderr.read() if s.proc.stderr else ""
    assert "found no browser to open the page" in err, err


def test_open_shows_a_file_with_the_conversation_of_an_agent_line_beside_it(served: Served, tmp_path: Path) -> None:
    """`hansard ui --open` (with PATH:LINE, or alone: the file the newest session edited, at its
    first agent line) opens a file page whose conversation panel is already filled."""
    import time

    record = tmp_path / "browser"
    record.write_text('#!/bin/sh\necho "$1" > "$(dirname "$0")/url"\n')
    record.chmod(0o755)
    for args, path in ((["app/retry.py:10"], "/file/app/retry.py?line=10"), ([], "/file/app/banner.py?line=1")):
        (tmp_path / "url").unlink(missing_ok=True)
        s = ui_server.start(served.repo, {**served.env, "BROWSER": str(record)}, "--open", *args)
        try:
            for _ in range(600):
                if (tmp_path / "url").exists() and (tmp_path / "url").read_text().strip():
                    break
                time.sleep(0.05)
            url = (tmp_path / "url").read_text().strip()
            assert url.startswith(s.base + path + "&token="), url
            status, _, body = s.get(url[len(s.base):], token=False)
            assert status == 200
            assert '<aside id="conv" aria-live="polite" class="open">' in body
            assert "<h3>Prompt</h3>" in body and "<h3>The edit" in body and "<h3>Commit</h3>" in body
        finally:
            ui_server.stop(s)
