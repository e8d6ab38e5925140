"""Secret redaction: hansard/ingest/redact.py and every surface that shows text.

Unit tests per rule (true positives in each provider's real key format, false positives that
must stay), then a planted-secret corpus: Claude Code and Codex transcripts whose prompts,
Bash output (env dumps), Read results (.env files), Edit/Write/apply_patch contents, tool
inputs, plans, titles and git remote carry secrets of every kind are indexed, and every CLI
command and MCP tool that shows text must return none of them, while `show --raw` still
returns the original bytes and raw_records holds them unchanged.

Every key below is generated at run time from a seeded RNG in the provider's format: none is
real, and no key-shaped literal is checked in.
"""

from __future__ import annotations

import base64
import json
import os
import random
import sqlite3
import string
import zlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from fixtures_repos.writers import Rollout, Transcript, structured_patch
from hansard.ingest import redact as R
from hansard.ingest.redact import redact, redact_lines, redact_value, withheld_note
from hansard.store.sqlite.codec import unpack_record
from scripts.eval_redact import fragments
from tests.helpers import run_cli

RNG = random.Random(7)
ALNUM = string.ascii_letters + string.digits
LOWER_HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def rand(n: int, alphabet: str = ALNUM) -> str:
    while True:
        s = "".join(RNG.choice(alphabet) for _ in range(n))
        # Random keys have digits and letters mixed; a draw without would be an odd test.
        if alphabet in (LOWER_HEX, "0123456789") or (any(c.isdigit() for c in s[1:-1]) and any(c.isalpha() for c in s)):
            return s


