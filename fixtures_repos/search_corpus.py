"""A generated corpus of agent sessions and known-item queries for ``scripts/eval_search.py``.

Sessions are written as real Claude Code transcripts through :class:`fixtures_repos.writers.Transcript`
(the one transcript writer). Each is about one (component, problem) pair, unique across the
corpus, and reads like a real one: the request, long tool outputs (source listings, a failing
test run with a stack trace, a commit), several topics (a side question about another
component), often a decision between named options, and near-duplicates (a sibling session
on the same component with a neighbouring problem, one on the same problem elsewhere, and
for some sessions a second attempt at the same component that decides differently).

Four kinds of query, each with exactly one target session:

- ``identifier``: a function name or an error code that only the target's text holds;
- ``phrase``: four to seven consecutive words of the target's own explanation;
- ``paraphrase``: the component and the problem in other words, sharing no content word with
  anything the target session says (checked against its whole text);
- ``decision``: a question about what was decided ("which retry policy did we pick for ...").

Queries are split by target session into a development set (for tuning) and a held-out set
(for reporting), by a hash of the session id, so no tuning ever sees a held-out target.
Everything is drawn from a seeded ``random.Random``: the same arguments give the same corpus.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from pathlib import Path

# (canonical words the sessions use, module path, noun for identifiers, paraphrases that share
# no content word with the canonical words)
COMPONENTS = [
    ("upload retry", "net/upload.py", "upload", ["resending documents after a broken transfer",
                                                  "sending attachments again once a push fails"]),
    ("invoice exporter", "billing/export.py", "invoice", ["writing customer bills out as spreadsheets",
                                                          "producing billing statements for accountants"]),
    ("websocket gateway", "realtime/gateway.py", "socket", ["the live push channel to browsers",
                                                            "streaming connection front door for clients"]),
    ("thumbnail worker", "media/thumbs.py", "thumbnail", ["shrinking pictures into small previews",
                                                          "making tiny preview images"]),
    ("search indexer", "search/indexer.py", "indexer", ["building the lookup tables behind find",
                                                        "cataloguing documents so queries work"]),
    ("oauth callback", "auth/oauth.py", "oauth", ["the login redirect handler from identity providers",
                                                  "return endpoint after third-party sign in"]),
    ("billing webhook", "billing/hooks.py", "webhook", ["payment provider notifications endpoint",
                                                        "incoming charge events from stripe"]),
    ("session cache", "auth/session_cache.py", "cache", ["remembering signed in visitors in memory",
                                                         "storing logged in state between visits"]),
    ("csv importer", "data/csv_import.py", "importer", ["reading spreadsheet uploads into tables",
                                                        "loading comma separated files"]),
    ("pdf renderer", "docs/pdf.py", "render", ["turning pages into printable documents",
                                               "producing printable reports"]),
    ("rate limiter", "api/ratelimit.py", "limiter", ["throttling clients who call too often",
                                                     "capping requests per minute for each caller"]),
    ("feature flag loader", "config/flags.py", "flags", ["toggles that switch functionality on and off",
                                                         "reading the experiment switches at boot"]),
    ("email digest", "notify/digest.py", "digest", ["the weekly summary mail to users",
                                                    "batched newsletter of activity"]),
    ("audit logger", "security/audit.py", "audit", ["recording who changed what for compliance",
                                                    "trail of admin actions for inspectors"]),
    ("geo lookup", "geo/lookup.py", "geo", ["finding the country of an address",
                                            "mapping ip numbers to locations"]),
    ("push notifier", "notify/push.py", "notifier", ["phone alerts to mobile apps",
                                                     "sending pings to handsets"]),
    ("report scheduler", "reports/scheduler.py", "scheduler", ["cron that emails monthly figures",
                                                               "timed generation of management summaries"]),
    ("image resizer", "media/resize.py", "resizer", ["scaling photos to different dimensions",
                                                     "changing picture width and height"]),
    ("token refresher", "auth/refresh.py", "refresher", ["renewing expired access credentials",
                                                         "getting new bearer keys before they lapse"]),
    ("config reloader", "config/reload.py", "reloader", ["picking up settings changes without restarting",
                                                         "hot swapping options while running"]),
    ("payment gateway", "billing/gateway.py", "payment", ["charging credit cards through the provider",
                                                          "taking money from shoppers"]),
    ("order queue", "orders/queue.py", "orders", ["the backlog of purchases waiting for fulfilment",
                                                  "pending checkout jobs line"]),
    ("inventory sync", "stock/sync.py", "inventory", ["keeping warehouse stock counts matched",
                                                      "aligning product quantities with suppliers"]),
    ("password reset", "auth/reset.py", "password", ["forgotten credential recovery flow",
                                                     "letting people regain account access"]),
    ("chat moderation", "social/moderation.py", "moderation", ["filtering abusive remarks in conversations",
                                                               "blocking offensive posts"]),
    ("video transcoder", "media/transcode.py", "transcoder", ["converting movies between formats",
                                                              "re-encoding clips for phones"]),
    ("backup job", "ops/backup.py", "backup", ["nightly copy of the database to storage",
                                               "snapshotting data offsite"]),
    ("metrics exporter", "ops/metrics.py", "metrics", ["sending counters to prometheus",
                                                       "publishing telemetry numbers for dashboards"]),
    ("dns resolver", "net/dns.py", "resolver", ["turning hostnames into addresses",
                                                "name lookups for servers"]),
    ("translation loader", "i18n/loader.py", "translation", ["fetching localized strings for languages",
                                                             "bringing in wording for other locales"]),
    ("coupon validator", "billing/coupons.py", "coupon", ["checking discount codes at checkout",
                                                          "verifying promo vouchers"]),
    ("shipping calculator", "orders/shipping.py", "shipping", ["working out delivery fees",
                                                               "estimating postage costs for parcels"]),
    ("sitemap generator", "web/sitemap.py", "sitemap", ["listing pages for crawlers",
                                                        "xml map that robots read"]),
    ("profile editor", "users/profile.py", "profile", ["letting members change their bio and avatar",
                                                       "account details form"]),
    ("comment threading", "social/threads.py", "threading", ["nesting replies under posts",
                                                             "hierarchy of responses in discussions"]),
    ("cart persistence", "orders/cart.py", "cart", ["keeping basket contents across visits",
                                                    "remembering what shoppers picked earlier"]),
    ("log shipper", "ops/logship.py", "shipper", ["forwarding application output to elasticsearch",
                                                  "moving server traces into central storage"]),
    ("tax calculator", "billing/tax.py", "tax", ["computing vat for purchases",
                                                 "working out government levies on sales"]),
    ("font loader", "web/fonts.py", "font", ["fetching typefaces for pages",
                                             "bringing in lettering styles for browsers"]),
    ("access control", "security/acl.py", "permission", ["who is allowed to see which records",
                                                         "deciding user rights on resources"]),
]

# (canonical words, exception class, paraphrases sharing no content word with the canonical words)
PROBLEMS = [
    ("crashes on empty input", "ValueError", ["falls over when handed a blank payload",
                                              "dies if nothing is passed in"]),
    ("leaks memory under load", "MemoryError", ["ram keeps growing when busy",
                                                "footprint balloons during heavy traffic"]),
    ("times out after thirty seconds", "TimeoutError", ["hangs and never answers in time",
                                                        "stalls until the client gives up"]),
    ("returns stale data", "AssertionError", ["shows outdated results",
                                              "serves old values that were already changed"]),
    ("charges customers twice", "DuplicateChargeError", ["bills people double",
                                                         "takes money two times from buyers"]),
    ("drops messages on reconnect", "ConnectionResetError", ["loses events after the link comes back",
                                                             "forgets notifications when a client rejoins"]),
    ("is slow on large files", "PerformanceWarning", ["takes forever with big documents",
                                                      "crawls when given huge payloads"]),
    ("fails in the nightly build", "CalledProcessError", ["breaks in the overnight pipeline",
                                                          "red every morning in ci"]),
    ("logs secrets in plain text", "SecurityWarning", ["writes passwords into the output",
                                                       "prints credentials unmasked"]),
    ("ignores the timezone", "OverflowError", ["uses the wrong local hour",
                                               "shifts dates by several hours for people abroad"]),
    ("deadlocks under concurrency", "RuntimeError", ["freezes when two threads collide",
                                                     "gets stuck when parallel jobs run together"]),
    ("mangles unicode characters", "UnicodeDecodeError", ["garbles accented letters",
                                                          "turns emoji into question marks"]),
    ("double counts duplicate rows", "IntegrityError", ["tallies repeated entries twice",
                                                        "inflates totals with copies"]),
    ("rejects valid tokens", "PermissionError", ["refuses good credentials",
                                                 "locks out legitimate users"]),
    ("returns the wrong currency", "KeyError", ["shows prices in dollars instead of euros",
                                                "amounts come back in another money unit"]),
    ("races with the migration", "OperationalError", ["collides with schema changes at deploy",
                                                      "breaks while the database layout is altered"]),
    ("floods the database with queries", "TooManyConnections", ["hammers postgres with selects",
                                                                "issues thousands of lookups per page"]),
    ("skips the last batch", "IndexError", ["forgets the final chunk",
                                            "misses the trailing group of records"]),
    ("retries forever", "RecursionError", ["loops endlessly trying again",
                                           "never stops attempting after a failure"]),
    ("corrupts the output file", "EOFError", ["writes broken documents",
                                              "produces truncated garbage on disk"]),
    ("sorts in the wrong order", "TypeError", ["lists items backwards",
                                               "ranks entries upside down"]),
    ("uses too much cpu", "ResourceWarning", ["pegs the processor at full",
                                              "burns cores while idle"]),
    ("sends duplicate emails", "SMTPException", ["mails people the same thing twice",
                                                 "inbox gets repeated notices"]),
    ("breaks on daylight saving", "NonExistentTimeError", ["fails when clocks spring forward",
                                                           "goes wrong at the march hour change"]),
    ("leaks file handles", "OSError", ["runs out of descriptors",
                                       "keeps opening without closing"]),
]

# (topic words, options, question forms): what a session may decide about its component
DECISIONS = [
    ("retry policy", ["exponential backoff capped at thirty seconds", "a fixed delay of two seconds",
                      "no retries and fail fast"]),
    ("cache eviction", ["least recently used with a ten thousand entry cap", "a five minute time to live",
                        "manual invalidation on write"]),
    ("serialization format", ["msgpack", "protobuf", "plain json"]),
    ("locking strategy", ["optimistic locking with a version column", "an advisory lock per tenant",
                          "a single writer queue"]),
    ("logging format", ["structured json lines", "logfmt", "plain text with request ids"]),
    ("test strategy", ["property based tests with hypothesis", "golden files", "a contract test suite"]),
    ("pagination scheme", ["cursor based pagination", "offset and limit", "keyset pagination on created_at"]),
    ("timeout value", ["ten seconds", "sixty seconds", "no timeout at all"]),
    ("error reporting", ["sentry with sampling at ten percent", "an errors table we review weekly", "email alerts"]),
    ("deployment order", ["database first then the app", "blue green with a flag", "canary on one node"]),
    ("id scheme", ["ulids", "uuid version seven", "sequential integers"]),
    ("batch size", ["one hundred rows", "five thousand rows", "whatever fits in one megabyte"]),
    ("queue backend", ["redis streams", "a postgres table with skip locked", "rabbitmq"]),
    ("encoding for money", ["integer cents", "decimal strings", "a money type from the library"]),
    ("monitoring alert threshold", ["five percent errors over five minutes", "any error at all", "p99 over a second"]),
    ("feature rollout plan", ["ten percent of tenants first", "internal users only", "everyone at once"]),
]
DECISION_QUESTIONS = [
    "which {topic} did we choose for the {comp}",
    "what {topic} did we settle on for the {comp}",
    "did we decide on a {topic} for the {comp}",
    "what was the final {topic} we picked for {comp}",
]

VERBS = ["load", "flush", "parse", "emit", "compute", "resolve", "merge", "drain", "apply", "build", "check", "encode"]
OBJECTS = ["batch", "state", "entry", "frame", "record", "window", "payload", "header", "bucket", "snapshot"]
FILLER_ASSISTANT = [
    "Let me read the module first.", "Running the focused tests now.", "I checked the recent commits on this file.",
    "Looking at the call sites before changing anything.", "The change is small; here is the plan.",
]
SIDE_QUESTIONS = [
    "unrelated, but is the {comp} still on the old config format?",
    "while you are here: who owns the {comp} these days?",
    "quick question, does the {comp} have tests at all?",
]
SIDE_ANSWERS = [
    "The {comp} moved to the new config last month; nothing to do there.",
    "The {comp} has a handful of unit tests in tests/, none of them slow.",
    "The {comp} belongs to the platform team according to CODEOWNERS.",
]
STOP = frozenset("""a an and are as at be but by did do does for from had has have how i if in into is it its me my
of on or our so that the their them then there these this to was we were what when where which who why will with
you your can could should would not no nothing once one two after before again all any every than too very""".split())


def content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if w not in STOP and len(w) > 1}


@dataclass
class Query:
    kind: str
    text: str
    target: str   # session id
    split: str    # "dev" or "test"


def _split(session_id: str) -> str:
    return "dev" if hashlib.sha256(session_id.encode()).digest()[0] < 96 else "test"


def _code_listing(module: str, funcs: list[str], rng: random.Random) -> str:
    lines = [f'"""{module}"""', "", "from __future__ import annotations", "", "import logging", "",
             "log = logging.getLogger(__name__)", ""]
    for f in funcs:
        arg = rng.choice(OBJECTS)
        lines += [f"def {f}({arg}, *, limit: int = {rng.randint(2, 500)}):",
                  f'    """{rng.choice(VERBS).capitalize()} the {arg}."""',
                  f"    if not {arg}:", "        return None",
                  "    out = []", f"    for i, item in enumerate({arg}):",
                  "        if i >= limit:", "            break", "        out.append(item)",
                  f"    log.debug('{f} handled %d', len(out))", "    return out", ""]
    return "\n".join(f"{i + 1:4}\t{ln}" for i, ln in enumerate(lines))


def _trace(module: str, funcs: list[str], exc: str, code: str, rng: random.Random) -> str:
    out = ["============================= test session starts ==============================",
           f"collected {rng.randint(8, 80)} items", "",
           f"tests/test_{Path(module).stem}.py ..F{'.' * rng.randint(2, 9)}", "",
           "=================================== FAILURES ===================================",
           f"_________________________ test_{funcs[0]} _________________________", "",
           "Traceback (most recent call last):"]
    for f in funcs:
        out += [f'  File "/srv/app/{module}", line {rng.randint(10, 400)}, in {f}',
                f"    return {rng.choice(VERBS)}_{rng.choice(OBJECTS)}(data)"]
    out += [f"{exc}: [{code}] {rng.choice(VERBS)} failed for {rng.choice(OBJECTS)} {rng.randint(1, 9999)}", "",
            f"FAILED tests/test_{Path(module).stem}.py::test_{funcs[0]} - {exc}",
            f"==================== 1 failed, {rng.randint(5, 60)} passed in {rng.uniform(0.5, 9):.2f}s ===================="]
    return "\n".join(out)


def build(folder: Path, n: int = 1100, seed: int = 16) -> tuple[list[Query], dict[str, str]]:
    """Write ``n`` sessions under ``folder`` (at most len(COMPONENTS) * len(PROBLEMS) first
    attempts, the rest second attempts); returns the queries and each session's full text."""
    rng = random.Random(seed)
    pairs = [(c, p) for c in range(len(COMPONENTS)) for p in range(len(PROBLEMS))]
    rng.shuffle(pairs)
    firsts = pairs[:min(n, len(pairs))]
    seconds = [rng.choice(firsts) for _ in range(max(0, n - len(firsts)))]
    used_funcs: set[str] = set()
    sessions: list[dict] = []
    decided: dict[tuple[int, int], list[int]] = {}
    for i, (ci, pi) in enumerate(firsts + seconds):
        comp, module, noun, _ = COMPONENTS[ci]
        prob, exc, _ = PROBLEMS[pi]
        sid = f"eval-{i:05d}-{hashlib.sha1(f'{seed}/{i}'.encode()).hexdigest()[:8]}"
        while True:
            funcs = [f"{rng.choice(VERBS)}_{noun}_{rng.choice(OBJECTS)}" for _ in range(3)]
            if not (set(funcs) & used_funcs) and len(set(funcs)) == 3:
                break
        used_funcs |= set(funcs)
        code = f"E{ci:02d}{pi:02d}{i % 97:02d}"
        decision = None
        if rng.random() < 0.55:
            di = rng.randrange(len(DECISIONS))
            decision = (di, rng.randrange(len(DECISIONS[di][1])))
            decided.setdefault((ci, di), []).append(i)
        sessions.append(dict(i=i, sid=sid, ci=ci, pi=pi, funcs=funcs, code=code, decision=decision,
                             second=i >= len(firsts)))
    texts: dict[str, str] = {}
    phrases: dict[str, list[str]] = {}
    for s in sessions:
        texts[s["sid"]], phrases[s["sid"]] = _write(folder, s, rng)
    queries = _queries(sessions, texts, phrases, decided, rng)
    return queries, texts


