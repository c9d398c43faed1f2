// The published TypeScript option types, generated from the options' one source of truth,
// schema/hookwise.schema.json (json-schema-to-typescript): a key the schema gains is in the
// types of the next build, and a key it does not have is a type error (the schema forbids
// additional properties). Used by scripts/build.mjs; `node scripts/options-types.mjs` prints it.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export async function optionsTypes() {
  const schema = JSON.parse(fs.readFileSync(path.join(root, "schema/hookwise.schema.json"), "utf8"));
  // the root type's name in the package (the schema's title names the file format)
  schema.title = "HookwisePluginOptions";
  const body = await compile(schema, "HookwisePluginOptions", {
    bannerComment:
      "/* Generated from schema/hookwise.schema.json by scripts/options-types.mjs at build: do not edit. */",
    additionalProperties: false,
    strictIndexSignatures: true,
    format: true,
  });
  return body;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(await optionsTypes());
}
