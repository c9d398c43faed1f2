#!/usr/bin/env node
// How well the embedded vault answers, on vaults written the way people keep them:
//   node scripts/eval-knowledge.mjs [--base DIR] [--json]
// Vaults: examples/vault (hookwise's own, maenifold-style) and examples/garden (Obsidian's and
// Foam's conventions: title file names and kebab-case slugs with a front matter title, aliases,
// headings, ^blocks, ![[embeds]], #tags). Probes are made from the notes themselves, by rules
// written here independently of the core:
// - self-recall: for every note linked twice or more, `[[T]]` (T as the links spell it most
//   often) must bring context that names the note itself (its memory:// id);
// - heading recall: for every `## H` of a note, `[[Title#H]]` must bring the section's first
//   words;
// - alias recall: for every front matter alias, `[[alias]]` must name the note;
// - search: the questions in scripts/eval-knowledge.json, paraphrased (few of their words are
//   the note's), must find their note in knowledge_search's top 5 (hit@5), and MRR.
// --public DIR: instead, the public vaults of other authors listed in
// scripts/eval-knowledge-public.json, fetched (never committed) under DIR as <owner>+<name>/ (each
// at the listed commit); they are read by the family's own rules (Logseq: title:: and decoded
// file names, alias::; Dendron: dot-hierarchy file names, label-first links, the vaults of
// dendron.yml). By default the tuning questions (all but held2); --held the first held-out set
// only (seen once in aggregate, tuning data since); --held2 the second held-out set only,
// measured once at the end. Nothing is fetched: each vault is read from the folder DIR/<owner>+<name>/
// (a copy of the listed commit, kept outside the repository); --vault NAME narrows to one vault.
// --base DIR: a built package (its dist/ folder's parent, e.g. another checkout's pkg/) measured
// in the same run, printed beside this build's figures ("before").
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const json = args.includes("--json");
const builds = [["now", path.resolve(flag("--pkg") || path.join(root, "pkg"))]];
if (flag("--base")) builds.unshift(["before", path.resolve(flag("--base"))]);
const questions = JSON.parse(fs.readFileSync(path.join(root, "scripts/eval-knowledge.json"), "utf8"));
const publicDir = flag("--public");
const held = args.includes("--held");
const held2 = args.includes("--held2");
const only = flag("--vault");
const pick = (q) => (held2 ? !!q.held2 : held ? !!q.held : !q.held2);

// ---- the vault, read by this script's own rules ------------------------------------------
const norm = (s) =>
  s.trim().toLowerCase().replace(/[\s_/]+/g, "-").replace(/-+/g, "-").replace(/^-|-$/g, "");

