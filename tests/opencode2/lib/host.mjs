// A host double of OpenCode 2.x: what these files of anomalyco/opencode do, for a Promise
// plugin installed from npm (no 2.x build installs here, so this is what hookwise's 2.x
// adapter is tested against). Each part names the file it follows:
//
// - config `plugins: [string | {package, options?}]`
//     packages/schema/src/config/plugin.ts @b9a1ca3f7d5fa3f53f68bffac41ae812a98431c8
// - the loader: resolve the package's `server` subpath, else its root; import it; decode
//   `default` as `{id: string, effect: function} | {id: string, setup: function}` (a Struct:
//   an object, other keys ignored), else LoadError "Plugin must export a default definition
//   with an id and an effect or setup function."; a setup plugin goes through the promise
//   adapter, given `options` from its config entry
//     packages/core/src/plugin/module.ts @07db2b925a415a95954142697bb11adc460c1906
// - the promise adapter: `setup(ctx)` with `ctx.options`, `ctx.signal`; hook callbacks awaited;
//   a throw from tool `execute.before` becomes `Tool.Error({message})` (attemptTool), a throw
//   from any other hook is a defect (orDie); a tool's `execute` throw is a `Tool.Error`;
//   `tool.transform(cb)` hands cb an editor whose `add(info)` registers the tool; the cleanup
//   `setup` returns runs when the plugin unloads, before its registrations are disposed
//     packages/plugin/src/promise/adapter.ts (the version with `attemptTool`;
//     07bc181c5a59665bff25bccbee89fe95e3dff70f has the same registration and cleanup shape)
// - events: tool `execute.before {tool, sessionID, agent, messageID, id, input}` (input
//   replaceable), `execute.after {…, input, status: "completed", result: {output?, content,
//   metadata?}} | {…, status: "error", error}`
//     packages/plugin/src/promise/tool.ts @196e46122874caa1df7d28dab7a64f6fddf0730a
//   session `context` / `compaction` `{sessionID, model, kind, agent, system: SystemPart[],
//   messages, options, tools}`
//     packages/plugin/src/promise/session.ts @03545fd3bb099af708c5f1146c42c10c7f24c359
// - dispatch: hooks run in registration order, a failure stops the rest; the call runs with
//   the before event's `input` (and `tool`); a Tool.Error from before rejects the call (no
//   after event) and is the call's error; the tool's Tool.Error → after `{status: "error"}`;
//   after hooks may change `result.content`, which is what the model reads
//     packages/core/src/tool.ts (the Tool service: `beforeExecute`, `executeTool`), and
//     packages/core/src/plugin/hooks.ts @0f2daebab09744095deb6a12c230aa7430e830ca
// - a tool's input: an Effect Schema is decoded, a raw JSON Schema passed through as given;
//   a result without `output` has its `content` normalised (a string → one text part); a
//   tool name must match /^[A-Za-z0-9_-]{1,64}$/, an invalid registration is skipped
//     packages/core/src/tool/runtime.ts @0ad62326c8bf3eb8228ec12794003659246cd0eb
// - the built-in tools the model calls here, with their 2.x ids and inputs:
//   shell {command, workdir?, timeout?, background?}  packages/core/src/tool/plugin/shell.ts @010751868580526c36fb241743e67b14b9848402
//   write {path, content}                             packages/core/src/tool/plugin/write.ts @1bc8473e2697510b7b41346986cc02d61a4ba3cd
//   edit {path, oldString, newString, replaceAll?}    packages/core/src/tool/plugin/edit.ts @179525d57648fc0fed5a0c810bea87c1ce907e92
//   read {path, offset?, limit?}                      packages/core/src/tool/plugin/read.ts

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const LOAD_ERROR = "Plugin must export a default definition with an id and an effect or setup function.";

export class LoadError extends Error {
  constructor(message, cause) {
    super(message);
    this.name = "PluginModule.LoadError";
    this.cause = cause;
  }
}

/** `Tool.Error`: a call's error; its message is what the model reads. */
export class ToolError extends Error {
  constructor(message) {
    super(message);
    this.name = "Tool.Error";
  }
}

