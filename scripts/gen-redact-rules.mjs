// Regenerates src/redact_rules.rs, the token rules of the redactor, from gitleaks' rule set
// (github.com/gitleaks/gitleaks, config/gitleaks.toml, MIT). The redactor has no regex engine
// (the lean wasm cannot afford one): a rule is kept when its regex has the shape most of
// gitleaks' rules have, a literal prefix and then character classes with lengths and literals
// (`glpat-[\w-]{20}`, `\b(npm_[a-z0-9]{36})(?:[\x60'"\s;]|\\[nr]|$)`); it is compiled here
// into one line of a small text table that src/redact_rules.rs's matcher reads. The rules
// that do not fit (a keyword and a `key = value` context, alternations inside a token, lazy
// or unbounded wildcards) are listed in the generated file with the reason; the redactor's
// own `key = value` reader covers the context rules' keys (password, secret, token, key …).
//
//   curl -sSLo /tmp/gitleaks.toml https://raw.githubusercontent.com/gitleaks/gitleaks/<commit>/config/gitleaks.toml
//   node scripts/gen-redact-rules.mjs /tmp/gitleaks.toml <commit>
//   cargo test -q redact
//
// Each rule is written as a byte record (the layout is documented in the generated file) after
// a comment that shows it readably: prefix (`~`: any case), kind, segments (`=literal`,
// `class:min:max` with the class in letters a A h H 0 _ - . + = ~ %, `$`: gitleaks' boundary).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const [tomlPath, commit] = process.argv.slice(2);
if (!tomlPath || !/^[0-9a-f]{40}$/.test(commit ?? "")) {
  console.error("usage: node scripts/gen-redact-rules.mjs <gitleaks.toml> <gitleaks commit, 40 hex>");
  process.exit(2);
}
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const toml = fs.readFileSync(tomlPath, "utf8");

// The rules: `[[rules]]` tables, their `id` and `regex` (`'''…'''` or "…"); nested tables
// (`[[rules.allowlists]]`) are skipped.
const rules = [];
let cur = null;
for (const line of toml.split("\n")) {
  if (/^\[\[rules\]\]/.test(line)) rules.push((cur = {}));
  else if (/^\[/.test(line)) cur = null;
  else if (cur) {
    let m = /^id = "([^"]+)"/.exec(line);
    if (m) cur.id = m[1];
    m = /^regex = '''(.*)'''\s*$/.exec(line) ?? /^regex = "((?:[^"\\]|\\.)*)"/.exec(line);
    if (m) cur.regex = m[1];
  }
}

// ---- a parser for the regex subset ----

class Unfit extends Error {}
const CLASS_ORDER = "aAhH0_-.+=~%";

/// The top-level alternatives of a group's body.
function splitAlts(body) {
  const out = [];
  let depth = 0;
  let cls = false;
  let from = 0;
  for (let k = 0; k < body.length; k++) {
    const c = body[k];
    if (c === "\\") k++;
    else if (cls) cls = c !== "]";
    else if (c === "[") cls = true;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) {
      out.push(body.slice(from, k));
      from = k + 1;
    }
  }
  out.push(body.slice(from));
  return out;
}

