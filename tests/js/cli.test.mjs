// The `hookwise` command (pkg/dist/cli.mjs, the package's `bin`) run as a child process on the
// example vault, the way a user runs it: outputs, JSON shapes and exit codes. No maenifold CLI is
// visible to these runs (PATH holds only `node`, HOME and MAENIFOLD_ROOT are empty temp dirs),
// so every answer comes from the embedded vault.
//
// What the notes link is computed here from the notes themselves (a small independent reading
// of the WikiLinks: front matter, fenced/indented/inline code skipped, `[[a|alias]]` and
// `[[a#heading]]` link to `a`), so the assertions follow the vault if its notes change.
// Runs under node --test and bun test (every test sets its own timeout: Bun's default is 5 s).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { repo, dist, tmpdir, forceSop, nodeBinary } from "./helpers.mjs";

const T = { timeout: 60_000 };
const CLI = path.join(dist, "cli.mjs");
const VAULT_REL = "examples/vault";
const VAULT = path.join(repo, VAULT_REL);
const OPEN = "<!-- Knowledge Graph Context (hookwise) -->";
const CLOSE = "<!-- /Knowledge Graph Context (hookwise) -->";

const NODE = nodeBinary();
const BUN = path.join(repo, "node_modules/.bin/bun");

// A PATH with nothing but `node` on it: no maenifold, whatever the machine has installed.
const BIN = tmpdir("hookwise-cli-bin-");
fs.symlinkSync(NODE, path.join(BIN, "node"));
const HOME = tmpdir("hookwise-cli-home-");
const EMPTY_ROOT = tmpdir("hookwise-cli-root-");
const ENV = { PATH: BIN, HOME, MAENIFOLD_ROOT: EMPTY_ROOT, LANG: "C.UTF-8", TZ: "UTC" };

// At most a few commands at once: the machine has two cores.
let running = 0;
const waiting = [];
async function slot() {
  if (running < 3) return void running++;
  await new Promise((r) => waiting.push(r));
  running++;
}
function release() {
  running--;
  const next = waiting.shift();
  if (next) next();
}

/** Run the command; resolves with { code, stdout, stderr } (never rejects on exit codes). */
async function hookwise(args, { bin = NODE, cwd = repo, env = {}, direct = false } = {}) {
  await slot();
  try {
    return await new Promise((resolve, reject) => {
      const [file, argv] = direct ? [CLI, args] : [bin, [CLI, ...args]];
      execFile(file, argv, { cwd, env: { ...ENV, ...env }, encoding: "utf8", timeout: 45_000 }, (err, stdout, stderr) => {
        if (err && typeof err.code !== "number") return reject(new Error(`${file} ${argv.join(" ")}: ${err.message}\n${stderr}`));
        resolve({ code: err ? err.code : 0, stdout, stderr, args });
      });
    });
  } finally {
    release();
  }
}

/** Each run starts once (lazily, so a filtered test run starts only what it needs). */
const runs = new Map();
const once = (args, opts) => {
  const key = JSON.stringify([args, opts ?? {}]);
  if (!runs.has(key)) runs.set(key, hookwise(args, opts));
  return runs.get(key);
};
const show = (r) => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

// ---------------------------------------------------------------------------------------------
// What the example notes link, read independently of hookwise.

const normalize = (s) =>
  s
    .trim()
    .toLowerCase()
    .replace(/[\s_/]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-|-$/g, "");

