/**
 * C2SP signed notes and tlog checkpoints, as the service publishes them (src/site/checkpoints.md).
 *
 * A note is UTF-8 text without control characters other than newline: the signed text (ending in a
 * newline), a blank line, then signature lines `— <key name> <base64(4-byte key id || signature)>`.
 * A checkpoint's text is its origin, its tree size in decimal and its root in base64, one a line.
 * Base64 must be canonical (it re-encodes to the same text), so one changed byte always changes a
 * value. Ed25519 signatures are checked with `node:crypto`.
 */

import { createHash, createPublicKey, verify as cryptoVerify } from "node:crypto";

const DASH = "\u2014 ";
const DECIMAL = /^(0|[1-9][0-9]{0,18})$/;
const TYPE_ED25519 = 0x01;
/** The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410), before the 32 key bytes. */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/** Malformed note, checkpoint, proof or key text. */
export class NoteError extends Error {}

/** Standard padded base64 that re-encodes to the same text, or null. */
export function decodeB64(text: string): Buffer | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return null;
  const raw = Buffer.from(text, "base64");
  return raw.toString("base64") === text ? raw : null;
}

function decimal(text: string): number | null {
  if (!DECIMAL.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null; // sizes past 2^53 do not occur; refused rather than rounded
}

export interface Signature {
  name: string;
  keyId: Buffer;
  signature: Buffer;
}

export interface Note {
  text: string;
  signatures: Signature[];
}

function validName(name: string): boolean {
  if (!name) return false;
  for (const ch of name) {
    const c = ch.codePointAt(0)!;
    if (ch === "+" || /\s/u.test(ch) || c < 0x20 || (c >= 0x7f && c <= 0x9f)) return false;
  }
  return true;
}

/** Parses a signed note without checking signatures. */
export function parseNote(data: Buffer): Note {
  let s: string;
  try {
    s = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(data);
  } catch {
    throw new NoteError("the checkpoint is not valid UTF-8");
  }
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) < 0x20 && s[i] !== "\n") throw new NoteError(`the checkpoint has a control character at offset ${i}`);
  }
  const split = s.lastIndexOf("\n\n");
  if (split < 0) throw new NoteError("the checkpoint has no blank line before its signatures");
  const text = s.slice(0, split + 1);
  const rest = s.slice(split + 2);
  if (!rest || !rest.endsWith("\n")) {
    throw new NoteError("the checkpoint's signature lines must follow the blank line and end in a newline");
  }
  const signatures: Signature[] = [];
  for (const line of rest.slice(0, -1).split("\n")) {
    if (!line.startsWith(DASH)) throw new NoteError(`a signature line must start with an em dash and a space: ${JSON.stringify(line)}`);
    const body = line.slice(DASH.length);
    const sp = body.indexOf(" ");
    const name = sp < 0 ? body : body.slice(0, sp);
    const raw = sp < 0 ? null : decodeB64(body.slice(sp + 1));
    if (!validName(name) || raw === null || raw.length <= 4) throw new NoteError(`bad key name or signature in ${JSON.stringify(line)}`);
    signatures.push({ name, keyId: raw.subarray(0, 4), signature: raw.subarray(4) });
  }
  return { text, signatures };
}

export interface Checkpoint {
  origin: string;
  size: number;
  root: Buffer;
  note: Note;
}

/** Parses a signed checkpoint (tlog-checkpoint v1) without checking signatures. */
export function parseCheckpoint(data: Buffer): Checkpoint {
  const note = parseNote(data);
  const lines = note.text.slice(0, -1).split("\n");
  if (lines.length < 3 || !lines[0]) throw new NoteError("a checkpoint's text is its origin, tree size and root hash, one a line");
  const size = decimal(lines[1]);
  const root = decodeB64(lines[2]);
  if (size === null) throw new NoteError(`the checkpoint's tree size ${JSON.stringify(lines[1])} is not a decimal number`);
  if (root === null || root.length !== 32) throw new NoteError(`the checkpoint's root ${JSON.stringify(lines[2])} is not base64 of 32 bytes`);
  if (lines.slice(3).some((l) => !l)) throw new NoteError("a checkpoint's extension lines may not be empty");
  return { origin: lines[0], size, root, note };
}

