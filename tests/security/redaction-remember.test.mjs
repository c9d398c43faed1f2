// Issue 29, item 7: the secret forms the redactor missed, through the real path a model uses to
// persist text, `knowledge_remember` (option `knowledgeRemember`; the policy build), with the
// installed package's engine API and a vault. Each form is saved as a note's text and as its
// title: no secret may appear in any note, in any note's file name or in the answers; the
// ordinary text around each secret (and a note of commit ids, UUIDs and hashes) is kept.
//
//   npm run build && node --test tests/security/redaction-remember.test.mjs

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { installPacked, quietEnv, tmp, writeFiles, walk } from "./lib/pkg.mjs";

// fake secrets assembled at run time (nothing here for a scanner to flag)
const A = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
function noise(seed, len, alphabet = A) {
  let x = BigInt(seed) * 0x9e3779b97f4a7c15n | 1n;
  const m = (1n << 64n) - 1n;
  let s = "";
  for (let k = 0; k < len; k++) {
    x ^= (x << 13n) & m;
    x ^= x >> 7n;
    x ^= (x << 17n) & m;
    s += alphabet[Number(x % BigInt(alphabet.length))];
  }
  return s;
}
const hex = (seed, len) => noise(seed, len, "0123456789abcdef");
const b64 = (s) => Buffer.from(s).toString("base64");
const v = noise(1, 24);
const v2 = noise(2, 24);
const ghp = `gh${"p"}_${noise(3, 36)}`;

// [form, text, secrets that must go, text that must remain]
const FORMS = [
  ["gitlab glpat-", `token glpat-${noise(4, 20)} here`, [noise(4, 20)], ["token "]],
  ["gitlab glrt-", `runner glrt-${noise(5, 20)}`, [noise(5, 20)], ["runner "]],
  ["yaml |", `password: |\n  ${v}\n  ${v2}\nuser: bob`, [v, v2], ["user: bob"]],
  ["yaml >-", `private_key: >-\n  ${v}\n  ${v2}\nname: x`, [v, v2], ["name: x"]],
  ["next line", `DB_PASSWORD:\n${v}\nDB_USER: app`, [v], ["DB_USER: app"]],
  ["base64", `echo ${b64(`password=${v}`)} | base64 -d`, [b64(`password=${v}`).slice(0, 16)], ["| base64 -d"]],
  ["split token", `${ghp.slice(0, 20)}\n${ghp.slice(20)} next`, [ghp.slice(4, 20), ghp.slice(20)], [" next"]],
  ["mysql -pX", `mysql -u root -p${v} app_db`, [v], ["app_db"]],
  ["sshpass -p", `sshpass -p ${v} ssh deploy@host`, [v], ["ssh deploy@host"]],
  ["docker login -p", `docker login -u bob -p ${v} registry.example.com`, [v], ["registry.example.com"]],
  ["SECRET_KEY_BASE", `SECRET_KEY_BASE=${hex(6, 128)}`, [hex(6, 128)], ["SECRET_KEY_BASE="]],
  ["API_KEY_2", `API_KEY_2=${v}`, [v], ["API_KEY_2="]],
  ["password1", `password1: ${v}`, [v], ["password1: "]],
  ["encryption_key", `encryption_key = "${v}"`, [v], ["encryption_key"]],
  ["SENTRY_DSN", `SENTRY_DSN=https://${hex(7, 32)}@o1.ingest.sentry.io/2`, [hex(7, 32)], ["SENTRY_DSN="]],
  ["nested JSON", `{"secrets": {"db": "${v}"}, "name": "app"}`, [v], [`"name": "app"`]],
  ["nested YAML", `secrets:\n  db: ${v}\nname: app`, [v], ["name: app"]],
  ["bare AWS secret", `key ${noise(8, 18)}/${noise(9, 10)}+${noise(10, 10)} ok`, [`${noise(8, 18)}/${noise(9, 10)}+${noise(10, 10)}`], [" ok"]],
  ["npm_", `use npm_${noise(11, 36)} now`, [noise(11, 36)], [" now"]],
  ["SendGrid", `SG.${noise(12, 22)}.${noise(13, 43)}`, [noise(13, 43)], []],
  ["Vault hvs.", `hvs.${noise(14, 95)}`, [noise(14, 95)], []],
  ["DigitalOcean", `dop_v1_${hex(15, 64)}`, [hex(15, 64)], []],
  ["Telegram", `bot 123456789:AA${noise(16, 33)}`, [noise(16, 33)], ["bot "]],
  ["zero-width key", `PASS\u200bWORD=${v}`, [v], []],
  ["AWS access key id", `AKIA${noise(17, 16).toUpperCase()}`, [noise(17, 16).toUpperCase()], []],
  ["URL credentials", `https://bob:${v}@h.io/r.git`, [v], ["@h.io/r.git"]],
];