function linksOf(text) {
  let t = text.replace(/^---\n[\s\S]*?\n---\n/, "");
  t = t.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  // Indented code: a run of lines indented by 4+ spaces after a blank line.
  const lines = t.split("\n");
  for (let i = 0, code = false; i < lines.length; i++) {
    if (/^ {4,}\S/.test(lines[i]) && (code || i === 0 || lines[i - 1].trim() === "")) {
      code = true;
      lines[i] = "";
    } else if (lines[i].trim() !== "") code = false;
  }
  t = lines.join("\n").replace(/`[^`\n]*`/g, "");
  const out = new Set();
  for (const m of t.matchAll(/\[\[([^[\]\n]+)\]\]/g)) {
    const name = normalize(m[1].split("|")[0].split("#")[0]);
    if (name) out.add(name);
  }
  return out;
}

function readVault(root) {
  const files = new Map(); // memory URI -> { links, text }
  const walk = (rel) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      if (e.name.startsWith(".")) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.name.endsWith(".md")) {
        const text = fs.readFileSync(path.join(root, r), "utf8");
        files.set(`memory://${r.slice(0, -3)}`, { links: linksOf(text), text });
      }
    }
  };
  walk("");
  const concepts = new Set();
  const pairs = new Set();
  for (const { links } of files.values()) {
    for (const a of links) {
      concepts.add(a);
      for (const b of links) if (a < b) pairs.add(`${a}\u0000${b}`);
    }
  }
  const filesLinking = (c) => [...files].filter(([, f]) => f.links.has(c)).map(([uri]) => uri);
  const shared = (a, b) => [...files.values()].filter((f) => f.links.has(a) && f.links.has(b)).length;
  return { files, concepts, edges: pairs.size, filesLinking, shared };
}
const NOTES = readVault(VAULT);

/** The sections of a context block: { concept: { related: [[name, files]], uris: [...], lines } }. */
function sections(block, prefix = "") {
  const out = {};
  let cur = null;
  for (let line of block.split("\n")) {
    if (prefix) {
      assert.ok(line.startsWith(prefix.trimEnd()), `every line of the block starts with '${prefix}': ${line}`);
      line = line.slice(prefix.length);
    }
    const h = /^## \[\[(.+)\]\]$/.exec(line);
    if (h) {
      cur = out[h[1]] = { related: [], uris: [], previews: [] };
      continue;
    }
    if (!cur) continue;
    const rel = /^Related: (.*)$/.exec(line);
    if (rel) cur.related = [...rel[1].matchAll(/\[\[([^\]]+)\]\] \((\d+) files?\)/g)].map((m) => [m[1], Number(m[2])]);
    const mem = /^- (memory:\/\/[^:]+): (.*)$/.exec(line);
    if (mem) {
      cur.uris.push(mem[1]);
      cur.previews.push(mem[2]);
    }
  }
  return out;
}

const collapse = (s) => s.replace(/\s+/g, " ").trim();

/** A section holds knowledge from the real notes: its related concepts co-occur with it in
 * exactly the number of notes shown, and each memory is a note that links it, previewing its text. */
function assertSectionFromNotes(concept, sec, where) {
  assert.ok(sec, `${where}: a section for [[${concept}]]`);
  assert.ok(sec.related.length > 0, `${where}: [[${concept}]] has related concepts`);
  for (const [other, n] of sec.related) {
    assert.equal(n, NOTES.shared(concept, other), `${where}: [[${concept}]] and [[${other}]] share ${NOTES.shared(concept, other)} notes`);
  }
  // Ranked by shared notes, most first.
  const counts = sec.related.map(([, n]) => n);
  assert.deepEqual(counts, [...counts].sort((a, b) => b - a), `${where}: related concepts ranked by weight`);
  // The strongest relation shown is the strongest there is.
  const best = Math.max(...[...NOTES.concepts].filter((c) => c !== concept).map((c) => NOTES.shared(concept, c)));
  assert.equal(counts[0], best, `${where}: the top relation of [[${concept}]]`);
  assert.ok(sec.uris.length > 0, `${where}: [[${concept}]] lists memories`);
  for (const [i, uri] of sec.uris.entries()) {
    const note = NOTES.files.get(uri);
    assert.ok(note, `${where}: ${uri} is a note of the vault`);
    // Each preview is text of that note (collapsed, clipped with "…").
    const head = collapse(sec.previews[i].replace(/…$/, "")).slice(0, 30);
    assert.ok(collapse(note.text).includes(head), `${where}: preview of ${uri} comes from the note: ${head}`);
    const related = sec.related.map(([c]) => c);
    assert.ok(
      note.links.has(concept) || related.some((c) => note.links.has(c)),
      `${where}: ${uri} links [[${concept}]] or one of its related concepts`,
    );
  }
}

const CONTEXT_TEXT = "Before the deploy, check how we rotate [[Session Tokens|tokens]] and what [[rate-limiting]] protects; see [[JWT#Claims]].";
const CONTEXT_CONCEPTS = ["session-tokens", "rate-limiting", "jwt"];

