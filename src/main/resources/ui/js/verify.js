// In-browser verification of one stored event (src/site/events.md#event-hash and src/site/concepts.md#the-merkle-tree): the event hash recomputed from
// the JSON the API returned, and its RFC 9162 inclusion proof checked against a root. SHA-256 comes
// from WebCrypto, which browsers offer only in secure contexts (HTTPS, or http://localhost and
// http://127.0.0.1); elsewhere verification says so instead of pretending.

import { canonicalBytes } from './canonical-json.js';

const ZERO_HASH = '0'.repeat(64);

/** True when this page may use WebCrypto (secure context). */
export function cryptoAvailable() {
  return Boolean(globalThis.crypto && globalThis.crypto.subtle);
}

async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
}

export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** 32 raw bytes from 64 hex digits, or null when the text is not exactly that. */
export function fromHex(hex) {
  if (typeof hex !== 'string' || !/^[0-9a-f]{64}$/.test(hex)) {
    return null;
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  }
  return out;
}

/**
 * The event hash recipe of src/site/events.md#event-hash: lowercase hex SHA-256 over the UTF-8 bytes of the RFC 8785
 * form of the stored event without its "hash" and "log_index" fields. Everything else is covered.
 */
export async function eventHash(storedEvent) {
  const covered = Object.fromEntries(Object.entries(storedEvent)
    .filter(([key]) => key !== 'hash' && key !== 'log_index'));
  return toHex(await sha256(canonicalBytes(covered)));
}

/** RFC 9162 leaf hash of an event: SHA-256(0x00 || 32 raw bytes of the event hash). */
export async function leafHash(eventHashBytes) {
  const input = new Uint8Array(33);
  input.set(eventHashBytes, 1);
  return sha256(input);
}

async function nodeHash(left, right) {
  const input = new Uint8Array(65);
  input[0] = 1;
  input.set(left, 1);
  input.set(right, 33);
  return sha256(input);
}

/**
 * The root an inclusion proof leads to (RFC 9162 section 2.1.3.2), or an error sentence.
 * Index arithmetic uses division, not bit operators: those work on 32 bits only.
 */
export async function rootFromInclusionProof(leafIndex, treeSize, leaf, siblingsHex) {
  if (!Number.isSafeInteger(leafIndex) || !Number.isSafeInteger(treeSize) || leafIndex < 0
      || leafIndex >= treeSize) {
    return { error: `leaf index ${leafIndex} is not inside a tree of size ${treeSize}` };
  }
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r = leaf;
  for (const hex of siblingsHex) {
    const p = fromHex(hex);
    if (p === null) {
      return { error: 'the proof holds a sibling that is not 64 hex digits' };
    }
    if (sn === 0) {
      return { error: 'the proof is longer than the tree is deep' };
    }
    if (fn % 2 === 1 || fn === sn) {
      r = await nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn /= 2;
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = await nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) {
    return { error: 'the proof is shorter than the tree is deep' };
  }
  return { root: toHex(r) };
}

/**
 * Checks one event against its inclusion proof and a root fetched on its own, and says what
 * held and what failed. Arguments are the API's answers as parsed JSON:
 * event (GET /v1/events/{id}), root (GET /v1/merkle/root) and proof (GET /v1/merkle/proof with
 * tree_size = root.tree_size). Returns {ok, checks: [{name, ok, detail}]}; ok is true only when
 * every check held. Never throws for bad input: a malformed answer is a failed check.
 */
export async function verifyEvent(event, root, proof) {
  const checks = [];
  const add = (name, ok, detail) => checks.push({ name, ok, detail });
  if (!cryptoAvailable()) {
    add('WebCrypto', false, 'this page is not a secure context (HTTPS or localhost), so the browser offers no '
      + 'SHA-256; open the console over HTTPS or on localhost to verify here');
    return { ok: false, checks };
  }
  let recomputed;
  const erased = event && event.erased && typeof event.erased === 'object' ? event.erased : null;
  if (erased) {
    // An erased event's hash is that of the content before the erasure (src/site/erasure.md#verification):
    // it cannot be recomputed; its leaf, proof and chain links are checked with the hash as committed.
    recomputed = String(event.hash);
  } else {
    try {
      recomputed = await eventHash(event);
    } catch (e) {
      add('event hash', false, `the event cannot be put in RFC 8785 form: ${e.message}`);
      return { ok: false, checks };
    }
  }
  if (erased) {
    add('event hash', true, `content erased; hash as committed ${recomputed} (erasure ${String(erased.erasure_id)} `
      + `at ${String(erased.at)} removed ${(Array.isArray(erased.fields) ? erased.fields : []).join(', ')}); `
      + 'the hash cannot be recomputed, the leaf and the proof below are checked with it');
  } else if (recomputed === event.hash) {
    add('event hash', true, `RFC 8785 + SHA-256 of the event gives its hash ${recomputed}`);
  } else {
    add('event hash', false, `hash mismatch: the event's content hashes to ${recomputed}, `
      + `but its hash field says ${String(event.hash)}; the event was changed after it was recorded`);
  }
  if (event.sequence === 1 && event.prev_hash !== ZERO_HASH) {
    add('chain start', false, 'sequence 1 must have prev_hash of 64 zeros');
  }
  const leaf = await leafHash(fromHex(recomputed));
  const leafHex = toHex(leaf);
  if (!proof || proof.leaf_index !== event.log_index) {
    add('inclusion proof', false, `the proof is for leaf ${proof && proof.leaf_index}, `
      + `the event's log_index is ${event.log_index}`);
    return { ok: false, checks };
  }
  if (proof.leaf_hash !== leafHex) {
    add('leaf hash', false, `the tree's leaf ${String(proof.leaf_hash)} is not SHA-256(0x00 || hash) = ${leafHex} `
      + 'of the event as shown');
  }
  if (!root || proof.tree_size !== root.tree_size) {
    add('inclusion proof', false, `the proof is for tree size ${proof.tree_size}, the root for ${root && root.tree_size}`);
    return { ok: false, checks };
  }
  const computed = await rootFromInclusionProof(proof.leaf_index, proof.tree_size, leaf,
    Array.isArray(proof.siblings) ? proof.siblings : []);
  if (computed.error) {
    add('inclusion proof', false, computed.error);
  } else if (computed.root !== root.root) {
    add('inclusion proof', false, `the proof leads to root ${computed.root}, but the current root at tree size `
      + `${root.tree_size} is ${String(root.root)}`);
  } else {
    add('inclusion proof', true, `leaf ${proof.leaf_index} with ${proof.siblings.length} siblings leads to the `
      + `current root ${root.root} (tree size ${root.tree_size})`);
  }
  return { ok: checks.every((c) => c.ok), checks };
}

/** How an event links to its neighbours in the chain: prev.hash == event.prev_hash, next.prev_hash == event.hash. */
export function chainLinks(event, previous, next) {
  const links = [];
  if (previous) {
    links.push({ name: 'link to previous', ok: previous.hash === event.prev_hash,
      detail: previous.hash === event.prev_hash ? `prev_hash is the hash of sequence ${previous.sequence}`
        : `prev_hash ${String(event.prev_hash)} is not the hash ${String(previous.hash)} of sequence ${previous.sequence}` });
  }
  if (next) {
    links.push({ name: 'link from next', ok: next.prev_hash === event.hash,
      detail: next.prev_hash === event.hash ? `sequence ${next.sequence} points back to this hash`
        : `sequence ${next.sequence} has prev_hash ${String(next.prev_hash)}, not this event's hash` });
  }
  return links;
}
