"""Secret redaction for everything hansard derives from a transcript.

Transcripts are full of keys: environment dumps, ``.env`` files an agent read, tokens a user
pasted. The raw archive (``raw_records``) keeps every record verbatim and is shown only by
``hansard show --raw``; every derived text (messages, tool inputs and outputs, edit hunks and
file texts, steps, titles) passes through here first (hansard/store/sqlite/writer.py), so the FTS
indexes and embeddings built from those tables never hold a secret either.

Always true of ``redact(text)``:

- each secret becomes ``[REDACTED:<rule>]``, so a reader knows what was there;
- the number of newlines is unchanged (a multi-line private key keeps its line count), so
  line numbers and hunks stay aligned with the original;
- it is idempotent: redacting a redacted text changes nothing.

The rule set is detect-secrets' (Yelp): the compiled ``denylist`` regexes of its
RegexBasedDetector plugins (AWS, Azure storage, GitHub, GitLab, Slack, Stripe, JWT, basic-auth
URLs, OpenAI, Discord, Twilio, SendGrid, npm, PyPI, ...), reused as patterns only. Its scanning
machinery (a plugin call per line, filters, verification) is far too slow for indexing.
Instead each text is encoded to UTF-8 once and lower-cased once (bytes: ASCII only, fast);
one Aho-Corasick pass finds which rules' anchors (``aws``, ``ghp_``, ``eyj``, ``private
key``...) occur at all, and only those rules run their own regex. What detect-secrets
lacks and hansard's redaction needs is added below, each with where it comes from.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterator
from typing import Any, NamedTuple

MARK = "[REDACTED:"

# Where a secret sits in a rule's match.
WHOLE, GROUP = "whole", "group"
# Token characters a whole-match rule extends over, so that a pattern naming only a token's
# head (detect-secrets' Stripe and OpenAI rules match a fixed length) never leaves its tail.
TOKEN_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
JWT_CHARS = TOKEN_CHARS + b".+/="


class Rule(NamedTuple):
    # (A NamedTuple, not a dataclass: the dataclasses module is a heavy import on `why`'s
    # path, which redacts what it serves.)
    name: str
    pattern: str
    flags: int = 0
    where: str = WHOLE          # WHOLE: the match; GROUP: its last matched group
    extend: bytes | None = TOKEN_CHARS
    trim: bytes = b""           # delimiters a pattern consumes around the secret (Artifactory's)
    # Literals, one of which every match contains: the rule runs only on a text holding one.
    # An anchor with a capital letter is looked for as written, any other in the lower-cased
    # text (see _Engine). ``gate``: a regex; with anchors, it must also find something;
    # without, it is the anchor, searched for once in each text.
    anchors: tuple[str, ...] = ()
    gate: str | None = None
    gate_on_text: bool = False  # the gate runs on the text as written, not lower-cased
    # When every match starts at most this many bytes before the start of an anchor it holds
    # (a keyword at the match's head), the regex is tried only at those places (_near), not
    # scanned over the whole text; -1: not known, the whole text is scanned.
    lead: int = -1
    # Keyword-anchored rules (a password after `-p`, `is`, `--password`) find a place where a
    # secret would be, not a secret's shape: JUDGED values must look made up (random_enough, as
    # a password), GIVEN values only must not be a reference to a variable or a placeholder.
    judge: str | None = None
    # gitleaks rules (hansard/ingest/gitleaks.py): the secret must have this Shannon entropy,
    # and is let go when an allowlist regex finds something in its target ("secret", "match"
    # or "line") or it holds one of the stopwords.
    entropy: float = 0.0
    allow: tuple[tuple[str, str], ...] = ()
    stopwords: tuple[str, ...] = ()
    secret_group: int = 0       # with where=FIRST: this group, if set
    # A pass over another view of the text rather than a secret's shape (see _find): BASE64
    # or PERCENT (its matches are runs to decode) or JOINED (its matches are joins of a broken
    # key).
    kind: str = ""


JUDGED, GIVEN = "judged", "given"
BASE64, JOINED, PERCENT = "base64", "joined", "percent"
# gitleaks' choice of the secret in a match: its secretGroup, else the first non-empty group,
# else the whole match.
FIRST = "first"


# -- rules detect-secrets lacks ---------------------------------------------------------------
# Private keys: detect-secrets' PrivateKeyDetector matches only the "BEGIN ... PRIVATE KEY"
# header line, which would leave the key body in the text. This takes the whole PEM/OpenSSH/
# PGP/SSH2 block, with real or JSON-escaped (\n) line breaks; a block cut short (a truncated
# tool output) is taken up to its last base64 line. Atomic groups (Python 3.11): a cut-short
# block must not backtrack over its lines.
_NL = r"(?:\r?\n|\\r\\n|\\n)"
_PK_HEAD = r"-{4,5} ?BEGIN[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)? ?-{4,5}"
_PK_END = r"-{4,5} ?END[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)? ?-{4,5}"
_PK_LINE = r"(?>[A-Za-z][A-Za-z-]{1,30}: [^\n\\]{0,200}+|[A-Za-z0-9+/=]++)"
_PRIVATE_KEY = (
    _PK_HEAD + r"(?:(?>" + _NL + r"|[ \t]++|" + _PK_LINE + r")*?" + _PK_END
    + r"|(?>" + _NL + _PK_LINE + r"?)*)"
)

_AWS_SECRET = (r"(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[A-Z])"
               r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])")
# A command-line value: quoted, or up to the next blank or shell operator (an `&` glued
# between two characters of it is taken as one of its characters: `--password s3cr3t&G2v8S`).
_CMD_VALUE = r"(?:'([^'\n]{1,200})'|\"([^\"\n]{1,200})\"|((?:[^\s'\"|;&<>()`]|&(?=[^\s&|;<>()])){1,200}))"

OWN_RULES: tuple[Rule, ...] = (
    # GCP service-account JSON (`"private_key": "-----BEGIN PRIVATE KEY-----\n..."`), named for
    # what it is; gitleaks' gcp-service-account rule keys on the same field.
    Rule("gcp_service_account_key",
         r'"private_key"\s*:\s*"(' + _PK_HEAD + r"(?:[A-Za-z0-9+/=\s]|\\[nr])*(?:" + _PK_END + r")?(?:\\n)?)",
         where=GROUP, anchors=('_key"',)),
    Rule("private_key", _PRIVATE_KEY, extend=None, anchors=("PRIVATE KEY",)),
    # PuTTY key files: detect-secrets flags the "PuTTY-User-Key-File-2" header only.
    Rule("private_key", r"PuTTY-User-Key-File-\d+: [^\n]*(?:\r?\n[^\n]*){0,60}?\r?\nPrivate-MAC: *[0-9a-fA-F]*",
         extend=None, anchors=("PuTTY",)),
    Rule("private_key", r"Private-Lines: *\d+(?:\r?\n[A-Za-z0-9+/=]+)+", extend=None, anchors=("Private-Lines:",)),
    # Anthropic API and admin keys (sk-ant-api03-..., sk-ant-admin01-...): gitleaks'
    # anthropic-api-key / anthropic-admin-api-key rules, with the length relaxed.
    Rule("anthropic_api_key", r"sk-ant-[a-z]{2,10}\d{2}-[A-Za-z0-9_-]{20,}", anchors=("k-ant-",)),
    # GCP API keys: gitleaks' gcp-api-key rule (AIza + 35 characters).
    Rule("gcp_api_key", r"AIza[0-9A-Za-z_-]{35}", anchors=("AIza",)),
    # GitHub fine-grained personal access tokens: gitleaks' github-fine-grained-pat.
    Rule("github_token", r"github_pat_[A-Za-z0-9_]{22,}", anchors=("_pat_",)),
    # OpenAI project / service-account / admin keys: gitleaks' openai-api-key rule covers
    # these prefixes; detect-secrets' rule needs the T3BlbkFJ marker at a fixed offset.
    Rule("openai_api_key", r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}",
         anchors=("k-proj-", "k-svcacct-", "k-admin-")),
    # Stripe test and restricted keys too: gitleaks' stripe-access-token; detect-secrets has
    # live keys only.
    Rule("stripe_key", r"(?:sk|rk)_(?:test|live|prod)_[0-9a-zA-Z]{10,}", anchors=("k_test_", "k_live_", "k_prod_")),
    # npm access tokens on their own (a pasted token, `npm token create` output): gitleaks'
    # npm-access-token; detect-secrets knows them only inside an .npmrc `:_authToken=` line.
    Rule("npm_token", r"npm_[A-Za-z0-9]{36}", anchors=("pm_",)),
    # Slack app-level tokens: gitleaks' slack-app-token.
    Rule("slack_token", r"xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+", re.IGNORECASE, anchors=("xapp-",)),
    # Azure AD client secrets: gitleaks' azure-ad-client-secret; Service Bus / Event Hubs
    # connection strings (SharedAccessKey=), where detect-secrets knows only AccountKey=.
    Rule("azure_client_secret",
         r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])", extend=None,
         anchors=("q~",)),
    Rule("azure_key", r"SharedAccessKey=([A-Za-z0-9+/]{20,}={0,2})", where=GROUP, anchors=("SharedAccessKey=",)),
    # A password in a URL without a user name (redis://:secret@host); detect-secrets'
    # basic-auth rule needs a user before the colon.
    Rule("url_password", r"://:([^\s:/?#\[\]@]+)@", where=GROUP, anchors=("://:",), lead=0),
    # ... and one holding a character a URL should have escaped (postgres://app:s3cr&t#1@db),
    # which detect-secrets' basic-auth pattern stops at.
    Rule("url_password", r"[a-z][a-z0-9+.-]{1,20}://[^\s:/?#@'\"]{0,100}:([^\s@/'\"]{1,200}?)@(?=[A-Za-z0-9.-]+(?:[:/?#\s'\"]|$))",
         re.IGNORECASE, where=GROUP, extend=None, anchors=("://",), judge=GIVEN, lead=21),  # a scheme of 2 to 21
    # HTTP authorization headers (curl -H "Authorization: Bearer ..."), as gitleaks'
    # curl-auth-header rule; the scheme word stays, the credential goes.
    Rule("authorization_header",
         r"\b(?:authorization|bearer)\b[\"']?[ \t]*[:=]?[ \t]*[\"']?(?:bearer|basic|token|digest)?[ \t]+"
         r"(?=[A-Za-z._~+/-]*\d)([A-Za-z0-9._~+/-]{8,}=*)",
         re.IGNORECASE, where=GROUP, anchors=("bearer", "zation"), lead=7),  # "authori" before "zation"
    # An AWS secret access key in prose near its key id ("the id is AKIA... and the secret is
    # ..."): detect-secrets' AWS rule needs an `aws..secret..=` assignment. 40 characters of
    # base64 with both cases (a git SHA is lower-case hex), within 200 characters of the id.
    Rule("aws_secret_key",
         r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}[\s\S]{0,200}?" + _AWS_SECRET, where=GROUP, extend=None,
         anchors=("AKIA", "ASIA", "ABIA", "ACCA"), lead=0),
    Rule("aws_secret_key", _AWS_SECRET + r"[\s\S]{0,200}?(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}", where=GROUP,
         extend=None, anchors=("AKIA", "ASIA", "ABIA", "ACCA")),
    # Shapes a hostile probe found served. An AWS secret key said in prose
    # without its key id ("the AWS secret is wJalr..."): within a line, after "aws"/"amazon"
    # and then "secret" or "key", 40 characters of base64 with both cases and a digit.
    Rule("aws_secret_key",
         r"\b(?:aws|amazon)(?:\b|_)[^\n]{0,80}?(?:\b|_)(?:secret|key)\b[^\n]{0,40}?(?=[A-Za-z0-9/+]{0,39}\d)" + _AWS_SECRET,
         re.IGNORECASE, where=GROUP, extend=None, anchors=("aws", "amazon"), lead=0),
    # HuggingFace user and organisation tokens in any case mix (gitleaks' rule wants 34 letters).
    Rule("huggingface_access_token", r"(?<![A-Za-z0-9_])(?:hf|api_org)_(?=[A-Za-z0-9]{0,40}[A-Z])[A-Za-z0-9]{30,40}\b",
         anchors=("hf_", "api_org_")),
    # HashiCorp Vault tokens of any length (gitleaks' rule wants 90 to 120 characters after hvs.).
    Rule("vault_token", r"(?<![A-Za-z0-9_.])hv[sbr]\.[A-Za-z0-9_-]{20,}", anchors=("hvs.", "hvb.", "hvr."), lead=0),
    # xAI (xai-...) and Groq (gsk_...) API keys, which gitleaks has no rule for.
    Rule("xai_api_key", r"(?<![A-Za-z0-9_-])xai-[A-Za-z0-9]{40,120}", anchors=("xai-",)),
    Rule("groq_api_key", r"(?<![A-Za-z0-9_-])gsk_[A-Za-z0-9]{40,60}", anchors=("gsk_",)),
    # Legacy OpenAI keys (sk- and 48 characters, without the T3BlbkFJ marker detect-secrets
    # wants) and other sk- keys (DeepSeek: 32 hex), with a digit.
    # (The literal first, the look-behind after it: Python's re skips to a pattern's literal
    # prefix fast, and tries a leading look-behind at every position.)
    Rule("openai_api_key", r"sk-(?<![A-Za-z0-9_-]sk-)(?=[A-Za-z0-9]{0,47}\d)[A-Za-z0-9]{48}(?![A-Za-z0-9_-])",
         anchors=("sk-",)),
    Rule("api_key",
         r"sk-(?<![A-Za-z0-9_-]sk-)(?=[A-Za-z0-9]{0,99}\d)(?=[A-Za-z0-9]{0,99}[a-z])[A-Za-z0-9]{32,100}(?![A-Za-z0-9_-])",
         anchors=("sk-",)),
    # A private key's base64 body pasted without its BEGIN line: the DER openings of PKCS#1 RSA
    # (MIIEpAIBAAKCAQEA...), PKCS#8 (MIIEvQIBADANBgkqhkiG9w0BAQEFAASC...), SEC1 EC (MHcCAQEE...),
    # PKCS#8 Ed25519 (MC4CAQAwBQYDK2Vw...) and OpenSSH (b3BlbnNzaC1rZXktdjEA), with the lines
    # that follow (real or \n line breaks). Public keys open otherwise (...AAOCAQ8A, AAAAC3Nz).
    Rule("private_key",
         r"(?<![A-Za-z0-9+/])(?:MII[A-Za-z0-9+/]{3}(?:IBAAKCA|IBADANBgkqhkiG9w0BAQEFAAS)"
         r"|MHcCAQEE|MC4CAQAwBQYDK2Vw|b3BlbnNzaC1rZXktdjEA)[A-Za-z0-9+/=]*(?:" + _NL + r"[ \t]*[A-Za-z0-9+/=]{8,})*",
         extend=None, anchors=("MII", "MHcCAQEE", "MC4CAQAwBQYDK2Vw", "b3BlbnNzaC1rZXktdjEA")),
)

# Keyword-anchored rules run after every rule that knows a provider's format, so that a
# value both name (`--token ghp_...`) is reported under the provider's rule.
KEYWORD_RULES: tuple[Rule, ...] = (
    # Passwords on command lines, where a keyword or flag says what the next word is (gitleaks
    # has no rule for these; they are the shapes agents run): `mysql -pSECRET`, `sshpass -p
    # SECRET`, `curl -u user:SECRET`, `PGPASSWORD=SECRET psql`, `--password SECRET`.
    Rule("command_password",
         r"\b(?:mysql|mysqldump|mysqladmin|mysqlsh|mariadb|mariadb-dump)\b[^\n|;&]{0,200}?[ \t]-p" + _CMD_VALUE,
         where=GROUP, extend=None, anchors=("mysql", "mariadb"), judge=GIVEN),
    Rule("command_password", r"\bsshpass\b(?:[ \t]+-[a-oq-zA-Z]\S*)*[ \t]+-p[ \t]*" + _CMD_VALUE,
         where=GROUP, extend=None, anchors=("sshpass",), judge=GIVEN),
    Rule("command_password",
         r"\bcurl\b[^\n|;&]{0,300}?[ \t](?:-u|--user)(?:[ \t]+|=)?"
         r"(?:'[^':\n]{1,100}:([^'\n]{1,200})'|\"[^\":\n]{1,100}:([^\"\n]{1,200})\"|[^\s:\"']{1,100}:" + _CMD_VALUE + ")",
         where=GROUP, extend=None, anchors=("curl",), judge=GIVEN),
    Rule("command_password",
         r"(?<![A-Za-z0-9_])(?:PGPASSWORD|MYSQL_PWD|SSHPASS|REDISCLI_AUTH|RCLONE_CONFIG_PASS|BORG_PASSPHRASE"
         r"|RESTIC_PASSWORD)=" + _CMD_VALUE,
         where=GROUP, extend=None, anchors=("PGPASSWORD", "MYSQL_PWD", "SSHPASS", "REDISCLI_AUTH", "_PASS"),
         judge=GIVEN),
    Rule("command_password",
         r"(?<![\w-])--(?:password|passwd|pass|passphrase|token|api-key|apikey|api-token|auth-token|access-token"
         r"|secret|client-secret|secret-key|access-key)(?:[ \t]+|=)" + _CMD_VALUE,
         re.IGNORECASE, where=GROUP, extend=None, anchors=("--pass", "--token", "--api", "--auth-token",
                                                           "--access-", "--secret", "--client-secret"),
         judge=JUDGED),
    # Registry and database logins: `docker login -u me -p PW`, `helm registry login -p PW`,
    # `redis-cli -a PW`, `mongosh -u me -p PW`, `sqlcmd -P PW`, `openssl ... -passin pass:PW`,
    # `keytool -storepass PW`, `htpasswd -b file user PW`, `smbclient -U user%PW`.
    Rule("command_password",
         r"\b(?:docker|podman|nerdctl|buildah|skopeo|helm|oras|crane|az|cf|vault)\b(?:[ \t]+[^\s|;&]+){0,3}?[ \t]+login\b"
         r"[^\n|;&]{0,200}?[ \t]-p(?:[ \t]+|=)" + _CMD_VALUE,
         where=GROUP, extend=None, anchors=("login",), judge=GIVEN),
    Rule("command_password",
         r"\b(?:mongo|mongosh|mongodump|mongorestore|mongoimport|mongoexport)\b[^\n|;&]{0,200}?[ \t]-p(?:[ \t]+|=)"
         + _CMD_VALUE, where=GROUP, extend=None, anchors=("mongo",), judge=GIVEN),
    Rule("command_password", r"\bredis-cli\b[^\n|;&]{0,200}?[ \t]-a[ \t]+" + _CMD_VALUE,
         where=GROUP, extend=None, anchors=("redis-cli",), judge=GIVEN),
    Rule("command_password", r"\b(?:sqlcmd|bcp|osql)\b[^\n|;&]{0,200}?[ \t]-P[ \t]*" + _CMD_VALUE,
         where=GROUP, extend=None, anchors=("sqlcmd", "bcp", "osql"), judge=GIVEN),
    Rule("command_password", r"[ \t]-pass(?:in|out)[ \t]+pass:" + _CMD_VALUE,
         where=GROUP, extend=None, anchors=("-passin", "-passout"), judge=GIVEN),
    Rule("command_password", r"[ \t]-(?:storepass|keypass|srcstorepass|deststorepass)[ \t]+" + _CMD_VALUE,
         where=GROUP, extend=None, anchors=("pass",), gate=r"-(?:storepass|keypass|srcstorepass|deststorepass)[ \t]",
         judge=GIVEN),
    Rule("command_password", r"\bhtpasswd\b(?:[ \t]+-[a-zA-Z]+)*[ \t]+-[a-zA-Z]*b[a-zA-Z]*(?:[ \t]+-[a-zA-Z]+)*"
         r"[ \t]+(?:-n[ \t]+)?\S+[ \t]+\S+[ \t]+" + _CMD_VALUE,
         where=GROUP, extend=None, anchors=("htpasswd",), judge=GIVEN),
    Rule("command_password", r"\b(?:smbclient|rpcclient|mount\.cifs|net)\b[^\n|;&]{0,200}?[ \t](?:-U|--user(?:=|[ \t]+))"
         r"[ \t]*[^\s%'\"]{1,100}%" + _CMD_VALUE,
         where=GROUP, extend=None, anchors=("smbclient", "rpcclient", "cifs", "net "), judge=GIVEN),
    # .netrc (and _netrc, .authinfo): `machine HOST login USER password PW`, on one line or
    # several.
    Rule("netrc_password",
         r"\b(?:machine[ \t]+[^\s]+|default)(?:\s+(?:login|account|port|protocol)[ \t]+[^\s]+)*\s+password[ \t]+([^\s]+)",
         where=GROUP, extend=None, anchors=("machine", "default"), judge=GIVEN, lead=0),
    # A quoted password or passphrase in prose: `my passphrase is "correct horse battery staple"`,
    # `set the wifi password to 'Blue-Lagoon'`, `the pin is “4417”`.
    Rule("prose_password",
         r"\b(?:password|passwd|passphrase|pass phrase|pwd|passcode|pin|secret)\b[^\n.;\[\"'`]{0,40}?"
         r"(?:\b(?:is|was|are|to|be|as)\b|=|:)[ \t]*(?:\"([^\"\n]{4,100})\"|'([^'\n]{4,100})'|`([^`\n]{4,100})`"
         r"|\xe2\x80\x9c([^\n]{4,100}?)\xe2\x80\x9d|\xe2\x80\x98([^\n]{4,100}?)\xe2\x80\x99)",
         re.IGNORECASE, where=GROUP, extend=None, anchors=("wd", "word", "hrase", "passcode", "pin", "secret"),
         judge="quoted", lead=6),  # "pass phrase": its anchor "hrase" starts 6 bytes in
    # A password said in prose: "my password is S3cret!", "the db password was: x9!k...".
    Rule("prose_password",
         r"\b(?:password|passwd|passphrase|pwd)\b[^\n.;\[]{0,40}?(?:\b(?:is|was|are|to)\b|=|:)[ \t]*[\"'`]?"
         r"(?=[A-Za-z]*[^A-Za-z\s\"'`\[\].,;:!?()])(?>([^\s\"'`\[\]()]*[^\s\"'`.,;:!?()\[\]]))(?![(\w])",
         re.IGNORECASE, where=GROUP, extend=None, anchors=("wd", "word", "hrase"), judge=JUDGED,
         lead=5),  # "passphrase": "hrase" starts 5 bytes in
)

# -- keys wrapped in base64, keys split across lines ---------------------------------------------
# A Kubernetes Secret, a CI variable or `base64 -w0` output holds a key's text base64-encoded.
# Decoding every run of base64 would cost too much (and most are images or digests), so the
# pass runs only on a text holding the encoding of a tell-tale (at each of the three alignments
# a string can have in a base64 stream): then each run of base64 in it is decoded, and when the
# decoded text (printable) holds a secret, the whole run is withheld as base64_secret.
_B64_TELLTALES = (
    "-----BEGIN", "PRIVATE KEY", "ghp_", "gho_", "ghs_", "github_pat_", "glpat-", "sk-proj-", "sk-ant-", "sk_live_",
    "rk_live_", "sk_test_", "xoxb-", "xoxp-", "AKIA", "ASIA", "hf_", "hvs.", "AIza", "npm_", "pypi-", "password",
    "PASSWORD", "Password", "passwd", "secret", "SECRET", "Secret", "token", "TOKEN", "Token", "api_key", "API_KEY",
    "apiKey", "private_key", "AccountKey=", "Bearer ", "_KEY=", "://",
)


def _b64_anchors(words: tuple[str, ...]) -> tuple[str, ...]:
    """The base64 text every encoding of each word holds, at its three alignments (standard
    and URL-safe alphabets): the characters made only of the word's bits."""
    import base64

    out: set[str] = set()
    for w in words:
        raw = w.encode()
        for k in range(3):
            enc = base64.b64encode(b"\0" * k + raw).decode()
            first = -(-8 * k // 6)                  # first character wholly inside the word
            last = (8 * (k + len(raw))) // 6        # characters before it are whole
            part = enc[first:last]
            if len(part) >= 4:
                out.add(part)
                out.add(part.replace("+", "-").replace("/", "_"))
    return tuple(sorted(out))


B64_NAME = "base64_secret"
# Runs of base64, standard or URL-safe, possibly wrapped at a fixed width (base64's 76).
_B64_RUN = r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{20,}(?:\r?\n[A-Za-z0-9+/_-]{20,})*={0,2}"
# A key broken across lines or concatenated: `"ghp_abc" + "def"`, `"ghp_abc" \<newline> "def"`,
# `("ghp_abc"<newline> "def")` (Python's implicit concatenation), `ghp_abc\<newline>def` (a shell
# line continuation). Each join between token characters is found; the text without its joins is
# searched again, and a secret that spans a join is withheld whole, joins included.
_TOK = r"[A-Za-z0-9_+/=.~-]"
_JOIN = (r"[\"'\\](?<=" + _TOK + r"{4}[\"'\\])"  # a quote or backslash after a token (first: see sk- above)
         r"(?:(?<=\\)\r?\n[ \t]*|(?<=[\"'])[ \t]*(?:\+[ \t]*(?:\\?\r?\n[ \t]*)?|\\?\r?\n[ \t]*)[\"'])"
         r"(?=" + _TOK + r"{4})")
# A URL given as a query value is percent-encoded (`?hook=https%3A%2F%2Fhooks.slack.com%2F...`):
# a run of what such a value is made of, holding an encoded ":" or "/", is decoded, and when the
# decoded text holds a secret the run is withheld under that secret's rule.
_PCT_RUN = r"%(?:3[Aa]|2[Ff])"  # (found fast as a literal; _percent_finds widens it to its run)
_PCT_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789%._~+-")
PASS_RULES: tuple[Rule, ...] = (
    Rule(B64_NAME, _B64_RUN, extend=None, anchors=_b64_anchors(_B64_TELLTALES), kind=BASE64),
    Rule("percent_encoded", _PCT_RUN, extend=None, anchors=("%3a", "%2f"), kind=PERCENT),
    # (a quote then any run of blanks before the `+`: `"  +`, `"\t+`, `" \t+` are anchored by their head)
    Rule("joined", _JOIN, extend=None, anchors=('"+', '" +', "'+", "' +", '"  ', "'  ", '"\t', "'\t", '" \t', "' \t",
                                                 "\\\n", "\\\r\n", '"\n', "'\n", '"\r\n', "'\r\n"), kind=JOINED),
)

# detect-secrets plugins reused, with the rule name shown in the replacement (per pattern
# index where one plugin has several). Left out on purpose:
# - PrivateKeyDetector: header line only; the block rule above takes header and body;
# - IPPublicDetector: an address is not a secret;
# - IbmCloudIamDetector: its name prefix is optional, so it is "any key/pwd/pass/token given a
#   44-character value", without an entropy check, and the slowest pattern of the set;
#   the assignment rule below covers those values;
# - KeywordDetector and the high-entropy string plugins (not regex-based): replaced by the
#   assignment rule, which judges only values given to secret-like names.
DS_PLUGINS: tuple[tuple[str, str, str, dict[int, str]], ...] = (
    ("aws", "AWSKeyDetector", "aws_access_key", {1: "aws_secret_key"}),
    ("azure_storage_key", "AzureStorageKeyDetector", "azure_storage_key", {}),
    ("basic_auth", "BasicAuthDetector", "url_password", {}),
    ("github_token", "GitHubTokenDetector", "github_token", {}),
    ("gitlab_token", "GitLabTokenDetector", "gitlab_token", {}),
    ("slack", "SlackDetector", "slack_token", {1: "slack_webhook"}),
    ("stripe", "StripeDetector", "stripe_key", {}),
    ("jwt", "JwtTokenDetector", "jwt", {}),
    ("openai", "OpenAIDetector", "openai_api_key", {}),
    ("discord", "DiscordBotTokenDetector", "discord_bot_token", {}),
    ("twilio", "TwilioKeyDetector", "twilio_key", {}),
    ("sendgrid", "SendGridDetector", "sendgrid_api_key", {}),
    ("square_oauth", "SquareOAuthDetector", "square_oauth_secret", {}),
    ("pypi_token", "PypiTokenDetector", "pypi_token", {}),
    ("npm", "NpmDetector", "npm_token", {}),
    ("mailchimp", "MailchimpDetector", "mailchimp_api_key", {}),
    ("telegram_token", "TelegramBotTokenDetector", "telegram_bot_token", {}),
    ("artifactory", "ArtifactoryDetector", "artifactory_token", {}),
    ("cloudant", "CloudantDetector", "cloudant_key", {}),
    ("ibm_cos_hmac", "IbmCosHmacDetector", "ibm_cos_key", {}),
    ("softlayer", "SoftlayerDetector", "softlayer_key", {}),
)
# Patterns whose secret is a capture group (the rest of the match is a name or the URL).
_DS_GROUP = {("aws", 1), ("basic_auth", 0), ("npm", 0), ("cloudant", 2), ("cloudant", 3), ("softlayer", 1)}
# detect-secrets' build_assignment_regex starts every pattern with this; their secret is the
# last group.
_DS_ASSIGNMENT_HEAD = r"(?:(?<=\W)|(?<=^))"
# Anchors and gates of detect-secrets' patterns, by (plugin module, pattern index): literals
# every match contains, or a cheap regex every match satisfies (see Rule). A test checks that
# every pattern has one.
_KW = r"(?:key|pwd|pw|password|pass|token)"
_KW_ANCHORS = ("key", "ken", "wd", "word", "_pass", "-pass")
DS_GATES: dict[tuple[str, int], dict[str, Any]] = {
    ("aws", 0): {"anchors": ("AKIA", "ASIA", "ABIA", "ACCA", "A3T")},
    ("aws", 1): {"anchors": ("ws",), "lead": 1},
    ("azure_storage_key", 0): {"anchors": ("AccountKey=",)},
    ("basic_auth", 0): {"anchors": ("://",)},
    ("github_token", 0): {"anchors": ("hp_", "ho_", "hu_", "hs_", "hr_")},
    ("gitlab_token", 0): {"anchors": ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-")},
    ("gitlab_token", 1): {"anchors": ("gr1348941",)},
    ("gitlab_token", 2): {"anchors": ("glcbt-",)},
    ("gitlab_token", 3): {"anchors": ("glimt-",)},
    ("gitlab_token", 4): {"anchors": ("glptt-",)},
    ("gitlab_token", 5): {"anchors": ("glagent-",)},
    ("gitlab_token", 6): {"anchors": ("gloas-",)},
    ("slack", 0): {"anchors": ("xox",)},
    ("slack", 1): {"anchors": (".slack.com",)},
    ("stripe", 0): {"anchors": ("k_live_",)},
    ("jwt", 0): {"anchors": ("yj",)},
    ("openai", 0): {"anchors": ("T3BlbkFJ",)},
    ("discord", 0): {"gate": r"\.[a-z0-9_-]{6}\.[a-z0-9_-]{27}"},
    ("twilio", 0): {"gate": r"AC[a-z0-9]{32}", "gate_on_text": True},
    ("twilio", 1): {"gate": r"SK[a-z0-9]{32}", "gate_on_text": True},
    ("sendgrid", 0): {"anchors": ("SG.",)},
    ("square_oauth", 0): {"anchors": ("q0csp-",)},
    ("pypi_token", 0): {"anchors": ("ypi-age",)},
    ("pypi_token", 1): {"anchors": ("ypi-age",)},
    ("npm", 0): {"anchors": ("_authtoken",)},
    ("mailchimp", 0): {"gate": r"-us\d"},
    ("telegram_token", 0): {"gate": r":[0-9a-z_-]{35}"},
    ("artifactory", 0): {"anchors": ("AKC",)},
    ("artifactory", 1): {"gate": r"AP[\dA-F][a-zA-Z0-9]{8}", "gate_on_text": True},
    # The name-prefixed assignments (cloudant_password = ..., sl_api_key: ...) hold one of
    # the secret keywords: they run where one is found, behind a gate for their prefix.
    ("cloudant", 0): {"anchors": _KW_ANCHORS, "gate": r"cl(?:oudant|ou)?[-_]?(?:api)?" + _KW},
    ("cloudant", 1): {"anchors": _KW_ANCHORS, "gate": r"cl(?:oudant|ou)?[-_]?(?:api)?" + _KW},
    ("cloudant", 2): {"anchors": ("://",), "gate": r"cloudant\.com"},
    ("cloudant", 3): {"anchors": ("://",), "gate": r"cloudant\.com"},
    ("ibm_cos_hmac", 0): {"anchors": ("secret",), "gate": r"secret[-_]?(?:access)?[-_]?key"},
    ("softlayer", 0): {"anchors": _KW_ANCHORS, "gate": r"(?:softlayer|sl)[-_]?(?:api)?" + _KW},
    ("softlayer", 1): {"anchors": ("yer.com",)},
}

# -- high-entropy assignments -------------------------------------------------------------------
# Values given to names like *_SECRET, *_TOKEN, *_KEY, PASSWORD, in env dumps
# (`X=...`), .env files, JSON (`"x_token": "..."`), YAML (`key: value`), headers and URLs
# (`?access_token=...`). Each keyword found in the lower-cased text is followed by this tail
# (rest of the name, closing quote, operator, value); the whole name around the keyword and
# the value are then judged in Python (_secret_name, _random_enough), so that ordinary words,
# paths and references to variables stay.
ASSIGNMENT_NAME = "secret_assignment"
# Where a secret-like name can end, found by literals with a rare first byte where possible:
# "ken" ends "token", "wd" ends "pwd" and "passwd", "word" ends "password", "hrase" ends
# "passphrase"; "_pass"/"-pass" end DB_PASS and the like (a bare "pass" is a test verdict).
MIN_CHARS = 6  # a shorter text is never redacted
KEYWORDS = ("key", "ken", "secret", "wd", "word", "hrase", "_pass", "-pass")
# A quoted value runs to its closing quote (a Django SECRET_KEY holds "(", "#", "$"...); an
# unquoted one to the first blank or delimiter.
_TAIL = re.compile(
    rb"[\w.-]{0,40}?\\?[\"'\]]{0,2}[ \t]*(?:=>|:=|=|:)[ \t]*"
    rb"(?:\\?\"([^\"\\\n]{6,400})\\?\"|'([^'\n]{6,400})'|`([^`\n]{6,400})`"
    rb"|\\?[\"'`]?([^\s\"'`,;(){}\[\]<>|\\]{6,400}))")
# Where an unquoted value ends early: at `&` before another URL query parameter (`?token=...&state=`),
# not at an `&` of the value (`DB_PASSWORD=s3cr3t&x9` in an .env file).
_NEXT_PARAM = re.compile(rb"&(?:[\w.\[\]-]*=|&|$)")

_NAME_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_NAME_ENDS = re.compile(r"(?:key|token|secret|passw(?:or)?d|pwd|pass|passphrase|credentials?)$")
_NAME_HAS = re.compile(r"secret|passw(?:or)?d|credential|api_?key|private_?key|access_?key|auth_?token")
_PASSWORD_NAME = re.compile(r"passw(?:or)?d|pwd|pass$|passphrase")
# Names that end like a secret's and are not one.
_NOT_SECRET_NAMES = frozenset({
    "primarykey", "foreignkey", "sortkey", "partitionkey", "cachekey", "publickey", "hashkey", "idempotencykey",
    "lookupkey", "rowkey", "mapkey", "dictkey", "hotkey", "monkey", "donkey", "turkey", "bypass", "compass",
    "surpass", "encompass", "nexttoken", "pagetoken", "nextpagetoken", "csrftoken", "sshpublickey", "keypass",
})
_PLACEHOLDER = re.compile(r"x{4,}|\*{3,}|\.\.\.|your[_-]|changeme|placeholder|redacted|dummy|<|\$\{|\{\{", re.IGNORECASE)
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)+")
# A part of a dotted value that no one would name a variable: no vowel, both cases and a digit.
_MADE_UP = re.compile(r"(?=[^aeiouyAEIOUY]*$)(?=.*[a-z])(?=.*[A-Z])(?=.*\d).{3,}"
                      r"|(?=.*[a-z])(?=.*[A-Z]).*[A-Za-z]\d+[A-Za-z].*")  # ... or digits inside a word of both cases (Pa55w0rd)
# A value that names a variable rather than holds one: %VAR% (Windows), %(name)s, %s.
_PERCENT_REF = re.compile(r"%[A-Za-z_]\w*%|%\(\w+\)[a-z]|%[a-z]")
# ... or @name, @Value(...), @env.KEY: an annotation or a reference, not a key that opens with @.
_AT_REF = re.compile(r"@[A-Za-z_][\w.:-]*(?:\(.*\))?")
_IDENT_WITH_SUFFIX = re.compile(r"[A-Za-z_-]+\d{0,3}")
_INNER_DIGIT = re.compile(r"\d[^\d]")


def shannon_entropy(s: str) -> float:
    """Bits per character of ``s`` (detect-secrets' high-entropy plugins use the same measure)."""
    if not s:
        return 0.0
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


# Names judged before: a tool input's keys (`command`, `file_path`) recur on every call.
_NAMES: dict[str, bool] = {}
_NAMES_MAX = 10_000


def secret_name(name: str) -> bool:
    """Does ``name`` (a variable, key or header) name a secret?"""
    got = _NAMES.get(name)
    if got is None:
        low = name.lower().strip("\"'[]")
        flat = re.sub(r"[_.\-]", "", low)
        # `PASS` alone is a test runner's verdict (`--- PASS: TestX`), not a password.
        if flat in _NOT_SECRET_NAMES or flat == "pass" or flat.endswith(("id", "ids", "path", "file", "name", "type")):
            got = False
        else:
            got = bool(_NAME_ENDS.search(low) or _NAME_HAS.search(low))
        if len(_NAMES) >= _NAMES_MAX:
            _NAMES.clear()
        _NAMES[name] = got
    return got


def random_enough(value: str, name: str) -> bool:
    """Is ``value``, given to a secret-like ``name``, a credential rather than a word, a path,
    a reference to a variable or a placeholder?"""
    v = value.strip("\"'`")
    if v.startswith(("$", "/", "~", "./", "../", "#", "!", "&")) or _PERCENT_REF.match(v) or _AT_REF.fullmatch(v) or MARK in v:
        return False
    if _PLACEHOLDER.search(v) or re.match(r"[A-Za-z]:\\", v):
        return False
    if _DOTTED.fullmatch(v.rstrip("!?;")) and not (
            _PASSWORD_NAME.search(name.lower()) and any(_MADE_UP.fullmatch(p) for p in re.split(r"\.|::|->", v))) and not (
            any(len(p) >= 24 and random_enough(p, name) for p in v.split("."))):
        # A reference (settings.SECRET_KEY), unless a part of a password is made up (Qx7.RvZm9)
        # or a part is a key's random body (Dropbox's sl.<140 characters>).
        return False
    if _PASSWORD_NAME.search(name.lower()):
        # Passwords are short and human-made: anything but a plain word or a number.
        if len(v) < 6 or v.isalpha() or v.isdigit():
            return False
        return shannon_entropy(v) >= 2.5
    if len(v) < 12 or not (any(c.isalpha() for c in v) and any(c.isdigit() for c in v)):
        return False
    if _IDENT_WITH_SUFFIX.fullmatch(v) or not _INNER_DIGIT.search(v):
        return False  # an identifier (`token_value2`), or digits only as a suffix
    return shannon_entropy(v) >= 3.0


# Words that stand where a password would, in code, config and messages, and are not one.
_NOT_PASSWORDS = frozenset("""
required optional password passwords passphrase string boolean integer undefined nullable hidden secret
sensitive changeme example default none null true false text textfield charfield incorrect invalid missing
redacted masked encrypted hashed plaintext unchanged disabled enabled autocomplete currentpassword newpassword
confirmpassword notrequired forbidden unauthorized expired generated environment configuration credentials
placeholder development production staging localhost readwrite readonly writeonly deprecated
""".split())


def plain_password(value: str, name: str = "") -> bool:
    """Is ``value``, a plain word given to a password (DB_PASSWORD=correcthorsebatterystaple),
    one? Ten letters or more in one case, not a word that stands there in code or config
    (``password: string``, ``"password": "required"``), nor the name again."""
    v = value.strip("\"'`")
    if len(v) < 10 or not v.isalpha() or not (v.islower() or v.isupper()):
        return False
    low = v.lower()
    flat = re.sub(r"[^a-z]", "", name.lower())
    return low not in _NOT_PASSWORDS and not (flat and (low in flat or flat in low))


def _judged(value: str, judge: str) -> bool:
    """Is ``value``, found where a keyword-anchored rule expects a secret, one?"""
    if judge == JUDGED:
        return random_enough(value, "password")
    if judge == "quoted":
        # Quoted after "password is": a passphrase of several words, or one word that is not
        # an ordinary one (a plain word must be long, as correcthorsebatterystaple).
        v = value.strip()
        if MARK in v or _PLACEHOLDER.search(v) or v.startswith(("$", "%")):
            return False
        words = v.split()
        if len(words) >= 3:
            return len(v) >= 12 and not v.endswith((".", "?", "!")) and sum(w[:1].isupper() for w in words) < len(words)
        if len(words) == 1:
            return random_enough(v, "password") or plain_password(v)
        return random_enough(v.replace(" ", ""), "password")
    v = value.strip()
    return bool(v) and MARK not in v and not v.startswith(("$", "%", "<")) and not _PLACEHOLDER.search(v)


# -- compiling ------------------------------------------------------------------------------------


DS_DATA = "detect_secrets.json"


def detect_secrets_patterns() -> dict[str, Any]:
    """The compiled ``denylist`` patterns of the reused detect-secrets plugins, read from the
    installed package: {"version": ..., "plugins": {module: [[pattern, flags], ...]}}. Importing
    the plugins imports detect-secrets' scanning core, too heavy for a question, so the redactor reads
    them from hansard/ingest/secret_rules/detect_secrets.json, written from this by
    scripts/update_gitleaks_rules.py --detect-secrets; a test checks that the two agree."""
    import importlib
    from importlib.metadata import version

    plugins: dict[str, list[list[Any]]] = {}
    for module, cls, _name, _names in DS_PLUGINS:
        plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), cls)
        plugins[module] = [[rx.pattern, rx.flags & (re.IGNORECASE | re.VERBOSE | re.DOTALL)] for rx in plugin.denylist]
    return {"version": version("detect-secrets"), "plugins": plugins}


