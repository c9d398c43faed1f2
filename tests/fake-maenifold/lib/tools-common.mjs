// Helpers the fake's tools share: dates, hints, JSON envelopes, query terms, help text and
// the parameter shorthand of the registry (tools.mjs).


const pad = (n, w = 2) => String(n).padStart(w, '0');

/** "yyyy-MM-dd HH:mm" in local time (set TZ for stable output). */
export function localDisplay(date) {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function utcStamp(date) {
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
}

export function parseDate(s) {
  if (typeof s !== 'string' || !s.trim()) return null;
  const d = new Date(s.trim());
  return Number.isNaN(d.getTime()) ? null : d;
}

/** Last-indexed time of a memory file: front matter `modified`, else the file's mtime. */
export function lastIndexed(f) {
  return parseDate(f.frontmatter.modified) || f.mtime;
}

export const withHint = (result, tool, hint) => `${result}\n💡 ${hint} Run GetHelp("${tool}") for complete documentation.`;
export const withNextSteps = (result, ...tools) => `${result}\n💡 Next: Consider using ${tools.join(', ')} for related operations.`;

export const ok = (data) => JSON.stringify({ success: true, data, error: null });
export const fail = (code, message) => JSON.stringify({ success: false, data: null, error: { code, message } });

const STOPWORDS = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with we you your our from'.split(
    ' ',
  ),
);

export function informativeTerms(query) {
  if (!query || !query.trim()) return [];
  return query
    .toLowerCase()
    .split(' ')
    .map((t) => t.trim())
    .filter((t) => t && !STOPWORDS.has(t));
}

export function helpText(tool) {
  const lines = [`# ${tool.name}`, '', tool.description, '', '## Parameters', ''];
  for (const p of tool.params) {
    const req = p.required ? 'required' : `optional, default ${JSON.stringify(p.default ?? null)}`;
    lines.push(`- \`${p.name}\` (${p.type === 'stringArray' ? 'string[]' : p.type}, ${req}): ${p.description}`);
  }
  lines.push('', '## Notes', '', 'This help text comes from the fake maenifold used in hookwise tests.');
  return lines.join('\n');
}

export const P = (name, type, description, extra = {}) => ({ name, type, description, required: false, ...extra });
export const LEARN = P('learn', 'boolean', 'Return help documentation instead of executing', { default: false });
