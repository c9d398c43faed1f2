// Argument readers. CLI payloads follow maenifold's PayloadReader rules; MCP arguments follow the
// C# SDK's binding (camelCase names, exact match, JSON types).

/** .NET ArgumentException: CLI prints `Error invoking X: msg` (INVALID_ARGUMENT with --json). */
export class ArgumentError extends Error {}

/** Bad JSON payload: CLI prints `Error invoking X: msg` (INVALID_PAYLOAD with --json). */
export class PayloadJsonError extends Error {}

/** McpException: over MCP the message is surfaced ("An error occurred invoking 'x': msg"). */
export class McpToolError extends Error {}

/** JsonValueKind name of a JSON value, as .NET prints it. */
export function valueKind(v) {
  if (v === null) return 'Null';
  if (Array.isArray(v)) return 'Array';
  switch (typeof v) {
    case 'string':
      return 'String';
    case 'number':
      return 'Number';
    case 'boolean':
      return v ? 'True' : 'False';
    default:
      return 'Object';
  }
}

function wrongKind(expected, v) {
  return new Error(
    `The requested operation requires an element of type '${expected}', but the target element has type '${valueKind(v)}'.`,
  );
}

const has = (p, name) => Object.prototype.hasOwnProperty.call(p, name);

/** Rejects non-object payloads the way JsonElement.TryGetProperty does. */
export function requireObject(payload) {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw wrongKind('Object', payload);
}

/** Required (by default) string; missing, non-string or blank is an ArgumentError. */
export function getString(p, name, required = true) {
  if (!has(p, name)) {
    if (required) throw new ArgumentError(`Required property '${name}' is missing from payload.`);
    return '';
  }
  const v = p[name];
  if (typeof v !== 'string') throw new ArgumentError(`Property '${name}' must be a string, but found ${valueKind(v)}.`);
  if (required && !v.trim()) throw new ArgumentError(`Required property '${name}' cannot be empty or whitespace.`);
  return v;
}

/** Optional string read with GetString(): null when absent or JSON null, error for other kinds. */
export function getOptString(p, name) {
  if (!has(p, name) || p[name] === null) return null;
  if (typeof p[name] !== 'string') throw wrongKind('String', p[name]);
  return p[name];
}

/** Bool or "true"/"false" (any case); anything else gives the default. */
export function getBool(p, name, def = false) {
  if (!has(p, name)) return def;
  const v = p[name];
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    if (t === 'true') return true;
    if (t === 'false') return false;
  }
  return def;
}

const INT32 = (n) => Number.isInteger(n) && n >= -2147483648 && n <= 2147483647;

/** Integer: a number or a numeric string; other kinds or unparseable strings give the default. */
export function getInt(p, name, def = 0) {
  if (!has(p, name)) return def;
  const v = p[name];
  if (typeof v === 'number') {
    if (!INT32(v)) throw new Error('One of the identified items was in an invalid format.');
    return v;
  }
  if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) {
    const n = Number(v.trim());
    return INT32(n) ? n : def;
  }
  return def;
}

export function getDouble(p, name, def = 0) {
  if (!has(p, name)) return def;
  const v = p[name];
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(v)) return Number(v);
  return def;
}

/** Array of strings (non-strings dropped); anything else is null. */
export function getStringArray(p, name) {
  if (!has(p, name)) return null;
  const v = p[name];
  if (Array.isArray(v)) return v.filter((x) => typeof x === 'string');
  return null;
}

/** `learn` is read with GetBoolean(): a non-boolean value is an error. */
export function getLearn(p) {
  if (!has(p, 'learn')) return false;
  if (typeof p.learn !== 'boolean') throw wrongKind('Boolean', p.learn);
  return p.learn;
}

/**
 * .NET TimeSpan.TryParse (invariant): `d`, `hh:mm`, `hh:mm:ss`, `d.hh:mm[:ss[.fffffff]]`, optional
 * leading '-'. Returns milliseconds or null when unparseable.
 */
export function parseTimeSpan(s) {
  if (typeof s !== 'string') return null;
  const m = s.match(/^\s*(-)?(?:(\d{1,8})|(?:(\d{1,8})\.)?(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,7}))?)?)\s*$/);
  if (!m) return null;
  const [, neg, onlyDays, days, hh, mm, ss, frac] = m;
  let ms;
  if (onlyDays !== undefined) {
    ms = Number(onlyDays) * 86400000;
  } else {
    const h = Number(hh);
    const mi = Number(mm);
    const se = ss === undefined ? 0 : Number(ss);
    if (h > 23 || mi > 59 || se > 59) return null;
    ms = (Number(days || 0) * 86400 + h * 3600 + mi * 60 + se) * 1000;
    if (frac) ms += Number(`0.${frac}`) * 1000;
  }
  if (ms > 10675199 * 86400000) return null;
  return neg ? -ms : ms;
}

/**
 * Bind MCP `arguments` against a parameter list [{ name, type, required, default }]. Types:
 * string, integer, number, boolean, stringArray, enum (values), timespan. A failure is a plain
 * Error, which the SDK reports without detail ("An error occurred invoking 'x'.").
 */
export function bindMcpArguments(args, params) {
  if (args === undefined || args === null) args = {};
  if (typeof args !== 'object' || Array.isArray(args)) throw new Error('arguments must be an object');
  const out = {};
  for (const prm of params) {
    const present = has(args, prm.name);
    const v = args[prm.name];
    if (!present) {
      if (prm.required) throw new Error(`The arguments dictionary is missing a value for the required parameter '${prm.name}'.`);
      out[prm.name] = prm.default ?? null;
      continue;
    }
    const bad = () => new Error(`The JSON value could not be converted for parameter '${prm.name}'.`);
    if (v === null) {
      if (['string', 'stringArray', 'timespan'].includes(prm.type) || prm.nullable) {
        if (prm.required) throw bad();
        out[prm.name] = null;
        continue;
      }
      throw bad();
    }
    switch (prm.type) {
      case 'string':
        if (typeof v !== 'string') throw bad();
        out[prm.name] = v;
        break;
      case 'integer': {
        const n = typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v) ? Number(v) : v;
        if (!INT32(n)) throw bad();
        out[prm.name] = n;
        break;
      }
      case 'number': {
        const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
        if (typeof n !== 'number' || Number.isNaN(n)) throw bad();
        out[prm.name] = n;
        break;
      }
      case 'boolean':
        if (typeof v !== 'boolean') throw bad();
        out[prm.name] = v;
        break;
      case 'stringArray':
        if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw bad();
        out[prm.name] = v;
        break;
      case 'enum': {
        const hit =
          typeof v === 'string'
            ? prm.values.find((x) => x.toLowerCase() === v.trim().toLowerCase())
            : Number.isInteger(v)
              ? prm.values[v]
              : undefined;
        if (!hit) throw bad();
        out[prm.name] = hit;
        break;
      }
      case 'timespan': {
        const ms = parseTimeSpan(v);
        if (ms === null) throw bad();
        out[prm.name] = ms;
        break;
      }
      default:
        out[prm.name] = v;
    }
  }
  return out;
}
