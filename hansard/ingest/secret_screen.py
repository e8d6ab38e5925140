"""Can any redaction rule act on this text? A screen in front of ``hansard.ingest.redact``.

The redactor runs a rule only on a text holding one of the rule's literals (found with one
Aho-Corasick pass over the lower-cased text) or, for a rule without literals, matching its
gate; a text with none of them comes back unchanged. Building that engine (about 300 rules,
two rule files) costs a good part of a one-line `hansard why`, which serves a few commit
summaries and lines that almost never hold a secret. This holds only the literals and gates,
as data (secret_rules/screen.json, which scripts/update_gitleaks_rules.py writes from the
engine itself and a test compares with it), so ``clean`` is True only when the redactor would
return the text unchanged. (The redactor also searches a text without its Markdown _emphasis_
underscores: the literals it could find only there are among the screen's, see
``hansard.ingest.redact.screen_data``.)
"""

from __future__ import annotations

from typing import Any

# What every redaction leaves in a text (``[REDACTED:<rule>]``), the redactor's own mark
# (``hansard.ingest.redact.MARK``, which compiles its rules on import; a test holds them equal).
MARK = "[REDACTED:"

_STATE: dict[str, Any] = {}


def _doc() -> dict[str, Any]:
    got = _STATE.get("doc")
    if got is None:
        import json
        import os

        path = os.path.join(os.path.dirname(__file__), "secret_rules", "screen.json")
        with open(path, encoding="utf-8") as fh:
            got = _STATE["doc"] = json.load(fh)
    return got


def rules_digest() -> str:
    """Which redactor this is (``hansard.ingest.redact.rules_digest``, as the screen file keeps
    it): part of the key of a cached answer that holds redacted text."""
    return str(_doc()["digest"])


def _screen() -> tuple[Any, list[tuple[Any, bool]], int]:
    got = _STATE.get("screen")
    if got is None:
        import re

        import ahocorasick_rs

        doc = _doc()
        words = [w.encode("utf-8", "surrogateescape") for w in doc["words"]]
        gates = [(re.compile(p.encode("utf-8", "surrogateescape")), bool(on_text)) for p, on_text in doc["gates"]]
        got = _STATE["screen"] = (ahocorasick_rs.BytesAhoCorasick(words), gates, int(doc["min_chars"]))
    return got


def clean(text: str) -> bool:
    """True when no redaction rule could find anything in ``text`` (``redact(text)`` gives
    it back unchanged); False means only that the redactor must look."""
    ac, gates, min_chars = _screen()
    if len(text) < min_chars:
        return True
    b = text.encode("utf-8", "surrogatepass")
    low = b.lower()
    if ac.find_matches_as_indexes(low, overlapping=False):
        return False
    return not any(g.search(b if on_text else low) for g, on_text in gates)


def redact(text: str) -> tuple[str, int]:
    """``hansard.ingest.redact.redact``, which is imported (and its engine built) only for a
    text the screen cannot pass."""
    if clean(text):
        return text, 0
    from hansard.ingest.redact import redact as full

    return full(text)


def redact_lines(lines: list[str]) -> tuple[list[str], int]:
    """``hansard.ingest.redact.redact_lines`` (the lines redacted as one text), behind the
    screen: lines that hold no newline of their own and pass it as one text come back as
    they are."""
    if all(isinstance(x, str) and "\n" not in x for x in lines) and clean("\n".join(lines)):
        return list(lines), 0
    from hansard.ingest.redact import redact_lines as full

    return full(lines)
