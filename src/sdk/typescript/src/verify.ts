/**
 * Local verification of a stored event (src/site/typescript-sdk.md#verification): its RFC 8785 hash, its
 * RFC 9162 inclusion under a signed checkpoint, the checkpoint's Ed25519 signature by the log's key,
 * and the checkpoint's consistency with the last one this spool directory trusted. The trust file
 * is the Python SDK's (`<spool dir>/trusted-checkpoints.json`), so both SDKs share what they trust.
 */

import * as fs from "node:fs";
import * as path from "node:path";

import type { Client, Receipt } from "./client.js";
import { eventHash, parseStrict } from "./jcs.js";
import { checkConsistency, leafHash, rootFromInclusion } from "./merkle.js";
import {
  type Checkpoint,
  NoteError,
  type VerifierKey,
  findSignature,
  parseCheckpoint,
  parseTlogProof,
  parseVkey,
  verifyEd25519,
} from "./note.js";
import { NoAnswer, errorMessage, request } from "./transport.js";

/**
 * The outcome of `client.verify`. `ok` is true when every check that ran passed; `problems` lists,
 * one sentence each, what failed (empty when `ok`). `signatureChecked` says whether the
 * checkpoint's signature was checked; `notes` says what was not checked or was trusted without
 * proof (for example a log key trusted on first use). `treeSize` and `root` are the checkpoint's.
 */
export class Verification {
  ok = false;
  signatureChecked = false;
  treeSize: number | null = null;
  root: string | null = null;
  origin: string | null = null;
  eventId: string | null = null;
  eventHash: string | null = null;
  erased: Record<string, unknown> | null = null;
  problems: string[] = [];
  notes: string[] = [];

  /** @internal */
  finish(): Verification {
    this.ok = this.problems.length === 0;
    return this;
  }
}

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Checks, offline, an event as `GET /v1/events/{id}` returns it against its `c2sp.org/tlog-proof@v1`
 * (`GET /v1/merkle/proof?format=tlog-proof`) and the log's verifier key. Without the key, the
 * signature is not checked and a note says so.
 */
