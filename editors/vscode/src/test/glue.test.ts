import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  conversationText,
  conversationUri,
  initializationOptions,
  lensTitle,
  lineArgument,
  markdownOptions,
  parseConversationUri,
  serverCommand,
} from "../glue";

test("the server is `hansard lsp` unless a Python interpreter is named", () => {
  assert.deepEqual(serverCommand({}), { command: "hansard", args: ["lsp"] });
  assert.deepEqual(serverCommand({ path: "  " }), { command: "hansard", args: ["lsp"] });
  assert.deepEqual(serverCommand({ path: "/opt/h/bin/hansard" }), { command: "/opt/h/bin/hansard", args: ["lsp"] });
  assert.deepEqual(serverCommand({ path: "/venv/bin/python3.11" }), {
    command: "/venv/bin/python3.11",
    args: ["-m", "hansard", "lsp"],
  });
  assert.deepEqual(serverCommand({ path: "C:\\venv\\Scripts\\python.exe" }).args, ["-m", "hansard", "lsp"]);
});

test("settings become initializationOptions; unknown marks fall back to both", () => {
  assert.deepEqual(initializationOptions({}), { marks: "both", codeLens: true, commandLinks: true });
  assert.deepEqual(initializationOptions({ marks: "codelens", pollSeconds: 5, sync: false }), {
    marks: "codelens",
    codeLens: true,
    commandLinks: true,
    pollSeconds: 5,
    sync: false,
  });
  assert.deepEqual(initializationOptions({ marks: "sideways", pollSeconds: 0 }),
    { marks: "both", codeLens: true, commandLinks: true });
});

test("hansard.codeLens turns the lenses off, and the manifest offers it", () => {
  assert.equal(initializationOptions({ codeLens: false }).codeLens, false);
  assert.equal(initializationOptions({ codeLens: true }).codeLens, true);
  const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8"));
  const setting = manifest.contributes.configuration.properties["hansard.codeLens"];
  assert.equal(setting.type, "boolean");
  assert.equal(setting.default, true);
});

test("a line argument is 0-based and whole", () => {
  assert.deepEqual(lineArgument("file:///r/a.py", 0), { uri: "file:///r/a.py", line: 0 });
  assert.throws(() => lineArgument("file:///r/a.py", -1), RangeError);
  assert.throws(() => lineArgument("file:///r/a.py", 1.5), RangeError);
});

test("conversation URIs round-trip", () => {
  const sid = "4f0f2c6e-9d1b-4c7a-a35e-0c8f5b2d7e11";
  const uri = conversationUri(sid, 3);
  assert.equal(uri, `hansard:/conversation/${sid}.md?around=3`);
  const [, rest] = uri.split(":", 2);
  const [path, query] = rest.split("?");
  assert.deepEqual(parseConversationUri(path, query), { sessionId: sid, around: 3 });
  assert.deepEqual(parseConversationUri("/conversation/a%2Fb.md", ""), { sessionId: "a/b", around: null });
  assert.equal(conversationUri("x", null), "hansard:/conversation/x.md");
  assert.throws(() => parseConversationUri("/elsewhere/x.md", ""));
});

test("the command's result is its text, or nothing for a human line", () => {
  assert.equal(conversationText({ text: "user: hi", uri: null }), "user: hi");
  assert.equal(conversationText(null), null);
  assert.equal(conversationText({ uri: "file:///x" }), null);
});

test("hovers trust hansard's own command only, and no HTML", () => {
  const m = markdownOptions();
  assert.equal(m.supportHtml, false);
  assert.notEqual(m.isTrusted as unknown, true);
  assert.deepEqual([...m.isTrusted.enabledCommands], ["hansard.showConversation"]);
  assert.ok(!m.isTrusted.enabledCommands.includes("workbench.action.terminal.sendSequence"));
  assert.throws(() => (m.isTrusted.enabledCommands as string[]).push("workbench.action.terminal.sendSequence"));
});

test("the extension hands the language client those options, not isTrusted: true", () => {
  const src = readFileSync(join(__dirname, "..", "..", "src", "extension.ts"), "utf8");
  assert.match(src, /markdown: markdownOptions\(\)/);
  assert.doesNotMatch(src, /isTrusted\s*:\s*true/);
});

test("a lens title shows $(...) as text, not as an icon", () => {
  assert.equal(lensTitle('Claude Code · 4f0f2c6e · "run $(alert) and $(sync~spin)"'),
    'Claude Code · 4f0f2c6e · "run \\$(alert) and \\$(sync~spin)"');
  assert.equal(lensTitle("no icons here"), "no icons here");
  assert.equal(lensTitle("$"), "$");
});
