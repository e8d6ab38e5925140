"""`hansard ui` in a real browser: headless Chromium, driven over WebDriver by
Debian's chromedriver (tests/webdriver.py), against the server over the demo store
(tests/ui_server.py). Skipped when chromium or chromedriver is missing; under CI=1 that fails.

A person opens a file, clicks a line an agent wrote and reads, beside the code, the prompt, the
edit's diff and the commit; moves with j/k and the arrow keys and opens with Enter; searches and
follows a result to the message in its session; and a URL without the token, or a path out of the
repository, shows a refusal, not the page.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests import ui_server
from tests.ui_server import Served
from tests.webdriver import Browser, programs

pytestmark = pytest.mark.slow  # a browser per module, as the Neovim test

PROMPT = "uploads fail on the first 502; add a capped exponential backoff"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    programs()  # skip before building anything
    with ui_server.serving(tmp_path_factory.mktemp("ui")) as s:
        yield s


@pytest.fixture(scope="module")
def browser(served: Served) -> Iterator[Browser]:
    b = Browser()
    try:
        yield b
    finally:
        b.quit()


def _panel(b: Browser) -> str:
    return b.text(b.find("aside#conv"))


def _panel_line(b: Browser) -> str | None:
    return b.js("return document.getElementById('conv').getAttribute('data-line')")  # type: ignore[no-any-return]


def _selected(b: Browser) -> str | None:
    return b.js("var r = document.querySelector('tr.sel'); return r ? r.id : null")  # type: ignore[no-any-return]


def test_clicking_an_agent_line_shows_its_prompt_diff_and_commit(served: Served, browser: Browser) -> None:
    b = browser
    b.get(served.url("/file/app/retry.py"))
    assert "Claude Code 4f0f2c6e" in b.text(b.find("tr#L4 td.g"))  # the gutter names the session in text
    assert "modified" in b.text(b.find("tr#L11 td.g"))
    assert b.text(b.find("tr#L1 td.g")) == ""  # a person's line carries no mark
    assert _panel(b) == ""
    b.click(b.find("tr#L10 td.c"))
    b.wait(lambda: _panel_line(b) == "10", "the conversation of line 10")
    text = _panel(b)
    assert "Line 10" in text and "agent" in text
    assert PROMPT in text
    assert "+        backoff = min(cap, base * 2 ** attempt)" in text  # the edit's diff
    assert "Add capped backoff to upload retry" in text and "b578fa54bf" in text  # the commit
    assert "line=10" in b.url  # the panel's state is in the URL
    # the conversation beside the code opens the whole session at that message
    b.click(b.find("aside#conv a.sess"))
    b.wait(lambda: "/session/" in b.url, "the session page")
    assert "around=3" in b.url
    assert "current" in (b.js("return document.getElementById('m3').className") or "")


def test_a_line_of_another_repositorys_session_opens_without_naming_it(served: Served, browser: Browser) -> None:
    b = browser
    b.get(served.url("/file/app/shared.py"))
    assert "another repository's session" in b.text(b.find("tr#L1 td.g"))
    b.click(b.find("tr#L2 td.c"))
    b.wait(lambda: _panel_line(b) == "2", "the panel of line 2")
    text = _panel(b)
    assert "another repository's session" in text and "Line 2" in text
    page = b.js("return document.documentElement.outerHTML")
    assert ui_server.OTHER_PROMPT not in page and ui_server.OTHER_SESSION[:8] not in page


def test_keyboard_moves_the_selection_and_enter_opens(served: Served, browser: Browser) -> None:
    b = browser
    b.get(served.url("/file/app/retry.py"))
    assert _selected(b) is None
    b.keys(*["j"] * 10)
    assert _selected(b) == "L10"
    b.keys("k")
    assert _selected(b) == "L9"
    b.keys("ArrowDown", "ArrowDown")
    assert _selected(b) == "L11"
    b.keys("ArrowUp")
    assert _selected(b) == "L10"
    b.keys("Enter")
    b.wait(lambda: _panel_line(b) == "10", "the conversation opened by Enter")
    assert PROMPT in _panel(b)
    b.keys("j", "Enter")
    b.wait(lambda: _panel_line(b) == "11", "line 11's conversation")
    assert "agent, modified by a person" in _panel(b)
    b.keys("Escape")
    b.wait(lambda: _panel_line(b) is None, "the panel closed")
    assert _panel(b) == ""


def test_the_repository_page_fills_in_its_charts_and_a_session_its_lines_alive(served: Served,
                                                                             browser: Browser) -> None:
    b = browser
    b.get(served.url("/"))
    b.wait(lambda: b.find_all("#stats.loaded svg.chart"), "the charts")
    text = b.text(b.find("#stats"))
    assert "Agents wrote" in text and "Agent share over time" in text and "By folder" in text
    b.click(b.find("#stats a[href^='/file/app/retry.py']"))
    b.wait(lambda: "/file/app/retry.py" in b.url, "the file page")
    b.get(served.url("/session/4f0f2c6e"))
    b.wait(lambda: b.find_all("#alive.loaded li"), "the session's lines alive")
    assert "app/retry.py 3 lines alive" in b.text(b.find("#alive"))


def test_the_folders_open_down_to_the_file_page(served: Served, browser: Browser) -> None:
    """The repository page's folders and files: a folder opens its own page (its totals, its own
    folders and files), and a file there opens the code with its marks; the counts are totals."""
    b = browser
    b.get(served.url("/"))
    b.wait(lambda: b.find_all("#stats.loaded table.entries"), "the folders and files")
    summary = b.text(b.find("#stats .summary"))
    assert "of the 36 lines in 6 files" in summary, summary  # every file, not a listed few
    rows = [b.text(r) for r in b.find_all("#stats table.entries tbody tr")]
    assert rows == ["app/ 20 55% 3", "tests/ 12 100% 1", "we<ird>/ 1 0% 1", "README.md 3 0%"], rows
    b.click(b.find("#stats table.entries a[href^='/folder/app']"))
    b.wait(lambda: "/folder/app" in b.url, "the folder page")
    b.wait(lambda: b.find_all("#stats.loaded table.entries"), "the folder's entries")
    assert b.text(b.find("h1.crumbs")).replace(" ", "") == f"{served.repo.name}/app/"
    assert "of the 20 lines in 3 files under app/" in b.text(b.find("#stats .summary"))
    entries = [b.text(r) for r in b.find_all("#stats table.entries tbody tr")]
    assert entries == ["banner.py 6 100%", "retry.py 12 25%", "shared.py 2 100%"], entries
    b.click(b.find("#stats table.entries a[href^='/file/app/retry.py']"))
    b.wait(lambda: "/file/app/retry.py" in b.url and b.find_all("table.src"), "the file page")
    assert "Claude Code 4f0f2c6e" in b.text(b.find("tr#L4 td.g"))
    b.js("history.back()")
    b.wait(lambda: "/folder/app" in b.url, "back on the folder page")
    b.click(b.find("h1.crumbs a"))
    b.wait(lambda: b.find_all("#stats.loaded table.entries"), "the repository page again")
    b.click(b.find("#stats table.entries tr.dir:nth-child(3) a"))  # a folder whose name is HTML, as text
    b.wait(lambda: b.find_all("#stats.loaded table.entries"), "that folder's page")
    assert [b.text(r) for r in b.find_all("#stats table.entries tbody tr")] == ["a&b<i>.py 1 0%"]


def test_search_and_follow_a_result_to_its_message(served: Served, browser: Browser) -> None:
    b = browser
    b.get(served.url("/"))
    box = b.find("form.search input.q")
    b.type(box, "backoff\n")
    b.wait(lambda: "/search" in b.url, "the search page")
    hits = b.find_all("ol.hits a.hit")
    assert hits, "no results"
    href = b.js("return arguments[0].getAttribute('href')", {"element-6066-11e4-a52e-4f735466cecf": hits[0]})
    assert "/session/" in href and "around=" in href
    b.click(hits[0])
    b.wait(lambda: "/session/" in b.url, "the session page")
    mi = b.url.split("around=")[1].split("&")[0].split("#")[0]
    current = b.find("article.msg.current")
    assert b.js("return arguments[0].id", {"element-6066-11e4-a52e-4f735466cecf": current}) == f"m{mi}"
    assert "backoff" in b.text(current).lower() or "backoff" in b.text(b.find("main")).lower()


def test_without_the_token_and_outside_the_repository_the_page_refuses(served: Served, browser: Browser) -> None:
    b = browser
    b.get(served.url("/file/app/retry.py", token=False))
    assert "token" in b.text(b.find("body")) and b.find_all("table.src") == []
    for path in ("/file/escape", "/file/app/..%2F..%2F..%2Fetc%2Fpasswd"):  # a symlink out; `..` the browser keeps
        b.get(served.url(path))
        body = b.text(b.find("body"))
        assert "403" in body and "scope_not_granted" in body and "root:" not in body, path
