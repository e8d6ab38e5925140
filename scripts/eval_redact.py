#!/usr/bin/env python3
"""Recall and false positives of secret redaction (hansard/ingest/redact.py).

The corpus is generated from a seed, so every run is the same:
  - true secrets: SHAPES below, the ways keys and passwords are really pasted (provider tokens in
    env files, JSON, code and prose; passwords on command lines, in .netrc, in prose; keys
    base64-wrapped, split across lines or concatenated), each with a random body of the right
    format, several draws of each; and one sample of each vendored gitleaks rule drawn from its
    own regex (which checks the RE2 translation, keywords and entropy gates, not the rule's
    breadth);
  - ordinary texts: code, logs, shell sessions, config, git SHAs, sha256/sha512 digests, UUIDs,
    base64 of non-secret data, URLs, file paths, and real transcript text from the shared
    samples ($HANSARD_SAMPLES).

A secret is found when neither it nor a 16-character piece of its middle or its last 12
characters is left in the redacted text. An ordinary text is a false positive when redacting
changes it.

Recall is also reported for each secret in prose (PROSE): followed by , . ) ] : ! ?, inside
quotes, in Markdown emphasis and in a URL query.

Usage
  python scripts/eval_redact.py [--secrets 8] [--ordinary 3000] [--seed 28] [--show 20]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import re
import string
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from re import _constants as C  # sre_constants, deprecated as a module name in 3.11
from re import _parser as sre_parse
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ALNUM = string.ascii_letters + string.digits
UPPER_NUM = string.ascii_uppercase + string.digits
LOWER_NUM = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


class Gen:
    """Random bodies of a given format, from one seeded RNG."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def s(self, n: int, alphabet: str = ALNUM) -> str:
        while True:
            v = "".join(self.rng.choice(alphabet) for _ in range(n))
            # Random keys mix letters and digits (a draw without is not what a key looks like).
            if alphabet in (HEX, string.digits) or not set(alphabet) & set(string.ascii_letters) or (
                    not set(alphabet) & set(string.digits)) or (
                    any(c.isdigit() for c in v[1:]) and any(c.isalpha() for c in v)):
                return v

    def pw(self) -> str:
        return self.rng.choice(["Tr0ub4dor", "Blue-Lagoon", "s3cr3t", "Pa55w0rd", "Qx7"]) + self.rng.choice("!#%&*-_.") \
            + self.s(self.rng.randint(4, 8))

    def words(self, n: int) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(n))

    def choice(self, xs: list[Any]) -> Any:
        return self.rng.choice(xs)


WORDS = ("correct horse battery staple orange river mountain violet quantum falcon harbor lantern meadow "
         "pepper silver thunder velvet walnut zebra copper maple ocean prairie saddle tulip").split()


def _jwt(g: Gen) -> str:
    def enc(o: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(o).encode()).decode().rstrip("=")
    return enc({"alg": "HS256", "typ": "JWT"}) + "." + enc({"sub": g.s(8, string.digits), "iat": 1700000000}) + "." \
        + g.s(43, URLSAFE)


def _pem(g: Gen, kind: str = "RSA PRIVATE KEY") -> str:
    body = "\n".join(g.s(64, B64) for _ in range(5)) + "\n" + g.s(24, B64) + "=="
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----\n"


# name -> generator of (text, secret): the secret must be gone from the redacted text.
Shape = Callable[[Gen], tuple[str, str]]


def _env(name: str, value: Callable[[Gen], str]) -> Shape:
    def make(g: Gen) -> tuple[str, str]:
        v = value(g)
        fmt = g.choice(["{n}={v}", "export {n}={v}", '{n}="{v}"', '"{n}": "{v}"', "{n}: {v}", "  {n} = '{v}'"])
        return fmt.format(n=name, v=v), v
    return make


def _bare(value: Callable[[Gen], str]) -> Shape:
    def make(g: Gen) -> tuple[str, str]:
        v = value(g)
        fmt = g.choice(["here is the key: {v}", "use {v} for now", "token={v}", "{v}", "Authorization token `{v}`",
                        "I pasted {v} into the config, is that right?"])
        return fmt.format(v=v), v
    return make


def _text(fmt: str, value: Callable[[Gen], str]) -> Shape:
    def make(g: Gen) -> tuple[str, str]:
        v = value(g)
        return fmt.format(v=v), v
    return make