def _write(folder: Path, s: dict, rng: random.Random) -> tuple[str, list[str]]:
    from fixtures_repos.writers import Transcript

    comp, module, _noun, _ = COMPONENTS[s["ci"]]
    prob, exc, _ = PROBLEMS[s["pi"]]
    day = 1 + s["i"] % 27
    t = Transcript(s["sid"], cwd=f"/srv/repos/app{s['i'] % 9}", start=f"2026-{1 + s['i'] % 10:02d}-{day:02d}T09:00:00")
    said: list[str] = []
    specific: list[str] = []

    def user(text: str) -> None:
        said.append(text)
        t.user(text)

    def assistant(text: str) -> None:
        said.append(text)
        t.assistant(text)

    def tool(name: str, inp: dict, out: str) -> None:
        said.append(str(inp) + "\n" + out)
        t.tool(name, inp, out)

    opener = rng.choice([
        f"The {comp} {prob} since yesterday's deploy. Can you find out why and fix it?",
        f"Bug report from support: the {comp} {prob}. Please investigate.",
        f"I think the {comp} {prob} again. Look into it and propose a fix.",
    ])
    if s["second"]:
        opener = f"Back to the {comp}: it still {prob.split(' ', 1)[1] if prob.startswith('is ') else prob}. " \
                 "Last attempt did not hold, take another look."
    user(opener)
    assistant(rng.choice(FILLER_ASSISTANT))
    tool("Read", {"file_path": f"/srv/app/{module}"}, _code_listing(module, s["funcs"], rng))
    tool("Bash", {"command": f"pytest tests/test_{Path(module).stem}.py -x -q"},
         _trace(module, s["funcs"], exc, s["code"], rng))
    f0, f1 = s["funcs"][0], s["funcs"][1]
    cause = rng.choice([
        f"Found it: {f0} assumes the {rng.choice(OBJECTS)} is never empty, and {f1} passes it through unchecked, "
        f"which is why the {comp} {prob}.",
        f"The root cause is in {f1}: the {rng.choice(OBJECTS)} list is reused between calls, so under the right "
        f"conditions the {comp} {prob}. {f0} only makes it visible.",
        f"{f0} swallows the {exc} and retries with the same {rng.choice(OBJECTS)}; that loop is how the {comp} {prob}.",
    ])
    detail = (f"Error {s['code']} in the log lines up with this: it is raised from {f1} every time the "
              f"{rng.choice(OBJECTS)} window closes early.")
    assistant(cause + " " + detail + "\n\n" + rng.choice(FILLER_ASSISTANT))
    specific += [cause, detail]
    # a side topic about another component
    other = COMPONENTS[(s["ci"] + 1 + rng.randrange(len(COMPONENTS) - 1)) % len(COMPONENTS)][0]
    user(rng.choice(SIDE_QUESTIONS).format(comp=other))
    assistant(rng.choice(SIDE_ANSWERS).format(comp=other))
    if s["decision"] is not None:
        di, oi = s["decision"]
        topic, options = DECISIONS[di]
        listed = "; ".join(f"({k + 1}) {o}" for k, o in enumerate(options))
        assistant(f"Before I change {f0}: which {topic} do you want for the {comp}? Options: {listed}.")
        user(f"Go with {options[oi]}.")
        done = f"Done: the {comp} now uses {options[oi]} as its {topic}, set in {module}."
        assistant(done)
        specific.append(done)
    elif rng.random() < 0.5:
        topic = DECISIONS[rng.randrange(len(DECISIONS))][0]
        assistant(f"We may want to revisit the {topic} of the {comp} at some point; out of scope here.")
    fix = f"I changed {f0} to return early on an empty {rng.choice(OBJECTS)} and added a regression test " \
          f"test_{f0}_empty."
    assistant(fix)
    specific.append(fix)
    tool("Bash", {"command": "pytest -q"}, f"{rng.randint(40, 300)} passed in {rng.uniform(2, 30):.2f}s")
    sha = hashlib.sha1(s["sid"].encode()).hexdigest()[:10]
    tool("Bash", {"command": f"git commit -am 'Fix {comp}: {prob}'"},
         f"[main {sha}] Fix {comp}: {prob}\n 2 files changed, {rng.randint(3, 40)} insertions(+), "
         f"{rng.randint(0, 20)} deletions(-)")
    assistant(f"Committed as {sha}. The {comp} should be fine now; {s['code']} no longer shows up in the test log.")
    t.write(folder)
    return "\n".join(said), specific


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[,:;()]", "", text).lower().split())


