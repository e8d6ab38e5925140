"""User query text -> a parsed query: terms, phrases, alternatives, exclusions. Never raises,
whatever the text. Engine-neutral: each store turns a :class:`~hansard.store.types.Query`
(defined with the store's other boundary types) into its own index expressions (the SQLite
store: :mod:`hansard.store.sqlite.search`), always quoting every term, so no user text is ever
index syntax.

Syntax, kept small on purpose:

- words are terms: ``retry backoff``;
- ``"a quoted phrase"`` stays a phrase (an unterminated quote runs to the end);
- ``or`` between two terms makes them alternatives: ``retry or backoff timeout`` is
  (retry | backoff) and timeout;
- a leading ``-`` excludes: ``-flaky``, ``-"skip this"``;
- a trailing ``*`` is a prefix: ``fetch*``.

A term is an *identifier* when it holds ``_ . / : -`` or mixes case or digits inside a word
(``fetch_data``, ``src/net.py``, ``getUser``): those are also looked up as substrings,
because a word tokenizer cuts them into words.

Very common English words are dropped from the terms when anything else is left: they say
little about which message is meant, and their huge posting lists make OR queries slow.
Inside a quoted phrase they stay.
"""

from __future__ import annotations

import re
import unicodedata

from hansard.store.types import Query, Term

# Words a message "covers" by accident. Kept short: only words that are in most messages.
STOPWORDS = frozenset(
    """a an and are as at be but by did do does for from had has have how i if in into is it its
    me my of on or our so that the their them then there these this to was we were what when
    where which who why will with you your can could should would""".split()
)

_TRIM = "()[]{}<>,;!?'`\u201c\u201d\u2018\u2019"
_IDENT_PUNCT = re.compile(r"[_./:\\#@$-]")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Za-z]\d|\d[A-Za-z]")


def _is_identifier(text: str) -> bool:
    inner = text.strip(".-:")
    return bool(_IDENT_PUNCT.search(inner) or _CAMEL.search(inner))


def _clean(s: str) -> str:
    s = unicodedata.normalize("NFC", s)
    # Control characters and NUL would only confuse SQLite's text handling.
    return "".join(ch if ch.isprintable() or ch in "\t " else " " for ch in s)


def _tokens(s: str) -> list[tuple[str, bool, bool]]:
    """(text, quoted, negated) in order; ``or`` comes back as ("or", False, False) marker."""
    out: list[tuple[str, bool, bool]] = []
    i, n = 0, len(s)
    while i < n:
        ch = s[i]
        if ch.isspace():
            i += 1
            continue
        neg = False
        if ch == "-" and i + 1 < n and not s[i + 1].isspace():
            neg = True
            i += 1
            ch = s[i]
        if ch == '"':
            j = s.find('"', i + 1)
            if j < 0:
                j = n
            out.append((s[i + 1:j], True, neg))
            i = j + 1
            continue
        j = i
        while j < n and not s[j].isspace() and not (s[j] == '"' and j > i):
            j += 1
        out.append((s[i:j], False, neg))
        i = j
    return out


def parse(raw: str | None) -> Query:
    q = Query(raw or "")
    text = _clean(raw or "")
    pending_or = False
    for tok, quoted, neg in _tokens(text):
        if not quoted and not neg and tok.lower() == "or":
            pending_or = bool(q.groups)
            continue
        prefix = False
        if not quoted:
            tok = tok.strip(_TRIM)
            while tok.endswith((".", ":")) and len(tok) > 1:
                tok = tok[:-1]
            if tok.endswith("*"):
                tok = tok.rstrip("*")
                prefix = True
        tok = " ".join(tok.split())
        if not tok:
            continue
        term = Term(tok, phrase=quoted, prefix=prefix, identifier=_is_identifier(tok) and not quoted or
                    (quoted and _is_identifier(tok) and " " not in tok))
        if not term.words and not term.substring():
            continue  # nothing any index could match
        if neg:
            q.exclude.append(term)
            pending_or = False
            continue
        if pending_or and q.groups:
            q.groups[-1].append(term)
        else:
            q.groups.append([term])
        pending_or = False
    _drop_stopwords(q)
    return q


def _drop_stopwords(q: Query) -> None:
    def stop(t: Term) -> bool:
        return not t.phrase and not t.prefix and not t.identifier and t.text.lower() in STOPWORDS

    keep = [g for g in q.groups if not all(stop(t) for t in g)]
    if keep and len(keep) < len(q.groups):
        q.dropped = [t.text for g in q.groups if all(stop(t) for t in g) for t in g]
        q.groups = keep