def b64url(obj: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


def pem_body(lines: int = 6) -> list[str]:
    return [rand(64, B64) for _ in range(lines)] + [rand(20, B64) + "=="]


RSA_BODY = pem_body()
SA_BODY = pem_body(4)
OPENSSH_BODY = pem_body(3)
JWT = ".".join([b64url({"alg": "HS256", "typ": "JWT"}), b64url({"sub": "1234567890", "name": "Ada", "iat": 1516239022}),
               rand(43, URLSAFE)])

# name -> the secret value (what must never come back)
S: dict[str, str] = {
    "aws_access_key": "AKIA" + rand(16, string.ascii_uppercase + string.digits),
    "aws_secret_key": rand(40, B64),
    "github_token": "ghp_" + rand(36),
    "github_pat": "github_pat_" + rand(22) + "_" + rand(59),
    "gitlab_token": "glpat-" + rand(20, URLSAFE),
    "slack_token": "xoxb-" + rand(12, "0123456789") + "-" + rand(13, "0123456789") + "-" + rand(24),
    "slack_webhook": rand(24),
    "stripe_live": "sk_live_" + rand(24),
    "stripe_test": "sk_test_" + rand(99),
    "openai_api_key": "sk-proj-" + rand(74, URLSAFE) + "T3BlbkFJ" + rand(74, URLSAFE),
    "openai_legacy": "sk-" + rand(20) + "T3BlbkFJ" + rand(20),
    "anthropic_api_key": "sk-ant-api03-" + rand(93, URLSAFE) + "AA",
    "gcp_api_key": "AIza" + rand(35, URLSAFE),
    "azure_storage_key": rand(86, B64) + "==",
    "azure_sas_key": rand(43, B64) + "=",
    "azure_client_secret": rand(3) + "8Q~" + rand(34, ALNUM + "_~.-"),
    "jwt": JWT,
    "discord_bot_token": "M" + rand(23, URLSAFE) + "." + rand(6, URLSAFE) + "." + rand(27, URLSAFE),
    "twilio_key": "AC" + rand(32, LOWER_HEX),
    "sendgrid_api_key": "SG." + rand(22, URLSAFE) + "." + rand(43, URLSAFE),
    "square_oauth_secret": "sq0csp-" + rand(43, URLSAFE),
    "pypi_token": "pypi-AgEIcHlwaS5vcmc" + rand(80, URLSAFE),
    "npm_token": "npm_" + rand(36),
    "mailchimp_api_key": rand(32, LOWER_HEX) + "-us14",
    "telegram_bot_token": "1234567890:" + rand(35, URLSAFE),
    "artifactory_token": "AKCp8" + rand(68),
    "url_password": "Sup3r-" + rand(10) + "-pw",
    "redis_password": "r3dis" + rand(12),
    "bearer_token": rand(40, URLSAFE),
    "env_service_token": rand(32),
    "dotenv_django_secret": rand(50, ALNUM + "!@#%^*(-_=+)"),
    "json_refresh_token": rand(40),
    "yaml_password": "Xk9#" + rand(8) + "$q",
    "client_secret_camel": rand(32, LOWER_HEX),
    "rsa_key_line": RSA_BODY[2],
    "sa_key_line": SA_BODY[1],
    "openssh_key_line": OPENSSH_BODY[1],
}
# Where a secret's own text is not the secret (it is in a longer construct), the parts to look for.
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(RSA_BODY) + "\n-----END RSA PRIVATE KEY-----\n"
OPENSSH = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(OPENSSH_BODY) + "\n-----END OPENSSH PRIVATE KEY-----\n"
SA_JSON = json.dumps({
    "type": "service_account", "project_id": "demo-project", "private_key_id": rand(40, LOWER_HEX),
    "private_key": "-----BEGIN PRIVATE KEY-----\n" + "\n".join(SA_BODY) + "\n-----END PRIVATE KEY-----\n",
    "client_email": "deployer@demo-project.iam.gserviceaccount.com", "client_id": "1234567890",
}, indent=2)




# -- unit tests: true positives ----------------------------------------------------------------

TRUE_POSITIVES: list[tuple[str, str, str]] = [
    # (rule, text, secret)
    ("aws_access_key", f"export AWS_ACCESS_KEY_ID={S['aws_access_key']}", S["aws_access_key"]),
    ("aws_secret_key", f'aws_secret_access_key = "{S["aws_secret_key"]}"', S["aws_secret_key"]),
    ("secret_assignment", f"AWS_SECRET_ACCESS_KEY={S['aws_secret_key']}", S["aws_secret_key"]),
    ("github_token", f"git remote set-url origin https://{S['github_token']}@github.com/o/r", S["github_token"]),
    ("github_token", f"GH_TOKEN={S['github_pat']}", S["github_pat"]),
    ("gitlab_token", f"token: {S['gitlab_token']}", S["gitlab_token"]),
    ("slack_token", f"SLACK_BOT_TOKEN={S['slack_token']}", S["slack_token"]),
    ("slack_webhook", f"curl https://hooks.slack.com/services/T0ABCDEFG/B0HIJKLMN/{S['slack_webhook']}", S["slack_webhook"]),
    ("stripe_key", f"Stripe.api_key = '{S['stripe_live']}'", S["stripe_live"]),
    ("stripe_key", f"STRIPE_KEY={S['stripe_test']}", S["stripe_test"]),
    ("openai_api_key", f"OPENAI_API_KEY={S['openai_api_key']}", S["openai_api_key"]),
    ("openai_api_key", f"openai.api_key = \"{S['openai_legacy']}\"", S["openai_legacy"]),
    ("anthropic_api_key", f"my key is {S['anthropic_api_key']} please use it", S["anthropic_api_key"]),
    ("gcp_api_key", f"https://maps.googleapis.com/maps/api/geocode/json?key={S['gcp_api_key']}", S["gcp_api_key"]),
    ("azure_storage_key",
     f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={S['azure_storage_key']};EndpointSuffix=core.windows.net",
     S["azure_storage_key"]),
    ("azure_key", "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;"
                  f"SharedAccessKey={S['azure_sas_key']}", S["azure_sas_key"]),
    ("azure_client_secret", f"client secret value: {S['azure_client_secret']} (expires 2027)", S["azure_client_secret"]),
    ("jwt", f"Set-Cookie: session={S['jwt']}; HttpOnly", S["jwt"]),
    ("discord_bot_token", f"bot.run('{S['discord_bot_token']}')", S["discord_bot_token"]),
    ("twilio_key", f"account sid {S['twilio_key']} for the SMS sender", S["twilio_key"]),
    ("sendgrid_api_key", f"SENDGRID_API_KEY={S['sendgrid_api_key']}", S["sendgrid_api_key"]),
    ("square_oauth_secret", f"square secret {S['square_oauth_secret']}", S["square_oauth_secret"]),
    ("pypi_token", f"password = {S['pypi_token']}", S["pypi_token"]),
    ("npm_token", f"//registry.npmjs.org/:_authToken={S['npm_token']}", S["npm_token"]),
    ("npm_token", f"here is the publish token: {S['npm_token']}", S["npm_token"]),
    ("mailchimp_api_key", f"mailchimp key {S['mailchimp_api_key']}", S["mailchimp_api_key"]),
    ("telegram_bot_token", f"https://api.telegram.org/bot{S['telegram_bot_token']}/getMe", S["telegram_bot_token"]),
    ("artifactory_token", f"X-JFrog-Art-Api: {S['artifactory_token']}", S["artifactory_token"]),
    ("url_password", f"DATABASE_URL=postgres://app:{S['url_password']}@db.internal:5432/app", S["url_password"]),
    ("url_password", f"redis://:{S['redis_password']}@cache:6379/0", S["redis_password"]),
    ("authorization_header", f"curl -H 'Authorization: Bearer {S['bearer_token']}' https://api.example.com",
     S["bearer_token"]),
    ("secret_assignment", f"MY_SERVICE_TOKEN={S['env_service_token']}", S["env_service_token"]),
    ("secret_assignment", f"DJANGO_SECRET_KEY='{S['dotenv_django_secret']}'", S["dotenv_django_secret"]),
    ("secret_assignment", f'{{"refresh_token": "{S["json_refresh_token"]}", "expires_in": 3600}}',
     S["json_refresh_token"]),
    ("secret_assignment", f"database:\n  user: app\n  password: {S['yaml_password']}\n", S["yaml_password"]),
    ("secret_assignment", f'const cfg = {{ clientSecret: "{S["client_secret_camel"]}" }};', S["client_secret_camel"]),
    ("private_key", PEM, S["rsa_key_line"]),
    ("private_key", OPENSSH, S["openssh_key_line"]),
    ("gcp_service_account_key", json.dumps(json.loads(SA_JSON)), S["sa_key_line"]),
    ("gcp_service_account_key", SA_JSON.replace("\\n", "\n"), S["sa_key_line"]),
]

# Shapes a hostile probe found unredacted. Drawn from their own generator so
# that the keys above stay the same draws.
_RNG17 = random.Random(17)
_AWS17 = "AKIA" + "".join(_RNG17.choice(string.ascii_uppercase + string.digits) for _ in range(16))
_AWS17_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "".join(_RNG17.choice(ALNUM) for _ in range(17)) + "+"
_PW17 = "Tr0ub4dor!" + "".join(_RNG17.choice(ALNUM) for _ in range(6))
TRUE_POSITIVES += [
    ("aws_secret_key", f"The key id is {_AWS17} and its secret access key is {_AWS17_SECRET}.", _AWS17_SECRET),
    ("aws_secret_key", f"secret: {_AWS17_SECRET}\nkey id:\n{_AWS17}", _AWS17_SECRET),
    ("prose_password", f"ok so my password is {_PW17}, please log in for me", _PW17),
    ("prose_password", "I set the staging password to hunter2! yesterday", "hunter2!"),
    ("command_password", f"mysql -h db -uroot -p{_PW17} shop < dump.sql", _PW17),
    ("command_password", f"mysqldump --single-transaction -u app -p'{_PW17}' shop", _PW17),
    ("command_password", f"sshpass -p '{_PW17}' ssh deploy@10.0.0.4 uptime", _PW17),
    ("command_password", f'sshpass -p "{_PW17}" scp a b', _PW17),
    ("command_password", "PGPASSWORD=pglocal psql -h localhost -U app -c 'select 1'", "pglocal"),
    ("secret_assignment", f"PGPASSWORD={_PW17} pg_dump shop", _PW17),  # random enough for the general rule
    ("command_password", f"curl -sf -u admin:{_PW17} https://ci.internal/api/json", _PW17),
    ("command_password", f"curl --user 'deploy:{_PW17}' https://x", _PW17),
    ("command_password", f"vault login --password {_PW17} -method=userpass", _PW17),
    ("command_password", f"cli deploy --token {_PW17}x9 --region eu", _PW17),
]

# What people really paste. Drawn from their own generator, after the above.
_RNG28 = random.Random(28)


def _r28(n: int, alphabet: str = ALNUM) -> str:
    while True:
        v = "".join(_RNG28.choice(alphabet) for _ in range(n))
        if all(any(c in part for c in v) for part in (string.digits, string.ascii_uppercase, string.ascii_lowercase)
               if set(part) & set(alphabet)):
            return v


_HF28 = "hf_" + _r28(34)
_VAULT28 = "hvs." + _r28(24)
_B64_28 = base64.b64encode(f"GITHUB_TOKEN=ghp_{_r28(36)}\n".encode()).decode()
TRUE_POSITIVES += [
    ("huggingface_access_token", f"HF_TOKEN={_HF28}", _HF28),
    ("vault_token", f"VAULT_TOKEN={_VAULT28}", _VAULT28),
    ("xai_api_key", f"XAI_API_KEY=xai-{(_x := _r28(80))}", _x),
    ("groq_api_key", f"here: gsk_{(_g := _r28(52))}", _g),
    ("openai_api_key", f"old key sk-{(_o := _r28(48))} still works", _o),
    ("api_key", f"DEEPSEEK_API_KEY=sk-{(_d := _r28(32, LOWER_HEX))}", _d),
    ("linear_api_key", f"lin_api_{(_li := _r28(40))}", _li),
    ("digitalocean_pat", f"doctl auth init -t dop_v1_{(_do := _r28(64, LOWER_HEX))}", _do),
    ("shopify_access_token", f"X-Shopify-Access-Token: shpat_{(_sh := _r28(32, LOWER_HEX))}", _sh),
    ("aws_secret_key", f"the AWS secret is {_AWS17_SECRET}", _AWS17_SECRET),
    ("command_password", f"docker login -u deploy -p {_PW17} registry.example.com", _PW17),
    ("command_password", f"redis-cli -h cache -a {_PW17} ping", _PW17),
    ("netrc_password", f"machine api.example.com\n  login deploy\n  password {_PW17}\n", _PW17),
    ("prose_password", 'my passphrase is "correct horse battery staple"', "correct horse battery staple"),
    ("secret_assignment", "DB_PASSWORD=correcthorsebatterystaple", "correcthorsebatterystaple"),
    ("url_password", f"postgres://app:{_PW17}#1@db:5432/app", f"{_PW17}#1"),
    ("base64_secret", f"echo {_B64_28} | base64 -d", _B64_28),
    ("github_token", f'TOKEN = "{S["github_token"][:20]}" + "{S["github_token"][20:]}"', S["github_token"]),
    ("github_token", f'TOKEN = ("{S["github_token"][:20]}"  + "{S["github_token"][20:]}")', S["github_token"]),
    ("github_token", f'TOKEN = "{S["github_token"][:20]}"\t+ "{S["github_token"][20:]}"', S["github_token"]),
    ("github_token", f"export GH={S['github_token'][:17]}\\\n{S['github_token'][17:]}", S["github_token"]),
    ("private_key", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + RSA_BODY[0][:32] + "\n" + RSA_BODY[1] + "\n", RSA_BODY[1]),
    ("microsoft_teams_webhook", "https://org.webhook.office.com/webhookb2/" + _r28(8, "abcdef0123456789") + "-abcd-ef01-2345-"
     + _r28(12, "abcdef0123456789") + "@" + _r28(8, "abcdef0123456789") + "-abcd-ef01-2345-" + _r28(12, "abcdef0123456789")
     + "/IncomingWebhook/" + (_tw := _r28(32, "abcdef0123456789")) + "/0a1b2c3d-abcd-ef01-2345-0123456789ab", _tw),
]


def _gitleaks_true_positives() -> list[tuple[str, str, str]]:
    """One sample of each vendored gitleaks rule whose name the cases above do not show, drawn
    from its own regex (scripts/eval_redact.py)."""
    from scripts.eval_redact import gitleaks_samples

    shown = {r for r, _, _ in TRUE_POSITIVES}
    out = []
    for name, text, secret in gitleaks_samples(28):
        if name not in shown:
            shown.add(name)
            out.append((name, text, secret))
    return out


TRUE_POSITIVES += _gitleaks_true_positives()


@pytest.mark.parametrize(("rule", "text", "secret"), TRUE_POSITIVES,
                         ids=[f"{r}-{i}" for i, (r, _, _) in enumerate(TRUE_POSITIVES)])
def test_true_positive(rule: str, text: str, secret: str) -> None:
    out, n = redact(text)
    assert n >= 1
    for frag in fragments(secret):
        assert frag not in out, (rule, out)
    assert f"[REDACTED:{rule}]" in out, out
    assert out.count("\n") == text.count("\n")  # line numbers survive
    assert redact(out) == (out, 0)  # idempotent


def test_keyword_rules_leave_plain_words_and_references() -> None:
    for text in ("mysql -u root -p shop", "the password is incorrect.", "use the --token flag",
                 "docker login --password-stdin", "PGPASSWORD=$PGPASS psql", "curl -u \"$USER:$PASS\" https://x",
                 "sshpass -p \"${SSHPASS}\" ssh host", "git log a94a8fe5ccb19ba61c4c0873d391e987982fbbd3 " + _AWS17):
        out, _ = redact(text)
        assert out.replace("[REDACTED:aws_access_key]", _AWS17) == text, out


def test_every_rule_has_a_true_positive() -> None:
    tested = {r for r, _, _ in TRUE_POSITIVES}
    niche = {"cloudant_key", "ibm_cos_key", "softlayer_key"}  # detect-secrets' name-prefixed assignments
    assert set(R.rule_names()) - tested - niche == set()


def test_detect_secrets_patterns_are_all_gated() -> None:
    """Each reused pattern has an anchor or gate, else it would scan every text."""
    for module, cls, _, _ in R.DS_PLUGINS:
        import importlib

        plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), cls)
        for i in range(len(plugin.denylist)):
            assert (module, i) in R.DS_GATES, (module, i)
    assert all(r.anchors or r.gate for r in R.rules())


