"""The README is for users: under 300 lines, its links resolve, and every HANSARD_* variable
that hansard's own code reads is documented there (no hidden switch)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_stays_short() -> None:
    assert len(README.splitlines()) < 300


def test_every_hansard_variable_the_code_reads_is_documented() -> None:
    read = set()
    for path in (ROOT / "hansard").rglob("*.py"):
        read |= set(re.findall(r"\bHANSARD_[A-Z_]+\b", path.read_text(encoding="utf-8")))
    assert read, "the scan found no variable at all"
    assert sorted(v for v in read if v not in README) == []


def test_its_local_links_resolve() -> None:
    links = re.findall(r"\]\(((?!https?:|#)[^)#]+)(?:#[^)]*)?\)", README)
    assert links
    assert [x for x in links if not (ROOT / x).exists()] == []


def test_it_says_what_a_newcomer_needs_that_the_code_cannot_tell() -> None:
    """How long the suite takes, what the browser tests need beside the browser (with only
    `chromium` they skip: tests/webdriver.py wants its driver too), and how a repository's own
    sessions (an Entire checkpoint branch) are indexed."""
    assert "about 3–4 minutes" in README
    assert "`chromium` *and*\n`chromium-driver`" in README or "`chromium` *and* `chromium-driver`" in README
    assert "chromium-driver" in (ROOT / "tests" / "webdriver.py").read_text()
    assert "hansard index /path/to/repo" in README and "checkpoint branch" in README
