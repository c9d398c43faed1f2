// A small JSON Schema checker for the keywords the shared Agent Trace v0.1.0 schema uses
// ($ref to $defs, type, required, properties, items, enum, pattern, minimum, maxLength and
// the formats uuid, date-time, uri). An unknown keyword with validation meaning fails loudly,
// so a schema change cannot pass unchecked.
import fs from "node:fs";

// the shared schema where `shared/` sits beside the repository (CI), else the vendored copy
// (which a Rust test keeps equal to it)
export const SCHEMA_PATH = new URL("../../../shared/schemas/agent-trace-record-v0.1.0.schema.json", import.meta.url);
const VENDORED = new URL("../../src/governance/agent-trace-record-v0.1.0.schema.json", import.meta.url);

export function loadSchema() {
  return JSON.parse(fs.readFileSync(fs.existsSync(SCHEMA_PATH) ? SCHEMA_PATH : VENDORED, "utf8"));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const IGNORED = new Set(["$schema", "$id", "title", "description", "$defs"]);

/** The problems of `value` against `schema` (empty: valid). */
export function validate(value, schema = loadSchema()) {
  const errs = [];
  check(schema, schema, value, "$", errs);
  return errs;
}

function check(root, s, v, at, errs) {
  for (const [k, x] of Object.entries(s)) {
    switch (k) {
      case "$ref": {
        const name = /^#\/\$defs\/(.+)$/.exec(x)[1];
        check(root, root.$defs[name], v, at, errs);
        break;
      }
      case "type": {
        const ok = { object: () => v !== null && typeof v === "object" && !Array.isArray(v), array: () => Array.isArray(v), string: () => typeof v === "string", integer: () => Number.isInteger(v) }[x];
        if (!ok) throw new Error(`type ${x} not supported`);
        if (!ok()) errs.push(`${at}: not ${x}`);
        break;
      }
      case "required":
        for (const r of x) if (v === null || typeof v !== "object" || !(r in v)) errs.push(`${at}: missing ${r}`);
        break;
      case "properties":
        if (v && typeof v === "object") for (const [p, ps] of Object.entries(x)) if (p in v) check(root, ps, v[p], `${at}.${p}`, errs);
        break;
      case "items":
        if (Array.isArray(v)) v.forEach((e, i) => check(root, x, e, `${at}[${i}]`, errs));
        break;
      case "enum":
        if (!x.includes(v)) errs.push(`${at}: ${JSON.stringify(v)} not in ${JSON.stringify(x)}`);
        break;
      case "pattern":
        if (typeof v === "string" && !new RegExp(x, "u").test(v)) errs.push(`${at}: does not match ${x}`);
        break;
      case "minimum":
        if (typeof v === "number" && v < x) errs.push(`${at}: below ${x}`);
        break;
      case "maxLength":
        if (typeof v === "string" && [...v].length > x) errs.push(`${at}: longer than ${x}`);
        break;
      case "format": {
        const ok = { uuid: (t) => UUID.test(t), "date-time": (t) => DATE_TIME.test(t), uri: (t) => { try { new URL(t); return true; } catch { return false; } } }[x];
        if (!ok) throw new Error(`format ${x} not supported`);
        if (typeof v === "string" && !ok(v)) errs.push(`${at}: not a ${x}`);
        break;
      }
      default:
        if (!IGNORED.has(k)) throw new Error(`schema keyword ${k} not supported`);
    }
  }
}
