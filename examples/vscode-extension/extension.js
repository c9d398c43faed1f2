// hookwise in a VS Code extension: the extension is its own small agent host. Every tool call
// it makes goes through hookwise's engine first (`executePreHook`: intent governance and
// enforcement; a block means the tool does not run), the record is appended after the tool ran
// (`executePostHook`), and the blame of each open file (`engine.blame`) is drawn in the gutter:
// who wrote each line, under which intent, with which model.
//
// The engine is the packed hookwise package (`hookwise/engine`); nothing here decides policy.
const vscode = require("vscode");
const fs = require("node:fs");
const path = require("node:path");

/** One engine per workspace folder (an engine's project is the `cwd` it was created with). */
let engine = null;
let root = null;
let output = null;
const decorations = {};
const SESSION = "vscode-example-agent";

async function activate(context) {
  output = vscode.window.createOutputChannel("hookwise example");
  context.subscriptions.push(output);
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  if (!folder) {
    output.appendLine("no workspace folder: nothing to govern");
    return;
  }
  root = folder.uri.fsPath;
  const { createEngine } = require("hookwise/engine");
  engine = await createEngine({ cwd: root, host: "vscode", log: (level, message) => output.appendLine(`[${level}] ${message}`) });
  output.appendLine(`hookwise engine started for ${root} (governance ${engine.governance ? "on" : "off"})`);

  // the gutter: a bar for lines an agent wrote, a notched bar for lines changed since
  decorations.agent = vscode.window.createTextEditorDecorationType({
    gutterIconPath: vscode.Uri.file(context.asAbsolutePath("media/agent.svg")),
    gutterIconSize: "contain",
    overviewRulerColor: "#2f81f7",
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  decorations.changed = vscode.window.createTextEditorDecorationType({
    gutterIconPath: vscode.Uri.file(context.asAbsolutePath("media/changed.svg")),
    gutterIconSize: "contain",
    overviewRulerColor: "#d29922",
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  context.subscriptions.push(decorations.agent, decorations.changed);

  context.subscriptions.push(
    vscode.commands.registerCommand("hookwiseExample.selectIntent", async (id) => {
      const intent = id || (await vscode.window.showInputBox({ prompt: "intent id (from .orchestration/active_intents.yaml)" }));
      if (!intent) return null;
      const r = await engine.selectIntent(SESSION, intent);
      output.appendLine(`select ${intent}: ${r.text}`);
      return r;
    }),
    vscode.commands.registerCommand("hookwiseExample.writeFile", (call) => runTool(call || {})),
    vscode.commands.registerCommand("hookwiseExample.refreshBlame", () => Promise.all(vscode.window.visibleTextEditors.map(drawBlame))),
    vscode.window.onDidChangeVisibleTextEditors((editors) => editors.forEach(drawBlame)),
    vscode.workspace.onDidSaveTextDocument((doc) => vscode.window.visibleTextEditors.filter((e) => e.document === doc).forEach(drawBlame)),
    { dispose: () => engine && engine.dispose() },
  );

  // the agent's script (the demo's and the test's): its calls, each gated, then the files shown
  const script = vscode.workspace.getConfiguration("hookwiseExample").get("script");
  if (script) {
    const calls = JSON.parse(fs.readFileSync(path.resolve(root, script), "utf8"));
    const results = [];
    for (const call of calls) {
      if (call.intent) await engine.selectIntent(SESSION, call.intent);
      results.push(await runTool(call));
    }
    output.appendLine(`script: ${JSON.stringify(results)}`);
    const last = calls.filter((c, k) => !results[k].blocked).pop();
    if (last) await vscode.window.showTextDocument(vscode.Uri.file(path.resolve(root, last.params.path)));
  }
  vscode.window.visibleTextEditors.forEach(drawBlame);
  return { engine, runTool, drawBlame };
}

/**
 * One tool call of the example agent: `write_to_file {path, content}` (Roo Code's name, which
 * the `vscode` host profile knows). hookwise decides first; a blocked call does not run and
 * its reason is what the agent's model would read.
 */
async function runTool({ tool = "write_to_file", params = {} }) {
  const pre = await engine.executePreHook({ toolName: tool, params, sessionId: SESSION });
  if (pre.blocked) {
    output.appendLine(`blocked ${tool} ${params.path}: ${pre.reason}`);
    return { blocked: true, reason: pre.reason };
  }
  let failed = false;
  try {
    const file = path.resolve(root, String(params.path));
    await vscode.workspace.fs.createDirectory(vscode.Uri.file(path.dirname(file)));
    await vscode.workspace.fs.writeFile(vscode.Uri.file(file), Buffer.from(String(params.content ?? "")));
  } catch (e) {
    failed = true;
    output.appendLine(`${tool} failed: ${e.message}`);
  }
  const post = await engine.executePostHook({ toolName: tool, params, sessionId: SESSION, callId: pre.callId, failed });
  output.appendLine(`ran ${tool} ${params.path}: recorded ${post.recorded}`);
  return { blocked: false, recorded: post.recorded };
}

/** The blame of the editor's file, in its gutter; the record on hover (as plain text: every field is the model's). */
async function drawBlame(editor) {
  if (!engine || !editor || editor.document.uri.scheme !== "file") return null;
  const r = await engine.blame(editor.document.uri.fsPath);
  const agent = [];
  const changed = [];
  if (r.ok) {
    for (const l of r.lines) {
      if (l.state === "unattributed") continue;
      const who = [l.intent ? l.intent.id : "(no intent)", l.host, l.model].filter(Boolean).join(" · ");
      const hover = new vscode.MarkdownString();
      hover.appendText(`${l.state === "agent" ? "written by an agent" : "written by an agent, changed since"}: ${who}\n${l.intent && l.intent.name ? l.intent.name + "\n" : ""}${l.time} · ${l.tool} · record ${l.recordId}`);
      const range = editor.document.lineAt(l.line - 1).range;
      const opt = { range, hoverMessage: hover, renderOptions: { before: { contentText: `${l.state === "agent" ? "" : "~"}${who} `, color: "#7d8590", margin: "0 1em 0 0" } } };
      (l.state === "agent" ? agent : changed).push(opt);
    }
  } else output.appendLine(`blame ${editor.document.uri.fsPath}: ${r.error}`);
  editor.setDecorations(decorations.agent, agent);
  editor.setDecorations(decorations.changed, changed);
  if (process.env.HOOKWISE_EXAMPLE_STATUS) {
    // what was drawn, for the example's test
    fs.writeFileSync(process.env.HOOKWISE_EXAMPLE_STATUS, JSON.stringify({ file: r.path, ok: r.ok, summary: r.summary, agent: agent.length, changed: changed.length }));
  }
  output.appendLine(`blame ${r.path}: ${JSON.stringify(r.summary)}`);
  return r;
}

function deactivate() {
  return engine && engine.dispose();
}

module.exports = { activate, deactivate };