def detect_secrets_rules() -> list[Rule]:
    """The patterns of detect-secrets' regex plugins, as Rules."""
    import json
    import os

    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "secret_rules", DS_DATA), encoding="utf-8") as fh:
        data = json.load(fh)["plugins"]
    rules: list[Rule] = []
    for module, _cls, name, names in DS_PLUGINS:
        for i, (pattern, flags) in enumerate(data[module]):
            extend: bytes | None  # None: the match is kept as found (Rule.extend)
            where, trim, extend = WHOLE, b"", TOKEN_CHARS
            if (module, i) in _DS_GROUP or pattern.startswith(_DS_ASSIGNMENT_HEAD):
                where, extend = GROUP, None
            elif module == "artifactory":
                trim = b" \t\r\n=:\""
            elif module == "jwt":
                extend = JWT_CHARS
            rules.append(Rule(names.get(i, name), pattern, flags, where, extend, trim, **DS_GATES.get((module, i), {})))
    return rules


def gitleaks_rules() -> list[Rule]:
    """gitleaks' rules, as vendored in hansard/ingest/secret_rules/gitleaks.json (translated to
    Python's ``re`` by scripts/update_gitleaks_rules.py). The global allowlist's regexes apply
    to every rule's secret, as in gitleaks; its stopwords are placeholders of its own tests."""
    from hansard.ingest import gitleaks

    doc = gitleaks.load()
    glob = tuple(("secret", rx) for rx in doc["global_allowlist"]["regexes"])
    out: list[Rule] = []
    for r in doc["rules"]:
        allow = glob + tuple((a["target"], rx) for a in r["allowlists"] for rx in a["regexes"])
        stop = tuple(w for a in r["allowlists"] for w in a["stopwords"])
        # (hansard/ingest/gitleaks.py worked out the pattern to run and its anchors.)
        whole, anchors = r["whole"], tuple(r["anchors"])
        extra = _GL_GATES.get(r["id"], {})
        out.append(Rule(r["name"], r["search"], where=WHOLE if whole else FIRST, extend=TOKEN_CHARS if whole else None,
                        anchors=extra.get("anchors", anchors), gate=extra.get("gate"),
                        gate_on_text=extra.get("gate_on_text", False), lead=extra.get("lead", -1),
                        entropy=r["entropy"], allow=allow,
                        stopwords=stop, secret_group=r["secret_group"]))
    return out


