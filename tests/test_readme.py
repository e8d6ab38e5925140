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