/// Parse one regex into alternatives, each a list of {lit, ci} | {cls, min, max}, or throw Unfit.
function compile(re, ci = false, depth = 0) {
  if (depth > 6) throw new Unfit("nesting");
  let i = 0;
  const peek = (s) => re.startsWith(s, i);
  // the boundary groups that end a token (what follows them is not read)
  const END = [
    String.raw`(?:[\x60'"\s;]|\\[nr]|$)`,
    String.raw`(?:[\x60'"\s;]|\\[nr]|$|\b)`,
    String.raw`(?:[^\w-]|\z)`,
    String.raw`(?:[^a-zA-Z0-9+/]|\z)`,
  ];
  function klass(body, ciHere) {
    const set = new Set();
    let k = 0;
    const add = (s) => set.add(s);
    while (k < body.length) {
      if (body.startsWith("[:alnum:]", k)) { add("a"); add("A"); add("0"); k += 9; continue; }
      const c = body[k];
      if (c === "\\") {
        const e = body[k + 1];
        if (e === "w") { add("a"); add("A"); add("0"); add("_"); }
        else if (e === "d") add("0");
        else if ("-._=+/~%".includes(e)) add(e === "/" ? "+" : e);
        else throw new Unfit(`class escape \\${e}`);
        k += 2;
        continue;
      }
      if (body[k + 1] === "-" && k + 2 < body.length) {
        const r = body.slice(k, k + 3);
        k += 3;
        if (r === "a-z") add("a");
        else if (r === "A-Z") add("A");
        else if (r === "0-9") add("0");
        else if (r === "a-f") add("h");
        else if (r === "A-F") add("H");
        else if (r === "a-h") add("a"); // (wider: a-z)
        else if (r === "1-9" || r === "2-7") add("0"); // (wider: 0-9)
        else throw new Unfit(`class range ${r}`);
        continue;
      }
      if (/[A-Za-z0-9]/.test(c)) {
        // a class of single letters (`[QPZRY9X8…]`): wider, its letters' kinds
        add(/[a-z]/.test(c) ? "a" : /[A-Z]/.test(c) ? "A" : "0");
      } else if ("-._=+/~%".includes(c)) add(c === "/" ? "+" : c);
      else throw new Unfit(`class char ${JSON.stringify(c)}`);
      k++;
    }
    if (ciHere) {
      if (set.has("a") || set.has("A")) { add("a"); add("A"); }
      if (set.has("h") || set.has("H")) { add("h"); add("H"); }
    }
    if (set.has("a")) set.delete("h");
    if (set.has("A")) set.delete("H");
    return [...CLASS_ORDER].filter((x) => set.has(x)).join("");
  }
  function quant() {
    let m;
    if ((m = /^\{(\d+)\}/.exec(re.slice(i)))) { i += m[0].length; return [+m[1], +m[1]]; }
    if ((m = /^\{(\d+),(\d*)\}/.exec(re.slice(i)))) { i += m[0].length; return [+m[1], m[2] === "" ? 0 : +m[2]]; }
    if (peek("+")) { i++; return [1, 0]; }
    if (peek("*")) { i++; return [0, 0]; }
    if (peek("?")) { i++; return [0, 1]; }
    return null;
  }
  const segs = [];
  const lit = (s) => {
    const last = segs[segs.length - 1];
    if (last && last.lit !== undefined && last.ci === ci) last.lit += s;
    else segs.push({ lit: s, ci });
  };
  while (i < re.length) {
    if (END.some((e) => peek(e)) || (peek("\\b") && /^\)*$/.test(re.slice(i + 2)))) {
      segs.push({ end: true });
      break;
    }
    if (peek("\\b")) { i += 2; continue; }
    if (peek("(?i)")) { ci = true; i += 4; continue; }
    if (peek("(")) {
      const open = peek("(?:") ? 3 : peek("(?i:") ? 4 : peek("(?-i:") ? 5 : peek("(?P<") ? re.indexOf(">", i) + 1 - i : 1;
      const ciGroup = peek("(?i:") ? true : peek("(?-i:") ? false : ci;
      let d = 1;
      let k = i + open;
      let cls = false;
      while (k < re.length && d) {
        if (re[k] === "\\") k++;
        else if (cls) cls = re[k] !== "]";
        else if (re[k] === "[") cls = true;
        else if (re[k] === "(") d++;
        else if (re[k] === ")") d--;
        k++;
      }
      const body = re.slice(i + open, k - 1);
      i = k;
      const q = quant();
      if (q && !(q[0] === 0 && q[1] === 1)) {
        // a repeated group: a class group `([a-z0-9]{4}-){3}` is spelled out
        if (q[0] === q[1] && q[0] <= 4) {
          const rest = re.slice(i);
          return compile(body.repeat(q[0]) + rest, ci, depth + 1).map((t) => [...segs.map((s) => ({ ...s })), ...t]);
        }
        throw new Unfit("repeated group");
      }
      const rest = re.slice(i);
      const alts = splitAlts(body);
      if (q) alts.push(""); // optional
      const tails = alts.flatMap((a) => {
        // the group's case applies inside it only: `(?i:x)rest`
        const inner = compile(a, ciGroup, depth + 1);
        const after = compile(rest, ci, depth + 1);
        return inner.flatMap((x) => after.map((y) => [...x, ...y]));
      });
      if (tails.length > 12) throw new Unfit("too many alternatives");
      return tails.map((t) => [...segs.map((s) => ({ ...s })), ...t]);
    }
    if (peek("[")) {
      let k = i + 1;
      while (k < re.length && re[k] !== "]") k += re[k] === "\\" ? 2 : re.startsWith("[:", k) ? re.indexOf(":]", k) + 2 - k : 1;
      const body = re.slice(i + 1, k);
      if (body.startsWith("^")) throw new Unfit("negated class");
      i = k + 1;
      const q = quant() ?? [1, 1];
      segs.push({ cls: klass(body, ci), min: q[0], max: q[1] });
      continue;
    }
    if (peek("\\w") || peek("\\d")) {
      const cls = klass(re.slice(i, i + 2), ci);
      i += 2;
      const q = quant() ?? [1, 1];
      segs.push({ cls, min: q[0], max: q[1] });
      continue;
    }
    let c = re[i];
    if (c === "\\") {
      c = re[i + 1];
      if (!".-_/=+".includes(c)) throw new Unfit(`escape \\${c}`);
      i += 2;
    } else if (/[A-Za-z0-9_\-~:]/.test(c) || c === "." || c === "=") {
      // (an unescaped `.` is taken as the literal dot: narrower than gitleaks)
      i++;
    } else throw new Unfit(`token ${JSON.stringify(c)}`);
    const q = quant();
    if (q) segs.push({ cls: klass(c === "." ? "\\." : c === "-" ? "\\-" : c, ci), min: q[0], max: q[1] });
    else lit(c);
  }
  return [segs];
}

