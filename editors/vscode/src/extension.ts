// Starts `hansard lsp` with vscode-languageclient. Hover, inlay hints, code lenses and the
// server's commands (hansard.why, hansard.showConversation) come from the server; this file
// adds the two editor commands and a `hansard:` document provider for conversations.
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";
import {
  SCHEME,
  Settings,
  conversationText,
  conversationUri,
  initializationOptions,
  lensTitle,
  lineArgument,
  markdownOptions,
  parseConversationUri,
  serverCommand,
} from "./glue";

let client: LanguageClient | undefined;

function settings(): Settings {
  const c = vscode.workspace.getConfiguration("hansard");
  return {
    path: c.get<string>("path"),
    marks: c.get<string>("marks"),
    codeLens: c.get<boolean>("codeLens"),
    pollSeconds: c.get<number>("pollSeconds"),
    sync: c.get<boolean>("sync"),
  };
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  const s = settings();
  const cmd = serverCommand(s);
  const serverOptions: ServerOptions = { command: cmd.command, args: cmd.args };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file" }],
    initializationOptions: initializationOptions(s),
    // The hover's "Open the conversation" link is a command: link; no other command runs.
    markdown: markdownOptions(),
    middleware: {
      // A lens title quotes a prompt: shown as text, never as icons.
      async provideCodeLenses(document, token, next) {
        const lenses = await next(document, token);
        for (const lens of lenses ?? []) {
          if (lens.command) lens.command.title = lensTitle(lens.command.title);
        }
        return lenses;
      },
    },
  };
  client = new LanguageClient("hansard", "hansard", serverOptions, clientOptions);
  await client.start();
}

async function execute(command: string, args: unknown[]): Promise<unknown> {
  if (!client) throw new Error("the hansard language server is not running");
  return client.sendRequest("workspace/executeCommand", { command, arguments: args });
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
      async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
        const { sessionId, around } = parseConversationUri(uri.path, uri.query);
        const text = conversationText(await execute("hansard.showConversation", [sessionId, around, { show: false }]));
        return text ?? "";
      },
    }),
    vscode.commands.registerCommand("hansard.explainLine", async () => {
      await vscode.commands.executeCommand("editor.action.showHover");
    }),
    vscode.commands.registerCommand("hansard.openConversation", async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return;
      const where = lineArgument(editor.document.uri.toString(), editor.selection.active.line);
      const answer = (await execute("hansard.why", [where])) as { line?: { session_id?: string; message_index?: number } } | null;
      const sid = answer?.line?.session_id;
      if (!sid) {
        void vscode.window.showInformationMessage("hansard: no agent session wrote this line");
        return;
      }
      const doc = await vscode.workspace.openTextDocument(
        vscode.Uri.parse(conversationUri(sid, answer?.line?.message_index ?? null)));
      await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
    }),
    vscode.commands.registerCommand("hansard.restart", async () => {
      await client?.stop();
      await start(context);
    }),
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