export interface TlogProof {
  extra: Buffer | null;
  index: number;
  path: Buffer[];
  checkpoint: Buffer;
}

const PROOF_HEADER = Buffer.from("c2sp.org/tlog-proof@v1\n");

/** Parses a `c2sp.org/tlog-proof@v1` file (the checkpoint is left as bytes). */
export function parseTlogProof(data: Buffer): TlogProof {
  if (!data.subarray(0, PROOF_HEADER.length).equals(PROOF_HEADER)) {
    throw new NoteError("the proof does not start with the line c2sp.org/tlog-proof@v1");
  }
  const rest = data.subarray(PROOF_HEADER.length);
  const sep = rest.indexOf("\n\n");
  if (sep < 0) throw new NoteError("the proof has no blank line before its checkpoint");
  const headBytes = rest.subarray(0, sep);
  if (headBytes.some((b) => b > 0x7f)) throw new NoteError("the proof's header lines are not ASCII");
  const lines = headBytes.toString("latin1").split("\n");
  const checkpoint = rest.subarray(sep + 2);
  let extra: Buffer | null = null;
  if (lines.length && lines[0].startsWith("extra ")) {
    extra = decodeB64(lines.shift()!.slice(6));
    if (extra === null) throw new NoteError("the proof's extra line is not canonical base64");
  }
  if (!lines.length || !lines[0].startsWith("index ")) throw new NoteError("the proof has no index line");
  const index = decimal(lines.shift()!.slice(6));
  if (index === null) throw new NoteError("the proof's index is not a decimal number");
  const path: Buffer[] = [];
  for (const line of lines) {
    const h = decodeB64(line);
    if (h === null || h.length !== 32 || path.length === 63) {
      throw new NoteError(`each proof line must be base64 of one 32-byte hash: ${JSON.stringify(line)}`);
    }
    path.push(h);
  }
  return { extra, index, path, checkpoint };
}

export interface VerifierKey {
  name: string;
  keyId: Buffer;
  publicKey: Buffer;
  text: string;
}

/** Parses a note verifier key `<name>+<8 hex key id>+<base64(0x01 || 32-byte Ed25519 key)>`. */
export function parseVkey(text: string): VerifierKey {
  const t = text.trim();
  const a = t.indexOf("+");
  const b = a < 0 ? -1 : t.indexOf("+", a + 1);
  // base64 may itself hold '+'; the name may not
  const parts = a < 0 || b < 0 ? [] : [t.slice(0, a), t.slice(a + 1, b), t.slice(b + 1)];
  if (parts.length !== 3 || !validName(parts[0]) || !/^[0-9a-f]{8}$/.test(parts[1])) {
    throw new NoteError(`a log key has the form <name>+<8 hex key id>+<base64 key>, not ${JSON.stringify(text)}`);
  }
  const raw = decodeB64(parts[2]);
  if (raw === null || raw.length !== 33 || raw[0] !== TYPE_ED25519) {
    throw new NoteError(`the log key is not an Ed25519 note key: ${JSON.stringify(text)}`);
  }
  const keyId = createHash("sha256").update(Buffer.from(parts[0] + "\n", "utf8")).update(raw).digest().subarray(0, 4);
  if (keyId.toString("hex") !== parts[1]) {
    throw new NoteError(`the log key's id ${parts[1]} does not match its name and public key`);
  }
  return { name: parts[0], keyId, publicKey: raw.subarray(1), text: t };
}

/** Ed25519 verification with `node:crypto`. */
export function verifyEd25519(publicKey: Buffer, signature: Buffer, message: Buffer): boolean {
  try {
    const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, publicKey]), format: "der", type: "spki" });
    return cryptoVerify(null, message, key, signature);
  } catch {
    return false;
  }
}

/** The note's signature by `key` (same name and key id), and the number of such lines. */
export function findSignature(note: Note, key: VerifierKey): [Signature | null, number] {
  const matches = note.signatures.filter((s) => s.name === key.name && s.keyId.equals(key.keyId));
  return [matches[0] ?? null, matches.length];
}