def _b64wrapped(inner: Shape) -> Shape:
    """A secret's text base64-encoded (a Kubernetes Secret, a CI variable, `base64 -w0`)."""
    def make(g: Gen) -> tuple[str, str]:
        text, _ = inner(g)
        enc = base64.b64encode(text.encode()).decode()
        fmt = g.choice(["data:\n  credentials: {v}\n", "echo {v} | base64 -d", "CI_SECRET_B64={v}", '{{"config": "{v}"}}'])
        return fmt.format(v=enc), enc
    return make


def _split(value: Callable[[Gen], str]) -> Shape:
    """A key broken across lines: a backslash continuation, or string concatenation."""
    def make(g: Gen) -> tuple[str, str]:
        v = value(g)
        cut = len(v) // 2 + g.rng.randint(-3, 3)
        a, b = v[:cut], v[cut:]
        fmt = g.choice(['API_KEY = "{a}" + "{b}"', 'const token = "{a}" +\n    "{b}";', "export TOKEN={a}\\\n{b}",
                        'key = ("{a}"\n       "{b}")', "token = '{a}' + '{b}'"])
        return fmt.format(a=a, b=b), v
    return make


def _pem_body(g: Gen) -> tuple[str, str]:
    head = g.choice(["MIIEpAIBAAKCAQEA", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "MIIJKAIBAAKCAgEA"])
    lines = [head + g.s(48, B64)] + [g.s(64, B64) for _ in range(4)]
    return "key body:\n" + "\n".join(lines) + "\n", lines[2]


def _pem_json(g: Gen) -> tuple[str, str]:
    pem = _pem(g, "PRIVATE KEY")
    return json.dumps({"type": "service_account", "private_key": pem}), pem.split("\n")[2]


