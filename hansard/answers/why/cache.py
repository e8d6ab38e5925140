"""The why-result cache's key and documents: a file's answer is kept without its lines' text
(the file gives it back) under a hash of everything it depends on. Only whole files' answers are
kept: a line or a range is cut from its file's.

The key holds hansard's version, the store's schema version, the engine's ``RULES_VERSION``,
the redactor's digest and the store generation, beside the file's path, the revision and the
file's bytes: a change to the rules is a version bump (or a new digest of the redactor's
rules), never a guess from source files' times.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from hansard.answers.why.target import _file_lines

if TYPE_CHECKING:
    from typing import Any

    from hansard.answers.why.target import Target
    from hansard.store.interfaces import Store


def _without_contents(ans: dict[str, Any], served: dict[str, Any], data: bytes) -> bytes | None:
    """The answer's document for the cache, each line's text left out (null) where the file
    gives it again: it is the file's own, and it may hold a committed secret that the store must
    not keep (README: secrets). A line whose served text is redacted keeps that text, so a cached
    answer needs no redactor. ``ans`` has the lines as blame gave them, ``served`` as redacted.
    None when the file's lines do not give back the texts blame gave (then nothing is cached)."""
    lines = _file_lines(data)
    out = []
    for ln, sv in zip(ans["lines"], served["lines"], strict=True):
        n = ln["line"]
        if n > len(lines) or lines[n - 1] != ln["content"]:
            return None
        out.append({**ln, "content": None if sv["content"] == ln["content"] else sv["content"]})
    from hansard.answers.why.contract import to_json  # after blame: a question's key needs only this module

    return to_json({**served, "lines": out})


def _with_contents(stored: bytes, data: bytes) -> bytes:
    """A cached document with each line's text put back from the file's bytes (a redacted line
    was kept as served). Spliced into the document's bytes, not decoded and encoded again: each
    line's object starts ``{"line":N,"content":`` (``LineAnswer.as_dict``, encoded compactly),
    and a JSON string cannot hold that unescaped, so only those places match."""
    import json
    import re

    lines = _file_lines(data)

    def text(m: re.Match[bytes]) -> bytes:
        content = json.dumps(lines[int(m[1]) - 1], ensure_ascii=False).encode("utf-8", "surrogateescape")
        return b'{"line":' + m[1] + b',"content":' + content

    return re.sub(rb'\{"line":(\d+),"content":null', text, stored)


def _doc_with_contents(stored: bytes, data: bytes) -> dict[str, Any]:
    """``_with_contents``'s document decoded: the cached answer with each line's text put back
    from the file (a redacted line was kept as served)."""
    import json

    doc: dict[str, Any] = json.loads(stored)
    lines = _file_lines(data)
    for ln in doc["lines"]:
        if ln["content"] is None:
            ln["content"] = lines[ln["line"] - 1]
    return doc


# Part of every cache key: a change to what an answer holds must not be served from old rows.
CACHE_FORMAT = 7  # 2: lines stored without their text; 3: commit summaries redacted; 4: redacted lines kept;
# 5: sessions say what was asked for each edit; 6: one document per file, of which a line or a range is cut;
# 7: sessions name the sessions of the same conversation (resumed_from, resumed_in)


def key_prefix(commit: str) -> str:
    """What every key of an answer at ``commit`` starts with: a question can tell that no answer
    at its commit is remembered before it works out its key (``WhyCache.holds_current``)."""
    return f"{commit}:"


def _cached(store: Store, t: Target, rev: str | None, contents: bytes | None, data: bytes, repo_id: int
            ) -> tuple[Any, str, bytes | None, int] | None:
    """(cache, key, the cached JSON document or None, generation); None when the store keeps no
    generation (a store from before the cache) or the revision names no commit.

    The key is a hash of all a file's answer depends on: the commit of HEAD (or ``rev``), the
    file's bytes (the working tree's, or ``contents``), its path, the files git blame reads
    beside history (``.git-blame-ignore-revs``, ``.mailmap``), the tip
    of git-ai's notes (``refs/notes/ai``), the repository, hansard's version, the store's
    schema, the engine's rules version and the store generation (a newly indexed transcript,
    a linked repository, a re-dated edit or a pull of the team's rows changes it)."""
    cache = store.why_cache
    generation = cache.generation()
    if generation is None:
        return None
    from hansard.git.refs import head_commit, resolve_commit

    commit = resolve_commit(t.top, rev) if rev else head_commit(t.top)
    if commit is None:
        return None
    try:  # the C module directly: hashlib loads OpenSSL too
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - not CPython
        from hashlib import blake2b

    from hansard import __version__
    from hansard.files import safeopen

    h = blake2b(digest_size=20)
    from hansard.answers.why.engine import RULES_VERSION
    from hansard.ingest.secret_screen import rules_digest

    # (The redactor's digest: a cached answer holds commit summaries redacted by the rules of then.)
    h.update(repr((CACHE_FORMAT, __version__, cache.schema(), RULES_VERSION, rules_digest(), generation, repo_id, t.top,
                   t.main_top, t.rel, rev, commit, contents is not None)).encode("utf-8", "surrogateescape"))
    for name in (".git-blame-ignore-revs", ".mailmap"):
        try:  # a FIFO here must not hang every question
            side = safeopen.read_bytes(os.path.join(t.top, name), follow=True)
        except OSError:
            side = None
        h.update(repr(side).encode())
    from hansard.answers.why.recorded import attribution_tip, notes_tip

    h.update(repr((notes_tip(t.top), attribution_tip(t.top))).encode())  # git-ai's and qwen-code's notes
    h.update(data)
    key = key_prefix(commit) + h.hexdigest()
    return cache, key, cache.get(key), generation
