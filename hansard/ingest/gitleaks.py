"""gitleaks' rule set (github.com/gitleaks/gitleaks, MIT), vendored as data for the redactor.

``hansard/ingest/secret_rules/gitleaks.json`` is generated from gitleaks' ``config/gitleaks.toml``
by ``scripts/update_gitleaks_rules.py`` (its licence and provenance beside it, in that folder).
Each rule keeps its id, its original Go (RE2) regex and that regex translated for Python's
``re``, its keywords, entropy threshold, secret group and allowlists; rules that cannot be used
are listed with the reason, and the update script prints how many.

Translating RE2 to ``re``:
- a flag group in the middle of a pattern (``lin_api_(?i)[a-z0-9]{40}``) applies to the rest of
  its group in RE2; Python accepts flags only at the start, so the rest of the group (each of its
  remaining alternatives) becomes a scoped ``(?i:...)`` group;
- ``\\z`` (end of text) is Python's ``\\Z``;
- POSIX classes (``[[:alnum:]]``) become their ASCII ranges, and a ``[`` inside a class is escaped
  (Python warns of nested sets);
- ``\\p{...}``, ``\\Q...\\E`` and other RE2-only syntax: the rule is skipped.

What the redactor runs (``search``) differs from the translation in two ways, both worked out
here: the name characters keyword rules open with are dropped (see ``convert``), and a secret
ends where the next character is no letter or digit instead of at gitleaks' code-like
terminators (``prose_ends``): in prose a key is followed by punctuation.

How gitleaks uses a rule, and so the redactor: the rule runs only on a text whose lower-cased
form holds one of its keywords; the secret is its ``secretGroup``, else the first non-empty
group, else the whole match; a secret whose Shannon entropy is under the rule's ``entropy`` is
ignored, as is one an allowlist accepts (its regexes, tested on the secret, the match or the
line; its stopwords, found in the secret). Global allowlist regexes apply to every secret.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from typing import Any

# (a str, not a pathlib.Path: pathlib is an import `why`'s path does without)
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "secret_rules", "gitleaks.json")

# Rules left out on purpose (reason shown by the update script), beside the ones that cannot be
# translated or that gitleaks applies only to some file paths (a transcript's text has none).
LEFT_OUT = {
    "generic-api-key": "hansard's secret_assignment rule judges values given to secret-like names",
}

# gitleaks rules for a provider hansard already names (detect-secrets' or its own rules): their
# finds are shown under that name, one name per kind of key.
ALIASES = {
    "aws-access-token": "aws_access_key", "anthropic-admin-api-key": "anthropic_api_key",
    "anthropic-api-key": "anthropic_api_key", "azure-ad-client-secret": "azure_client_secret",
    "gcp-api-key": "gcp_api_key", "github-app-token": "github_token", "github-fine-grained-pat": "github_token",
    "github-oauth": "github_token", "github-pat": "github_token", "github-refresh-token": "github_token",
    "jwt": "jwt", "jwt-base64": "jwt", "mailchimp-api-key": "mailchimp_api_key", "npm-access-token": "npm_token",
    "openai-api-key": "openai_api_key", "private-key": "private_key", "pypi-upload-token": "pypi_token",
    "sendgrid-api-token": "sendgrid_api_key", "slack-app-token": "slack_token", "slack-bot-token": "slack_token",
    "slack-config-access-token": "slack_token", "slack-config-refresh-token": "slack_token",
    "slack-legacy-bot-token": "slack_token", "slack-legacy-token": "slack_token",
    "slack-legacy-workspace-token": "slack_token", "slack-user-token": "slack_token",
    "slack-webhook-url": "slack_webhook", "stripe-access-token": "stripe_key",
    "telegram-bot-api-token": "telegram_bot_token", "twilio-api-key": "twilio_key",
    "artifactory-api-key": "artifactory_token", "artifactory-reference-token": "artifactory_token",
    "curl-auth-header": "authorization_header", "curl-auth-user": "command_password",
    "vault-batch-token": "vault_token", "vault-service-token": "vault_token",
    # Two rules of one regex (or one the prefix of the other): one name.
    "bittrex-access-key": "bittrex_key", "bittrex-secret-key": "bittrex_key",
    "flutterwave-encryption-key": "flutterwave_key", "flutterwave-secret-key": "flutterwave_key",
}

_POSIX = {
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "digit": "0-9", "lower": "a-z", "upper": "A-Z", "xdigit": "0-9a-fA-F",
    "space": r" \t\r\n\v\f", "punct": r"!-/:-@\[-`{-~", "word": r"\w",
}


NAME_HEAD = r"[\w.-]{0,50}?"

# gitleaks ends a secret with a code-like terminator: most rules with a quote, a backtick, a
# blank, a `;`, an escaped \n or the line's end, a few with their own set. In prose a key is
# followed by `,` `.` `)` `]` `:` `!` `?`, a closing curly quote or Markdown's `*` or `_`, and
# such a rule let it through ("keys: PMAK-..., pul-...."). So what the redactor runs ends such
# a branch where the next character is no letter or digit: one a token of the rule's shape
# could not go on with. (A terminator group: alternatives that are character classes,
# anchors, \s or an escaped \n or \r, closing a branch of the pattern.)
_CODE_END = re.compile(r"\(\?:(?:\[(?:\\.|[^\]\\])*\]|\\\\\[nr\]|\$|\\[ZzbBs]|\|)+\)(?=\)|\||\Z)")
PROSE_END = "(?![A-Za-z0-9])"


def prose_ends(py: str) -> str:
    """``py`` with every terminator group that closes a branch replaced by PROSE_END."""
    return _CODE_END.sub(lambda m: PROSE_END, py)


class Untranslatable(ValueError):
    pass


def translate(go: str) -> str:
    """A Go RE2 regex as a Python ``re`` pattern with the same meaning, or Untranslatable."""
    out: list[str] = []
    # Per open group: how many scoped flag groups were opened inside it (closed with it), and
    # their flags (reopened after each `|` of that group).
    stack: list[list[str]] = [[]]
    i, n = 0, len(go)
    while i < n:
        c = go[i]
        if c == "\\":
            if i + 1 >= n:
                raise Untranslatable("trailing backslash")
            nxt = go[i + 1]
            if nxt == "z":
                out.append(r"\Z")
            elif nxt in "pPQECX":
                raise Untranslatable(f"\\{nxt} is RE2-only")
            else:
                out.append(go[i:i + 2])
            i += 2
            continue
        if c == "[":
            j, cls = _char_class(go, i)
            out.append(cls)
            i = j
            continue
        if c == "(":
            m = re.match(r"\(\?([imsU-]+)\)", go[i:])
            if m:
                flags = m.group(1)
                if "U" in flags:
                    raise Untranslatable("(?U) has no Python equivalent")
                if not out and len(stack) == 1 and "-" not in flags:
                    out.append(m.group(0))  # leading global flags: Python takes them as they are
                else:
                    out.append(f"(?{flags}:")
                    stack[-1].append(flags)
                i += len(m.group(0))
                continue
            if go.startswith("(?<", i) and not go.startswith(("(?<=", "(?<!"), i):
                out.append("(?P<")  # a named group, Go 1.22's spelling
                i += 3
                stack.append([])
                continue
            if go.startswith(("(?=", "(?!", "(?<=", "(?<!"), i):
                raise Untranslatable("lookaround is not RE2")
            out.append("(")
            stack.append([])
            i += 1
            continue
        if c == ")":
            if len(stack) == 1:
                raise Untranslatable("unbalanced )")
            out.append(")" * len(stack.pop()) + ")")
            i += 1
            continue
        if c == "|" and stack[-1]:
            out.append(")" * len(stack[-1]) + "|" + "".join(f"(?{f}:" for f in stack[-1]))
            i += 1
            continue
        out.append(c)
        i += 1
    if len(stack) != 1:
        raise Untranslatable("unbalanced (")
    out.append(")" * len(stack[0]))
    py = "".join(out)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            re.compile(py.encode())
        except (re.error, FutureWarning, DeprecationWarning) as e:
            raise Untranslatable(f"Python re: {e}") from None
    return py


def _char_class(go: str, i: int) -> tuple[int, str]:
    """The character class starting at ``go[i]`` ('['): (index after it, its Python form)."""
    j = i + 1
    out = ["["]
    if j < len(go) and go[j] == "^":
        out.append("^")
        j += 1
    first = True
    while j < len(go):
        c = go[j]
        if c == "]" and not first:
            out.append("]")
            return j + 1, "".join(out)
        if c == "\\":
            nxt = go[j + 1] if j + 1 < len(go) else ""
            if nxt in "pPQE":
                raise Untranslatable(f"\\{nxt} is RE2-only")
            out.append(r"\Z" if nxt == "z" else go[j:j + 2])
            j += 2
        elif c == "[":
            m = re.match(r"\[:(\^?)([a-z]+):\]", go[j:])
            if m:
                if m.group(1) or m.group(2) not in _POSIX:
                    raise Untranslatable(f"POSIX class {m.group(0)}")
                out.append(_POSIX[m.group(2)])
                j += len(m.group(0))
            else:
                out.append(r"\[")
                j += 1
        elif c in "&~|" and go[j + 1:j + 2] == c:
            out.append("\\" + c)  # Python warns of set operations
            j += 1
        elif c == "-" and go[j + 1:j + 2] == "-":
            out.append(r"\-")
            j += 1
        else:
            out.append(c)
            j += 1
        first = False
    raise Untranslatable("unterminated [")


def snake(rule_id: str) -> str:
    """The name a gitleaks rule's finds are shown under: ``[REDACTED:github_pat]``."""
    if rule_id.startswith("gitlab-"):
        return "gitlab_token"
    return ALIASES.get(rule_id) or re.sub(r"[^a-z0-9]+", "_", rule_id.lower()).strip("_")