def test_name_prefixed_detect_secrets_rules() -> None:
    for text in (f"cloudant_password = '{rand(64, LOWER_HEX)}'", f"ibm_cos_secret_access_key: {rand(48, LOWER_HEX)}",
                 f"softlayer_api_key = {rand(64, string.ascii_lowercase + string.digits)}"):
        out, n = redact(text)
        assert n == 1 and "[REDACTED:" in out, out


def test_pem_keeps_its_lines_and_cut_short_key_is_taken() -> None:
    out, n = redact("before\n" + PEM + "after")
    assert out == "before\n[REDACTED:private_key]" + "\n" * (PEM.count("\n")) + "after"
    cut = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(RSA_BODY[:3])  # a truncated tool output
    out, n = redact(cut)
    assert n == 1 and not any(line in out for line in RSA_BODY[:3])


# -- unit tests: false positives ---------------------------------------------------------------

FALSE_POSITIVES = [
    "commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main)",
    "git checkout 3f78685 && git log --oneline a94a8fe5ccb19ba61c4c0873d391e987982fbbd3",
    "session 123e4567-e89b-12d3-a456-426614174000 resumed from 0198c2b4-7d3e-7c1a-9f00-5a6b7c8d9e0f",
    "echo SGVsbG8gd29ybGQsIHRoaXMgaXMganVzdCBhIHRlc3Qgc3RyaW5nLg== | base64 -d",
    "The quick brown fox jumps over the lazy dog; the password reset flow sends a token by email.",
    "/home/alice/.ssh/id_ed25519 src/auth/token_store.py tests/test_secret_manager.py ~/.aws/credentials",
    "TOKEN_LIMIT=4096\nMAX_TOKENS=8192\nPASSWORD_MIN_LENGTH=12\nKEY_PATH=/etc/ssl/private/server.key",
    'api_key = os.environ["OPENAI_API_KEY"]\ntoken = get_token(user)\nsecret = settings.SECRET_KEY',
    "  secretAccessKey: process.env.R2_SECRET_ACCESS_KEY!,\n  accessKeyId: process.env.R2_ACCESS_KEY_ID!,",
    "--- PASS: TestLifecycle_DetectAndEnable/pi (0.64s)\nPASS\nok  \tgithub.com/x/y\t1.2s",
    '{"input_tokens": 1234, "output_tokens": 56, "cache_read_input_tokens": 78910}',
    "key: value\nprimary_key=True\nsort_key: created_at\npublic_key: ssh-ed25519",
    '"integrity": "sha512-abc123DEF456ghi789JKL012mno345PQR678stu901VWX234yz==", "resolved": "https://registry.npmjs.org/x"',
    "Use bearer token authentication; see RFC 6750. Authorization: Bearer <token>",
    "https://github.com/anthropics/claude-code.git and git@github.com:org/repo.git, ssh://git@host:22/repo",
    "server 10.0.0.12:8080 and 93.184.216.34, user alice@example.com, v1.2.3-beta.4, 2026-11-12T13:02:41.000Z",
    "DB_PASSWORD=${DB_PASSWORD}\nAPI_KEY=<your-api-key>\nSECRET_KEY=changeme\nTOKEN=xxxxxxxxxxxxxxxx",
    "password: password\npasswd: hunter\nPASS: Test",
    "def check_api_key(key: str) -> bool:\n    return key in self.keys",
]


@pytest.mark.parametrize("text", FALSE_POSITIVES)
def test_false_positive(text: str) -> None:
    assert redact(text) == (text, 0), R.find_secrets(text)


# -- unit tests: the structured and line variants ------------------------------------------------


def test_redact_value_walks_json_and_judges_keys() -> None:
    value = {"command": f"export GITHUB_TOKEN={S['github_token']} && gh pr list",
             "headers": {"X-Api-Key": S["env_service_token"], "Accept": "application/json"},
             "items": [{"api_secret": S["json_refresh_token"]}, ("tuple", S["jwt"])],
             "timeout": 30, "path": "/srv/app"}
    out, n = redact_value(value)
    dumped = json.dumps(out)
    assert n == 4
    for name in ("github_token", "env_service_token", "json_refresh_token", "jwt"):
        assert S[name] not in dumped
    assert out["headers"]["Accept"] == "application/json" and out["timeout"] == 30
    assert value["headers"]["X-Api-Key"] == S["env_service_token"]  # the input is not changed
    assert redact_value({"a": 1, "b": ["x"]}) == ({"a": 1, "b": ["x"]}, 0)


def test_redact_value_survives_deep_nesting() -> None:
    deep: Any = f"token={S['github_token']}"
    for _ in range(5000):
        deep = [deep]
    out, n = redact_value(deep)
    while isinstance(out, list):
        out = out[0]
    assert n == 1 and out == "token=[REDACTED:github_token]"


def test_redact_lines_keeps_tags_and_count() -> None:
    lines = [" def connect():", "-    key = None", *("+" + ln for ln in PEM.splitlines()), "+    return key"]
    out, n = redact_lines(lines, prefix=1)
    assert n == 1 and len(out) == len(lines)
    assert [ln[:1] for ln in out] == [ln[:1] for ln in lines]
    assert not any(S["rsa_key_line"] in ln for ln in out)


def test_non_ascii_and_surrogates_around_a_secret() -> None:
    text = f"café → clé: {S['github_token']} ✓ \udc80 fin"
    out, n = redact(text)
    assert n == 1 and out == "café → clé: [REDACTED:github_token] ✓ \udc80 fin"


def test_withheld_note() -> None:
    assert withheld_note("no secrets here") is None
    note = withheld_note("…export «KEY»=[REDACTED:aws_access_key] and [«REDACTED»:jwt]…")
    assert note is not None and "aws_access_key" in note and "jwt" in note


# -- the planted-secret corpus ---------------------------------------------------------------------


ENV_DUMP = "\n".join([
    "HOME=/home/dev", "PATH=/usr/local/bin:/usr/bin", "TOKEN_LIMIT=4096",
    f"AWS_ACCESS_KEY_ID={S['aws_access_key']}", f"AWS_SECRET_ACCESS_KEY={S['aws_secret_key']}",
    f"GITHUB_TOKEN={S['github_token']}", f"OPENAI_API_KEY={S['openai_api_key']}",
    f"SLACK_BOT_TOKEN={S['slack_token']}", f"MY_SERVICE_TOKEN={S['env_service_token']}",
    f"DATABASE_URL=postgres://app:{S['url_password']}@db.internal:5432/app",
    f"STRIPE_SECRET_KEY={S['stripe_live']}", f"TWILIO_ACCOUNT_SID={S['twilio_key']}",
    f"DISCORD_TOKEN={S['discord_bot_token']}", "EDITOR=vim",
])
DOTENV = "\n".join([
    f"DJANGO_SECRET_KEY='{S['dotenv_django_secret']}'", f"SENDGRID_API_KEY={S['sendgrid_api_key']}",
    f"STRIPE_TEST_KEY={S['stripe_test']}", f"MAILCHIMP_KEY={S['mailchimp_api_key']}",
    f"AZURE_STORAGE=DefaultEndpointsProtocol=https;AccountName=a;AccountKey={S['azure_storage_key']};",
    "DEBUG=true",
])