function frontMatter(text) {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!m) return { fm: {}, body: text };
  const fm = {};
  let list = null;
  for (const line of m[1].split("\n")) {
    const item = /^\s*-\s+(.*)$/.exec(line);
    if (item && list) {
      fm[list] = [...(Array.isArray(fm[list]) ? fm[list] : []), item[1].trim().replace(/^["']|["']$/g, "")];
      continue;
    }
    const kv = /^(\w+):\s*(.*)$/.exec(line);
    list = null;
    if (!kv) continue;
    let v = kv[2].trim();
    if (!v) {
      list = kv[1].toLowerCase();
      continue;
    }
    if (v.startsWith("[") && v.endsWith("]")) v = v.slice(1, -1).split(",").map((x) => x.trim()).filter(Boolean);
    fm[kv[1].toLowerCase()] = v;
  }
  return { fm, body: text.slice(m[0].length) };
}

/** Logseq's page name from its file name (`:file/name-format :triple-lowbar`, or the legacy
 *  format's `%2F` and `.`), URL-decoded. */
function logseqName(stem, legacy) {
  let s = legacy ? stem.replace(/\./g, "/") : stem.replace(/___/g, "/");
  try {
    s = decodeURIComponent(s);
  } catch {}
  return s;
}

function readVault(dir, family = null) {
  const notes = [];
  let legacy = false;
  let only = null;
  if (family === "logseq") {
    const cfg = fs.existsSync(path.join(dir, "logseq/config.edn")) ? fs.readFileSync(path.join(dir, "logseq/config.edn"), "utf8") : "";
    legacy = !/^\s*:file\/name-format\s+:triple-lowbar/m.test(cfg);
  }
  if (family === "dendron") {
    const yml = fs.readFileSync(path.join(dir, "dendron.yml"), "utf8");
    only = [...yml.matchAll(/^\s*(?:-\s*)?fsPath:\s*['"]?([^'"\n]+)/gm)].map((m) => m[1].trim());
  }
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith(".")) continue;
      if (family === "logseq" && d === dir && !["pages", "journals"].includes(e.name)) continue;
      if (only && d === dir && !only.includes(e.name)) continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".md")) {
        const rel = path.relative(dir, p).split(path.sep).join("/");
        const text = fs.readFileSync(p, "utf8");
        const { fm, body } = frontMatter(text);
        const h1 = /^# (.+)$/m.exec(body);
        let title = typeof fm.title === "string" ? fm.title : h1 ? h1[1] : path.basename(rel, ".md");
        let aliases = Array.isArray(fm.aliases) ? fm.aliases : typeof fm.aliases === "string" ? [fm.aliases] : [];
        if (family === "logseq") {
          // Page properties: the first block's `key:: value` lines.
          const head = body.split(/\n\s*\n|\n- |\n\s+- /)[0];
          const prop = (k) => new RegExp(`^${k}::\\s*(.+)$`, "mi").exec(head)?.[1].trim();
          title = prop("title") || (typeof fm.title === "string" ? fm.title : logseqName(path.basename(rel, ".md"), legacy));
          const al = prop("alias");
          aliases = al ? al.split(",").map((a) => a.trim().replace(/^\[\[|\]\]$/g, "").replace(/^#/, "")).filter(Boolean) : [];
        }
        if (family === "dendron") title = path.basename(rel, ".md");
        // Obsidian names a note by its file name, never by its first heading.
        if (family === "obsidian" && typeof fm.title !== "string") title = path.basename(rel, ".md");
        const sections = [];
        const re = /^## (.+)\n+([^\n#][^\n]*)/gm;
        for (let m; (m = re.exec(body)); ) {
          // Dendron shows the front matter's description where a note writes `{{fm.desc}}`.
          const first = family === "dendron" ? m[2].replace(/\{\{fm\.desc\}\}/g, typeof fm.desc === "string" ? fm.desc.replace(/^['"]|['"]$/g, "") : "").trim() : m[2].trim();
          if (first) sections.push({ heading: m[1].trim(), first });
        }
        notes.push({ rel, uri: `memory://${rel.slice(0, -3)}`, stem: path.basename(rel, ".md"), title, aliases, sections, body });
      }
    }
  };
  walk(dir);
  return notes;
}

/** Obsidian's reading of a link: file name, then title, then alias; shortest path wins. */
function resolver(notes, family) {
  return (target) => {
    const t = norm(target);
    if (family === "logseq") {
      // Logseq: a page's name (title or decoded file name) or an alias, case ignored.
      return notes.find((n) => norm(n.title) === t) || notes.find((n) => n.aliases.some((a) => norm(a) === t));
    }
    if (family === "dendron") return notes.find((n) => norm(n.stem) === t);
    const by = (f) => notes.filter(f).sort((a, b) => a.rel.length - b.rel.length)[0];
    return (
      by((n) => norm(n.rel.slice(0, -3)) === t) ||
      by((n) => norm(n.stem) === t) ||
      by((n) => norm(n.title) === t) ||
      by((n) => n.aliases.some((a) => norm(a) === t))
    );
  };
}

function probes(name, dir, family, qs = questions[name] || []) {
  const notes = readVault(dir, family);
  const resolve = resolver(notes, family);
  const spelled = new Map(); // uri → Map(link text → count)
  for (const n of notes) {
    const body = n.body.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
    for (const m of body.matchAll(/\[\[([^\[\]]+)\]\]/g)) {
      // The target: Dendron puts the label first (`[[label|note]]`) and may prefix a vault.
      let link = m[1];
      if (family === "dendron") link = link.split("|").pop().replace(/^dendron:\/\/[^/]*\//, "");
      link = link.split(family === "dendron" ? "#" : /[|#^]/)[0].trim();
      if (!link) continue;
      const target = resolve(link);
      if (!target || target === n) continue;
      const counts = spelled.get(target.uri) || new Map();
      counts.set(link, (counts.get(link) || 0) + 1);
      spelled.set(target.uri, counts);
    }
  }
  const self = [];
  for (const n of notes) {
    const counts = spelled.get(n.uri);
    if (!counts) continue;
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    if (total < 2) continue;
    const text = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0][0];
    self.push({ link: text, want: n.uri });
  }
  const headings = notes.flatMap((n) =>
    n.sections.map((s) => ({ link: `${n.title}#${s.heading}`, want: s.first.split(/\s+/).slice(0, 6).join(" ") })),
  );
  const aliases = notes.flatMap((n) => n.aliases.map((a) => ({ link: a, want: n.uri })));
  return { name, dir, family, notes: notes.length, self, headings, aliases, questions: qs };
}

// ---- one build -----------------------------------------------------------------------------
async function measure(pkgDir, set) {
  const require = createRequire(import.meta.url);
  const { createEngine } = require(path.join(pkgDir, "dist/engine.cjs"));
  const engine = await createEngine({
    cwd: set.dir,
    env: { ...process.env, HOOKWISE_VAULT: set.dir, MAENIFOLD_CLI: "", PATH: "/nonexistent" },
    options: { knowledge: "vault", vault: set.dir, tokenBudget: 1500 },
    watch: false,
    log: () => {},
  });
  const context = async (link) => (await engine.augmentToolCall({ tool: "task", args: { prompt: `Look at [[${link}]] first.` } })).context || "";
  const collapse = (s) => s.replace(/\s+/g, " ");
  const rate = async (list, ok) => {
    let hit = 0;
    const missed = [];
    for (const p of list) {
      if (ok(collapse(await context(p.link)), p)) hit++;
      else missed.push(p.link);
    }
    return { hit, of: list.length, missed };
  };
  const self = await rate(set.self, (c, p) => c.includes(p.want));
  const headings = await rate(set.headings, (c, p) => c.includes(p.want));
  const aliases = await rate(set.aliases, (c, p) => c.includes(p.want));
  let hits = 0;
  let rr = 0;
  const missed = [];
  for (const q of set.questions) {
    const a = await engine.callTool("knowledge_search", { query: q.q, limit: 5 });
    // "1. Title — memory://path with spaces (score 0.93)": an id may hold spaces.
    const uris = [...a.text.matchAll(/(memory:\/\/[^\n]+?) \(score /g)].map((m) => m[1]);
    const ranked = [...new Set(uris)];
    const at = ranked.indexOf(q.note);
    if (at >= 0 && at < 5) {
      hits++;
      rr += 1 / (at + 1);
    } else missed.push(q.q);
  }
  await engine.dispose();
  return { self, headings, aliases, search: { hit: hits, of: set.questions.length, mrr: set.questions.length ? rr / set.questions.length : 0, missed } };
}

let sets;
if (publicDir) {
  const list = JSON.parse(fs.readFileSync(path.join(root, "scripts/eval-knowledge-public.json"), "utf8")).vaults;
  sets = Object.entries(list)
    .filter(([name]) => !only || name === only)
    .map(([name, v]) => {
      const dir = path.join(path.resolve(publicDir), v.repo.replace("/", "+"), v.root);
      if (!fs.existsSync(dir)) throw new Error(`${name}: ${dir} is missing (a copy of ${v.repo} at ${v.commit})`);
      return probes(name, dir, v.family, v.questions.filter(pick));
    });
} else {
  sets = [probes("vault", path.join(root, "examples/vault")), probes("garden", path.join(root, "examples/garden"))];
}
const results = {};
for (const [label, dir] of builds) {
  results[label] = {};
  for (const set of sets) results[label][set.name] = await measure(dir, set);
}
if (json) {
  process.stdout.write(JSON.stringify(results, null, 2) + "\n");
} else {
  const pct = (r) => (r.of ? `${r.hit}/${r.of} (${Math.round((100 * r.hit) / r.of)} %)` : "–");
  const rows = [
    ["self-recall: [[T]] names note T", (r) => pct(r.self)],
    ["heading recall: [[T#H]] brings section H", (r) => pct(r.headings)],
    ["alias recall: [[alias]] names the note", (r) => pct(r.aliases)],
    ["search hit@5", (r) => pct(r.search)],
    ["search MRR", (r) => (r.search.of ? r.search.mrr.toFixed(2) : "–")],
  ];
  for (const set of sets) {
    console.log(`\n${set.name} (${set.family || "obsidian/foam"}, ${set.notes} notes, ${publicDir ? set.dir : `examples/${path.basename(set.dir)}`}${held2 ? ", second held-out set only" : held ? ", first held-out set only" : ""})`);
    console.log(`| | ${builds.map(([l]) => l).join(" | ")} |\n|---|${builds.map(() => "---").join("|")}|`);
    for (const [label, f] of rows) console.log(`| ${label} | ${builds.map(([l]) => f(results[l][set.name])).join(" | ")} |`);
    const last = results[builds[builds.length - 1][0]][set.name];
    const miss = [...last.self.missed.map((m) => `self [[${m}]]`), ...last.headings.missed.map((m) => `heading [[${m}]]`), ...last.aliases.missed.map((m) => `alias [[${m}]]`), ...last.search.missed.map((m) => `search "${m}"`)];
    if (miss.length) console.log(`missed (${builds[builds.length - 1][0]}): ${miss.slice(0, 12).join("; ")}${miss.length > 12 ? `; … ${miss.length - 12} more` : ""}`);
  }
}