/// Adjacent literals joined, adjacent classes merged (the matcher is greedy where gitleaks'
/// engine backtracks): the union, the lengths summed.
function normalize(segs) {
  const out = [];
  for (const s of segs) {
    const last = out[out.length - 1];
    if (s.lit === "" || (s.end && out.some((o) => o.end))) continue;
    if (s.cls !== undefined && last?.cls !== undefined) {
      const u = new Set([...last.cls, ...s.cls]);
      if (u.has("a")) u.delete("h");
      if (u.has("A")) u.delete("H");
      last.cls = [...CLASS_ORDER].filter((x) => u.has(x)).join("");
      last.min += s.min;
      last.max = last.max && s.max ? last.max + s.max : 0;
    } else if (s.lit !== undefined && last?.lit !== undefined && last.ci === s.ci) {
      last.lit += s.lit;
    } else out.push({ ...s });
  }
  return out;
}

// ---- context rules: a keyword in a key, an assignment, a value of a shape ----
//
// gitleaks' `(?i)[\w.-]{0,50}?(?:KEYWORDS)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)
// [\x60'"\s=]{0,5}(VALUE)(?:[\x60'"\s;]|\\[nr]|$)`: the keywords (lower case, spelled out) and the
// value's shape (compiled as a token with an empty or literal prefix). The matcher reads the key
// and the assignment itself (src/redact_table.rs).
const CTX_KEY = String.raw`(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}`;