/** A defect: a hook failed where the host has no failure channel (the turn dies). */
export class Defect extends Error {
  constructor(cause) {
    super(`defect: ${cause && cause.message}`);
    this.cause = cause;
  }
}

/** Config `plugins` entries (plugin.ts): a string, or `{package, options?}`. */
export function decodePlugins(config) {
  const list = config && config.plugins;
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new Error("config: plugins must be an array");
  return list.map((p) => {
    if (typeof p === "string") return { type: "add", target: p };
    if (p && typeof p === "object" && typeof p.package === "string") {
      if (p.options !== undefined && (p.options === null || typeof p.options !== "object" || Array.isArray(p.options))) throw new Error("config: plugin options must be a record");
      return { type: "add", target: p.package, options: p.options };
    }
    throw new Error(`config: not a plugin entry: ${JSON.stringify(p)}`);
  });
}

function pickExport(e) {
  if (typeof e === "string") return e;
  if (e && typeof e === "object" && !Array.isArray(e)) {
    for (const c of ["import", "default"]) {
      const v = pickExport(e[c]);
      if (v) return v;
    }
  }
  return undefined;
}

/** npm.resolve(target, {subpaths: ["server", ""]}) for a package installed in `projectDir`. */
export function resolveEntry(projectDir, name, subpaths = ["server", ""]) {
  const root = path.join(projectDir, "node_modules", name);
  const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
  for (const sub of subpaths) {
    const target = manifest.exports ? pickExport(manifest.exports[sub ? `./${sub}` : "."]) : sub === "" ? manifest.main || "index.js" : undefined;
    if (target) return pathToFileURL(path.join(root, target)).href;
  }
  return undefined;
}

/** module.ts's `Definition` decode of the imported module. */
export function decodeDefinition(mod) {
  const d = mod ? mod.default : undefined;
  const struct = d !== null && typeof d === "object" && typeof d.id === "string";
  if (struct && typeof d.effect === "function") return { kind: "effect", plugin: d };
  if (struct && typeof d.setup === "function") return { kind: "setup", plugin: d };
  throw new LoadError(LOAD_ERROR, new Error(d === undefined ? 'Missing key at ["default"]' : 'Expected a definition at ["default"]'));
}

/**
 * The plugin context of released OpenCode 2.0.x builds as their users report it: options and
 * agent, aisdk, catalog, command, integration, reference, skill — no tool, session or app
 * domain. Each domain is shaped as Kilo CLI 7.7.7's setup context has it (observed: a
 * `{transform, reload}` editor; aisdk `{sdk, language}`; integration with `connection`), whose
 * keys are the same plus `plugin`.
 */
export function setupOnlyContext(full) {
  const editor = () => ({ transform: async () => ({ dispose: async () => {} }), reload: async () => {} });
  return {
    options: full.options,
    agent: editor(),
    aisdk: { sdk: async () => {}, language: async () => {} },
    catalog: editor(),
    command: editor(),
    integration: { ...editor(), connection: async () => {} },
    reference: editor(),
    skill: editor(),
  };
}

// ---- the tool runtime (runtime.ts) ----------------------------------------------------------

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

function isEffectSchema(s) {
  return s !== null && typeof s === "object" && s.__effectSchema === true;
}

/** The JSON Schema a tool offers the model, or a registration error. */
function definitionOf(tool) {
  const input = tool.input;
  if (input !== null && typeof input === "object" && "~standard" in input) {
    const js = input["~standard"].jsonSchema;
    if (!js || typeof js.input !== "function") throw new Error("a Standard Schema without jsonSchema (a foreign schema library instance) cannot be offered");
    return js.input({ target: "draft-2020-12" });
  }
  if (isEffectSchema(input)) return input.jsonSchema;
  if (input === null || typeof input !== "object" || Array.isArray(input) || input.type !== "object") throw new Error("input must be an object JSON Schema");
  return input;
}

/** A model request event of a session: its kind, agent, system text and the tools offered. */
function modelEvent(sessionID, { messages = [], model = { providerID: "mock", id: "mock-1" } } = {}, kind, agent, system, tools) {
  return { sessionID, model, kind, agent, system: [{ type: "text", text: system }], messages, options: {}, tools };
}