def _phrase(sentences: list[str], comp_words: set[str], others: list[str], rng: random.Random) -> str | None:
    tries = []
    for sent in sentences:
        words = re.sub(r"[,:;()]", "", sent).split()
        for n in (5, 6, 7, 4):
            for at in range(0, max(1, len(words) - n + 1)):
                w = words[at:at + n]
                low = [x.lower().strip(".") for x in w]
                if not comp_words & set(low) or comp_words >= set(low) - STOP:
                    continue
                if len([x for x in low if x not in STOP and x not in comp_words]) < 2:
                    continue
                tries.append(" ".join(w).strip("."))
    rng.shuffle(tries)
    for p in tries:
        if not any(_plain(p) in o for o in others):
            return p
    return None


def _queries(sessions: list[dict], texts: dict[str, str], phrases: dict[str, list[str]],
             decided: dict[tuple[int, int], list[int]], rng: random.Random) -> list[Query]:
    out: list[Query] = []
    for s in sessions:
        sid, split = s["sid"], _split(s["sid"])
        comp = COMPONENTS[s["ci"]]
        prob = PROBLEMS[s["pi"]]
        # identifier: one of its unique function names, or its error code
        ident = rng.choice([s["funcs"][0], s["funcs"][1], s["code"]])
        out.append(Query("identifier", ident, sid, split))
        # phrase: 4-7 consecutive words of one of its own explanations that name its component
        # and say something about it, found in no other session of that component
        phrase = _phrase(phrases[sid], set(comp[0].split()), [_plain(texts[o["sid"]]) for o in sessions
                                                               if o["ci"] == s["ci"] and o is not s], rng)
        if phrase:
            out.append(Query("phrase", phrase, sid, split))
        # paraphrase: only first attempts (a second attempt is the same problem by design)
        if not s["second"]:
            said = content_words(texts[sid])
            options = [f"{c} {p}" for c in comp[3] for p in prob[2]]
            rng.shuffle(options)
            for o in options:
                if not (content_words(o) & said):
                    out.append(Query("paraphrase", rng.choice(["", "did we fix the ", "the "]) + o, sid, split))
                    break
        # decision: only where one session decided this topic for this component
        if s["decision"] is not None and len(decided[(s["ci"], s["decision"][0])]) == 1:
            topic = DECISIONS[s["decision"][0]][0]
            out.append(Query("decision", rng.choice(DECISION_QUESTIONS).format(topic=topic, comp=comp[0]), sid, split))
    return out