def convert(config: dict[str, Any], source: str) -> dict[str, Any]:
    """The vendored document for a parsed gitleaks.toml: usable rules, translated, and the rest
    with the reason each is left out."""
    rules: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    for r in config.get("rules", []):
        rid = r["id"]
        why = None
        if "regex" not in r:
            why = "matches file paths only"
        elif r.get("path"):
            why = f"applies only to files matching {r['path']}"
        elif rid in LEFT_OUT:
            why = LEFT_OUT[rid]
        elif not r.get("keywords"):
            why = "no keywords: it would run on every text"
        py = None
        if why is None:
            try:
                py = translate(r["regex"])
                # An allowlist that needs a path as well (condition AND) never applies to a text.
                allow = [_allowlist(a) for a in r.get("allowlists", [])
                         if (a.get("regexes") or a.get("stopwords")) and not (a.get("paths") and a.get("condition") == "AND")]
            except Untranslatable as e:
                why = f"cannot translate: {e}"
        if why is not None:
            skipped.append({"id": rid, "reason": why})
            continue
        assert py is not None  # translated whenever no reason left the rule out
        keywords = sorted({k.lower() for k in r["keywords"]})
        whole = _groups_all_repeated(py) or re.compile(py).groups == 0
        # What the redactor runs (worked out here, not at each process's first redaction):
        # without the name characters gitleaks' keyword rules open with (`[\w.-]{0,50}?adobe...`,
        # context for its report, outside the secret's group, tried lazily at every position),
        # and found by the literal the match opens with as written (LTAI, EZAK) where that is
        # no shorter than the keywords: rarer than a lower-cased keyword in text.
        search = prose_ends(py if whole else py.replace(NAME_HEAD, ""))
        prefixes = literal_prefixes(search)
        anchors = list(prefixes) if prefixes and min(map(len, prefixes)) >= min(map(len, keywords)) else keywords
        rules.append({
            "id": rid, "name": snake(rid), "regex": r["regex"], "python": py, "whole": whole,
            "keywords": keywords, "entropy": float(r.get("entropy", 0.0)),
            "secret_group": int(r.get("secretGroup", 0)), "allowlists": allow, "search": search, "anchors": anchors,
        })
    glob = config.get("allowlist", {})
    global_allow = []
    for rx in glob.get("regexes", []):
        try:
            global_allow.append(translate(rx))
        except Untranslatable as e:
            skipped.append({"id": f"global allowlist {rx}", "reason": f"cannot translate: {e}"})
    return {
        "source": source,
        "licence": "MIT, Copyright (c) 2019 Zachary Rice; see LICENSE beside this file",
        "global_allowlist": {"regexes": global_allow, "stopwords": list(glob.get("stopwords", []))},
        "rules": rules,
        "skipped": skipped,
    }