function normalizeContent(value, output) {
  if (typeof value === "string") return [{ type: "text", text: value }];
  if (Array.isArray(value) && value.length > 0) return [...value];
  return [{ type: "text", text: typeof output === "string" ? output : JSON.stringify(output) ?? String(output) }];
}

async function runTool(tool, input, context) {
  let decoded = input;
  if (isEffectSchema(tool.input)) {
    const problem = tool.input.check(input);
    if (problem) throw new ToolError(`Invalid tool input: ${problem}`);
  }
  let result;
  try {
    result = await tool.execute(decoded, context);
  } catch (e) {
    throw e instanceof ToolError ? e : new ToolError(e instanceof Error ? e.message : String(e));
  }
  if (tool.output === undefined) {
    if (result && "output" in result) throw new Defect(new Error("Tool result declared output without an output schema"));
    return { content: normalizeContent(result && result.content), ...(result && result.metadata !== undefined ? { metadata: result.metadata } : {}) };
  }
  return { output: result.output, content: normalizeContent(result.content, result.output) };
}

/** A stand-in for an Effect Schema Struct of required/optional typed keys (what the built-ins use). */
function struct(fields, optional = {}) {
  const props = {};
  for (const [k, t] of Object.entries({ ...fields, ...optional })) props[k] = { type: t };
  return {
    __effectSchema: true,
    jsonSchema: { type: "object", properties: props, required: Object.keys(fields), additionalProperties: false },
    check(v) {
      if (v === null || typeof v !== "object" || Array.isArray(v)) return "Expected an object";
      for (const [k, t] of Object.entries(fields)) if (typeof v[k] !== t) return `Expected ${t} at ["${k}"]`;
      for (const [k, t] of Object.entries(optional)) if (v[k] !== undefined && typeof v[k] !== t) return `Expected ${t} at ["${k}"]`;
      return null;
    },
  };
}

// ---- the built-in tools ----------------------------------------------------------------------

function builtins(directory) {
  const inside = (p) => path.resolve(directory, p);
  return [
    {
      name: "shell",
      description: "Execute a shell command and return its output.",
      input: struct({ command: "string" }, { workdir: "string", timeout: "number", background: "boolean" }),
      options: { codemode: false },
      execute: async (input) => {
        const r = spawnSync("/bin/sh", ["-c", input.command], { cwd: input.workdir ? inside(input.workdir) : directory, encoding: "utf8", timeout: input.timeout || 120_000 });
        const output = `${r.stdout || ""}${r.stderr || ""}`;
        return { content: [output, ...(r.status ? [`Command exited with code ${r.status}`] : [])].filter(Boolean).map((text) => ({ type: "text", text })) };
      },
    },
    {
      name: "write",
      description: "Writes a file to the local filesystem, overwriting if one exists.",
      input: struct({ path: "string", content: "string" }),
      options: { codemode: false, permission: "edit" },
      execute: async (input) => {
        const file = inside(input.path);
        const existed = fs.existsSync(file);
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, input.content);
        return { content: `${existed ? "Wrote" : "Created"} file successfully: ${input.path}` };
      },
    },
    {
      name: "edit",
      description: "Edit a file by replacing exact text.",
      input: struct({ path: "string", oldString: "string", newString: "string" }, { replaceAll: "boolean" }),
      options: { codemode: false, permission: "edit" },
      execute: async (input) => {
        const file = inside(input.path);
        if (!fs.existsSync(file)) throw new ToolError(`File not found: ${input.path}`);
        const text = fs.readFileSync(file, "utf8");
        const n = text.split(input.oldString).length - 1;
        if (n === 0) throw new ToolError(`Could not find oldString in ${input.path}.`);
        if (n > 1 && input.replaceAll !== true) throw new ToolError(`Found ${n} matches for oldString, but expected exactly one.`);
        fs.writeFileSync(file, input.replaceAll ? text.split(input.oldString).join(input.newString) : text.replace(input.oldString, () => input.newString));
        return { content: `Edited ${input.path} (${input.replaceAll ? n : 1} replacement${n === 1 ? "" : "s"})` };
      },
    },
    {
      name: "read",
      description: "Read a file or directory.",
      input: struct({ path: "string" }, { offset: "number", limit: "number" }),
      options: { codemode: false },
      execute: async (input) => ({ content: fs.readFileSync(inside(input.path), "utf8") }),
    },
  ];
}