# gitleaks rules whose keywords are short and common in text ("ey", "s.", "sk", "sc_"): what
# every match holds instead, found as the other rules' gates are (see Rule).
_GL_GATES: dict[str, dict[str, Any]] = {
    "jwt": {"anchors": (".ey",)},
    "twilio-api-key": {"anchors": (), "gate": r"SK[0-9a-fA-F]{32}", "gate_on_text": True},
    # (The gate's literal first: Python's re skips to a leading literal fast.)
    "vault-service-token": {"gate": r"s\.(?:[a-z0-9]{24}|(?<=hvs\.)[\w-]{90})", "lead": 2},
    "authress-service-client-access-key": {"gate": r"\.acc[_-]", "gate_on_text": True},
}


class _Compiled:
    """A rule ready to run on UTF-8 bytes: its regex and its gate. The regex and allowlist are
    compiled when the rule first runs: of some 300 rules, a process redacting a few commit
    summaries (`why`) runs a handful, and compiling them all would cost more than the rest."""

    __slots__ = ("rule", "_rx", "gate", "gate_on_text", "order", "_allow", "check")

    def __init__(self, rule: Rule, order: int) -> None:
        self.rule, self.order = rule, order
        self._rx: re.Pattern[bytes] | None = None
        self._allow: list[tuple[str, re.Pattern[bytes]]] | None = None
        self.gate = re.compile(rule.gate.encode()) if rule.gate else None
        self.gate_on_text = rule.gate_on_text
        self.check = bool(rule.entropy or rule.allow or rule.stopwords)

    @property
    def rx(self) -> re.Pattern[bytes]:
        if self._rx is None:
            self._rx = re.compile(self.rule.pattern.encode(), self.rule.flags | re.MULTILINE)
        return self._rx

    @property
    def groups(self) -> int:
        return self.rx.groups

    @property
    def allow(self) -> list[tuple[str, re.Pattern[bytes]]]:
        if self._allow is None:
            self._allow = [(t, re.compile(rx.encode())) for t, rx in self.rule.allow]
        return self._allow

    def accepts(self, b: bytes, m: re.Match[bytes], s: int, e: int) -> bool:
        """gitleaks' checks of a find: entropy, allowlists, stopwords."""
        secret = b[s:e]
        if self.rule.entropy and shannon_entropy(secret.decode("latin-1")) < self.rule.entropy:
            return False
        for target, rx in self.allow:
            if target == "secret":
                t = secret
            elif target == "match":
                t = m.group(0)
            else:
                t = b[b.rfind(b"\n", 0, m.start()) + 1: (b.find(b"\n", m.end()) + 1 or len(b) + 1) - 1]
            if rx.search(t):
                return False
        if self.rule.stopwords:
            low = secret.lower().decode("latin-1")
            if any(w in low for w in self.rule.stopwords):
                return False
        return True