def _groups_all_repeated(py: str) -> bool:
    """Is every capturing group of the pattern repeated (``[a-z0-9]{8}-([a-z0-9]{4}-){3}``) or
    named (jwt-base64's ``(?P<alg>aGJHY2lPaU)``, which labels the token's kind)? Its first group
    is then a piece of the secret, not the secret: the whole match is taken."""
    from re import _constants as C  # type: ignore[attr-defined]  # CPython's private modules, no stubs
    from re import _parser as sre_parse  # type: ignore[attr-defined]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = sre_parse.parse(py)
    free: list[int] = []

    def walk(seq: Any, repeated: bool) -> None:
        for op, av in seq:
            if op is C.SUBPATTERN:
                if av[0] and not repeated:
                    free.append(av[0])
                walk(av[3], repeated)
            elif op in (C.MAX_REPEAT, C.MIN_REPEAT):
                walk(av[2], repeated or av[1] > 1)
            elif op is C.BRANCH:
                for alt in av[1]:
                    walk(alt, repeated)
            elif op in (C.ASSERT, C.ASSERT_NOT):
                walk(av[1], repeated)
            elif op is C.ATOMIC_GROUP:
                walk(av, repeated)

    walk(tree, False)
    named = set(tree.state.groupdict.values())
    return tree.state.groups > 1 and not [g for g in free if g not in named]


