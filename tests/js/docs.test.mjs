// The documentation against the code it describes, so the pages cannot drift silently: every
// option of the schema (the source of truth) in docs/options.md's table and the nested ones in their
// pages; every file in js/ and every wasm export of src/wasm_api.rs named in
// docs/architecture.md; every relative link and anchor resolving; nothing cited from outside the
// repository. Reads files only: no build needed.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const read = (p) => fs.readFileSync(path.join(repo, p), "utf8");
const pages = () => [
  "README.md",
  "HACKING.md",
  ...fs
    .readdirSync(path.join(repo, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
  ...fs
    .readdirSync(path.join(repo, "docs/hosts"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/hosts/${f}`),
];
const named = (text, name) => text.includes("`" + name + "`");

// Pages the README links to that are not written yet (none now); drop a name once its page
// is merged.
const PENDING = new Set();

test("the options page (docs/options.md, linked from the README) names every option of the schema", () => {
  const schema = JSON.parse(read("schema/hookwise.schema.json"));
  const page = read("docs/options.md");
  const missing = Object.keys(schema.properties).filter((k) => !named(page, k));
  assert.deepEqual(missing, [], "options in schema/hookwise.schema.json missing from docs/options.md");
});

test("the enforcement and governance pages name every key of their option objects", () => {
  const schema = JSON.parse(read("schema/hookwise.schema.json"));
  const enforcement = Object.keys(schema.$defs.enforcement.properties);
  const text = read("docs/enforcement.md");
  assert.deepEqual(enforcement.filter((k) => !named(text, k)), [], "docs/enforcement.md");
  const object = schema.properties.governance.oneOf.find((o) => o.type === "object");
  const gov = read("docs/governance.md");
  assert.deepEqual(Object.keys(object.properties).filter((k) => !named(gov, k)), [], "docs/governance.md");
});

test("docs/architecture.md names every file in js/", () => {
  const arch = read("docs/architecture.md");
  const missing = fs.readdirSync(path.join(repo, "js")).filter((f) => !named(arch, f));
  assert.deepEqual(missing, [], "files in js/ missing from docs/architecture.md");
});

/** The names JS sees for src/wasm_api.rs's exports. */
function wasmExports(src) {
  const out = [];
  let attrs = [];
  let inImpl = false;
  for (const line of src.split("\n")) {
    const t = line.trim();
    if (t.startsWith("#[")) {
      attrs.push(t);
      continue;
    }
    if (/^impl\b/.test(line)) inImpl = attrs.some((a) => a.startsWith("#[wasm_bindgen"));
    else if (line.startsWith("}")) inImpl = false;
    const fn = /^pub fn (\w+)/.exec(t);
    if (fn) {
      const bindgen = attrs.filter((a) => a.startsWith("#[wasm_bindgen"));
      const jsName = bindgen.map((a) => /js_name\s*=\s*"?(\w+)"?/.exec(a)).find(Boolean);
      if (bindgen.some((a) => a.includes("constructor"))) out.push("Engine");
      else if (jsName) out.push(jsName[1]);
      else if (bindgen.length || inImpl) out.push(fn[1]);
    }
    if (t && !t.startsWith("///") && !t.startsWith("//")) attrs = [];
  }
  return out;
}

test("docs/architecture.md names every wasm export", () => {
  const exports = wasmExports(read("src/wasm_api.rs"));
  assert.ok(exports.includes("start") && exports.includes("lastPanic"), `parsed: ${exports}`);
  const arch = read("docs/architecture.md");
  const missing = exports.filter((e) => !new RegExp("`[^`\\n]*\\b" + e.replace(/\$/g, "\\$") + "\\b[^`\\n]*`").test(arch));
  assert.deepEqual(missing, [], "wasm exports missing from docs/architecture.md");
});

/** GitHub's heading anchors: lowercase, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(md) {
  const seen = new Map();
  const out = new Set();
  let fenced = false;
  for (const line of md.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const h = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!h) continue;
    const base = h[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) || 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

test("every relative link and anchor in the README, HACKING.md and docs/ resolves", () => {
  const broken = [];
  for (const page of pages()) {
    const text = read(page).replace(/```[\s\S]*?```/g, "");
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const href = m[1];
      if (/^[a-z]+:/.test(href)) continue;
      const [file, anchor] = href.split("#");
      const target = file ? path.normalize(path.join(path.dirname(page), file)) : page;
      if (PENDING.has(target)) continue;
      if (!fs.existsSync(path.join(repo, target))) {
        broken.push(`${page}: ${href} (no such file)`);
        continue;
      }
      if (anchor && target.endsWith(".md") && !anchors(read(target)).has(anchor)) broken.push(`${page}: ${href} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
});

test("the docs cite nothing outside the repository", () => {
  const outside = pages().filter((p) => /shared\/facts|shared\/schemas|\/work\//.test(read(p)));
  assert.deepEqual(outside, []);
});