def _claude_session(repo: Path, sid: str) -> Transcript:
    w = Transcript(sid, str(repo), "2026-11-20T09:00:00")
    w.user(f"deploys fail with 401. My Anthropic key is {S['anthropic_api_key']} and the PAT {S['github_pat']}; "
           "please check the environment")
    w.tool("Bash", {"command": "env | sort", "description": "Show the environment"}, ENV_DUMP,
           result={"stdout": ENV_DUMP, "stderr": "", "interrupted": False, "isImage": False})
    numbered = "\n".join(f"{i:>6}\t{ln}" for i, ln in enumerate(DOTENV.splitlines(), 1))
    w.tool("Read", {"file_path": str(repo / ".env")}, numbered,
           result={"type": "text", "file": {"filePath": str(repo / ".env"), "content": DOTENV, "numLines": DOTENV.count("\n") + 1,
                                     "startLine": 1, "totalLines": DOTENV.count("\n") + 1}})
    cmd = f"curl -s -H 'Authorization: Bearer {S['bearer_token']}' https://api.example.com/v1/me"
    out = json.dumps({"user": "dev", "session": S["jwt"], "refresh_token": S["json_refresh_token"]})
    w.tool("Bash", {"command": cmd, "description": "Call the API"}, out,
           result={"stdout": out, "stderr": "", "interrupted": False})
    # An edit that puts keys into a file (the transcript holds them in old/new strings and the patch).
    path = repo / "app" / "settings.py"
    before = path.read_text()
    new = (f'GCP_API_KEY = "{S["gcp_api_key"]}"\nGITLAB_TOKEN = "{S["gitlab_token"]}"\n'
           f'TELEGRAM = "{S["telegram_bot_token"]}"\nAPI_KEY = None\n')
    after = before.replace("API_KEY = None\n", new, 1)
    path.write_text(after)
    w.tool("Edit", {"file_path": str(path), "old_string": "API_KEY = None\n", "new_string": new, "replace_all": False},
           f"The file {path} has been updated successfully.",
           result={"filePath": str(path), "oldString": "API_KEY = None\n", "newString": new, "originalFile": before,
            "structuredPatch": structured_patch(before, after), "userModified": False, "replaceAll": False})
    for rel, content in (("deploy/sa.json", SA_JSON + "\n"), ("deploy/id_rsa", PEM), ("deploy/id_ed25519", OPENSSH)):
        target = repo / rel
        w.tool("Write", {"file_path": str(target), "content": content}, f"File created successfully at: {target}",
               result={"type": "create", "filePath": str(target), "content": content, "structuredPatch": [],
                       "originalFile": None})
    todos = [{"content": f"Rotate {S['aws_access_key']} and the Square secret {S['square_oauth_secret']}",
              "status": "pending", "activeForm": "Rotating keys"},
             {"content": "Move keys to the vault", "status": "in_progress", "activeForm": "Moving keys"}]
    w.tool("TodoWrite", {"todos": todos}, "Todos have been modified successfully.",
           result={"oldTodos": [], "newTodos": todos})
    last = w.assistant(f"The token {S['jwt']} is expired and the PyPI token {S['pypi_token']} was printed by the build.")
    w.lines.append({"type": "summary", "summary": f"Rotate leaked key {S['aws_access_key']}", "leafUuid": last})
    w.lines.append({"type": "custom-title", "customTitle": f"deploy 401 {S['npm_token']}", "sessionId": sid})
    return w


def _codex_session(repo: Path, sid: str) -> Rollout:
    rollout = Rollout(sid, datetime(2026, 11, 21, 10, 0, 0, tzinfo=UTC))
    add = rollout.add
    cwd = str(repo)
    prompt = f"publish with this npm token {S['npm_token']} and post to the webhook " \
             f"https://hooks.slack.com/services/T0ABCDEFG/B0HIJKLMN/{S['slack_webhook']}"
    add("session_meta", {"id": sid, "timestamp": rollout.now(), "cwd": cwd, "originator": "codex-tui", "cli_version": "0.125.0",
                         "source": "cli", "model_provider": "openai",
                         "git": {"branch": "main",
                                 "repository_url": f"https://x-access-token:{S['github_token']}@github.com/o/r.git"}})
    add("turn_context", {"turn_id": "turn-1", "cwd": cwd, "approval_policy": "on-request", "model": "gpt-5.4"})
    add("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]})
    add("event_msg", {"type": "user_message", "message": prompt, "images": []})
    cmd = f"export TWILIO_AUTH_TOKEN={S['env_service_token']} REDIS_URL=redis://:{S['redis_password']}@cache:6379 && env"
    add("response_item", {"type": "function_call", "name": "exec_command", "call_id": "call_plant0001",
                          "arguments": json.dumps({"cmd": cmd, "workdir": cwd})})
    add("event_msg", {"type": "exec_command_end", "call_id": "call_plant0001", "turn_id": "turn-1",
                      "command": ["/bin/bash", "-lc", cmd], "cwd": cwd, "stdout": ENV_DUMP, "stderr": "",
                      "aggregated_output": ENV_DUMP, "exit_code": 0, "status": "completed"})
    add("response_item", {"type": "function_call_output", "call_id": "call_plant0001",
                          "output": "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\n" + ENV_DUMP})
    plan = [{"step": f"Revoke {S['anthropic_api_key']}", "status": "in_progress"},
            {"step": "Add a vault client", "status": "pending"}]
    add("response_item", {"type": "function_call", "name": "update_plan", "call_id": "call_plant0002",
                          "arguments": json.dumps({"plan": plan})})
    add("response_item", {"type": "function_call_output", "call_id": "call_plant0002", "output": "Plan updated"})
    path = repo / "app" / "notify.py"
    text = (f'SENDGRID = "{S["sendgrid_api_key"]}"\nAZURE_CLIENT_SECRET = "{S["azure_client_secret"]}"\n'
            f'AZURE_BUS = "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKey={S["azure_sas_key"]}"\n'
            f'ARTIFACTORY = "{S["artifactory_token"]}"\n')
    patch = f"*** Begin Patch\n*** Add File: {path}\n" + "".join("+" + ln + "\n" for ln in text.splitlines()) + "*** End Patch\n"
    add("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": "call_plant0003",
                          "name": "apply_patch", "input": patch})
    add("event_msg", {"type": "patch_apply_begin", "call_id": "call_plant0003", "auto_approved": True,
                      "changes": {str(path): {"add": {"content": text}}}})
    path.write_text(text)
    add("event_msg", {"type": "patch_apply_end", "call_id": "call_plant0003", "turn_id": "turn-1",
                      "stdout": f"Success. Updated the following files:\nA {path}\n", "stderr": "", "success": True,
                      "changes": {str(path): {"type": "add", "content": text}}})
    add("response_item", {"type": "custom_tool_call_output", "call_id": "call_plant0003",
                          "output": json.dumps({"output": f"Success. Updated the following files:\nA {path}\n",
                                                "metadata": {"exit_code": 0, "duration_seconds": 0.1}})})
    add("response_item", {"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": f"Done. The yaml had `password: {S['yaml_password']}` and the JS had "
                                        f"clientSecret: \"{S['client_secret_camel']}\"; move both to the vault."}]})
    return rollout


CC_SID = "7a1c9e52-3b4d-4e6f-8a9b-0c1d2e3f4a5b"
CX_SID = "019e8b55-6c31-7d42-9e3f-4a7b0c2d1e53"