const KEEP = [
  "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
  "123e4567-e89b-12d3-a456-426614174000",
  "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  "password_field = form.fields[\"password\"]",
  "tokenizer = AutoTokenizer.from_pretrained(\"bert-base-uncased\")",
  "ssh -p 2222 deploy@host",
];

let pkg;
let vault;
const answers = [];

before(async () => {
  pkg = installPacked("hookwise-sec-remember-");
  const cwd = writeFiles(tmp("hookwise-sec-remember-proj-"), {
    ".opencode/hookwise.json": JSON.stringify({ knowledgeRemember: true }),
    "README.md": "# demo\n",
  });
  vault = writeFiles(tmp("hookwise-sec-remember-vault-"), { "auth.md": "# Auth\n\n[[auth]] notes.\n" });
  const { createEngine } = await pkg.engine();
  const engine = await createEngine({ cwd, env: quietEnv({ HOOKWISE_VAULT: vault }), watch: false });
  assert.ok(engine.tools().some((t) => t.name === "knowledge_remember"), "knowledge_remember is offered");
  for (const [k, [form, text]] of FORMS.entries()) {
    answers.push([form, await engine.callTool("knowledge_remember", { title: `note ${k}`, text }, "s")]);
    answers.push([form, await engine.callTool("knowledge_remember", { title: text.split("\n").join(" "), text: "t" }, "s")]);
  }
  answers.push(["keep", await engine.callTool("knowledge_remember", { title: "ordinary", text: KEEP.join("\n") }, "s")]);
  await engine.dispose();
});
after(() => pkg?.cleanup());

const notes = () => walk(path.join(vault, "hookwise")).map((f) => [f, fs.readFileSync(path.join(vault, "hookwise", f), "utf8")]);

test("every note was written", () => {
  const failed = answers.filter(([, a]) => !/Saved as/.test(a.text));
  assert.deepEqual(failed.map(([f, a]) => `${f}: ${a.text}`), []);
  assert.equal(notes().length, FORMS.length * 2 + 1);
});

test("no secret in any note, file name or answer; the text around it is kept", () => {
  const all = notes();
  const leaks = [];
  for (const [k, [form, text, secrets, remain]] of FORMS.entries()) {
    for (const s of secrets) {
      for (const [f, body] of all) {
        if (body.includes(s) || f.includes(s.toLowerCase()) || f.includes(s)) leaks.push(`${form}: in ${f}`);
      }
      for (const [, a] of answers) if (a.text.includes(s)) leaks.push(`${form}: in an answer`);
    }
    const own = all.find(([, body]) => body.startsWith(`# note ${k}\n`));
    assert.ok(own, `${form}: its note`);
    for (const k of remain) assert.ok(own[1].includes(k), `${form}: lost ${JSON.stringify(k)}: ${own[1]}`);
    assert.match(own[1], /\[REDACTED:/, `${form}: ${text}`);
  }
  assert.deepEqual(leaks, []);
});

test("commit ids, UUIDs, hashes and code are kept byte for byte", () => {
  const [, body] = notes().find(([, b]) => b.startsWith("# ordinary\n"));
  for (const k of KEEP) assert.ok(body.includes(k), `lost: ${k}\n${body}`);
});