// ---------------------------------------------------------------------------------------------

test("the oracle reads the example vault (40 notes with links)", T, () => {
  assert.equal(NOTES.files.size, 40);
  for (const c of CONTEXT_CONCEPTS) assert.ok(NOTES.concepts.has(c), c);
  assert.ok(!NOTES.concepts.has("not-a-link") && !NOTES.concepts.has("also-not-a-link"), "code is not read as links");
});

test("context: the block a tool call with that text gets, one section per concept, from the real notes", T, async () => {
  const r = await once(["context", CONTEXT_TEXT, "--vault", VAULT_REL]);
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stderr, "", "no warnings");
  const block = r.stdout.replace(/\n$/, "");
  assert.ok(block.startsWith(OPEN + "\n"), show(r));
  assert.ok(block.endsWith("\n" + CLOSE), show(r));
  const secs = sections(block);
  assert.deepEqual(Object.keys(secs), CONTEXT_CONCEPTS, "one section per concept, alias and heading links resolved");
  for (const c of CONTEXT_CONCEPTS) assertSectionFromNotes(c, secs[c], `context [[${c}]]`);
});

test("context --json: concepts and the same context text", T, async () => {
  const [plain, json] = await Promise.all([
    once(["context", CONTEXT_TEXT, "--vault", VAULT_REL]),
    once(["context", CONTEXT_TEXT, `--vault=${VAULT_REL}`, "--json"]),
  ]);
  assert.equal(json.code, 0, show(json));
  const j = JSON.parse(json.stdout);
  assert.deepEqual(Object.keys(j).sort(), ["concepts", "context"]);
  assert.deepEqual(j.concepts, CONTEXT_CONCEPTS);
  assert.equal(j.context, plain.stdout.replace(/\n$/, ""), "--json carries exactly the printed block");

  const none = await once(["context", "no links here, only [single] brackets", "--vault", VAULT_REL, "--json"]);
  assert.equal(none.code, 0, show(none));
  assert.deepEqual(JSON.parse(none.stdout), { concepts: [], context: null });
  const unknown = await once(["context", "what about [[no-such-concept-anywhere]]?", "--vault", VAULT_REL]);
  assert.equal(unknown.code, 0, show(unknown));
  assert.match(unknown.stdout, /no knowledge for: no-such-concept-anywhere/);
});

test("session: the session-start context of the project, from the vault", T, async () => {
  const r = await once(["session", "--project", "larkspur", "--vault", VAULT_REL]);
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stderr, "");
  assert.match(r.stdout, /^## Knowledge Graph Context\n\nProject: \*\*larkspur\*\*\n/);
  // Related concepts are concepts the notes link.
  const related = r.stdout.split("### Related concepts\n")[1]?.split("\n\n")[0] ?? "";
  const names = [...related.matchAll(/^- \[\[([^\]]+)\]\]/gm)].map((m) => m[1]);
  assert.ok(names.length > 0, show(r));
  for (const n of names) assert.ok(NOTES.concepts.has(n), `[[${n}]] is linked in the notes`);
  assert.ok(names.includes("larkspur"), "the project's own concept is among them");
  // Every memory named is a note of the vault.
  const uris = [...r.stdout.matchAll(/memory:\/\/[\w./-]+/g)].map((m) => m[0]);
  assert.ok(uris.length > 0, show(r));
  for (const u of uris) assert.ok(NOTES.files.has(u), `${u} is a note of the vault`);

  const j = await once(["session", "--project", "larkspur", "--vault", VAULT_REL, "--json"]);
  assert.equal(j.code, 0, show(j));
  const parsed = JSON.parse(j.stdout);
  assert.equal(parsed.project, "larkspur");
  assert.equal(parsed.context, r.stdout.replace(/\n$/, ""));
  assert.deepEqual(parsed.concepts.map((c) => c.name), names);
  assert.deepEqual(parsed.failures, []);
});