def literal_prefixes(py: str) -> tuple[str, ...] | None:
    """The literals, as written, one of which begins every match of the pattern (after its
    zero-width assertions), or None when they cannot be told or one is shorter than 3
    characters. In lower case where the pattern ignores case there.

    The redactor looks for these instead of the rule's keywords: a keyword is a lower-cased
    literal of the match, often short and common in text (``ltai``, ``sc_``, ``ext_``) where the
    literal as written (``LTAI``) is rare."""
    from re import _constants as C  # type: ignore[attr-defined]  # CPython's private modules, no stubs
    from re import _parser as sre_parse  # type: ignore[attr-defined]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = sre_parse.parse(py)

    def heads(seq: list[Any], icase: bool) -> list[str] | None:
        """Literal prefixes of a sequence of items."""
        out = [""]
        for op, av in seq:
            if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
                if out == [""]:
                    continue
                return out
            if op is C.LITERAL:
                ch = chr(av)
                out = [x + (ch.lower() if icase else ch) for x in out]
                continue
            if op is C.SUBPATTERN:
                add_flags, del_flags = av[1], av[2]
                sub_icase = (icase or bool(add_flags & re.IGNORECASE)) and not del_flags & re.IGNORECASE
                inner = heads(list(av[3]), sub_icase)
                if inner is None:
                    return out
                out = [x + y for x in out for y in inner]
                if not _complete(list(av[3])):
                    return out
                continue
            if op is C.BRANCH:
                alts = [heads(list(a), icase) for a in av[1]]
                if any(a is None or not all(a) for a in alts):
                    return out
                out = [x + y for x in out for a in alts for y in a]  # type: ignore[union-attr]
                return out
            return out
        return out

    def _complete(seq: list[Any]) -> bool:
        return all(op in (C.LITERAL, C.AT) for op, _ in seq)

    icase = bool(tree.state.flags & re.IGNORECASE)
    got = heads(list(tree), icase)
    if not got or any(len(x) < 3 for x in got):
        return None
    return tuple(sorted(set(got)))


def _allowlist(a: dict[str, Any]) -> dict[str, Any]:
    return {"target": a.get("regexTarget", "secret"), "regexes": [translate(x) for x in a.get("regexes", [])],
            "stopwords": [s.lower() for s in a.get("stopwords", [])]}


def load() -> dict[str, Any]:
    with open(DATA, encoding="utf-8") as fh:
        return json.load(fh)