/// The balanced group that ends just before `end` in `re`: its body.
function groupBefore(re, end) {
  if (re[end - 1] !== ")") throw new Unfit("no keyword group");
  let d = 0;
  for (let k = end - 1; k >= 0; k--) {
    if (re[k - 1] === "\\") continue;
    if (re[k] === ")") d++;
    else if (re[k] === "(" && --d === 0) {
      const m = /^\((?:\?:|\?-?i:|\?i:)?/.exec(re.slice(k));
      return re.slice(k + m[0].length, end - 1);
    }
  }
  throw new Unfit("unbalanced keyword group");
}

/// A keyword group spelled out in lower case (`linked[_-]?in` -> linkedin, linked_in,
/// linked-in); past 16 spellings, the literal each starts with.
function keywords(body) {
  let out = [""];
  let i = 0;
  const alts = splitAlts(body);
  if (alts.length > 1) return [...new Set(alts.flatMap(keywords))];
  while (i < body.length) {
    const c = body[i];
    let options;
    if (c === "(") {
      let d = 0;
      let k = i;
      for (; k < body.length; k++) {
        if (body[k] === "\\") k++;
        else if (body[k] === "(") d++;
        else if (body[k] === ")" && --d === 0) break;
      }
      const inner = body.slice(i, k + 1).replace(/^\((?:\?:|\?-?i:)?/, "").slice(0, -1);
      options = keywords(inner);
      i = k + 1;
    } else if (c === "[") {
      const k = body.indexOf("]", i);
      const cls = body.slice(i + 1, k).replace(/\\/g, "");
      options = [...new Set([...cls].map((x) => x.toLowerCase()))];
      i = k + 1;
    } else if (c === "\\") {
      options = [body[i + 1]];
      i += 2;
    } else {
      options = [c.toLowerCase()];
      i++;
    }
    if (body[i] === "?") {
      options = ["", ...options];
      i++;
    }
    const next = out.flatMap((o) => options.map((x) => o + x));
    if (next.length > 16) {
      // the literal every spelling starts with
      return [...new Set(out)];
    }
    out = next;
  }
  return [...new Set(out)];
}

const ctx = [];
function context(r, alt, ci) {
  const at = alt.indexOf(CTX_KEY);
  if (at < 0) return false;
  const kws = keywords(groupBefore(alt, at)).filter((k) => k.length >= 3);
  if (!kws.length) throw new Unfit("keywords too short");
  const rest = alt.slice(at + CTX_KEY.length);
  if (!rest.startsWith("(")) throw new Unfit("no value group");
  let d = 0;
  let k = 0;
  let cls = false;
  for (; k < rest.length; k++) {
    if (rest[k] === "\\") k++;
    else if (cls) cls = rest[k] !== "]";
    else if (rest[k] === "[") cls = true;
    else if (rest[k] === "(") d++;
    else if (rest[k] === ")" && --d === 0) break;
  }
  const value = rest.slice(1, k) + rest.slice(k + 1);
  for (const segs of compile(value, ci).map(normalize)) {
    const first = segs[0]?.lit !== undefined ? segs[0] : { lit: "", ci };
    const tail = segs[0]?.lit !== undefined ? segs.slice(1) : segs;
    const len = first.lit.length + tail.reduce((n, s) => n + (s.lit?.length ?? s.min), 0);
    if (len < 8) throw new Unfit("value too short to tell from text");
    ctx.push({ kws: kws.sort(), first, rest: tail, id: r.id });
  }
  return true;
}

const kept = [];
const left = [];
for (const r of rules) {
  if (!r.regex) {
    left.push([r.id, "no regex (a file path rule)"]);
    continue;
  }
  let alts = [];
  try {
    // `[\w.-]{0,50}?(?i:[\w.-]{0,50}?KW…[\s'"]{0,3})(?:=|…` is the context form too
    const wrap = String.raw`[\w.-]{0,50}?(?i:[\w.-]{0,50}?`;
    let re = r.regex;
    if (re.startsWith(wrap)) {
      const close = re.indexOf(String.raw`[\s'"]{0,3})`);
      re = String.raw`(?i)[\w.-]{0,50}?` + re.slice(wrap.length, close) + String.raw`[\s'"]{0,3}` + re.slice(close + 12);
    }
    const ci = re.startsWith("(?i)");
    const body = ci ? re.slice(4) : re;
    for (const a of splitAlts(body)) {
      if (!context(r, a, ci)) alts.push(...compile(ci ? `(?i)${a}` : a).map(normalize));
    }
  } catch (e) {
    if (!(e instanceof Unfit)) throw e;
    left.push([r.id, `shape not supported (${e.message})`]);
    continue;
  }
  for (const segs of alts) {
    const first = segs[0]?.lit !== undefined ? segs[0] : { lit: "", ci: false };
    const line = encode(r.id, first, segs.slice(segs[0]?.lit !== undefined ? 1 : 0), 3);
    if (line) kept.push({ line, id: r.id });
  }
}
for (const c of ctx) {
  const line = encode(c.id, c.first, c.rest, 0);
  if (line) c.line = line;
}
// the forms gitleaks has no rule for (issue 38), in the same notation
const EXTRA = [
  "ya29.\tgoogle-oauth-token\taA0_-:20:0\t$",
  "hvs.\tvault-token\taA0_-:24:0\t$",
  "hvb.\tvault-token\taA0_-:24:0\t$",
  "hvr.\tvault-token\taA0_-:24:0\t$",
  "discord.com/api/webhooks/\tdiscord-webhook\t0:17:20\t=/\taA0_-:60:0",
  "discordapp.com/api/webhooks/\tdiscord-webhook\t0:17:20\t=/\taA0_-:60:0",
  "sntrys_eyJ\tsentry-org-token\taA0_+=:60:0",
];
for (const line of EXTRA) kept.push({ line, id: line.split("\t")[1] });

/// A rule as a line of the table (prefix, kind, segments), or why it is left out.
function encode(id, first, segs, minPrefix) {
  const prefix = first.lit;
  const end = segs.some((s) => s.end);
  const rest = segs.filter((s) => !s.end);
  const len = prefix.length + rest.reduce((n, s) => n + (s.lit?.length ?? s.min), 0);
  const inClass = (cls, c) =>
    [...cls].some((x) => ({ a: /[a-z]/, A: /[A-Z]/, h: /[a-f]/, H: /[A-F]/, 0: /[0-9]/, "+": /[+/]/ })[x]?.test(c) ?? x === c);
  if (rest.some((s, k) => s.cls !== undefined && s.max !== s.min && rest[k + 1]?.lit !== undefined && inClass(s.cls, rest[k + 1].lit[0]))) {
    left.push([id, "a class of varying length that its next literal belongs to (needs backtracking)"]);
    return null;
  }
  if ((prefix.length < minPrefix && !(prefix.length === 2 && len >= 32)) || len < (minPrefix ? 12 : 8) || prefix.includes("\t")) {
    left.push([id, prefix.length < minPrefix ? `no literal prefix of 3 or more characters` : "too short to tell from text"]);
    return null;
  }
  const enc = [...rest, ...(end ? [{ end }] : [])].map((s) =>
    s.end ? "$" : s.lit !== undefined ? `=${s.lit}` : `${s.cls}:${s.min}:${s.max <= 255 ? s.max : 0}`,
  );
  return [`${first.ci ? "~" : ""}${first.ci ? prefix.toLowerCase() : prefix}`, id, ...enc].join("\t");
}
// ordered by prefix (the matcher looks at a prefix's first byte first), duplicates dropped
const ctxKept = ctx.filter((c) => c.line);
const lowFirst = (l) => l.replace(/^~/, "")[0].toLowerCase();
// the context rules ordered by their keywords (a keyword names a run of rules), duplicates dropped
const ctxLines = [...new Map(ctxKept.map((c) => [c.kws.join(" ") + "\n" + c.line, c])).values()].sort(
  (a, b) => a.kws.join(" ").localeCompare(b.kws.join(" ")) || a.line.localeCompare(b.line),
);
const kwRuns = [];
ctxLines.forEach((c, k) => {
  for (const kw of c.kws) {
    const run = kwRuns.find((r) => r[0] === kw && r[2] === k);
    if (run) run[2] = k + 1;
    else kwRuns.push([kw, k, k + 1]);
  }
});
kwRuns.sort((a, b) => a[0].localeCompare(b[0]) || a[1] - b[1]);
const kwGroups = [];
kwRuns.forEach(([kw], k) => {
  if (kwGroups.at(-1)?.[0] === kw[0]) kwGroups.at(-1)[2] = k + 1;
  else kwGroups.push([kw[0], k, k + 1]);
});
const lines = [...new Set(kept.map((k) => k.line))].sort(
  (a, b) => lowFirst(a).localeCompare(lowFirst(b)) || a.replace(/^~/, "").localeCompare(b.replace(/^~/, "")),
);
const leftIds = [...new Map(left.filter(([id]) => !kept.some((k) => k.id === id) && !ctxKept.some((c) => c.id === id)).map((l) => [l[0], l])).values()];

// A rule's record: flags (1: any case, 2: boundary), the prefix's length and bytes, the kind's
// length and bytes, then its segments to the record's end: 0, length, bytes (a literal) or
// 1, class bits (2 bytes, little-endian), min, max (0: unbounded).
const BITS = { a: 1, A: 2, h: 4, H: 8, 0: 16, _: 32, "-": 64, ".": 128, "+": 256, "=": 512, "~": 1024, "%": 2048 };
const byteStr = (bytes) =>
  'b"' + bytes.map((c) => (c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c ? String.fromCharCode(c) : `\\x${c.toString(16).padStart(2, "0")}`)).join("") + '"';
function record(line, noKind = false) {
  let [p, kind, ...segs] = line.split("\t");
  // the marker's kind is the rule's vendor, the first word of its id (\`gitlab-pat\` ->
  // \`gitlab\`): a shorter table for the lean wasm, the same information for a reader
  kind = noKind ? "" : kind.split("-")[0] === "1password" ? "1password" : kind.split("-")[0];
  const ci = p.startsWith("~");
  const prefix = ci ? p.slice(1) : p;
  const end = segs.at(-1) === "$";
  const out = [(ci ? 1 : 0) | (end ? 2 : 0), prefix.length, ...Buffer.from(prefix), kind.length, ...Buffer.from(kind)];
  for (const s of segs) {
    if (s === "$") continue;
    if (s.startsWith("=")) out.push(0, s.length - 1, ...Buffer.from(s.slice(1)));
    else {
      const [cls, min, max] = s.split(":");
      const bits = [...cls].reduce((m, c) => m | BITS[c], 0);
      if (+min > 255 || +max > 255) throw new Error(`length over 255: ${line}`);
      out.push(1, bits & 255, bits >> 8, +min, +max);
    }
  }
  if (out.length > 255) throw new Error(`record too long: ${line}`);
  return out;
}
const groups = [];
lines.forEach((l, k) => {
  const f = lowFirst(l);
  if (groups.at(-1)?.[0] === f) groups.at(-1)[2] = k + 1;
  else groups.push([f, k, k + 1]);
});

// where each context record starts in CTX (its length byte), and the end
const ctxOff = [0];
for (const c of ctxLines) ctxOff.push(ctxOff.at(-1) + 1 + record(c.line, true).length);
if (ctxOff.at(-1) > 65535) throw new Error("CTX over 64 KB");
const license = fs.readFileSync(path.join(root, "scripts/gitleaks.LICENSE"), "utf8").trim();
const rs = `// @generated by scripts/gen-redact-rules.mjs from gitleaks/gitleaks@${commit}
// config/gitleaks.toml: do not edit by hand (HACKING.md, "The redactor's rules", says how to
// update it). ${lines.length} token rules (${EXTRA.length} of them the forms gitleaks has no rule for, listed
// in the generator) and ${ctxLines.length} context rules from ${rules.length} gitleaks rules; the ${leftIds.length} left out and why
// are listed at the end (the redactor's own readers cover them: src/redact_structure.rs).
//
// The rules are gitleaks' work, used under its licence:
//
${license.split("\n").map((l) => `// ${l}`.trimEnd()).join("\n")}

/// The rules, one record each (ordered by the prefix's first byte in lower case): flags (1:
/// prefix and literals in any case, 2: gitleaks' boundary, no letter or digit may follow), the
/// prefix's length and bytes, the marker kind's length and bytes, then the segments to the
/// record's end: \`0, length, bytes\` (a literal) or \`1, class bits (2 bytes, little-endian),
/// min, max (0: unbounded)\`, the class bits 1 a-z, 2 A-Z, 4 a-f, 8 A-F, 16 0-9, 32 \`_\`,
/// 64 \`-\`, 128 \`.\`, 256 \`+\` \`/\`, 512 \`=\`, 1024 \`~\`, 2048 \`%\`. Each is preceded by the rule
/// as the generator read it: prefix (\`~\`: any case), kind, segments (\`=literal\`,
/// \`class:min:max\`, \`$\` the boundary).
pub(super) const RULES: &[&[u8]] = &[
${lines.map((l) => `    // ${l.replace(/\t/g, " ")}\n    ${byteStr(record(l))},`).join("\n")}
];

/// The rules whose prefix starts with a byte (lower case): (byte, first, end) in [\`RULES\`].
pub(super) const GROUPS: &[(u8, u8, u8)] = &[
${groups.map(([f, a, b]) => `    (b'${f}', ${a}, ${b}),`).join("\n")}
];

/// The context rules (gitleaks' keyword rules: a keyword in the key, then \`=\`, \`:\`, \`=>\` …
/// and a value of a shape), back to back, each its length and then a record as in [\`RULES\`]
/// with no kind (the marker's kind is the keyword), the prefix being the value's literal start
/// (often empty); ordered by their keywords. Each is preceded by its keywords and the rule as
/// the generator read it.
pub(super) const CTX: &[u8] = &[
${ctxLines.map((c) => { const r = record(c.line, true); return `    // [${c.kws.join(" ")}] ${c.line.replace(/\t/g, " ")}\n    ${[r.length, ...r].join(", ")},`; }).join("\n")}
];

/// The keywords of the context rules, back to back (ordered, lower case): length, bytes, then
/// the run of [\`CTX\`] records it names (first and end, as offsets in [\`CTX\`], 2 bytes each,
/// little-endian).
pub(super) const KEYWORDS: &[u8] = ${byteStr(kwRuns.flatMap(([kw, a, b]) => [kw.length, ...Buffer.from(kw), ctxOff[a] & 255, ctxOff[a] >> 8, ctxOff[b] & 255, ctxOff[b] >> 8]))};

/// The keywords that start with a byte: (byte, first, end) as offsets in [\`KEYWORDS\`].
pub(super) const KW_GROUPS: &[(u8, u16, u16)] = &[
${(() => {
  const off = [];
  let at = 0;
  for (const [kw] of kwRuns) { off.push(at); at += kw.length + 5; }
  off.push(at);
  return kwGroups.map(([f, a, b]) => `    (b'${f}', ${off[a]}, ${off[b]}),`).join("\n");
})()}
];

// Left out (id: why):
${leftIds.map(([id, why]) => `// - ${id}: ${why}`).join("\n")}
`;
fs.writeFileSync(path.join(root, "src/redact_rules.rs"), rs);
console.log(`${lines.length} token rules and ${ctxLines.length} context rules (${new Set(ctxLines.map((c) => c.id)).size} gitleaks rules, ${kwRuns.length} keywords) kept from ${rules.length}; ${leftIds.length} left out -> src/redact_rules.rs`);