test("check --tool bash: the arguments it would run with (comment lines), and where the context goes", T, async () => {
  const args = { command: "echo [[jwt]]", description: "say it" };
  const r = await once(["check", "--tool", "bash", "--args", JSON.stringify(args), "--vault", VAULT_REL]);
  assert.equal(r.code, 0, show(r));
  assert.match(r.stdout, /^tool: bash\n(enforcement: [^\n]*\n)?concepts: jwt\ncontext goes: into the arguments\nargs:\n/);
  const printed = JSON.parse(r.stdout.split("\nargs:\n")[1].split("\n\ncontext:\n")[0]);
  assert.equal(printed.description, "say it");
  const cmd = printed.command;
  assert.ok(cmd.endsWith("\necho [[jwt]]"), cmd);
  const comments = cmd.slice(0, -"\necho [[jwt]]".length);
  assert.ok(comments.startsWith(`# ${OPEN}\n`) && comments.endsWith(`# ${CLOSE}`), cmd);
  assertSectionFromNotes("jwt", sections(comments, "# ").jwt, "check bash");
  // The rewritten command does exactly what the original does.
  const sh = (c) => execFileSync("bash", ["-c", c], { encoding: "utf8", env: { PATH: "/usr/bin:/bin", HOME } });
  assert.equal(sh(cmd), sh(args.command));

  const j = await once(["check", "--tool", "bash", "--args", JSON.stringify(args), "--vault", VAULT_REL, "--json"]);
  assert.equal(j.code, 0, show(j));
  const parsed = JSON.parse(j.stdout);
  assert.equal(parsed.contextGoes, "arguments");
  assert.deepEqual(parsed.concepts, ["jwt"]);
  assert.equal(parsed.args.command, cmd);
  assert.equal(parsed.args.command, parsed.context + "\n" + args.command);
});

test("check --tool write: the content is left alone; the context comes with the result", T, async () => {
  const args = { filePath: "notes/x.md", content: "See [[Session Tokens]] and [[JWT]]." };
  const r = await once(["check", "--tool", "write", "--args", JSON.stringify(args), "--vault", VAULT_REL]);
  assert.equal(r.code, 0, show(r));
  assert.match(r.stdout, /^tool: write\n(enforcement: [^\n]*\n)?concepts: session-tokens, jwt\ncontext goes: with the tool's result \(arguments unchanged\)\n/);
  assert.deepEqual(JSON.parse(r.stdout.split("\nargs:\n")[1].split("\n\ncontext:\n")[0]), args);
  const block = r.stdout.split("\n\ncontext:\n")[1].replace(/\n$/, "");
  assert.ok(block.startsWith(OPEN + "\n") && block.endsWith("\n" + CLOSE), show(r));
  const secs = sections(block);
  assertSectionFromNotes("session-tokens", secs["session-tokens"], "check write");
  assertSectionFromNotes("jwt", secs.jwt, "check write");

  const j = await once(["check", "--tool", "write", "--args", JSON.stringify(args), "--vault", VAULT_REL, "--json"]);
  const parsed = JSON.parse(j.stdout);
  assert.equal(parsed.contextGoes, "result");
  assert.deepEqual(parsed.args, args);
  assert.equal(parsed.context, block);

  const nothing = await once(["check", "--tool", "bash", "--args", '{"command":"ls -la"}', "--vault", VAULT_REL, "--json"]);
  assert.equal(nothing.code, 0, show(nothing));
  const n = JSON.parse(nothing.stdout);
  assert.deepEqual(
    { tool: n.tool, concepts: n.concepts, context: n.context, contextGoes: n.contextGoes, args: n.args, blocked: n.blocked },
    { tool: "bash", concepts: [], context: null, contextGoes: "none", args: { command: "ls -la" }, blocked: false },
  );
  assert.equal(n.enforcement, null, "this repository has no enforcement: the check does not invent one");
});

const FORCE_SOP = forceSop("Announce it first (CHECK-SOP-MARKER).");

test("check is a dry run with the project's own configuration: off without enforcement; with it, the block, recording nothing", T, async () => {
  const push = ["check", "--tool", "bash", "--args", '{"command":"git push --force origin main"}'];
  // no enforcement in the project: said so, nothing created
  const bare = tmpdir("hookwise-check-bare-");
  const off = await hookwise(push, { cwd: bare });
  assert.equal(off.code, 0, show(off));
  assert.match(off.stdout, /^tool: bash\nenforcement: off\n/, show(off));
  assert.deepEqual(fs.readdirSync(bare), [], "nothing written into the project");

  // a project with a strict SOP: blocked with its text, and neither metrics nor cooldown recorded
  const dir = tmpdir("hookwise-check-sop-");
  fs.mkdirSync(path.join(dir, ".opencode/sops"), { recursive: true });
  fs.writeFileSync(path.join(dir, ".opencode/sops/force.md"), FORCE_SOP);
  for (let i = 0; i < 2; i++) {
    const r = await hookwise(push, { cwd: dir });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /^tool: bash\nenforcement: block \(SOPs: git-force-push\), risk high\n/, show(r));
    assert.match(r.stdout, /blocked with:\n[\s\S]*CHECK-SOP-MARKER/, show(r));
  }
  const j = JSON.parse((await hookwise([...push, "--json"], { cwd: dir })).stdout);
  assert.equal(j.blocked, true);
  assert.equal(j.enforcement.dryRun, true);
  assert.ok(!fs.existsSync(path.join(dir, ".opencode/hookwise")), "no metrics, no state: the checks recorded nothing");

  // --cwd points at the project from elsewhere
  const there = await hookwise([...push, "--cwd", dir]);
  assert.match(there.stdout, /enforcement: block/, show(there));
});