class _Engine:
    """Which rules a text needs, and where secret keywords end in it.

    One Aho-Corasick pass over the lower-cased text finds every occurrence of every anchor and
    secret keyword, overlapping ones too (an anchor looked for as written is looked for in
    lower case and then compared as written, at the same offsets: lower-casing bytes changes
    ASCII letters only). Each rule with a gate and no anchor has its gate searched for once.
    One pass finds what a regex scan per first byte of the anchors found, in less time
    (docs/performance.md; ahocorasick_rs: Rust's aho-corasick crate)."""

    def __init__(self, rules: list[Rule]) -> None:
        import ahocorasick_rs

        self.rules = [_Compiled(r, i) for i, r in enumerate(rules)]
        keywords = {kw.encode() for kw in KEYWORDS}
        # lower-cased literal -> [rules when found in the lower-cased text, keyword?,
        #                         ((literal as written, its rules), ...)]
        found: dict[bytes, list[Any]] = {kw: [set(), True, []] for kw in keywords}
        self.gates: list[tuple[re.Pattern[bytes], int, bool]] = []
        for c in self.rules:
            for a in c.rule.anchors:
                lit = a.encode()
                entry = found.setdefault(lit.lower(), [set(), False, []])
                if lit == lit.lower():
                    entry[0].add(c.order)
                else:
                    entry[2].append((lit, c.order))
            if c.rule.gate and not c.rule.anchors:
                self.gates.append((re.compile(c.rule.gate.encode()), c.order, c.rule.gate_on_text))
            assert c.rule.anchors or c.rule.gate, f"{c.rule.name} has no anchor: it would run on every text"
            assert c.rule.anchors or c.rule.lead < 0, f"{c.rule.name} has a lead but no anchor to start from"
        words = sorted(found)
        self.words = words
        # A DFA: it takes a few milliseconds more to build than the default automaton, and
        # scans faster, which an index run's many megabytes of text repay.
        self.ac = ahocorasick_rs.BytesAhoCorasick(words, implementation=ahocorasick_rs.Implementation.DFA)
        near = {c.order for c in self.rules if c.rule.lead >= 0}
        # (rules, keyword?, as written, the rules among them tried only near their anchors)
        self.found = [(frozenset(found[w][0]), found[w][1], tuple(found[w][2]), tuple(found[w][0] & near))
                      for w in words]
        self.near = near

    def plan(self, b: bytes, low: bytes) -> tuple[list[_Compiled], list[int], dict[int, list[int]]]:
        """The rules the text needs, in priority order, where secret keywords end in it, and
        where the anchors of each rule with a ``lead`` start."""
        want: set[int] = set()
        kw_ends: list[int] = []
        starts: dict[int, list[int]] = {}
        found, near = self.found, self.near
        for i, s, e in self.ac.find_matches_as_indexes(low, overlapping=True):
            rules, keyword, as_written, leads = found[i]
            want |= rules
            if keyword:
                kw_ends.append(e)
            for order in leads:
                starts.setdefault(order, []).append(s)
            for lit, order in as_written:
                if b.startswith(lit, s):
                    want.add(order)
                    if order in near:
                        starts.setdefault(order, []).append(s)
        for gate, order, on_text in self.gates:
            if order not in want and gate.search(b if on_text else low) is not None:
                want.add(order)
        kw_ends.sort()
        return [self.rules[i] for i in sorted(want)], kw_ends, starts