@pytest.fixture
def planted(tmp_path: Path) -> dict[str, Any]:
    from fixtures_repos.writers import Story
    from hansard.ingest.run import index
    from hansard.store.sqlite.db import connect

    story = {"steps": [
        {"do": "write", "path": "app/settings.py", "text": "DEBUG = False\nAPI_KEY = None\n"},
        {"do": "write", "path": "app/retry.py", "text": "def upload(send, payload):\n    return send(payload)\n"},
        {"do": "commit", "message": "Initial settings", "author": "Alice Example <alice@example.com>",
         "date": "2026-11-10T09:30:00+01:00"},
        # The demo's own shapes: a prompt and a reply that carry keys, and a clean edit, so
        # that `why` on that file shows the (redacted) prompt beside lines of the file itself.
        {"do": "claude", "session": "4f0f2c6e-9d1b-4c7a-a35e-0c8f5b2d7e11", "start": "2026-11-12T13:02:41.000Z",
         "prompt": f"add retries; the staging token is {S['gitlab_token']}",
         "reply": f"Added retries. Note: {S['openai_legacy']} is hard-coded in your shell history.",
         "edits": [{"path": "app/retry.py", "old": "def upload(send, payload):\n",
                    "new": "def upload(send, payload, attempts=3):\n"}]},
        {"do": "commit", "message": "Retry", "author": "Alice Example <alice@example.com>",
         "date": "2026-11-12T14:09:00+01:00"},
    ]}
    s = Story(tmp_path / "w")
    s.run(story["steps"])
    repo = s.repo
    (repo / "deploy").mkdir()
    claude_home = Path(os.environ["CLAUDE_CONFIG_DIR"])
    files = [_claude_session(repo, CC_SID).write_home(claude_home),
             _codex_session(repo, CX_SID).write_home(Path(os.environ["CODEX_HOME"]))]
    s.git("add", "-A")
    s.git("commit", "-q", "-m", "Deploy files")
    db = connect()
    summary = index(db)
    assert summary is not None
    db.close()
    return {"repo": repo, "files": files, "summary": summary}


def _secrets_in(text: str) -> list[str]:
    return [name for name, secret in S.items() for frag in fragments(secret) if frag in text]


def _cli_outputs(repo: Path) -> dict[str, str]:
    sids = [CC_SID, CX_SID, "4f0f2c6e-9d1b-4c7a-a35e-0c8f5b2d7e11"]
    cmds: list[tuple[str, ...]] = [("status",), ("sessions", "--limit", "50")]
    for sid in sids:
        cmds.append(("show", sid, "--all", "--max-message-chars", "200000"))
        cmds.append(("show", sid, "--all", "--group-revisions"))
        cmds.append(("context", sid, "--repo", str(repo), "--no-sync", "--budget", "20000"))
    queries = ["env", "token", "key", "deploy", "Bearer", "vault", "REDACTED", "settings", "password",
               "AKIA", "sk-ant", "ghp", "BEGIN PRIVATE KEY", "client_email", "npm", "webhook"]
    queries += [S["github_token"], S["aws_access_key"], S["anthropic_api_key"][:30], S["env_service_token"]]
    for q in queries:
        cmds.append(("history", q, "--no-sync", "--include-current", "--include-subagents", "--limit", "20",
                     "--hits-per-session", "5"))
    cmds.append(("history", "--no-sync", "--include-current", "--limit", "20"))  # recent, no query
    for rel in ("app/settings.py", "app/retry.py", "app/notify.py", "deploy/sa.json", "deploy/id_rsa"):
        cmds.append(("log", rel, "--repo", str(repo), "--no-sync", "--budget", "20000"))
    cmds.append(("memory", "search", "key"))
    cmds.append(("why", str(repo / "app" / "retry.py"), "--no-sync"))
    out: dict[str, str] = {}
    for cmd in cmds:
        for extra in ((), ("--json",)):
            code, text, err = run_cli(*cmd, *extra)
            assert code == 0, (cmd, extra, text, err)
            for arg in cmd:  # a query that is itself a secret is echoed back: the caller's own text
                if arg in S.values() or arg == S["anthropic_api_key"][:30]:
                    text = text.replace(arg, "<query>")
            out[" ".join(cmd + extra)] = text + err
    return out


def test_no_planted_secret_comes_back_from_the_cli(planted: dict[str, Any]) -> None:
    outputs = _cli_outputs(planted["repo"])
    leaks = {cmd: _secrets_in(text) for cmd, text in outputs.items() if _secrets_in(text)}
    print(f"\nplanted {len(S)} secrets ({len(set(R.rule_names()))} rules); {len(outputs)} CLI outputs checked; "
          f"leaked {len(leaks)}; redactions counted {planted['summary'].redactions}")
    assert leaks == {}
    everything = "\n".join(outputs.values())
    assert "[REDACTED:" in everything
    # A search hit whose excerpt lost a secret says so.
    hits = json.loads(outputs["history env --no-sync --include-current --include-subagents --limit 20 "
                              "--hits-per-session 5 --json"])["results"]
    assert any("[REDACTED:" in h["excerpt"] and "withheld" in h.get("match_reason", "") for h in hits)
    assert all("match_reason" not in h for h in hits if "[REDACTED:" not in h["excerpt"])
    # Counted: in the index summary, per source, and in status.
    st = json.loads(outputs["status --json"])
    assert st["counts"]["redactions"] == planted["summary"].redactions > 40
    assert st["last_run"]["redactions"] == planted["summary"].redactions


def test_planted_secrets_stay_in_the_archive_and_show_raw(planted: dict[str, Any]) -> None:
    from hansard.config import store_path_str

    db = sqlite3.connect(store_path_str())
    # raw_records holds every line of each transcript byte for byte.
    for path in planted["files"]:
        src = db.execute("SELECT id FROM sources WHERE path=?", (str(path),)).fetchone()[0]
        stored = [unpack_record(r[0]) for r in db.execute(
            "SELECT data FROM raw_records WHERE source_id=? ORDER BY \"offset\"", (src,))]
        assert stored == path.read_bytes().rstrip(b"\n").split(b"\n")
    # No derived table holds a planted secret; every one is in the archive.
    for table, cols in {"messages": ["text"], "tool_calls": ["input", "output"], "sessions": ["title", "first_prompt",
                        "git_remote", "extra"], "steps": ["steps"], "edits": ["hunks"], "leaf_titles": ["title"],
                        "skips": ["detail"]}.items():
        for col in cols:
            for (v,) in db.execute(f"SELECT {col} FROM {table}"):
                assert not _secrets_in(str(v or "")), (table, col)
    from hansard.store.sqlite.codec import unpack

    for b, a in db.execute("SELECT before_text, after_text FROM edits"):
        assert not _secrets_in((unpack(b) or "") + (unpack(a) or ""))
    db.close()
    code, text, _ = run_cli("show", CC_SID, "--all", "--raw", "--json")
    assert code == 0
    raw = "\n".join(m["raw"] or "" for m in json.loads(text)["messages"])
    assert S["anthropic_api_key"] in raw and S["aws_secret_key"] in raw and S["sendgrid_api_key"] in raw
    code, text, _ = run_cli("show", CX_SID, "--all", "--raw")
    assert code == 0 and S["npm_token"] in text and S["redis_password"] in text