test("doctor --json: the vault is the source, with its stats, no CLI, and a timing of each hook", T, async () => {
  const r = await once(["doctor", "--vault", VAULT_REL, "--json"]);
  assert.equal(r.code, 0, show(r));
  const d = JSON.parse(r.stdout);
  assert.equal(d.source, "vault");
  assert.equal(d.discovery.path, null, "no maenifold CLI is visible");
  assert.equal(d.discovery.source, "none");
  assert.equal(d.vault.root, fs.realpathSync(VAULT));
  const ix = d.vault.index;
  assert.equal(ix.files, 40);
  assert.equal(ix.files, NOTES.files.size);
  assert.equal(ix.concepts, NOTES.concepts.size, "concepts: the distinct names the notes link");
  assert.equal(ix.edges, NOTES.edges, "edges: the pairs of concepts sharing a note");
  assert.equal(ix.truncated, false);
  assert.deepEqual(ix.skipped, { notUtf8: 0, outside: 0, tooLarge: 0, unreadable: 0, vanished: 0 });
  assert.deepEqual(d.warnings, []);
  const names = Object.keys(d.timingsMs);
  assert.ok(names.includes("init"), names.join(", "));
  assert.ok(names.some((n) => n.startsWith("tool.execute.before")), names.join(", "));
  assert.ok(names.includes("session start"), names.join(", "));
  for (const [k, v] of Object.entries(d.timingsMs)) assert.ok(typeof v === "number" && v >= 0 && v < 30_000, `${k}: ${v}`);

  const plain = await once(["doctor", "--vault", VAULT_REL]);
  assert.equal(plain.code, 0, show(plain));
  assert.match(plain.stdout, /^knowledge source: vault$/m);
  assert.match(plain.stdout, /^maenifold CLI: not found/m);
  assert.match(plain.stdout, /^timings \(ms\): init \d/m);
});

test("--help for every command exits 0 with its usage on stdout", T, async () => {
  const all = await Promise.all([
    once(["--help"]),
    once(["help"]),
    ...["context", "session", "check", "doctor", "init"].map((c) => once([c, "--help"])),
  ]);
  for (const r of all) {
    assert.equal(r.code, 0, show(r));
    assert.equal(r.stderr, "");
  }
  assert.match(all[0].stdout, /^hookwise — /);
  assert.match(all[0].stdout, /usage: hookwise <command> \[options\]/);
  assert.equal(all[1].stdout, all[0].stdout);
  for (const [i, c] of ["context", "session", "check", "doctor", "init"].entries()) {
    assert.match(all[i + 2].stdout, new RegExp(`^usage: hookwise ${c}\\b`));
  }
});

