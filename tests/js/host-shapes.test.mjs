// The JS host (js/host.cjs, as packed) answers the requests of tests/shapes/host_replies.json
// with the reply shapes and error codes written there — the same file the Rust test host is
// checked against (src/testing/shapes_tests.rs): one set of shapes, both hosts.
// Runs under node --test and bun test.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { dist, repo, tmpdir } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const { createHost } = require(path.join(dist, "host.cjs"));
const fixture = JSON.parse(fs.readFileSync(path.join(repo, "tests/shapes/host_replies.json"), "utf8"));

const TYPES = new Set(["string", "number", "boolean", "array", "object"]);

/** Why `v` does not have the shape `s` (see the fixture's `about`), or null. */
function mismatch(v, s, at) {
  if (typeof s === "string" && TYPES.has(s)) {
    const ok = s === "array" ? Array.isArray(v) : s === "object" ? v !== null && typeof v === "object" && !Array.isArray(v) : typeof v === s;
    return ok ? null : `${at}: ${JSON.stringify(v)} is not ${s}`;
  }
  if (Array.isArray(s)) {
    if (!Array.isArray(v) || v.length !== s.length) return `${at}: ${JSON.stringify(v)} is not ${JSON.stringify(s)}`;
    for (let i = 0; i < s.length; i++) {
      const m = mismatch(v[i], s[i], `${at}[${i}]`);
      if (m) return m;
    }
    return null;
  }
  if (s !== null && typeof s === "object") {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return `${at}: ${JSON.stringify(v)} is not an object`;
    for (const [k0, sv] of Object.entries(s)) {
      const k = k0.endsWith("?") ? k0.slice(0, -1) : k0;
      if (!(k in v)) {
        if (k0.endsWith("?")) continue;
        return `${at}: ${JSON.stringify(v)} lacks ${k}`;
      }
      const m = mismatch(v[k], sv, `${at}.${k}`);
      if (m) return m;
    }
    for (const k of Object.keys(v)) if (!(k in s) && !(`${k}?` in s)) return `${at}: ${JSON.stringify(v)} has ${k}, not in the shape`;
    return null;
  }
  return v === s ? null : `${at}: ${JSON.stringify(v)} is not ${JSON.stringify(s)}`;
}

const rooted = (v, root) =>
  typeof v === "string" ? v.replaceAll("$ROOT", root) : Array.isArray(v) ? v.map((x) => rooted(x, root)) : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rooted(x, root)])) : v;

/** A read as the core gets it: the bytes (sent beside the JSON) as text, BOM dropped, or not-utf8. */
function asCore(r) {
  if (!r || !r.bytes) return r;
  const { bytes, ...rest } = r;
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), ...rest };
  } catch {
    return { error: "not-utf8", ...rest };
  }
}

test("the JS host's replies have the shapes and codes the Rust test host gives", { timeout: 30_000 }, async () => {
  const root = tmpdir("hookwise-shapes-");
  for (const [rel, text] of Object.entries(fixture.files)) {
    const p = path.join(root, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text === null ? Buffer.from([0xff, 0xfe, 0xfd]) : text);
  }
  fs.chmodSync(path.join(root, "tool"), 0o755);
  const made = (rel) => (fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true }), path.join(root, rel));
  for (const [rel, target] of Object.entries(fixture.links)) fs.symlinkSync(target, made(rel));
  for (const [rel, existing] of Object.entries(fixture.hardLinks)) fs.linkSync(path.join(root, existing), made(rel));
  const host = createHost({ watch: false });
  try {
    assert.ok(fixture.cases.length > 20);
    for (const [i, c] of fixture.cases.entries()) {
      const req = rooted(c.request, root);
      let reply = await host.run(req).promise;
      reply = asCore(reply);
      if (reply && Array.isArray(reply.files)) reply = { ...reply, files: reply.files.map(asCore) };
      // as it crosses: JSON (undefined keys dropped; a listing packed as the core reads it)
      reply = JSON.parse(JSON.stringify(reply));
      if (Array.isArray(reply.entries)) reply.entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      const m = mismatch(reply, c.reply, `case ${i} ${req.kind}`);
      assert.equal(m, null, m || "");
    }
  } finally {
    host.dispose();
  }
});
