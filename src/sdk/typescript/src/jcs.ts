/**
 * RFC 8785 (JSON Canonicalization Scheme) and the event hash (src/site/events.md#event-hash).
 *
 * The event hash is the lowercase hex SHA-256 of the UTF-8 bytes of the canonical form of the stored
 * event without its `hash` and `log_index` members. Numbers are IEEE-754 doubles written as
 * ECMAScript's `Number.prototype.toString` writes them; member names are sorted by their UTF-16
 * code units; strings are escaped as `JSON.stringify` escapes them.
 */

import { createHash } from "node:crypto";

const NOT_HASHED = new Set(["hash", "log_index"]);

/** A value RFC 8785 cannot represent (NaN, an infinity, a lone surrogate, a non-JSON type). */
export class CanonicalizationError extends Error {}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function writeString(s: string): string {
  if (LONE_SURROGATE.test(s)) throw new CanonicalizationError("a lone surrogate has no UTF-8 form");
  return JSON.stringify(s);
}

function write(value: unknown, out: string[]): void {
  if (value === null) {
    out.push("null");
    return;
  }
  switch (typeof value) {
    case "boolean":
      out.push(value ? "true" : "false");
      return;
    case "string":
      out.push(writeString(value));
      return;
    case "number":
      if (!Number.isFinite(value)) throw new CanonicalizationError("NaN and infinities have no JSON form");
      out.push(Object.is(value, -0) ? "0" : String(value));
      return;
    case "object":
      break;
    default:
      throw new CanonicalizationError(`${typeof value} has no JSON form`);
  }
  if (Array.isArray(value)) {
    out.push("[");
    value.forEach((item, i) => {
      if (i) out.push(",");
      write(item, out);
    });
    out.push("]");
    return;
  }
  const obj = value as Record<string, unknown>;
  // The default sort compares UTF-16 code units, which is the order RFC 8785 prescribes.
  const keys = Object.keys(obj).sort();
  out.push("{");
  keys.forEach((k, i) => {
    if (i) out.push(",");
    out.push(writeString(k), ":");
    write(obj[k], out);
  });
  out.push("}");
}

/** The RFC 8785 canonical form of `value` (parsed JSON) as a string. */
export function canonicalize(value: unknown): string {
  const out: string[] = [];
  write(value, out);
  return out.join("");
}

/** The hash of a stored event: SHA-256 of its canonical form without `hash` and `log_index`. */
export function eventHash(event: Record<string, unknown>): string {
  const body: Record<string, unknown> = {};
  for (const k of Object.keys(event)) if (!NOT_HASHED.has(k)) body[k] = event[k];
  return createHash("sha256").update(canonicalize(body), "utf8").digest("hex");
}

/**
 * Parses JSON text as RFC 8785 reads it: UTF-8 only, no duplicate member names, numbers as doubles.
 * Throws a `SyntaxError` when the text is not such JSON. (`JSON.parse` keeps the last of duplicate
 * names silently, so a verifier cannot use it: two readers could see two different events.)
 */
export function parseStrict(data: Uint8Array | string): unknown {
  let text: string;
  if (typeof data === "string") text = data;
  else {
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(data);
    } catch {
      throw new SyntaxError("the text is not valid UTF-8");
    }
  }
  const p = new Parser(text);
  p.ws();
  const v = p.value(0);
  p.ws();
  if (p.i !== text.length) p.fail("text after the JSON value");
  return v;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const MAX_NESTING = 200;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

class Parser {
  i = 0;
  constructor(private readonly s: string) {}

  fail(what: string): never {
    throw new SyntaxError(`${what} at offset ${this.i}`);
  }

  ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.i++;
      else break;
    }
  }

  value(depth: number): unknown {
    if (depth > MAX_NESTING) this.fail("nesting too deep");
    const c = this.s[this.i];
    if (c === "{") return this.object(depth);
    if (c === "[") return this.array(depth);
    if (c === '"') return this.string();
    if (this.s.startsWith("true", this.i)) {
      this.i += 4;
      return true;
    }
    if (this.s.startsWith("false", this.i)) {
      this.i += 5;
      return false;
    }
    if (this.s.startsWith("null", this.i)) {
      this.i += 4;
      return null;
    }
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(this.s);
    if (m === null || m[0].length === 0) this.fail("unexpected character");
    this.i += m[0].length;
    const n = Number(m[0]);
    if (!Number.isFinite(n)) this.fail("a number beyond the range of a double");
    return n;
  }

  object(depth: number): Record<string, unknown> {
    this.i++;
    // defineProperty, so that a "__proto__" member is an own property like any other
    const out: Record<string, unknown> = {};
    this.ws();
    if (this.s[this.i] === "}") {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail("expected a member name");
      const k = this.string();
      if (Object.prototype.hasOwnProperty.call(out, k)) this.fail(`duplicate member name ${JSON.stringify(k)}`);
      this.ws();
      if (this.s[this.i] !== ":") this.fail("expected ':'");
      this.i++;
      this.ws();
      const v = this.value(depth + 1);
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      this.ws();
      const c = this.s[this.i++];
      if (c === "}") return out;
      if (c !== ",") this.fail("expected ',' or '}'");
    }
  }

  array(depth: number): unknown[] {
    this.i++;
    const out: unknown[] = [];
    this.ws();
    if (this.s[this.i] === "]") {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      out.push(this.value(depth + 1));
      this.ws();
      const c = this.s[this.i++];
      if (c === "]") return out;
      if (c !== ",") this.fail("expected ',' or ']'");
    }
  }

  string(): string {
    const s = this.s;
    const start = ++this.i;
    let out = "";
    let from = start;
    for (;;) {
      if (this.i >= s.length) this.fail("unterminated string");
      const c = s.charCodeAt(this.i);
      if (c === 0x22) {
        out += s.slice(from, this.i);
        this.i++;
        return out;
      }
      if (c < 0x20) this.fail("a control character in a string");
      if (c === 0x5c) {
        out += s.slice(from, this.i);
        const e = s[this.i + 1];
        if (e !== undefined && Object.prototype.hasOwnProperty.call(ESCAPES, e)) {
          out += ESCAPES[e];
          this.i += 2;
        } else if (e === "u") {
          const hex = s.slice(this.i + 2, this.i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail("a bad \\u escape");
          out += String.fromCharCode(parseInt(hex, 16));
          this.i += 6;
        } else {
          this.fail("a bad escape");
        }
        from = this.i;
      } else {
        this.i++;
      }
    }
  }
}