export function checkEventProof(
  eventJson: Buffer,
  tlogProof: Buffer,
  logKey: string | VerifierKey | null,
  expectedId: string | null = null,
  expectedHash: string | null = null,
): Verification {
  const v = new Verification();
  let digest: string | null = null;
  let logIndex: number | null = null;
  let event: Record<string, unknown> | null = null;
  try {
    const parsed = parseStrict(eventJson);
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new SyntaxError("not a JSON object");
    event = parsed as Record<string, unknown>;
  } catch (e) {
    v.problems.push(`the event is not valid JSON: ${(e as Error).message}`);
  }
  if (event !== null) {
    v.eventId = typeof event.id === "string" ? event.id : null;
    const stated = event.hash;
    const li = event.log_index;
    logIndex = typeof li === "number" && Number.isSafeInteger(li) && li >= 0 ? li : null;
    if (logIndex === null) v.problems.push("the event has no valid log_index");
    const erased = event.erased;
    if (erased !== undefined && erased !== null) {
      // Erased content (src/site/erasure.md): the hash cannot be recomputed; the hash as committed is what the
      // receipt, the proof and the tree are checked against.
      v.erased = typeof erased === "object" && !Array.isArray(erased) ? (erased as Record<string, unknown>) : {};
      if (typeof stated === "string" && HEX64.test(stated)) {
        digest = stated;
        v.notes.push(
          `the event's content was erased (erasure ${String(v.erased.erasure_id)} at ${String(v.erased.at)}): its hash was not ` +
            "recomputed; the hash as committed was checked against the proof and the tree (client.verify also checks the " +
            "erasure event that names it)",
        );
      } else {
        v.problems.push(`the erased event's hash field ${JSON.stringify(stated)} is not a SHA-256 in hex`);
      }
    } else {
      try {
        digest = eventHash(event);
      } catch (e) {
        v.problems.push(`the event cannot be canonicalized: ${(e as Error).message}`);
      }
    }
    if (digest !== null && stated !== digest) {
      v.problems.push(`the event's content hashes to ${digest}, but its hash field says ${JSON.stringify(stated)}`);
    }
    v.eventHash = digest;
    if (expectedId !== null && v.eventId !== expectedId) {
      v.problems.push(`the service returned event ${JSON.stringify(v.eventId)} instead of ${expectedId}`);
    }
    if (expectedHash !== null && digest !== null && digest !== expectedHash) {
      v.problems.push(`the event's hash ${digest} is not the ${expectedHash} acknowledged when it was stored`);
    }
  }
  let proof;
  try {
    proof = parseTlogProof(tlogProof);
  } catch (e) {
    if (!(e instanceof NoteError)) throw e;
    v.problems.push(`the proof is malformed: ${e.message}`);
    return v.finish();
  }
  let extra: string[] = [];
  if (proof.extra !== null) {
    try {
      extra = new TextDecoder("utf-8", { fatal: true }).decode(proof.extra).split(" ");
    } catch {
      extra = [];
    }
  }
  if (extra.length !== 2) {
    v.problems.push("the proof's extra line is not '<event id> <event hash>'");
  } else {
    if (v.eventId !== null && extra[0] !== v.eventId) v.problems.push(`the proof is for event ${JSON.stringify(extra[0])}, not ${v.eventId}`);
    if (digest !== null && extra[1] !== digest) v.problems.push(`the proof is for the event hash ${JSON.stringify(extra[1])}, not ${digest}`);
  }
  if (logIndex !== null && proof.index !== logIndex) {
    v.problems.push(`the proof is for log index ${proof.index}, the event's log_index is ${logIndex}`);
  }
  let cp: Checkpoint;
  try {
    cp = parseCheckpoint(proof.checkpoint);
  } catch (e) {
    if (!(e instanceof NoteError)) throw e;
    v.problems.push(`the checkpoint is malformed: ${e.message}`);
    return v.finish();
  }
  v.treeSize = cp.size;
  v.root = cp.root.toString("hex");
  v.origin = cp.origin;
  if (digest !== null) {
    const root = rootFromInclusion(proof.index, cp.size, leafHash(Buffer.from(digest, "hex")), proof.path);
    if (root === null) {
      v.problems.push(`the inclusion proof has the wrong shape for index ${proof.index} in a tree of ${cp.size}`);
    } else if (!root.equals(cp.root)) {
      v.problems.push(`the inclusion proof of index ${proof.index} does not lead to the checkpoint's root`);
    }
  }
  checkSignature(v, cp, logKey);
  return v.finish();
}

function checkSignature(v: Verification, cp: Checkpoint, logKey: string | VerifierKey | null): void {
  if (logKey === null) {
    v.notes.push("the checkpoint's signature was not checked: no log key was given");
    return;
  }
  let key: VerifierKey;
  try {
    key = typeof logKey === "string" ? parseVkey(logKey) : logKey;
  } catch (e) {
    v.problems.push((e as Error).message);
    return;
  }
  if (cp.origin !== key.name) v.problems.push(`the checkpoint's origin ${JSON.stringify(cp.origin)} is not the log key's name ${JSON.stringify(key.name)}`);
  const [sig, count] = findSignature(cp.note, key);
  if (sig === null) {
    v.problems.push(`the checkpoint carries no signature by the log key ${key.name}`);
    return;
  }
  if (count > 1) {
    v.problems.push(`the checkpoint carries ${count} signatures by the log key`);
    return;
  }
  if (verifyEd25519(key.publicKey, sig.signature, Buffer.from(cp.note.text, "utf8"))) v.signatureChecked = true;
  else v.problems.push(`the checkpoint's signature by ${key.name} does not verify`);
}

// ------------------------------------------------------------------ with the service

const STATE = "trusted-checkpoints.json";

type Trusted = { vkey?: string; size?: number; root?: string };

function loadState(file: string): Record<string, Trusted> {
  try {
    const data = JSON.parse(fs.readFileSync(file, "utf8"));
    return data && typeof data === "object" && !Array.isArray(data) ? data : {};
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new Failed(`the trusted checkpoints in ${file} cannot be read: ${(e as Error).message}`);
  }
}

