// The extension's glue, free of the `vscode` module so node's test runner can check it:
// settings -> how to start the server and what to tell it, and the `hansard:` virtual
// documents that show conversations.

export interface Settings {
  path?: string;
  marks?: string;
  codeLens?: boolean;
  pollSeconds?: number;
  sync?: boolean;
}

export interface ServerCommand {
  command: string;
  args: string[];
}

const MARKS = new Set(["both", "inlay", "codelens", "none"]);

/** The only commands a hover may run from a link: hansard's own. The hover's text comes from
 * transcripts, git and teammates; the server escapes it, and should anything slip through, a
 * `command:` link to any other command (a terminal's sendSequence, say) stays dead. */
export const TRUSTED_COMMANDS: readonly string[] = Object.freeze(["hansard.showConversation"]);

/** A code lens title as text: VS Code draws `$(name)` in a lens as an icon, so a prompt that
 * says `$(alert)` would come out as markup; `\$(` is shown as the characters themselves. */
export function lensTitle(title: string): string {
  return title.replace(/\$\(/g, "\\$(");
}

/** The language client's `markdown` option: trust only TRUSTED_COMMANDS, never HTML. */
export function markdownOptions(): { isTrusted: { enabledCommands: readonly string[] }; supportHtml: false } {
  return { isTrusted: { enabledCommands: TRUSTED_COMMANDS }, supportHtml: false };
}

/** `hansard lsp`, or `<python> -m hansard lsp` when the path names a Python interpreter. */
export function serverCommand(s: Settings): ServerCommand {
  const command = (s.path ?? "").trim() || "hansard";
  const base = command.split(/[\\/]/).pop() ?? command;
  if (/^python(\d+(\.\d+)?)?(\.exe)?$/.test(base)) {
    return { command, args: ["-m", "hansard", "lsp"] };
  }
  return { command, args: ["lsp"] };
}

/** The server's initializationOptions (hansard/lsp/server.py documents each). `commandLinks`:
 * VS Code runs the hover's "Open the conversation" link (markdownOptions trusts that command),
 * so the server may put it in; `codeLens: false` turns the lenses off, whatever `marks` says. */
export function initializationOptions(s: Settings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  out.marks = s.marks && MARKS.has(s.marks) ? s.marks : "both";
  out.codeLens = s.codeLens !== false;
  out.commandLinks = true;
  if (typeof s.pollSeconds === "number" && s.pollSeconds > 0) out.pollSeconds = s.pollSeconds;
  if (typeof s.sync === "boolean") out.sync = s.sync;
  return out;
}

/** The argument the server's `hansard.why` and `hansard.showConversation` take for a line. */
export function lineArgument(uri: string, line: number): { uri: string; line: number } {
  if (!Number.isInteger(line) || line < 0) throw new RangeError(`bad line ${line}`);
  return { uri, line };
}

export const SCHEME = "hansard";

/** A virtual document for one conversation window: hansard:/conversation/<session>.md?around=N */
export function conversationUri(sessionId: string, around: number | null): string {
  const q = around === null || around === undefined ? "" : `?around=${around}`;
  return `${SCHEME}:/conversation/${encodeURIComponent(sessionId)}.md${q}`;
}

export function parseConversationUri(path: string, query: string): { sessionId: string; around: number | null } {
  const m = /^\/conversation\/(.+)\.md$/.exec(path);
  if (!m) throw new Error(`not a hansard conversation: ${path}`);
  const a = /(?:^|&)around=(\d+)/.exec(query);
  return { sessionId: decodeURIComponent(m[1]), around: a ? Number(a[1]) : null };
}

/** The server returns `{text, uri}` or null (a line no session wrote). */
export function conversationText(result: unknown): string | null {
  if (result && typeof result === "object" && typeof (result as { text?: unknown }).text === "string") {
    return (result as { text: string }).text;
  }
  return null;
}
