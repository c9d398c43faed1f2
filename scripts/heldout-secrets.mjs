// The held-out measurement of the redactor (issue 38): secret forms the redactor was NOT tuned
// on, read from a checkout of secretlint (github.com/secretlint/secretlint, MIT) — each rule's
// snapshot tests: `ng.*` cases (a file and the ranges secretlint reports as secrets) and `ok.*`
// cases (files it leaves alone). Nothing of secretlint is committed here: this script reads a
// checkout (a git directory or a work tree) and writes the cases to a JSON file that the
// ignored Rust test `redact::heldout::heldout_secretlint` measures in every persisting path.
//
//   git clone https://github.com/secretlint/secretlint /tmp/secretlint   (or any checkout)
//   node scripts/heldout-secrets.mjs /tmp/secretlint /tmp/heldout.json
//   HOOKWISE_HELDOUT=/tmp/heldout.json cargo test -q --all-features --lib heldout -- --ignored --nocapture
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";

const [repo, out] = process.argv.slice(2);
if (!repo || !out) {
  console.error("usage: node scripts/heldout-secrets.mjs <secretlint checkout or git dir> <out.json>");
  process.exit(2);
}
const bare = !fs.existsSync(path.join(repo, "packages"));
const git = (...args) => execFileSync("git", ["--git-dir", bare ? repo : path.join(repo, ".git"), ...args], { encoding: "utf8", maxBuffer: 1 << 28 });
const files = bare
  ? git("ls-tree", "-r", "--name-only", "HEAD").split("\n")
  : execFileSync("git", ["-C", repo, "ls-files"], { encoding: "utf8" }).split("\n");
const read = (f) => (bare ? git("show", `HEAD:${f}`) : fs.readFileSync(path.join(repo, f), "utf8"));
const commit = git("rev-parse", "HEAD").trim();

// the rules about credentials (not the framework's own tests, file-name rules or binary keys)
const SKIP = /secretlint-rule-(preset-|pattern|filter-comments|no-dotenv|no-homedir|example)|\/ok\.invalid-p12|\.p12/;
// identifiers secretlint also reports (an account, tenant or client id is not a credential;
// UUIDs are kept on purpose)
const IDS = /Account_?ID|Tenant_?Id|Client_?Id$/i;
const cases = [];
for (const f of files) {
  const m = /^packages\/@secretlint\/secretlint-rule-([^/]+)\/test\/snapshots\/([^/]+)\/output\.json$/.exec(f);
  if (!m || SKIP.test(f)) continue;
  let o;
  try {
    o = JSON.parse(read(f));
  } catch {
    continue;
  }
  const text = o.sourceContent;
  if (typeof text !== "string" || !text.length || text.includes("\u0000")) continue;
  // the secret of each message: what secretlint names in its data (a URL's password only: its
  // scheme, user and host are not secret), else the range it reports
  const secret = (x) => {
    const named = Object.entries(x.data ?? {}).filter(([k, v]) => typeof v === "string" && !/name/i.test(k)).map(([, v]) => v);
    return (named.length ? named : [text.slice(x.range[0], x.range[1])]).map((v) => {
      const url = /^[a-z][\w+.-]*:(?:[a-z]+:)?\/\/[^:/@\s]*:([^\s]+)@[^@\s]*$/i.exec(v);
      return url ? url[1] : v;
    });
  };
  const secrets = [...new Set((o.messages ?? []).filter((x) => !IDS.test(x.messageId ?? "")).flatMap(secret).filter((s) => s.trim().length >= 6))];
  const ng = !m[2].startsWith("ok.");
  if (ng && !secrets.length) continue;
  cases.push({ rule: m[1], name: m[2], text, secrets: ng ? secrets : [] });
}
fs.writeFileSync(out, JSON.stringify({ source: `secretlint/secretlint@${commit}`, cases }, null, 1));
console.log(`${cases.filter((c) => c.secrets.length).length} cases with secrets, ${cases.filter((c) => !c.secrets.length).length} without, from secretlint@${commit.slice(0, 12)} -> ${out}`);