function saveState(file: string, state: Record<string, Trusted>): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.tmp-${process.pid}`;
  const sorted: Record<string, Trusted> = {};
  for (const k of Object.keys(state).sort()) sorted[k] = state[k];
  const fd = fs.openSync(tmp, "w", 0o600);
  try {
    fs.writeSync(fd, JSON.stringify(sorted, null, 1));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

class Failed extends Error {}

async function get(client: Client, p: string, what: string): Promise<Buffer> {
  let r;
  try {
    r = await request(client.url, client.apiKey, "GET", p, null, null, client.requestTimeoutMs);
  } catch (e) {
    if (e instanceof NoAnswer) throw new Failed(`trailproof could not be asked: ${e.message}`);
    throw e;
  }
  if (r.status !== 200) throw new Failed(`could not fetch ${what}: ${errorMessage(r)}`);
  return r.body;
}

function originOf(proof: Buffer): string | null {
  try {
    return parseCheckpoint(parseTlogProof(proof).checkpoint).origin;
  } catch {
    return null;
  }
}

export async function verifyStored(client: Client, target: Receipt | string, timeoutMs?: number): Promise<Verification> {
  let expectedHash: string | null = null;
  let eventId: string;
  if (typeof target === "string") {
    eventId = target;
  } else {
    let ack;
    try {
      ack = await target.result(timeoutMs);
    } catch (e) {
      const v = new Verification();
      v.problems.push(`the event was not stored: ${(e as Error).message}`);
      return v;
    }
    if (ack === null) {
      const v = new Verification();
      v.problems.push("trailproof is disabled (TRAILPROOF_ENABLED=false): nothing was stored");
      return v;
    }
    eventId = ack.id;
    expectedHash = ack.hash;
  }
  const statePath = path.join(client.spoolDir, STATE);
  try {
    const id = encodeURIComponent(eventId);
    const event = await get(client, "/v1/events/" + id, "the event");
    const proof = await get(client, "/v1/merkle/proof?format=tlog-proof&event_id=" + id, "the event's tlog-proof");
    const origin = originOf(proof);
    const trusted: Trusted = origin ? (loadState(statePath)[origin] ?? {}) : {};
    const notes: string[] = [];
    let key: string | null = client.logKey;
    if (key === null) {
      key = typeof trusted.vkey === "string" ? trusted.vkey : null;
      if (key === null) {
        const body = JSON.parse((await get(client, "/v1/checkpoint/key", "the log key")).toString("utf8"));
        key = typeof body?.vkey === "string" ? body.vkey : null;
        notes.push(`the log key was not pinned (TRAILPROOF_LOG_KEY): ${key} was trusted on first use and is kept in ${statePath}`);
      }
    }
    const v = checkEventProof(event, proof, key, eventId, expectedHash);
    v.notes.unshift(...notes);
    if (v.erased !== null) await checkErasureRecord(client, v, event, key);
    if (v.ok && v.treeSize !== null && v.root !== null) await checkTrustedConsistency(client, v, trusted);
    if (v.ok && origin) {
      const entry: Trusted = { ...trusted };
      if (key !== null && entry.vkey === undefined && v.signatureChecked) entry.vkey = key;
      if (v.treeSize !== null && v.treeSize >= Number(trusted.size ?? 0)) {
        entry.size = v.treeSize;
        entry.root = v.root!;
      }
      if (JSON.stringify(entry) !== JSON.stringify(trusted)) {
        const state = loadState(statePath);
        if (Number(state[origin]?.size ?? 0) <= Number(entry.size ?? 0)) {
          state[origin] = entry;
          saveState(statePath, state);
        }
      }
    }
    return v;
  } catch (e) {
    if (!(e instanceof Failed) && !(e instanceof SyntaxError) && !(e as NodeJS.ErrnoException).code) throw e;
    const v = new Verification();
    v.problems.push(e instanceof Failed ? e.message : `trailproof could not be asked: ${(e as Error).message}`);
    return v;
  }
}

/**
 * An erased event is accepted only when the erasure event it names is itself intact (its hash
 * recomputes), in the signed tree, of agent `trailproof.erasures`, and names this event's id at its
 * log index, with the same time and fields (src/site/erasure.md#the-erasure-is-on-the-trail).
 * Exported for the tests only.
 * @internal
 */
export async function checkErasureRecord(client: Client, v: Verification, eventJson: Buffer, key: string | null): Promise<void> {
  const erased = v.erased ?? {};
  const erasureId = erased.erasure_id;
  if (typeof erasureId !== "string") {
    v.problems.push("the erased event names no erasure");
    v.ok = false;
    return;
  }
  const id = encodeURIComponent(erasureId);
  const record = await get(client, "/v1/events/" + id, "the erasure event");
  const recordProof = await get(client, "/v1/merkle/proof?format=tlog-proof&event_id=" + id, "the erasure event's tlog-proof");
  const rv = checkEventProof(record, recordProof, key, erasureId);
  if (!rv.ok || rv.erased !== null) {
    v.problems.push(`the erasure event ${erasureId} does not verify: ${rv.problems.join("; ") || "it is itself erased"}`);
    v.ok = false;
    return;
  }
  const stored = JSON.parse(eventJson.toString("utf8"));
  const rec = JSON.parse(record.toString("utf8"));
  const inp = rec.action_input && typeof rec.action_input === "object" ? rec.action_input : {};
  const ids: unknown[] = Array.isArray(inp.event_ids) ? inp.event_ids : [];
  const indexes: number[] = [];
  for (const pair of Array.isArray(inp.log_indexes) ? inp.log_indexes : []) {
    if (Array.isArray(pair) && pair.length === 2) for (let i = Number(pair[0]); i <= Number(pair[1]); i++) indexes.push(i);
  }
  const named = ids.findIndex((i) => i === stored.id);
  if (rec.agent_id !== "trailproof.erasures" || rec.action_type !== "ERASURE" || named < 0 || named >= indexes.length ||
    indexes[named] !== stored.log_index) {
    v.problems.push(`erasure without record: the erasure event ${erasureId} does not name event ${stored.id} at log index ${stored.log_index}`);
  } else if (rec.recorded_at !== erased.at || JSON.stringify(inp.fields) !== JSON.stringify(erased.fields)) {
    v.problems.push(`the erased event's time or fields differ from its erasure event ${erasureId}`);
  } else {
    v.notes.push(`erasure ${erasureId} at ${rec.recorded_at} (${inp.reason}) names this event`);
  }
  v.ok = v.problems.length === 0;
}