SHAPES: dict[str, Shape] = {
    # -- the list
    "aws_secret_prose": _text("the AWS secret is {v}", lambda g: g.s(40, B64)),
    "aws_secret_prose_2": _text("aws secret access key: {v} (rotate it)", lambda g: g.s(40, B64)),
    "huggingface": _bare(lambda g: "hf_" + g.s(34, string.ascii_letters)),
    "huggingface_env": _env("HF_TOKEN", lambda g: "hf_" + g.s(34)),
    "vault_hvs": _bare(lambda g: "hvs." + g.s(90, URLSAFE)),
    "vault_env": _text("VAULT_TOKEN={v}", lambda g: "hvs." + g.s(24)),
    "docker_login": _text("docker login -u deploy -p {v} registry.example.com", lambda g: g.pw()),
    "netrc": _text("machine api.example.com\n  login deploy\n  password {v}\n", lambda g: g.pw()),
    "netrc_one_line": _text("machine github.com login bob password {v}", lambda g: g.pw()),
    "prose_passphrase": _text('my passphrase is "{v}"', lambda g: g.words(4)),
    "prose_passphrase_single": _text("the wifi password is '{v}'", lambda g: g.pw()),
    "plain_word_password": _text("DB_PASSWORD={v}", lambda g: "".join(g.rng.sample(WORDS, 4))),
    "shopify": _bare(lambda g: "shpat_" + g.s(32, HEX)),
    "xai": _bare(lambda g: "xai-" + g.s(80)),
    "groq": _env("GROQ_API_KEY", lambda g: "gsk_" + g.s(52)),
    "linear": _bare(lambda g: "lin_api_" + g.s(40)),
    "digitalocean": _bare(lambda g: "dop_v1_" + g.s(64, HEX)),
    "openai_legacy_48": _bare(lambda g: "sk-" + g.s(48)),
    "base64_github_token": _b64wrapped(_env("GITHUB_TOKEN", lambda g: "ghp_" + g.s(36))),
    "base64_pem": _b64wrapped(lambda g: (p := _pem(g), p)),
    "base64_password": _b64wrapped(_text("DB_PASSWORD={v}", lambda g: g.pw())),
    "split_backslash": _split(lambda g: "ghp_" + g.s(36)),
    "split_concat_openai": _split(lambda g: "sk-proj-" + g.s(60, URLSAFE)),
    "split_concat_stripe": _split(lambda g: "sk_live_" + g.s(32)),
    "pem_body_only": _pem_body,
    # -- providers
    "aws_access_key": _env("AWS_ACCESS_KEY_ID", lambda g: "AKIA" + g.s(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")),
    "aws_secret_env": _env("AWS_SECRET_ACCESS_KEY", lambda g: g.s(40, B64)),
    "github_pat": _bare(lambda g: "ghp_" + g.s(36)),
    "github_fine_grained": _bare(lambda g: "github_pat_" + g.s(22) + "_" + g.s(59)),
    "github_oauth": _env("GH_TOKEN", lambda g: "gho_" + g.s(36)),
    "gitlab_pat": _bare(lambda g: "glpat-" + g.s(20, URLSAFE)),
    "slack_bot": _env("SLACK_BOT_TOKEN", lambda g: "xoxb-" + g.s(11, string.digits) + "-" + g.s(12, string.digits)
                      + "-" + g.s(24)),
    "slack_webhook": _text("curl -X POST https://hooks.slack.com/services/T{v}", lambda g: g.s(8, UPPER_NUM) + "/B"
                           + g.s(8, UPPER_NUM) + "/" + g.s(24)),
    "stripe_live": _bare(lambda g: "sk_live_" + g.s(24)),
    "stripe_restricted": _env("STRIPE_KEY", lambda g: "rk_live_" + g.s(24)),
    "openai_project": _env("OPENAI_API_KEY", lambda g: "sk-proj-" + g.s(74, URLSAFE) + "T3BlbkFJ" + g.s(74, URLSAFE)),
    "anthropic": _bare(lambda g: "sk-ant-api03-" + g.s(93, URLSAFE) + "AA"),
    "gcp_api_key": _bare(lambda g: "AIza" + g.s(35, URLSAFE)),
    "gcp_service_account": _pem_json,
    "azure_storage": _text("DefaultEndpointsProtocol=https;AccountName=a;AccountKey={v};EndpointSuffix=core.windows.net",
                           lambda g: g.s(86, B64) + "=="),
    "azure_client_secret": _bare(lambda g: g.s(3) + "8Q~" + g.s(34, ALNUM + "_~.-")),
    "jwt": _text("Set-Cookie: session={v}; HttpOnly", _jwt),
    "jwt_bearer": _text("curl -H 'Authorization: Bearer {v}' https://api.example.com", _jwt),
    "sendgrid": _bare(lambda g: "SG." + g.s(22, URLSAFE) + "." + g.s(43, URLSAFE)),
    "npm": _bare(lambda g: "npm_" + g.s(36)),
    "pypi": _text("password = {v}", lambda g: "pypi-AgEIcHlwaS5vcmc" + g.s(80, URLSAFE)),
    "twilio": _text("TWILIO_API_KEY={v}", lambda g: "SK" + g.s(32, HEX)),
    "mailgun": _env("MAILGUN_KEY", lambda g: "key-" + g.s(32, HEX)),
    "telegram": _text("https://api.telegram.org/bot{v}/getMe", lambda g: g.s(10, string.digits) + ":" + g.s(35, URLSAFE)),
    "discord_bot": _text("bot.run('{v}')", lambda g: "M" + g.s(23, URLSAFE) + "." + g.s(6, URLSAFE) + "." + g.s(27, URLSAFE)),
    "databricks": _bare(lambda g: "dapi" + g.s(32, HEX)),
    "doppler": _bare(lambda g: "dp.pt." + g.s(43)),
    "pulumi": _bare(lambda g: "pul-" + g.s(40, HEX)),
    "grafana_sa": _bare(lambda g: "glsa_" + g.s(32) + "_" + g.s(8, HEX)),
    "notion": _bare(lambda g: "ntn_" + g.s(11, string.digits) + g.s(35)),
    "planetscale": _bare(lambda g: "pscale_tkn_" + g.s(43)),
    "postman": _bare(lambda g: "PMAK-" + g.s(24, HEX) + "-" + g.s(34, HEX)),
    "age_secret": _bare(lambda g: "AGE-SECRET-KEY-1" + g.s(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")),
    "private_key_pem": lambda g: (p := _pem(g), p.split("\n")[2]),
    "openssh_key": lambda g: (p := _pem(g, "OPENSSH PRIVATE KEY"), p.split("\n")[3]),
    "ec_key": lambda g: (p := _pem(g, "EC PRIVATE KEY"), p.split("\n")[1]),
    "url_password": _text("DATABASE_URL=postgres://app:{v}@db.internal:5432/app", lambda g: g.pw()),
    "redis_url_password": _text("redis://:{v}@cache:6379/0", lambda g: g.pw()),
    "mysql_p": _text("mysql -h db -u root -p{v} shop < dump.sql", lambda g: g.pw()),
    "sshpass": _text("sshpass -p '{v}' ssh deploy@10.0.0.4", lambda g: g.pw()),
    "pgpassword": _text("PGPASSWORD={v} psql -h localhost -U app", lambda g: g.pw()),
    "curl_user": _text("curl -u admin:{v} https://ci.internal/api/json", lambda g: g.pw()),
    "redis_cli": _text("redis-cli -h cache -a {v} ping", lambda g: g.pw()),
    "password_flag": _text("vault login --password {v} -method=userpass", lambda g: g.pw()),
    "prose_password": _text("ok so my password is {v}, please log in for me", lambda g: g.pw()),
    "yaml_password": _text("database:\n  user: app\n  password: {v}\n", lambda g: g.pw()),
    "json_client_secret": _text('{{"client_id": "web", "client_secret": "{v}"}}', lambda g: g.s(32, HEX)),
    "env_service_token": _env("MY_SERVICE_TOKEN", lambda g: g.s(32)),
    "django_secret": _text("SECRET_KEY = '{v}'", lambda g: g.s(50, ALNUM + "!@#%^*(-_=+)")),
    "bearer_header": _text("Authorization: Bearer {v}", lambda g: g.s(40, URLSAFE)),
}


# -- samples of a regex (for the vendored gitleaks rules) -------------------------------------------

_CATS = {C.CATEGORY_DIGIT: string.digits, C.CATEGORY_WORD: ALNUM + "_", C.CATEGORY_SPACE: " ",
         C.CATEGORY_NOT_SPACE: ALNUM, C.CATEGORY_NOT_DIGIT: string.ascii_letters, C.CATEGORY_NOT_WORD: " "}


def regex_sample(pattern: str, rng: random.Random, flags: int = 0) -> str:
    """A random string the regex matches (bounded repeats, first-fit alternation when sampled
    badly: the caller checks and retries)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tree = sre_parse.parse(pattern, flags)
    groups: dict[int, str] = {}

    def charset(items: list[Any]) -> str:
        chars: list[str] = []
        neg = False
        for op, av in items:
            if op is C.NEGATE:
                neg = True
            elif op is C.LITERAL:
                chars.append(chr(av))
            elif op is C.RANGE:
                chars += [chr(c) for c in range(av[0], av[1] + 1)]
            elif op is C.CATEGORY:
                chars += list(_CATS.get(av, ALNUM))
        if neg:
            chars = [c for c in ALNUM if c not in chars]
        # Prefer letters and digits: a sample of a key body, not of punctuation.
        good = [c for c in chars if c.isalnum()]
        return "".join(good or chars or "x")

    def walk(seq: Any) -> str:
        out: list[str] = []
        for op, av in seq:
            if op is C.LITERAL:
                out.append(chr(av))
            elif op is C.NOT_LITERAL:
                out.append(rng.choice([c for c in ALNUM if ord(c) != av]))
            elif op is C.ANY:
                out.append(".")  # an unescaped dot in gitleaks' patterns stands for a dot (hooks.slack.com)
            elif op is C.IN:
                out.append(rng.choice(charset(av)))
            elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
                lo, hi, sub = av
                hi = min(hi if hi is not C.MAXREPEAT else lo + 40, lo + 40)
                n = rng.randint(lo, hi) if lo < 8 else rng.randint(lo, min(hi, lo + 4))
                out += [walk(sub) for _ in range(n)]
            elif op is C.SUBPATTERN:
                gid, _, _, sub = av
                txt = walk(sub)
                if gid:
                    groups[gid] = txt
                out.append(txt)
            elif op is C.ATOMIC_GROUP:
                out.append(walk(av))
            elif op is C.BRANCH:
                out.append(walk(rng.choice(av[1])))
            elif op is C.GROUPREF:
                out.append(groups.get(av, ""))
            elif op is C.CATEGORY:
                out.append(rng.choice(_CATS.get(av, ALNUM)))
            elif op in (C.AT, C.ASSERT, C.ASSERT_NOT):
                continue
            else:
                raise ValueError(f"cannot sample {op}")
        return "".join(out)

    return walk(tree)


def gitleaks_samples(seed: int) -> list[tuple[str, str, str]]:
    """(rule name, text, secret) for each vendored gitleaks rule: a sample of its regex that
    the rule itself accepts (entropy, allowlists), placed after one of its keywords."""
    import re

    from hansard.ingest import redact as R

    rng = random.Random(seed)
    out: list[tuple[str, str, str]] = []
    for rule in R.gitleaks_rules():
        c = R._Compiled(rule, 0)
        for _ in range(200):
            text = regex_sample(rule.pattern, rng)
            if not text.strip() or "\n" in text.strip():
                continue
            b = text.encode()
            m = c.rx.search(b)
            if m is None:
                continue
            s, e = R._span(m, c, b)
            if e - s < 8 or not c.accepts(b, m, s, e):
                continue
            if rule.anchors and not any(k.lower() in text.lower() for k in rule.anchors):
                text = f"{rule.anchors[0]} {text}"
            secret = b[s:e].decode()
            if re.search(r"\s", secret):
                continue
            out.append((rule.name, text, secret))
            break
    return out


# -- ordinary texts ---------------------------------------------------------------------------------

def ordinary(seed: int, n: int, samples: Path | None) -> list[str]:
    g = Gen(seed)
    real = _sample_texts(samples, seed, n // 3) if samples else []
    makers: list[Callable[[], str]] = [
        lambda: f"commit {g.s(40, HEX)}\nAuthor: Ada <ada@example.com>\n\n    fix retry loop",
        lambda: f"git checkout {g.s(7, HEX)} && git log --oneline {g.s(40, HEX)}",
        lambda: f"{g.s(64, HEX)}  dist/hansard-0.1.0-py3-none-any.whl",
        lambda: f"sha256:{g.s(64, HEX)}",
        lambda: f"docker pull ghcr.io/org/app@sha256:{g.s(64, HEX)}",
        lambda: f'"integrity": "sha512-{base64.b64encode(g.rng.randbytes(64)).decode()}"',
        lambda: f"session {g.rng.getrandbits(128):032x} id {_uuid(g)} resumed from {_uuid(g)}",
        lambda: f"request_id={_uuid(g)} trace={g.s(32, HEX)} span={g.s(16, HEX)}",
        lambda: "echo " + base64.b64encode(g.words(8).encode()).decode() + " | base64 -d",
        lambda: "data: " + base64.b64encode(g.rng.randbytes(g.rng.randint(30, 90))).decode(),
        lambda: '"thumbnail": "data:image/png;base64,' + base64.b64encode(b"\x89PNG\r\n" + g.rng.randbytes(120)).decode() + '"',
        lambda: f"https://github.com/org/repo/blob/{g.s(40, HEX)}/src/app.py#L{g.rng.randint(1, 900)}",
        lambda: f"https://example.com/search?q={g.choice(WORDS)}&page={g.rng.randint(1, 9)}&sort=desc",
        lambda: f"https://cdn.example.com/assets/{g.s(20, LOWER_NUM)}.js?v={g.s(8, HEX)}",
        lambda: f"/home/alice/src/{g.choice(WORDS)}/{g.choice(WORDS)}_token_store.py:{g.rng.randint(1, 400)}",
        lambda: f"src/auth/{g.choice(WORDS)}/password_reset.ts tests/test_secret_{g.choice(WORDS)}.py",
        lambda: f"2026-11-{g.rng.randint(10, 28)}T13:02:41.{g.rng.randint(100, 999)}Z INFO worker-{g.rng.randint(1, 9)} "
                f"processed {g.rng.randint(1, 9999)} jobs in {g.rng.random():.3f}s",
        lambda: f"ERROR token refresh failed for user {g.rng.randint(1000, 9999)}: 401 Unauthorized "
                f"(retry {g.rng.randint(1, 5)})",
        lambda: 'api_key = os.environ["OPENAI_API_KEY"]\ntoken = get_token(user)\nsecret = settings.SECRET_KEY',
        lambda: "password = get_password()\ndef login(user: str, password: str) -> bool:\n    return check(user, password)",
        lambda: f"    password: str\n    token: Optional[str] = None\n    {g.choice(WORDS)}_key: int = {g.rng.randint(1, 99)}",
        lambda: "const [password, setPassword] = useState('');\n<input type=\"password\" name=\"password\" />",
        lambda: "PASSWORD_MIN_LENGTH=12\nTOKEN_LIMIT=4096\nKEY_PATH=/etc/ssl/private/server.key\nSECRET_NAME=prod-db",
        lambda: "DB_PASSWORD=${DB_PASSWORD}\nAPI_TOKEN=$(vault read -field=token secret/app)\nSECRET=<your-secret-here>",
        lambda: f"docker run -p {g.rng.randint(1000, 9999)}:80 -v $PWD:/app nginx:1.{g.rng.randint(10, 27)}",
        lambda: f"ssh -p {g.rng.randint(1000, 9999)} deploy@10.0.{g.rng.randint(0, 9)}.{g.rng.randint(1, 250)} uptime",
        lambda: f"psql -h localhost -p 5432 -U app -d {g.choice(WORDS)}",
        lambda: "mysql -u root -p shop < dump.sql\necho $PW | docker login --password-stdin ghcr.io",
        lambda: f"--- PASS: Test{g.choice(WORDS).title()} (0.{g.rng.randint(10, 99)}s)\nPASS\nok  \tgithub.com/x/y\t1.2s",
        lambda: f'{{"input_tokens": {g.rng.randint(1, 9999)}, "output_tokens": {g.rng.randint(1, 999)}, '
                f'"cache_read_input_tokens": {g.rng.randint(1, 99999)}}}',
        lambda: "key: value\nprimary_key=True\nsort_key: created_at\npublic_key: ssh-ed25519 "
                f"AAAAC3NzaC1lZDI1NTE5AAAAI{g.s(43, B64)}",
        lambda: f"color: #{g.s(6, HEX)}; background: #{g.s(6, HEX)}; margin: {g.rng.randint(0, 20)}px",
        lambda: f"v{g.rng.randint(0, 9)}.{g.rng.randint(0, 30)}.{g.rng.randint(0, 30)} released; see CHANGELOG.md "
                f"and issue #{g.rng.randint(1, 900)}",
        lambda: f"SELECT id, name FROM users WHERE token_hash = '{g.s(64, HEX)}' LIMIT {g.rng.randint(1, 50)};",
        lambda: "Traceback (most recent call last):\n  File \"app/auth.py\", line 42, in login\n"
                "    raise InvalidPassword(\"password is incorrect\")\nInvalidPassword: password is incorrect",
        lambda: f"The password reset flow sends a token by email; the {g.choice(WORDS)} key rotates every "
                f"{g.rng.randint(2, 90)} days.",
        lambda: f"I set the secret in the vault and the key id is {g.s(12, LOWER_NUM)}-{g.choice(WORDS)}",
        lambda: f"model = AutoModel.from_pretrained('{g.choice(WORDS)}/{g.choice(WORDS)}-base', token=hf_token)",
        lambda: f"export PATH=$HOME/.local/bin:$PATH\nexport GOPATH={g.choice(['~/go', '/opt/go'])}",
        lambda: f"the AWS region is us-east-{g.rng.randint(1, 2)} and the bucket is {g.choice(WORDS)}-{g.s(6, LOWER_NUM)}",
        lambda: f"aws s3 cp s3://bucket/{g.s(40, LOWER_NUM)} ./out --sse aws:kms",
        lambda: f"machine learning models need a {g.choice(WORDS)} dataset and a password manager",
        lambda: "token = '" + g.choice(WORDS) + "' + '" + g.choice(WORDS) + "'\nurl = base + \"/api/v1/\" + path",
        lambda: f"long_line = \"{g.words(6)}\" \\\n    \"{g.words(5)}\"",
        lambda: f"npm install {g.choice(WORDS)}@{g.rng.randint(1, 9)}.{g.rng.randint(0, 9)}.0 --save-dev",
        lambda: f"task-{g.s(8, HEX)} disk-{g.rng.randint(1, 9)} ask-{g.choice(WORDS)} s.{g.choice(WORDS)}",
        lambda: f"gsk_config = load('{g.choice(WORDS)}.yaml')\nhf_hub_download(repo_id='{g.choice(WORDS)}/x', filename='m.bin')",
        lambda: f"{g.words(12)}.",
        lambda: f"The passphrase prompt appears; enter the passphrase you chose. PIN is required for {g.choice(WORDS)}.",
    ]
    texts = list(real)
    while len(texts) < n:
        texts.append(g.choice(makers)())
    return texts[:n]


def _uuid(g: Gen) -> str:
    h = g.s(32, HEX)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _sample_texts(root: Path, seed: int, n: int) -> list[str]:
    """Message texts and tool outputs from the real transcripts under ``root``."""
    texts: list[str] = []
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.suffix not in (".jsonl", ".json", ".md"):
            continue
        try:
            raw = p.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in raw.splitlines():
            if p.suffix == ".md":
                if 20 <= len(line) <= 2000:
                    texts.append(line)
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            _strings(rec, texts)
    rng = random.Random(seed)
    texts = sorted(set(t for t in texts if 20 <= len(t) <= 4000))
    rng.shuffle(texts)
    return texts[:n]


def _strings(obj: Any, out: list[str]) -> None:
    if isinstance(obj, str):
        if " " in obj:
            out.append(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            _strings(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _strings(v, out)


# -- the evaluation -----------------------------------------------------------------------------------

def fragments(secret: str) -> list[str]:
    """The secret and pieces of it that would show a partial leak (a tail a fixed-length
    pattern left behind)."""
    out = [secret]
    if len(secret) >= 28:
        mid = len(secret) // 2
        out += [secret[mid - 8: mid + 8], secret[-12:]]
    return out


# Prose around a secret: how a prompt, a reply or a commit message has it ("keys: PMAK-…,
# pul-…."; "rotate key rubygems_…, done"), where code has a quote, a blank or a line end;
# gitleaks' code-like terminators once let every one of these through. Each context takes the
# text up to the secret's end (so a key name or keyword before it stays; with the closing quote
# of a quoted secret, and with the rest of the word when the secret goes on within one, as a
# URL's password does): ``{head}``.
PROSE: dict[str, str] = {
    "comma": "{head}, and then rotate it",
    "period": "{head}. Then rotate it.",
    "paren": "(it was {head}) before the rotation",
    "bracket": "the list [{head}] is stale",
    "colon": "{head}: that is the one",
    "exclamation": "{head}!",
    "question": "is it {head}?",
    "double_quotes": 'he pasted "{head}" into the chat',
    "single_quotes": "he pasted '{head}' into the chat",
    "curly_quotes": "he pasted \u201c{head}\u201d into the chat",
    "markdown_bold": "the key is **{head}** for now",
    "markdown_italic": "the key is *{head}* for now",
    "markdown_underscore": "the key is _{head}_ for now",
    # The secret alone as a query value, percent-encoded, under a name of the kind its text
    # gave it: the gitleaks rule's own name (adafruit_api_key), else password or access_token.
    "url_query": "open https://api.example.com/v1/callback?{name}={value}&state=xyz in the browser",
}
_PASSWORDISH = re.compile(r"pass|pwd|login|-p\b|-a\b|-u\b", re.IGNORECASE)


def prose_secrets(secrets: list[tuple[str, str, str]]) -> list[tuple[str, str, str, str]]:
    """(context, shape, text, secret as it stands there): every true secret that stands whole on
    one line of its text (not one split, joined or a key block's line) in each PROSE context."""
    out = []
    for shape, text, secret in secrets:
        at = text.find(secret)
        if at < 0 or "\n" in secret.strip() or "-----BEGIN" in text or shape.startswith("split_"):
            continue
        end = at + len(secret)
        if text[end:end + 1] in ("\"", "'", "`") and text[:at].count(text[end]) % 2 == 1:
            end += 1  # the quote the secret's string closes with
        elif text[end:end + 1] and text[end] not in " \t\n\"'`;,)":
            end = len(text) if (gap := re.search(r"\s", text[end:])) is None else end + gap.start()
        head = text[:end]
        # The query value: the whole word the secret stands in (a secret group can be a piece of
        # a token, or the password of a URL), after any `name=` before it.
        lo = at
        while lo > 0 and not text[lo - 1].isspace() and text[lo - 1] not in "\"'`=|,>" and not (
                text[lo - 1] == ":" and not text.startswith("//", lo)):
            lo -= 1
        hi = at + len(secret)
        while hi < len(text) and not text[hi].isspace() and text[hi] not in "\"'`;,)":
            hi += 1
        bare = text[lo:hi].strip("\"'`")
        name = shape.split(":", 1)[1] if shape.startswith("gitleaks:") else ""
        if name in ("", "authorization_header", "command_password", "jwt"):  # hansard's names, not a provider's
            name = "password" if _PASSWORDISH.search(text[:at]) else "access_token"
        for ctx, fmt in PROSE.items():
            if ctx == "url_query":
                out.append((ctx, shape, fmt.format(name=name, value=quote(bare, safe="")), quote(bare, safe="")))
            else:
                out.append((ctx, shape, fmt.format(head=head), secret))
    return out


def true_secrets(seed: int, per_shape: int) -> list[tuple[str, str, str]]:
    """(shape, text, secret): ``per_shape`` draws of every shape, then the gitleaks samples."""
    g = Gen(seed)
    out = [(name, *make(g)) for name in SHAPES for make in [SHAPES[name]] * per_shape]
    out += [(f"gitleaks:{name}", text, secret) for name, text, secret in gitleaks_samples(seed)]
    return out


def evaluate(seed: int = 28, per_shape: int = 4, n_ordinary: int = 3000,
             samples: Path | None = None) -> dict[str, Any]:
    from hansard.ingest.redact import redact

    secrets = true_secrets(seed, per_shape)
    missed = []
    for shape, text, secret in secrets:
        out, _ = redact(text)
        if any(f in out for f in fragments(secret)):
            missed.append((shape, text, out))
    texts = ordinary(seed, n_ordinary, samples)
    fps = []
    for t in texts:
        out, n = redact(t)
        if n:
            fps.append((t, out))
    own = [s for s in secrets if not s[0].startswith("gitleaks:")]
    own_missed = [m for m in missed if not m[0].startswith("gitleaks:")]
    prose: dict[str, list[int]] = {ctx: [0, 0] for ctx in PROSE}
    prose_missed = []
    for ctx, shape, text, secret in prose_secrets(secrets):
        out, _ = redact(text)
        prose[ctx][0] += 1
        if any(f in out for f in fragments(secret)):
            prose[ctx][1] += 1
            prose_missed.append((f"{ctx}:{shape}", text, out))
    return {
        "prose": {ctx: {"secrets": n, "missed": m, "recall": 1 - m / n if n else 1.0} for ctx, (n, m) in prose.items()},
        "prose_missed": prose_missed,
        "secrets": len(secrets), "shapes": len({s[0] for s in secrets}), "missed": missed,
        "recall": 1 - len(missed) / len(secrets),
        "own_secrets": len(own), "own_shapes": len({s[0] for s in own}), "own_recall": 1 - len(own_missed) / len(own),
        "ordinary": len(texts), "real_texts": sum(1 for _ in texts) if samples else 0, "false_positives": fps,
        "fp_rate": len(fps) / len(texts),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--secrets", type=int, default=4, help="draws of each hand-written shape")
    ap.add_argument("--ordinary", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=28)
    ap.add_argument("--show", type=int, default=20, help="misses and false positives to print")
    a = ap.parse_args(argv)
    env = os.environ.get("HANSARD_SAMPLES")
    samples = Path(env) if env else ROOT.parent / "shared" / "samples"
    r = evaluate(a.seed, a.secrets, a.ordinary, samples if samples.is_dir() else None)
    print(f"true secrets: {r['secrets']} of {r['shapes']} shapes ({r['own_secrets']} of {r['own_shapes']} hand-written "
          f"shapes, the rest one per vendored gitleaks rule)")
    print(f"recall: {r['recall']:.2%} ({len(r['missed'])} missed); hand-written shapes: {r['own_recall']:.2%}")
    print("in prose (each secret with the text before it, in each context):")
    for ctx, p in r["prose"].items():
        print(f"  {ctx:20} {p['recall']:8.2%}  ({p['missed']} of {p['secrets']} missed)")
    print(f"ordinary texts: {r['ordinary']}; false positives: {len(r['false_positives'])} ({r['fp_rate']:.2%})")
    for shape, text, _ in (r["missed"] + r["prose_missed"])[:a.show]:
        print(f"  MISSED {shape}: {text[:160]!r}")
    for text, out in r["false_positives"][:a.show]:
        print(f"  FALSE POSITIVE: {text[:160]!r}\n               -> {out[:160]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