// ---- the host --------------------------------------------------------------------------------

/**
 * Start OpenCode 2 (the double) in `directory` with `config`, loading its `plugins` from
 * `projectDir/node_modules`. Resolves to the running host; `loadErrors` lists plugins that
 * failed to load (as OpenCode logs and skips them).
 */
export async function startHost({ projectDir, directory, config, contextShape }) {
  const hooks = new Map(); // "domain.name" → [{callback, owner}]
  const transforms = []; // {callback, owner}
  const skipped = []; // invalid tool registrations
  const sessions = new Map();
  const plugins = []; // {id, cleanup, owner}
  const loadErrors = [];
  let tools = new Map();

  const rebuildTools = () => {
    const draft = new Map();
    const editor = {
      list: () => [...draft.values()],
      get: (id) => draft.get(id),
      add: (tool) => {
        try {
          if (!tool || typeof tool.name !== "string") throw new Error("a tool needs a name");
          const id = tool.name.replace(/[^a-zA-Z0-9_-]/g, "_");
          if (!NAME.test(id)) throw new Error(`Invalid tool name: ${id}`);
          const schema = definitionOf(tool);
          draft.set(id, { ...tool, id, schema });
        } catch (e) {
          skipped.push({ name: tool && tool.name, error: e.message });
        }
      },
      update: (id, f) => {
        const t = draft.get(id);
        if (t) f(t);
      },
      remove: (id) => draft.delete(id),
    };
    for (const t of builtins(directory)) editor.add(t);
    for (const t of transforms) t.callback(t.wrap(editor));
    tools = draft;
  };

  const trigger = async (domain, name, event) => {
    for (const entry of [...(hooks.get(`${domain}.${name}`) || [])]) {
      try {
        await entry.callback(event);
      } catch (e) {
        // adapter.ts: execute.before → attemptTool (Tool.Error); every other hook → orDie
        if (domain === "tool" && name === "execute.before") throw e instanceof ToolError ? e : new ToolError(e instanceof Error ? e.message : String(e));
        throw new Defect(e);
      }
    }
    return event;
  };

  const contextFor = (owner, options) => {
    const register = (key, callback) => {
      const entry = { callback, owner };
      hooks.set(key, [...(hooks.get(key) || []), entry]);
      let active = true;
      return Promise.resolve({
        dispose: async () => {
          if (!active) return;
          active = false;
          hooks.set(key, (hooks.get(key) || []).filter((x) => x !== entry));
        },
      });
    };
    const controller = new AbortController();
    owner.controller = controller;
    return {
      app: {},
      location: { directory },
      options,
      signal: controller.signal,
      tool: {
        hook: (name, callback) => register(`tool.${name}`, callback),
        transform: (callback) => {
          // the promise adapter's editor: `add(info)` wraps `execute` so a throw is a Tool.Error
          const entry = {
            owner,
            callback,
            wrap: (editor) => ({
              ...editor,
              add: (info) =>
                editor.add({
                  ...info,
                  execute: async (input, context) => {
                    try {
                      return await info.execute(input, { ...context, signal: controller.signal, progress: async () => {} });
                    } catch (e) {
                      throw new ToolError(e instanceof Error ? e.message : String(e));
                    }
                  },
                }),
            }),
          };
          transforms.push(entry);
          rebuildTools();
          let active = true;
          return Promise.resolve({
            dispose: async () => {
              if (!active) return;
              active = false;
              transforms.splice(transforms.indexOf(entry), 1);
              rebuildTools();
            },
          });
        },
        list: async () => [...tools.values()],
        reload: async () => rebuildTools(),
      },
      session: {
        hook: (name, callback) => register(`session.${name}`, callback),
        get: async ({ sessionID }) => {
          const s = sessions.get(sessionID);
          if (!s) throw new Error(`Session not found: ${sessionID}`);
          return { ...s };
        },
      },
      event: { subscribe: () => ({ [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => {}), return: async () => ({ done: true }) }) }) },
    };
  };

  rebuildTools();
  for (const op of decodePlugins(config)) {
    try {
      const entry = resolveEntry(projectDir, op.target);
      if (!entry) throw new LoadError(`Plugin entrypoint not found: ${op.target}`);
      const decoded = decodeDefinition(await import(entry));
      if (decoded.kind !== "setup") throw new Error("this double runs Promise (setup) plugins only");
      const owner = { id: decoded.plugin.id };
      const ctx = contextFor(owner, op.options);
      const cleanup = await decoded.plugin.setup(contextShape === "2.0.x" ? setupOnlyContext(ctx) : ctx);
      plugins.push({ id: decoded.plugin.id, owner, cleanup: typeof cleanup === "function" ? cleanup : null });
    } catch (e) {
      loadErrors.push({ target: op.target, error: e });
    }
  }

  let calls = 0;
  const host = {
    plugins: () => plugins.map((p) => p.id),
    loadErrors,
    skipped,
    tools: () => [...tools.keys()].sort(),
    toolSchema: (name) => tools.get(name) && tools.get(name).schema,
    /** A session (`parentID` for a sub-agent's). */
    createSession(id, parentID) {
      sessions.set(id, { id, ...(parentID ? { parentID } : {}) });
      return id;
    },
    /**
     * The model calls `name` with `input`: tool.ts's `execute`. Resolves to
     * `{status: "completed", content, text}` or `{status: "error", error, text}`; `text` is
     * what the model reads.
     */
    async call(sessionID, name, input) {
      const id = `call_${++calls}`;
      const context = { sessionID, agent: "build", messageID: `msg_${calls}`, id };
      let event;
      try {
        event = await trigger("tool", "execute.before", { tool: name, sessionID, agent: "build", messageID: context.messageID, id, input });
      } catch (e) {
        if (e instanceof ToolError) return { status: "error", error: e, text: e.message, ran: false };
        throw e;
      }
      const tool = tools.get(event.tool);
      if (!tool) return { status: "error", error: new ToolError(`Unknown tool: ${event.tool}`), text: `Unknown tool: ${event.tool}`, ran: false };
      const base = { tool: event.tool, sessionID, agent: "build", messageID: context.messageID, id, input: event.input };
      let value;
      try {
        value = await runTool(tool, event.input, context);
      } catch (e) {
        if (!(e instanceof ToolError)) throw e;
        const after = { ...base, status: "error", error: e };
        await trigger("tool", "execute.after", after);
        return { status: "error", error: after.error, text: after.error.message, ran: true };
      }
      const after = { ...base, status: "completed", result: { ...(value.output === undefined ? {} : { output: value.output }), content: value.content, ...(value.metadata === undefined ? {} : { metadata: value.metadata }) } };
      await trigger("tool", "execute.after", after);
      const content = normalizeContent(after.result.content, after.result.output);
      return { status: "completed", content, text: content.filter((p) => p.type === "text").map((p) => p.text).join("\n\n"), ran: true };
    },
    /** A model request of the session (`kind` "primary"): the `context` event after the hooks. */
    async request(sessionID, opts) {
      const offered = Object.fromEntries([...tools.values()].map((t) => [t.id, { description: t.description, input: t.schema }]));
      return trigger("session", "context", modelEvent(sessionID, opts, "primary", "build", "You are OpenCode, the best coding agent on the planet.", offered));
    },
    /** The compaction request of the session: the `compaction` event after the hooks. */
    async compact(sessionID, opts) {
      return trigger("session", "compaction", modelEvent(sessionID, opts, "compaction", "compaction", "Summarize the conversation so far.", {}));
    },
    /** Unload every plugin: its cleanup, then its registrations (the plugin scope closing). */
    async stop() {
      for (const p of plugins.reverse()) {
        if (p.cleanup) await p.cleanup();
        p.owner.controller.abort();
        for (const [key, list] of hooks) hooks.set(key, list.filter((e) => e.owner !== p.owner));
        for (let i = transforms.length - 1; i >= 0; i--) if (transforms[i].owner === p.owner) transforms.splice(i, 1);
      }
      plugins.length = 0;
      rebuildTools();
    },
  };
  return host;
}
