/**
 * Turning arbitrary JavaScript values into JSON the service accepts (src/site/events.md#accepted-fields of
 * the trailproof documentation): exact where JSON can hold the value exactly, a string otherwise.
 */

const MAX_DEPTH = 60;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The current time as RFC 3339 UTC (milliseconds: the resolution of the JavaScript clock). */
export function utcNow(): string {
  return new Date().toISOString();
}

/** `s` with every lone surrogate (which has no UTF-8 form; the service refuses it) made U+FFFD. */
export function wellFormed(s: string): string {
  return s.replace(LONE_SURROGATE, "\uFFFD");
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * A JSON value for `value`, following `JSON.stringify` where it is exact and faithful and otherwise:
 * non-finite numbers become their string (`"NaN"`, `"Infinity"`); a `bigint` a number when a double
 * holds it exactly, its decimal string otherwise; bytes (`Uint8Array`, `Buffer`, `ArrayBuffer`)
 * base64; `Set` an array; `Map` an object; an `Error` `"Name: message"`; a `Date` its ISO string;
 * lone surrogates U+FFFD; a cycle or nesting past 60 levels a string. `undefined`, functions and
 * symbols are left out of objects and become null in arrays, as `JSON.stringify` does.
 */
export function jsonable(value: unknown, depth = 0, seen: Set<object> = new Set()): unknown {
  switch (typeof value) {
    case "string":
      return wellFormed(value);
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : String(value);
    case "bigint":
      return value >= -(2n ** 53n) && value <= 2n ** 53n ? Number(value) : value.toString();
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
  }
  if (value === null) return null;
  const obj = value as object;
  if (depth >= MAX_DEPTH) return wellFormed(safeString(obj));
  if (seen.has(obj)) return "[Circular]";
  if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? "Invalid Date" : obj.toISOString();
  if (obj instanceof Uint8Array) return Buffer.from(obj.buffer, obj.byteOffset, obj.byteLength).toString("base64");
  if (obj instanceof ArrayBuffer) return Buffer.from(obj).toString("base64");
  if (obj instanceof Error) return wellFormed(obj.message ? `${obj.name}: ${obj.message}` : obj.name);
  seen.add(obj);
  try {
    if (typeof (obj as { toJSON?: unknown }).toJSON === "function") {
      let out: unknown;
      try {
        out = (obj as { toJSON: () => unknown }).toJSON();
      } catch {
        return wellFormed(safeString(obj));
      }
      return jsonable(out, depth + 1, seen);
    }
    if (Array.isArray(obj) || obj instanceof Set) {
      const out: unknown[] = [];
      for (const item of obj) {
        const v = jsonable(item, depth + 1, seen);
        out.push(v === undefined ? null : v);
      }
      return out;
    }
    if (ArrayBuffer.isView(obj)) return Array.from(obj as unknown as ArrayLike<number>, (n) => jsonable(n));
    const out: Record<string, unknown> = {};
    const entries: Iterable<[unknown, unknown]> =
      obj instanceof Map ? obj.entries() : Object.entries(obj as Record<string, unknown>);
    for (const [k, item] of entries) {
      const v = jsonable(item, depth + 1, seen);
      if (v !== undefined) out[wellFormed(String(k))] = v;
    }
    return out;
  } finally {
    seen.delete(obj);
  }
}

function safeString(v: object): string {
  try {
    return String(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
}

/**
 * True when `value` is already JSON that `JSON.stringify` writes faithfully (lone surrogates aside,
 * which the caller checks in the serialized text): the common case, checked without copying.
 */
export function isPlain(value: unknown, depth = 0): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      if (v === undefined || !isPlain(v, depth + 1)) return false;
    }
    return true;
  }
  if (!isPlainObject(value as object)) return false;
  for (const k in value as Record<string, unknown>) {
    if (!Object.prototype.hasOwnProperty.call(value, k)) continue;
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined && !isPlain(v, depth + 1)) return false;
  }
  return true;
}

/**
 * A JSON object for `value`: a plain object as is, anything else as `{"value": ...}`. Plain JSON
 * data is used as is (not copied) unless `copy`; anything else goes through `jsonable`.
 */
export function asObject(value: unknown, copy = false): Record<string, unknown> {
  const v = !copy && isPlain(value) ? value : jsonable(value);
  if (v !== null && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  return { value: v === undefined ? null : v };
}

/** Serialized JSON text may hold a lone surrogate escape (`JSON.stringify` writes them as `\udXXX`). */
export function mayHoldLoneSurrogate(json: string): boolean {
  return /\\ud[89a-f][0-9a-f]{2}/.test(json);
}