def test_edit_attribution_uses_the_original_lines(planted: dict[str, Any]) -> None:
    """edit_lines hashes come from the unredacted lines: the committed line that holds a key
    is still attributed to the session that wrote it."""
    from hansard.config import store_path_str
    from hansard.text import textnorm

    db = sqlite3.connect(store_path_str())
    line = f'GCP_API_KEY = "{S["gcp_api_key"]}"'
    hit = db.execute("SELECT COUNT(*) FROM edit_lines WHERE hash=? AND side='+'", (textnorm.line_hash(line),)).fetchone()[0]
    db.close()
    assert hit == 1
    code, text, _ = run_cli("why", f"{planted['repo'] / 'app' / 'settings.py'}:2", "--no-sync", "--json")
    assert code == 0
    ans = json.loads(text)
    assert ans["lines"][0]["session_id"] == CC_SID


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_no_planted_secret_comes_back_from_mcp(planted: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp import Client

    from hansard.mcp.server import ServeOptions, build_server

    repo = planted["repo"]
    monkeypatch.chdir(repo)
    texts: list[str] = []
    # a calling session that is not in the store: captures are bound to it, and search leaves out nothing
    async with Client(build_server(ServeOptions(cwd=str(repo), caller_session="cccccccc-0000-4000-8000-00000000ca11"))) as c:
        async def call(tool: str, args: dict[str, Any]) -> dict[str, Any]:
            r = await c.call_tool(tool, args)
            body = "".join(getattr(x, "text", "") for x in r.content) + json.dumps(r.structured_content)
            if args.get("query") in S.values():
                body = body.replace(args["query"], "<query>")  # the caller's own query, echoed
            texts.append(body)
            assert not r.is_error, body
            return r.structured_content or {}

        for q in ("env", "token", "deploy key", "Bearer", "password", "vault", S["github_token"], "REDACTED"):
            await call("search_past_sessions", {"query": q, "limit": 20, "hits_per_session": 5, "include_subagents": True})
        for sid in (CC_SID, CX_SID, "4f0f2c6e-9d1b-4c7a-a35e-0c8f5b2d7e11"):
            page = await call("get_past_session", {"session_id": sid, "max_message_chars": 200000})
            while page.get("next"):
                page = await call("get_past_session", {"session_id": sid, "next": page["next"]})
            await call("work_context", {"session_id": sid, "token_budget": 20000})
        for rel in ("app/settings.py", "app/notify.py", "deploy/sa.json"):
            await call("code_history", {"path": rel, "token_budget": 20000})
        # A delivery captured through MCP is redacted like a transcript.
        await call("capture_subagent_messages", {"message_type": "result", "sender": "sub", "recipient_path": "main",
                                                 "text": f"found {S['stripe_live']} in the logs"})
        await call("search_past_sessions", {"query": "found logs", "include_subagents": True})
        await call("search_memories", {"query": "key"})
    leaks = [t[:200] for t in texts if _secrets_in(t)]
    assert leaks == []
    assert any("[REDACTED:" in t for t in texts)


def test_store_indexed_before_redaction_is_rebuilt(tmp_path: Path) -> None:
    """Migration m021 marks sources whose derived rows predate redaction (redactions = -1);
    the next index rebuilds them from the archive."""
    from hansard.ingest.run import index
    from hansard.store.sqlite.db import connect

    home = Path(os.environ["CLAUDE_CONFIG_DIR"])
    w = Transcript("5d2e8f10-1a2b-4c3d-8e4f-5a6b7c8d9e0f", str(tmp_path), "2026-11-22T08:00:00")
    w.user(f"use {S['github_token']} for the release")
    w.write_home(home)
    db = connect()
    index(db)
    # What an older hansard stored: the text as it was, and the mark m021 leaves.
    db.execute("UPDATE messages SET text=?", (f"use {S['github_token']} for the release",))
    db.execute("UPDATE sources SET redactions=-1")
    assert index(db) is not None
    texts = [r[0] for r in db.execute("SELECT text FROM messages")]
    assert texts == ["use [REDACTED:github_token] for the release"]
    assert db.execute("SELECT redactions FROM sources WHERE provider IS NOT NULL").fetchone()[0] == 1
    db.close()


def test_rebuild_clears_every_mark(tmp_path: Path) -> None:
    """A source no parser reads (here a file in the agent's home that is not a transcript)
    keeps no mark after the rebuild: otherwise every later index, and every question after a
    transcript grew, would rebuild the whole store again."""
    from hansard.ingest.run import index
    from hansard.store import as_store
    from hansard.store.sqlite.db import connect

    home = Path(os.environ["CLAUDE_CONFIG_DIR"])
    w = Transcript("5d2e8f10-1a2b-4c3d-8e4f-5a6b7c8d9e0f", str(tmp_path), "2026-11-22T08:00:00")
    w.user(f"use {S['github_token']} for the release")
    w.write_home(home)
    (home / "projects" / "notes.jsonl").write_text('{"note": "not a transcript"}\n', encoding="utf-8")
    db = connect()
    index(db)
    assert db.execute("SELECT count(*) FROM sources WHERE provider IS NULL").fetchone()[0] == 1
    # What the migrations leave in a store written by an older hansard (m021, m037).
    db.execute("UPDATE sources SET redactions=-1")
    archive = as_store(db).archive
    assert archive.needs_rebuild()
    assert index(db) is not None
    assert not archive.needs_rebuild()
    assert db.execute("SELECT redactions FROM sources WHERE provider IS NOT NULL").fetchone()[0] == 1
    db.close()


def test_unchanged_lines_only() -> None:
    """The writer skips scanning an edit's new text only when every line of it is known clean."""
    from hansard.ingest.redact import unchanged_lines_only
    from hansard.text.diffs import Hunk

    before = "a = 1\nb = 2\n"
    added = (Hunk(2, 1, 2, 2, ("-b = 2", "+b = 3", "+c = 4")),)
    assert unchanged_lines_only("a = 1\nb = 3\nc = 4\n", before, added)
    assert not unchanged_lines_only(f"a = 1\nTOKEN = '{S['github_token']}'\n", before, added)
    assert unchanged_lines_only("x\ny\n", None, (Hunk(0, 0, 1, 2, ("+x", "+y")),))


def test_memory_files_are_redacted(tmp_path, monkeypatch) -> None:
    """A key pasted into CLAUDE.md is not served by memory search or get_memory."""
    import os

    from hansard.answers.memories import get_memory, search_memories
    from hansard.ingest.memory_files import scan_memories
    from hansard.store import open_store

    key = "sk-ant-api03-" + "Q" * 20 + "x7Kd9LmP2rT5vW8yZ3bN6cF1hJ4" + "AA"
    claude = os.environ["CLAUDE_CONFIG_DIR"]
    os.makedirs(claude, exist_ok=True)
    with open(os.path.join(claude, "CLAUDE.md"), "w") as fh:
        fh.write(f"# House rules\n\nUse the staging key ANTHROPIC_API_KEY={key} for tests.\n")
    store = open_store()
    scan_memories(store, force=True)
    hits = search_memories(store, "staging key")
    assert hits["results"], hits
    mem = get_memory(store, hits["results"][0]["memory_id"])
    blob = repr(hits) + repr(mem)
    assert key not in blob and "[REDACTED" in blob


def test_commit_diffs_hold_no_secret(tmp_path: Path) -> None:
    """A secret committed in a file is not copied into the commit-diff cache
    by `why` or `log` (git gives that diff again); diffs without one are still cached."""
    from tests.hostile import git

    token = "ghp_" + rand(36)
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "settings.py").write_text("DEBUG = False\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "settings")
    (repo / "settings.py").write_text(f"DEBUG = False\nGITHUB_TOKEN = '{token}'\nRETRIES = 3\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "token")
    (repo / "settings.py").write_text(f"DEBUG = True\nGITHUB_TOKEN = '{token}'\nRETRIES = 3\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "debug")
    cwd = os.getcwd()
    os.chdir(repo)
    try:
        for args in (("why", "settings.py", "--json"), ("why", "settings.py:2", "--json"),
                     ("log", "settings.py", "--json")):
            code, out, err = run_cli(*args)
            assert code == 0, (args, out, err)
    finally:
        os.chdir(cwd)
    db = sqlite3.connect(Path(os.environ["HANSARD_HOME"]) / "hansard.db")
    rows = db.execute("SELECT sha, path, hunks FROM commit_diffs").fetchall()
    assert rows, "the diffs without a secret are cached"
    assert not any(token in r[2] for r in rows), "a committed secret reached the commit-diff cache"
    assert db.execute("SELECT COUNT(*) FROM why_cache").fetchone()[0], "the answers are cached, without the lines' text"
    # raw_records is the verbatim archive (only `hansard show --raw` reads it).
    for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'"
                               " AND name NOT LIKE 'raw_records%'"):
        for row in db.execute(f"SELECT * FROM \"{table}\""):
            assert not any(token.encode() in _plain(v) for v in row if isinstance(v, (str, bytes))), table


def _plain(v: str | bytes) -> bytes:
    """A stored value as bytes, decompressed when it is a zlib or Zstandard blob."""
    if isinstance(v, str):
        return v.encode("utf-8", "surrogateescape")
    import zlib

    try:
        return zlib.decompress(v)
    except zlib.error:
        pass
    from hansard.store.sqlite.codec import unpack_record

    try:
        return unpack_record(v)
    except Exception:  # neither: the bytes as stored
        return v


# -- gitleaks' rules as data, and the measured corpus ------------------------------------------


def test_gitleaks_regexes_are_translated_for_python() -> None:
    from hansard.ingest.gitleaks import Untranslatable, translate

    assert translate("lin_api_(?i)[a-z0-9]{40}") == "lin_api_(?i:[a-z0-9]{40})"
    # RE2: the flag holds to the end of its group, over the group's later alternatives too.
    assert translate("(a(?i)b|c)d") == "(a(?i:b)|(?i:c))d"
    assert translate(r"\bx\z") == r"\bx\Z"
    assert translate("[[:alnum:]]{3}") == "[a-zA-Z0-9]{3}"
    assert translate("(?i)abc") == "(?i)abc"
    for go in (r"\p{L}+", "a(?U)b", "[[:^alpha:]]"):
        with pytest.raises(Untranslatable):
            translate(go)


def test_vendored_gitleaks_rules_are_whole_and_licensed() -> None:
    """The vendored file is what the update script makes of its source: each rule's Python
    regex is the translation of its Go regex; the licence and notice are beside it."""
    from hansard.ingest import gitleaks

    doc = gitleaks.load()
    assert "gitleaks" in doc["source"] and len(doc["rules"]) >= 200
    for r in doc["rules"]:
        assert gitleaks.translate(r["regex"]) == r["python"], r["id"]
        assert r["keywords"] and r["name"] == gitleaks.snake(r["id"])
    assert {s["id"] for s in doc["skipped"]} >= {"generic-api-key", "pkcs12-file"}
    licence = (Path(gitleaks.DATA).parent / "LICENSE").read_text()
    assert "MIT License" in licence and "Zachary Rice" in licence
    assert (Path(gitleaks.DATA).parent / "NOTICE").is_file()
    names = set(R.rule_names())
    assert {"shopify_access_token", "linear_api_key", "digitalocean_pat", "huggingface_access_token"} <= names


def test_vendored_detect_secrets_patterns_are_the_installed_ones() -> None:
    """detect-secrets' patterns are read from secret_rules/detect_secrets.json (importing its
    plugins cost ~0.1 s at a process's first redaction): they are the installed package's."""
    from pathlib import Path

    vendored = json.loads((Path(R.__file__).with_name("secret_rules") / R.DS_DATA).read_text())
    assert {k: vendored[k] for k in ("version", "plugins")} == R.detect_secrets_patterns()
    assert "Apache License" in (Path(R.__file__).with_name("secret_rules") / "LICENSE.detect-secrets").read_text()


def test_first_redaction_does_not_import_detect_secrets() -> None:
    import subprocess
    import sys

    code = ("import sys; from hansard.ingest.redact import redact; "
            "assert redact('key sk_live_abcDEF123456ghiJKL7890')[1] == 1; print('detect_secrets' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=str(Path(__file__).resolve().parents[1]))
    assert out.stdout.strip() == "False"


# Every shape the issue lists, and ordinary texts that look like them, which stay.
ISSUE_28_SHAPES = ["aws_secret_prose", "huggingface", "huggingface_env", "vault_hvs", "vault_env", "docker_login", "netrc",
                   "netrc_one_line", "prose_passphrase", "prose_passphrase_single", "plain_word_password", "shopify", "xai",
                   "groq", "linear", "digitalocean", "openai_legacy_48", "base64_github_token", "base64_pem",
                   "split_backslash", "split_concat_openai", "split_concat_stripe", "pem_body_only"]
ISSUE_28_ORDINARY = [
    "password = get_password()",
    "password: str",
    "password: string\ntoken: Optional[str] = None",
    "def login(user: str, password: str) -> bool:\n    return check(user, password)",
    "docker run -p 8080:80 -v $PWD:/app nginx",
    "echo $PW | docker login --password-stdin ghcr.io",
    "ssh -p 2222 deploy@10.0.0.4 && psql -h localhost -p 5432 -U app",
    "machine learning needs data; the password manager is open",
    "the password is 'incorrect'",
    'raise InvalidPassword("password is incorrect")',
    "model = AutoModel.from_pretrained('org/x-base', token=hf_token)\nhf_hub_download(repo_id='a/b', filename='m.bin')",
    "task-3f9a disk-2 ask-me s.orange",
    "the AWS region is us-east-1 and the bucket is assets-prod",
    "aws s3 cp s3://bucket/reports/2026/summary.csv ./out --sse aws:kms",
    'url = base + "/api/v1/" + path\nlabel = "orange" + "river"',
    'msg = ("a long sentence broken "\n       "over two lines")',
    "echo SGVsbG8gd29ybGQsIHRoaXMgaXMganVzdCBhIHRlc3Qgc3RyaW5nLg== | base64 -d",
    "public_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx0aGlzIGlzIGEgcHVibGljIGtleSBvbmx5Lg",
    "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0",
    "DB_PASSWORD=${DB_PASSWORD}\nSECRET_KEY=changeme\nPASSWORD_MIN_LENGTH=12",
]


def test_issue_28_shapes_are_redacted_and_ordinary_texts_stay() -> None:
    from scripts.eval_redact import SHAPES, Gen

    g = Gen(2028)
    for shape in ISSUE_28_SHAPES:
        for _ in range(3):
            text, secret = SHAPES[shape](g)
            out, n = redact(text)
            assert n >= 1 and not any(f in out for f in fragments(secret)), (shape, text, out)
            assert out.count("\n") == text.count("\n") and redact(out) == (out, 0), (shape, out)
    for text in ISSUE_28_ORDINARY:
        assert redact(text) == (text, 0), (text, R.find_secrets(text))


def test_redaction_corpus_slice_meets_its_bounds() -> None:
    """scripts/eval_redact.py on a smaller slice (the full run: 300 hand-written secrets of 75
    shapes plus one per gitleaks rule, 3,000 ordinary texts): recall >= 99%, false positives
    <= 0.5%."""
    from scripts.eval_redact import evaluate

    r = evaluate(seed=7, per_shape=1, n_ordinary=600, samples=None)
    assert r["own_shapes"] >= 60 and r["secrets"] >= 250
    assert r["recall"] >= 0.99, r["missed"][:5]
    assert r["fp_rate"] <= 0.005, r["false_positives"][:5]


def test_keys_found_in_decoded_or_joined_text_keep_the_rest() -> None:
    token = "ghp_" + rand(36)
    text = f'before = 1\nTOKEN = "{token[:18]}" + \\\n    "{token[18:]}"\nafter = 2'
    out, n = redact(text)
    # The key, joins included, becomes one marker; its line break is kept after it.
    assert (out, n) == ('before = 1\nTOKEN = "[REDACTED:github_token]\n"\nafter = 2', 1)
    enc = base64.b64encode(f"token: {token}".encode()).decode()
    out, n = redact(f"kind: Secret\ndata:\n  creds: {enc}\n  name: YWRtaW4=\n")
    assert out == "kind: Secret\ndata:\n  creds: [REDACTED:base64_secret]\n  name: YWRtaW4=\n"


# -- git's strings and the working tree's lines, served ------------------------------------------


@pytest.fixture
def git_secrets(tmp_path: Path) -> dict[str, Any]:
    """A repository whose commit summary holds a Stripe key and whose file holds a JWT and a
    plain-word DB_PASSWORD, the commit made after a Claude session's edit to that file."""
    from fixtures_repos.writers import Story
    from hansard.ingest.run import index
    from hansard.store.sqlite.db import connect

    stripe = "sk_live_" + rand(24)
    jwt = S["jwt"]
    password = "correcthorsebatterystaple"
    sid = "6a1f0c3e-2b4d-4e5f-8a9b-0c1d2e3f4a5b"
    body = f"DEBUG = False\nTOKEN = \"{jwt}\"\nDB_PASSWORD={password}\n"
    story = Story(tmp_path / "w")
    story.run([
        {"do": "write", "path": "app/conf.py", "text": "DEBUG = True\n"},
        {"do": "commit", "message": "Initial", "author": "Alice Example <alice@example.com>",
         "date": "2026-11-10T09:30:00+01:00"},
        {"do": "claude", "session": sid, "start": "2026-11-12T13:02:41.000Z", "prompt": "configure the app",
         "reply": "Done.", "edits": [{"path": "app/conf.py", "old": "DEBUG = True\n", "new": body}]},
        {"do": "commit", "message": f"add stripe key {stripe}", "author": "Alice Example <alice@example.com>",
         "date": "2026-11-12T14:09:00+01:00"},
    ])
    db = connect()
    index(db)
    db.close()
    return {"repo": story.repo, "sid": sid, "secrets": [stripe, jwt, password]}


def _leaks(blob: str, secrets: list[str]) -> list[str]:
    return [s for s in secrets if any(f in blob for f in fragments(s))]


def test_code_history_and_work_context_redact_git_strings(git_secrets: dict[str, Any]) -> None:
    from hansard.answers.code_history import code_history
    from hansard.answers.work_context import work_context
    from hansard.render.trees import code_history_tree, work_context_tree
    from hansard.store import open_store

    repo, secrets = git_secrets["repo"], git_secrets["secrets"]
    store = open_store()
    answers = {
        "code_history path": code_history(store, "app/conf.py", cwd=str(repo), token_budget=20000, render=code_history_tree),
        "code_history path:line": code_history(store, "app/conf.py:2-3", cwd=str(repo), token_budget=20000,
                                                render=code_history_tree),
        "work_context": work_context(store, git_secrets["sid"], cwd=str(repo), token_budget=20000, render=work_context_tree),
    }
    for what, ans in answers.items():
        assert _leaks(json.dumps(ans), secrets) == [], what
    blob = json.dumps(answers)
    assert "[REDACTED:stripe_key]" in blob and "[REDACTED:jwt]" in blob and "[REDACTED:secret_assignment]" in blob
    line3 = [e for e in answers["code_history path:line"]["entries"] if e["line"] == 3][0]
    assert line3["content"] == "DB_PASSWORD=[REDACTED:secret_assignment]"
    # The CLI's `log` and `context`, text and JSON, are these answers.
    cwd = os.getcwd()
    os.chdir(repo)
    try:
        for args in (("log", "app/conf.py", "--no-sync"), ("log", "app/conf.py:2", "--no-sync"),
                     ("context", git_secrets["sid"], "--no-sync"), ("why", "app/conf.py", "--no-sync"),
                     ("why", "app/conf.py:2", "--no-sync")):
            for extra in ((), ("--json",)) if args[0] != "why" else ((),):
                code, out, err = run_cli(*args, *extra)
                assert code == 0, (args, out, err)
                assert _leaks(out, secrets) == [], (args, extra, out)
    finally:
        os.chdir(cwd)


def test_why_json_redacts_git_strings(git_secrets: dict[str, Any]) -> None:
    cwd = os.getcwd()
    os.chdir(git_secrets["repo"])
    try:
        code, out, err = run_cli("why", "app/conf.py", "--no-sync", "--json")
    finally:
        os.chdir(cwd)
    assert code == 0, err
    assert _leaks(out, git_secrets["secrets"]) == []


def test_reindex_applies_the_rules_of_today_to_a_store_indexed_with_older_ones(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`hansard reindex` re-redacts an existing store. Derived rows are
    rebuilt from the raw archive, which keeps every record verbatim, through today's redactor:
    a HuggingFace token that older rules let through is withheld after it."""
    from hansard.ingest.run import index
    from hansard.store.sqlite.db import connect

    token = "hf_" + _r28(34, string.ascii_letters)
    prompt = f"log in to the hub with {token} please"
    w = Transcript("7b3e9d21-4c5a-4f6b-9e8d-1a2b3c4d5e6f", str(tmp_path), "2026-11-23T08:00:00")
    w.user(prompt)
    w.write_home(Path(os.environ["CLAUDE_CONFIG_DIR"]))
    # The rules of before: no gitleaks rules, no HuggingFace rule of hansard's own.
    old = R._Engine([*(r for r in R.OWN_RULES if r.name != "huggingface_access_token"), *R.detect_secrets_rules(),
                     *R.KEYWORD_RULES])
    monkeypatch.setitem(R._STATE, "engine", old)
    monkeypatch.setattr(R, "_SHORT", R._Memo(0))
    monkeypatch.setattr(R, "_LONG", R._Memo(0))
    assert redact(prompt) == (prompt, 0)
    db = connect()
    index(db)
    assert [r[0] for r in db.execute("SELECT text FROM messages")] == [prompt]
    db.close()
    monkeypatch.delitem(R._STATE, "engine")  # today's rules
    code, out, err = run_cli("reindex", "--json")
    assert code == 0, err
    db = connect()
    assert [r[0] for r in db.execute("SELECT text FROM messages")] == [
        "log in to the hub with [REDACTED:huggingface_access_token] please"]
    db.close()


def test_a_cached_why_serves_no_secret_and_the_cache_keeps_none(git_secrets: dict[str, Any]) -> None:
    """The why-result cache keeps a redacted line as served (the file gives the others back), so
    the second answer, from the cache, needs no redactor and leaks nothing either."""
    from hansard.store.sqlite.db import connect

    cwd = os.getcwd()
    os.chdir(git_secrets["repo"])
    try:
        first = run_cli("why", "app/conf.py", "--no-sync", "--json")
        second = run_cli("why", "app/conf.py", "--no-sync", "--json")
    finally:
        os.chdir(cwd)
    assert first[0] == second[0] == 0
    assert json.loads(second[1]) == json.loads(first[1])
    assert _leaks(second[1], git_secrets["secrets"]) == []
    db = connect()
    try:
        rows = [zlib.decompress(r[0]).decode() for r in db.execute("SELECT answer FROM why_cache")]
    finally:
        db.close()
    assert rows and _leaks("\n".join(rows), git_secrets["secrets"]) == []


# -- the screen in front of the redactor (hansard/ingest/secret_screen.py) -------------------------


def test_screen_data_is_the_rules_own() -> None:
    """secret_rules/screen.json is what the rules and the redactor say now (else, after a change
    to a rule or to hansard/ingest/redact.py: scripts/update_gitleaks_rules.py --screen)."""
    from hansard.ingest import gitleaks

    assert json.loads(Path(gitleaks.DATA).with_name("screen.json").read_text(encoding="utf-8")) == R.screen_data()


def test_the_screens_mark_is_the_redactors() -> None:
    from hansard.ingest import secret_screen

    assert secret_screen.MARK == R.MARK and R.redact("token ghp_" + "a1B2" * 9)[0].startswith("token " + R.MARK)


def test_screen_never_passes_a_text_the_redactor_changes() -> None:
    """Every true secret of the evaluation corpus (and each case above) is stopped by the
    screen; ordinary text mostly passes, and where it does, the redactor leaves it alone."""
    from hansard.ingest import secret_screen
    from scripts.eval_redact import ordinary, true_secrets

    secrets = [text for _, text, _ in true_secrets(28, 2)] + [text for _, text, _ in TRUE_POSITIVES]
    assert len(secrets) > 300
    for text in secrets:
        assert not secret_screen.clean(text), text
        assert secret_screen.redact(text) == redact(text)
    plain = ordinary(28, 600, None)
    passed = [t for t in plain if secret_screen.clean(t)]
    assert len(passed) > len(plain) // 4  # the screen is worth having
    for text in plain:
        assert secret_screen.redact(text) == redact(text)
        assert secret_screen.redact_lines(text.split("\n")) == redact_lines(text.split("\n"))


def test_rules_tried_near_their_anchors_find_what_a_scan_finds() -> None:
    """A rule with a ``lead`` is tried only where its anchors start (redact._near): on every
    true secret of the evaluation corpus, ordinary text, and texts packing many matches
    together, each of its matches holds an anchor starting at most ``lead`` bytes in, and
    it finds exactly what scanning the whole text finds."""
    from scripts.eval_redact import ordinary, true_secrets

    secrets = [text for _, text, _ in true_secrets(28, 2)] + [text for _, text, _ in TRUE_POSITIVES]
    dense = [sep.join(secrets[i:i + 7]) for sep in ("", " ", "\n", "://") for i in range(0, len(secrets), 7)]
    # each rule's longest head before its anchor: a 21-letter scheme, "pass phrase", "authorization"
    secrets += ["db: abcdefghijklmnopqrstu://app:s3cr&t#1x@db.example.com/x and pg+psycopg://a:Zq9#kLm2@h/",
                'my pass phrase is "correct horse battery" and my Passphrase: Xk9#mQ2$vL',
                "curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA9' -H \"BEARER abc.def9ghijk\""]
    texts = [t.encode("utf-8", "surrogatepass") for t in [*secrets, *dense, *ordinary(28, 300, None)]]
    eng = R._engine()
    near = [c for c in eng.rules if c.rule.lead >= 0]
    assert {c.rule.name for c in near} >= {"prose_password", "url_password", "authorization_header"}
    matched = 0
    for b in texts:
        low = b.lower()
        _run, _kw, starts = eng.plan(b, low)
        for c in near:
            at = sorted(starts.get(c.order, []))
            scanned = [m.span() for m in c.rx.finditer(b)]
            for s, _e in scanned:
                assert any(s <= a <= s + c.rule.lead for a in at), (c.rule.name, b[s:s + 80])
            assert [m.span() for m in R._near(c.rx, b, at, c.rule.lead)] == scanned, c.rule.name
            matched += len(scanned)
    assert matched > 200