test("bad input: a clear message on stderr, nothing on stdout, a non-zero exit", T, async () => {
  const notAFolder = path.join(VAULT, "larkspur.md");
  const cases = [
    [["frob"], /unknown command 'frob'/],
    [["context", "[[jwt]]", "--frob"], /unknown option --frob/],
    [["check", "--tool", "bash", "--args", "{not json", "--vault", VAULT_REL], /--args is not JSON/],
    [["context", "[[jwt]]", "--vault", "/no/such/vault-folder"], /--vault \/no\/such\/vault-folder: no such folder/],
    [["context", "[[jwt]]", "--vault", notAFolder], /--vault .*larkspur\.md: not a folder/],
    [["context", "--vault", VAULT_REL], /context needs the text/],
    [["context", "[[jwt]]", "--vault"], /--vault needs a value/],
    [["check", "--args", "{}", "--vault", VAULT_REL], /check needs --tool/],
    [[], /usage: hookwise <command>/],
  ];
  const results = await Promise.all(cases.map(([args]) => once(args)));
  for (const [i, r] of results.entries()) {
    const [args, message] = cases[i];
    assert.notEqual(r.code, 0, `${args.join(" ")}: ${show(r)}`);
    assert.match(r.stderr, message, `${args.join(" ")}: ${show(r)}`);
    if (args.length) assert.equal(r.stdout, "", `${args.join(" ")}: nothing on stdout`);
  }
});

test("with no vault and no CLI: the command says knowledge is off, and still exits 0", T, async () => {
  const project = tmpdir("hookwise-cli-empty-project-");
  const r = await once(["context", "how does [[jwt]] work?"], { cwd: project });
  assert.equal(r.code, 0, show(r));
  assert.match(r.stderr, /knowledge context is off/);
  assert.doesNotMatch(r.stdout, /no \[\[concepts\]\] in the text/, "the text has a concept: the message must not say it has none");
  const d = await once(["doctor", "--json"], { cwd: project });
  assert.equal(d.code, 0, show(d));
  const j = JSON.parse(d.stdout);
  assert.equal(j.source, null);
  assert.equal(j.vault, null);
  assert.ok(j.warnings.some((w) => /knowledge context is off/.test(w)), j.warnings.join("\n"));
});

test("a project's .opencode/knowledge/ is found without --vault", T, async () => {
  const project = tmpdir("hookwise-cli-project-");
  fs.mkdirSync(path.join(project, ".opencode"));
  fs.cpSync(VAULT, path.join(project, ".opencode", "knowledge"), { recursive: true });
  const [r, d] = await Promise.all([
    once(["context", "[[JWT]]", "--json"], { cwd: project }),
    once(["doctor", "--json"], { cwd: project }),
  ]);
  assert.equal(r.code, 0, show(r));
  assert.deepEqual(JSON.parse(r.stdout).concepts, ["jwt"]);
  assertSectionFromNotes("jwt", sections(JSON.parse(r.stdout).context).jwt, ".opencode/knowledge");
  assert.equal(JSON.parse(d.stdout).vault.root, fs.realpathSync(path.join(project, ".opencode", "knowledge")));
});

test("the package's bin: executable, with a node shebang, and it runs as a command", T, async () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(dist, "..", "package.json"), "utf8"));
  assert.equal(path.resolve(dist, "..", pkg.bin.hookwise), CLI);
  assert.ok(fs.readFileSync(CLI, "utf8").startsWith("#!/usr/bin/env node\n"));
  assert.ok((fs.statSync(CLI).mode & 0o111) !== 0, "cli.mjs is executable");
  const r = await once(["context", "[[rate-limiting]]", "--vault", VAULT_REL, "--json"], { direct: true });
  assert.equal(r.code, 0, show(r));
  assert.deepEqual(JSON.parse(r.stdout).concepts, ["rate-limiting"]);
});

test("under Bun the command prints the same as under Node", T, async () => {
  const args = ["context", CONTEXT_TEXT, "--vault", VAULT_REL, "--json"];
  const [n, b] = await Promise.all([once(args), once(args, { bin: BUN })]);
  assert.equal(b.code, 0, show(b));
  assert.equal(b.stdout, n.stdout);
  const bd = await once(["doctor", "--vault", VAULT_REL, "--json"], { bin: BUN });
  assert.equal(bd.code, 0, show(bd));
  const { source, vault } = JSON.parse(bd.stdout);
  assert.equal(source, "vault");
  assert.equal(vault.index.files, 40);
  const bad = await once(["context", "[[x]]", "--nope"], { bin: BUN });
  assert.equal(bad.code, 2, show(bad));
});