_STATE: dict[str, _Engine] = {}


def _engine() -> _Engine:
    """Built on first use (the two rule files read, the Aho-Corasick automaton built; each
    regex is compiled when its rule first runs)."""
    eng = _STATE.get("engine")
    if eng is None:
        eng = _STATE["engine"] = _Engine([*OWN_RULES, *detect_secrets_rules(), *gitleaks_rules(), *KEYWORD_RULES,
                                          *PASS_RULES])
    return eng


def screen_data() -> dict[str, Any]:
    """What ``hansard.ingest.secret_screen`` needs to tell a text no rule could act on: every
    literal the engine looks for (lower-cased) and every gate of a rule with no anchor. Kept
    as data in secret_rules/screen.json (written by scripts/update_gitleaks_rules.py; a test
    checks it is this)."""
    eng = _engine()
    # The redactor also searches a text with its emphasis underscores as blanks (_find): a
    # literal with a blank next to a non-word character or at its end (`net `, `" +`) is found
    # there where the text has an underscore, so the screen also looks for it with one. (A
    # blank between two letters, `private key`, never comes from an emphasis underscore; no
    # gate matches a blank or a word's edge.)
    words = list(eng.words)
    for w in eng.words:
        for i, ch in enumerate(w):
            if ch == 0x20 and (i in (0, len(w) - 1) or not (w[i - 1:i].isalnum() and w[i + 1:i + 2].isalnum())):
                words.append(w[:i] + b"_" + w[i + 1:])
    return {"words": [w.decode("utf-8", "surrogateescape") for w in sorted(set(words))],
            "gates": [[g.pattern.decode("utf-8", "surrogateescape"), on_text] for g, _order, on_text in eng.gates],
            "min_chars": MIN_CHARS, "digest": rules_digest()}


