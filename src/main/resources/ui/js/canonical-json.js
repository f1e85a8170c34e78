// RFC 8785 (JSON Canonicalization Scheme) for values produced by JSON.parse.
//
// Contract: canonicalize(JSON.parse(text)) is the exact string the service hashed (src/site/events.md#event-hash)
// whenever the service accepted the text. Why this is enough here:
// - numbers: RFC 8785 serialises a number as ECMAScript's Number.prototype.toString does, which is
//   String(n) in this very language; the service rejects numbers that do not survive a round trip
//   through an IEEE-754 double, so JSON.parse loses nothing the hash covers;
// - strings: RFC 8785 escapes exactly as ECMAScript's JSON.stringify does (\b \t \n \f \r \" \\ and
//   \u00xx in lower case for the other control characters; everything else as is);
// - object keys: sorted by UTF-16 code units, which is what Array.prototype.sort compares by default.
// Tested against the service's shared vectors (vectors/event-hashes.json) in a real browser.

/** The RFC 8785 canonical form of a JSON value, as a string; throws TypeError for anything JSON cannot hold. */
export function canonicalize(value) {
  if (value === null) {
    return 'null';
  }
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) {
        throw new TypeError(`RFC 8785 has no form for the number ${value}`);
      }
      return String(value); // String(-0) is "0", as RFC 8785 requires
    case 'string':
      return JSON.stringify(value);
    case 'object':
      if (Array.isArray(value)) {
        return `[${value.map(canonicalize).join(',')}]`;
      }
      return `{${Object.keys(value).sort()
        .map((key) => `${JSON.stringify(key)}:${canonicalize(value[key])}`)
        .join(',')}}`;
    default:
      throw new TypeError(`RFC 8785 has no form for a value of type ${typeof value}`);
  }
}

/** The UTF-8 bytes of the canonical form: what SHA-256 is computed over. */
export function canonicalBytes(value) {
  return new TextEncoder().encode(canonicalize(value));
}