async function checkTrustedConsistency(client: Client, v: Verification, trusted: Trusted): Promise<void> {
  const size = trusted.size;
  const root = trusted.root;
  if (typeof size !== "number" || !Number.isSafeInteger(size) || typeof root !== "string" || size <= 0) {
    v.notes.push(`no earlier checkpoint of this log was trusted here; this one (size ${v.treeSize}) now is`);
    return;
  }
  const newSize = v.treeSize!;
  const newRoot = Buffer.from(v.root!, "hex");
  const oldRoot = Buffer.from(root, "hex");
  if (size === newSize) {
    if (!oldRoot.equals(newRoot)) {
      v.problems.push(`the checkpoint of size ${size} has another root than the one trusted before: the log was rewritten or shows different views`);
    }
    v.finish();
    return;
  }
  const [lo, hi] = size < newSize ? [size, newSize] : [newSize, size];
  const [loRoot, hiRoot] = size < newSize ? [oldRoot, newRoot] : [newRoot, oldRoot];
  let proofPath: Buffer[];
  try {
    const body = JSON.parse((await get(client, `/v1/merkle/consistency?from=${lo}&to=${hi}`, "the consistency proof")).toString("utf8"));
    if (!Array.isArray(body?.proof) || !body.proof.every((h: unknown) => typeof h === "string" && HEX64.test(h))) {
      throw new Failed("the answer has no list of hex hashes");
    }
    proofPath = body.proof.map((h: string) => Buffer.from(h, "hex"));
  } catch (e) {
    v.problems.push(`the consistency with the trusted checkpoint of size ${size} could not be checked: ${(e as Error).message}`);
    v.finish();
    return;
  }
  const why = checkConsistency(lo, hi, loRoot, hiRoot, proofPath);
  if (why !== null) v.problems.push(`the checkpoint is not consistent with the one of size ${size} trusted before (${why})`);
  v.finish();
}