def rules_digest() -> str:
    """A digest of all that ``redact`` does: this module and the two rule files. Kept in
    screen.json (so a change to either is a new screen file too, which a test asks for), it is
    part of the key of every cached answer that holds redacted text."""
    import hashlib
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.blake2b(digest_size=12)
    for path in (os.path.join(here, "redact.py"), os.path.join(here, "secret_rules", "gitleaks.json"),
                 os.path.join(here, "secret_rules", DS_DATA)):
        with open(path, "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()


def rules() -> list[Rule]:
    return [c.rule for c in _engine().rules]


def rule_names() -> list[str]:
    """The names a redaction can show (a joined key is shown under the name of the key's rule)."""
    return sorted({r.name for r in rules() if r.kind not in (JOINED, PERCENT)} | {ASSIGNMENT_NAME})


# -- finding --------------------------------------------------------------------------------------


def _span(m: re.Match[bytes], c: _Compiled, b: bytes) -> tuple[int, int]:
    rule = c.rule
    if rule.where == FIRST:
        if rule.secret_group:
            return m.span(rule.secret_group) if m.start(rule.secret_group) >= 0 else (m.end(), m.end())
        for j in range(1, c.groups + 1):
            if m.end(j) > m.start(j) >= 0:
                return m.start(j), m.end(j)
        return m.span()
    if rule.where == GROUP:
        for j in range(c.groups, 0, -1):
            if m.end(j) > m.start(j) >= 0:
                return m.start(j), m.end(j)
        return m.end(), m.end()  # nothing captured: nothing to take
    s, e = m.start(), m.end()
    if rule.trim:
        while s < e and b[s] in rule.trim:
            s += 1
        while e > s and b[e - 1] in rule.trim:
            e -= 1
    if rule.extend:
        n = len(b)
        while e < n and b[e] in rule.extend:
            e += 1
    return s, e


def _name_at(b: bytes, k: int) -> str:
    """The whole identifier around position ``k`` (where a secret keyword was found)."""
    i = j = k
    n = len(b)
    while i > 0 and k - i < 80 and b[i - 1] in _NAME_CHARS:
        i -= 1
    while j < n and j - k < 60 and b[j] in _NAME_CHARS:
        j += 1
    return b[i:j].decode("ascii")


def _assignments(b: bytes, low: bytes, kw_ends: list[int], taken: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    done: set[int] = set()
    for end in kw_ends:
        t = _TAIL.match(low, end)
        if t is None:
            continue
        s, e = t.span(t.lastindex or 1)
        if s in done or b[e:e + 1] == b"(":
            continue  # (the second: a call, `password = get_password()`)
        if t.lastindex == 4 and (cut := _NEXT_PARAM.search(b, s, e)) is not None:
            e = cut.start()
            if e - s < 6:
                continue
        done.add(s)
        if any(ts < e and te > s for ts, te in taken):
            continue  # a provider's token inside: that rule names it
        name = _name_at(b, end - 1)
        if not secret_name(name):
            continue
        value = b[s:e].decode("utf-8", "replace")
        if random_enough(value, name) or (
                _PASSWORD_NAME.search(name.lower()) and b[e:e + 1] not in (b"(", b".") and plain_password(value, name)):
            out.append((s, e))
    return out


# Markdown's _emphasis_ glues an underscore to the first and last characters of what it
# emphasises, where rules want a word's edge (`\bpul-`, a look-behind without `_` before
# `hvs.`, `\bsshpass\b`, a base64 run's end: `_` is base64url). A text holding such a pair
# (an opening `_` after no word character, a closing one before none, within a paragraph) is
# also searched with the pair's two underscores as blanks: the same length, so a span of the
# view is the same span of the text. No opening underscore lies between a pair's two, so
# each character is looked at about once however many underscores a text holds.
# (An opening underscore follows no token character: `=_`, `-_`, `+_` and `/_` are inside
# base64 and base64url keys.)
# (The underscore first, the look-behind after it: Python's re skips to a literal fast, and
# tries a leading look-behind at every position.)
_OPEN = rb"_(?<![A-Za-z0-9_=+/-]_)(?![\s_])"
_EMPHASIS_PAIR = _OPEN + rb"(?:(?!" + _OPEN + rb")(?:[^\n]|\n(?![ \t]*\n))){0,4000}?(?<![\s_])_(?![A-Za-z0-9_])"
_EMPHASIS = re.compile(_EMPHASIS_PAIR)
# The closing underscore alone, looked for first: rare in code, where opening ones (`self._x`) are not.
_CLOSE = re.compile(rb"_(?![A-Za-z0-9_])(?<![\s_]_)")


def _find(b: bytes, depth: int = 0) -> list[tuple[int, int, str]]:
    """(start, end, rule) byte spans of every secret in UTF-8 ``b``: sorted, never overlapping,
    never splitting a character. ``depth``: how many decodings or joinings deep ``b`` is."""
    found = _finds(b, depth)
    if depth == 0 and b"_" in b and _CLOSE.search(b) is not None and _EMPHASIS.search(b) is not None:
        found += _finds(_EMPHASIS.sub(lambda m: b" " + m.group(0)[1:-1] + b" ", b), depth)
    if not found:
        return []
    found.sort()
    merged: list[list[Any]] = []
    n = len(b)
    for s, _, e, name in found:
        while s > 0 and 0x80 <= b[s] < 0xC0:  # whole UTF-8 characters only
            s -= 1
        while e < n and 0x80 <= b[e] < 0xC0:
            e += 1
        if merged and s < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)  # overlapping finds: withhold their union
        else:
            merged.append([s, e, name])
    return [(s, e, name) for s, e, name in merged]


def _near(rx: re.Pattern[bytes], b: bytes, anchors: list[int], lead: int) -> Iterator[re.Match[bytes]]:
    """``rx.finditer(b)``'s matches for a rule every match of which starts at most ``lead``
    bytes before the start of an anchor it holds: the regex is tried at those places only. As
    finditer, each match is the leftmost one from where the last ended: every place a match
    could start is tried, in order, and ``match`` at a place is what a search finds there (a
    look-behind still sees the bytes before it)."""
    pos = tried = 0
    for a in sorted(anchors):
        s = max(pos, tried, a - lead)
        while s <= a:
            m = rx.match(b, s)
            if m is None:
                s += 1
                continue
            yield m
            pos = s = max(m.end(), s + 1)
        tried = max(tried, s)


def _finds(b: bytes, depth: int) -> list[tuple[int, int, int, str]]:
    """(start, rank, end, rule) of every find of every rule in ``b``, overlapping ones too."""
    low = b.lower()
    found: list[tuple[int, int, int, str]] = []
    run, kw_ends, starts = _engine().plan(b, low)
    passes: list[tuple[_Compiled, list[tuple[int, int]]]] = []
    for c in run:
        if c.rule.anchors and c.gate is not None and c.gate.search(b if c.gate_on_text else low) is None:
            continue
        if c.rule.kind:
            if depth == 0:
                passes.append((c, [m.span() for m in c.rx.finditer(b)]))
            continue
        lead = c.rule.lead
        for m in (c.rx.finditer(b) if lead < 0 else _near(c.rx, b, starts[c.order], lead)):
            s, e = _span(m, c, b)
            if e > s and c.rule.judge and not _judged(b[s:e].decode("utf-8", "replace"), c.rule.judge):
                continue
            if e > s and c.check and not c.accepts(b, m, s, e):
                continue
            if e > s and b"REDACTED:" in b[max(0, s - 10):e]:
                continue  # the marker of an earlier redaction (redacting stays idempotent)
            if e > s:
                # A keyword-anchored find ranks after an assignment the same text holds.
                found.append((s, c.order + (len(_engine().rules) + 1 if c.rule.judge else 0), e, c.rule.name))
    order = len(_engine().rules)
    if kw_ends:
        taken = [(f[0], f[2]) for f in found if f[1] < order]
        found += [(s, order, e, ASSIGNMENT_NAME) for s, e in _assignments(b, low, kw_ends, taken)]
    for c, spans in passes:
        if spans:
            found += _PASSES[c.rule.kind](b, spans, found, c.order, depth)
    return found


_B64_MAX = 200_000  # longer runs are images and archives, not a pasted key


def _base64_finds(b: bytes, spans: list[tuple[int, int]], found: list[tuple[int, int, int, str]], order: int,
                  depth: int) -> list[tuple[int, int, int, str]]:
    """Runs of base64 whose decoded text holds a secret."""
    import base64
    import binascii

    out: list[tuple[int, int, int, str]] = []
    for s, e in spans:
        if e - s > _B64_MAX or any(fs <= s and e <= fe for fs, _, fe, _ in found):
            continue
        run = re.sub(rb"\s+", b"", b[s:e])
        run = run.rstrip(b"=")
        run += b"=" * (-len(run) % 4)
        try:
            raw = base64.b64decode(run.replace(b"-", b"+").replace(b"_", b"/"), validate=True)
        except (binascii.Error, ValueError):
            continue
        head = raw[:512]
        printable = sum(1 for x in head if x >= 0x20 or x in (9, 10, 13))
        if len(raw) < 8 or printable < 0.95 * len(head):
            continue
        if _find(raw, depth + 1):
            out.append((s, order, e, B64_NAME))
    return out


def _joined_finds(b: bytes, joins: list[tuple[int, int]], found: list[tuple[int, int, int, str]], order: int,
                  depth: int) -> list[tuple[int, int, int, str]]:
    """Secrets of the text with its joins taken out that span a join, as spans of ``b``."""
    parts: list[bytes] = []
    starts: list[tuple[int, int]] = []  # (offset in the joined text, offset in b) of each piece
    last = j = 0
    for s, e in joins:
        parts.append(b[last:s])
        starts.append((j, last))
        j += s - last
        last = e
    parts.append(b[last:])
    starts.append((j, last))
    joined = b"".join(parts)
    cuts = [js for js, _ in starts[1:]]  # where a join was, in the joined text

    def back(x: int, end: bool) -> int:
        i = len(starts) - 1
        while i > 0 and (starts[i][0] > x or (end and starts[i][0] == x)):
            i -= 1
        return starts[i][1] + x - starts[i][0]

    out: list[tuple[int, int, int, str]] = []
    for s, e, name in _find(joined, depth + 1):
        if any(s < cut < e for cut in cuts):
            out.append((back(s, False), order, back(e, True), name))
    return out


def _percent_finds(b: bytes, spans: list[tuple[int, int]], found: list[tuple[int, int, int, str]], order: int,
                   depth: int) -> list[tuple[int, int, int, str]]:
    """Runs of percent-encoded text whose decoded text holds a secret, under its rule's name."""
    from urllib.parse import unquote_to_bytes

    out: list[tuple[int, int, int, str]] = []
    runs: list[tuple[int, int]] = []
    n = len(b)
    for s, e in spans:
        if runs and s < runs[-1][1]:
            continue  # in the run already taken
        while s > 0 and b[s - 1] in _PCT_CHARS:
            s -= 1
        while e < n and b[e] in _PCT_CHARS:
            e += 1
        runs.append((s, e))
    for s, e in runs:
        if any(fs <= s and e <= fe for fs, _, fe, _ in found):
            continue
        inner = _find(unquote_to_bytes(b[s:e]), depth + 1)
        if inner:
            out.append((s, order, e, inner[0][2]))
    return out


_PASSES = {BASE64: _base64_finds, JOINED: _joined_finds, PERCENT: _percent_finds}


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def find_secrets(text: str) -> list[tuple[int, int, str]]:
    """(start, end, rule) of every secret in ``text``, in character positions."""
    b = _encode(text)
    spans = _find(b)
    if text.isascii():
        return spans
    return [(len(b[:s].decode("utf-8", "surrogatepass")), len(b[:e].decode("utf-8", "surrogatepass")), name)
            for s, e, name in spans]


# -- redacting ------------------------------------------------------------------------------------


class _Memo:
    """The texts last redacted, with their results, up to ``max_chars`` of text (the least
    recently used go first). Transcripts repeat texts: a file read, then the same file as an
    edit's "before"; Codex's patch events carry the content twice; a tool result is both the
    call's output and a message; a path or a command recurs. About half the bytes of the
    shared samples, and two in three of the bench corpus' short texts, are repeats."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.items: OrderedDict[str, tuple[str, int]] = OrderedDict()
        self.chars = 0
        self.lock = threading.Lock()  # the MCP server writes captures from worker threads

    def get(self, text: str) -> tuple[str, int] | None:
        with self.lock:
            hit = self.items.get(text)
            if hit is not None:
                self.items.move_to_end(text)
            return hit

    def put(self, text: str, result: tuple[str, int]) -> None:
        if len(text) > self.max_chars // 4:
            return
        with self.lock:
            if text not in self.items:
                self.chars += len(text)
            self.items[text] = result
            while self.chars > self.max_chars:
                old, _ = self.items.popitem(last=False)
                self.chars -= len(old)


# Long and short texts are remembered apart, so that a few long file texts never push out the
# many short ones.
LONG_CHARS = 512
_LONG = _Memo(4_000_000)
_SHORT = _Memo(2_000_000)


def redact(text: str) -> tuple[str, int]:
    """``text`` with every secret replaced by ``[REDACTED:<rule>]``, and how many there were."""
    if len(text) < MIN_CHARS:
        return text, 0
    memo = _LONG if len(text) >= LONG_CHARS else _SHORT
    hit = memo.get(text)
    if hit is None:
        hit = _redact(text)
        memo.put(text, hit)
    return hit


def unchanged_lines_only(after: str, before: str | None, hunks: Any) -> bool:
    """Is every line of ``after`` a line of ``before`` or a line the hunks added? With
    neither holding a secret, ``after`` holds none: every rule but the multi-line key blocks
    matches within a line, and a key block's header or body line would be a secret of its own
    (a header alone, or base64 lines under one, are taken by the private_key rule)."""
    known = set(before.splitlines()) if isinstance(before, str) else set()
    for h in hunks:
        known.update(ln[1:] for ln in h.lines if isinstance(ln, str) and ln[:1] == "+")
    return known.issuperset(after.splitlines())


def _redact(text: str) -> tuple[str, int]:
    b = _encode(text)
    spans = _find(b)
    if not spans:
        return text, 0
    out: list[bytes] = []
    last = 0
    for s, e, name in spans:
        out.append(b[last:s])
        out.append(f"{MARK}{name}]".encode() + b"\n" * b.count(b"\n", s, e))
        last = e
    out.append(b[last:])
    return b"".join(out).decode("utf-8", "surrogatepass"), len(spans)


def redact_value(obj: Any) -> tuple[Any, int]:
    """The JSON-aware variant, for tool inputs, steps and other structured values: every
    string inside is redacted, and a string under a secret-like key (``"api_token": "..."``)
    is withheld whole when it looks random. Keys and other values are kept. Iterative, so
    that a value nested deeper than Python recurses is still walked; containers are copied
    (tuples become lists, as JSON has it), the input is never changed."""
    if isinstance(obj, str):
        return redact(obj)
    if not isinstance(obj, (dict, list, tuple)):
        return obj, 0
    box: list[Any] = [obj]
    stack: list[tuple[Any, Any, str | None]] = [(box, 0, None)]
    total = 0
    while stack:
        parent, k, name = stack.pop()
        v = parent[k]
        if isinstance(v, str):
            red, n = redact(v)
            if n == 0 and name is not None and "\n" not in v and secret_name(name) and (
                    random_enough(v, name) or (_PASSWORD_NAME.search(name.lower()) and plain_password(v, name))):
                red, n = f"{MARK}{ASSIGNMENT_NAME}]", 1
            if n:
                parent[k] = red
                total += n
        elif isinstance(v, dict):
            parent[k] = c = dict(v)
            stack.extend((c, kk, kk if isinstance(kk, str) else None) for kk in c)
        elif isinstance(v, (list, tuple)):
            parent[k] = seq = list(v)
            stack.extend((seq, i, None) for i in range(len(seq)))
    return (box[0], total) if total else (obj, 0)


def redact_lines(lines: list[str] | tuple[str, ...], prefix: int = 0) -> tuple[list[str], int]:
    """Redact a list of lines as one text (a private key spans lines), keeping their number
    and each line's first ``prefix`` characters (a diff line's +/-/space tag)."""
    if not lines:
        return list(lines), 0
    try:
        joined = "\n".join([ln[prefix:] for ln in lines])
    except TypeError:
        joined = None
    if joined is None or joined.count("\n") != len(lines) - 1:
        return redact_value(list(lines))  # odd lines (not text, or holding a newline): each on its own
    red, n = redact(joined)
    if not n:
        return list(lines), 0
    parts = red.split("\n")
    return [ln[:prefix] + p for ln, p in zip(lines, parts, strict=True)], n


_MARKED = re.compile(r"\[REDACTED:([a-z0-9_]+)\]")


def withheld_note(excerpt: str) -> str | None:
    """What a search hit's ``match_reason`` says when its excerpt had secrets withheld, or
    None. Highlight marks («») inside the marker are ignored."""
    names = sorted(set(_MARKED.findall(excerpt.replace("«", "").replace("»", ""))))
    if not names:
        return None
    return ("excerpt has secrets withheld ([REDACTED:" + "], [REDACTED:".join(names)
            + "]); the original text is only in the raw archive")
