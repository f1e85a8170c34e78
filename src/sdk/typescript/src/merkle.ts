/**
 * RFC 9162 (Certificate Transparency 2.0) section 2.1 with SHA-256: leaf and node hashes and the
 * verification of inclusion and consistency proofs (src/site/concepts.md#the-merkle-tree).
 */

import { createHash } from "node:crypto";

/** SHA-256(0x00 || leaf); the leaf of an event is the 32 raw bytes of its hash. */
export function leafHash(leaf: Buffer): Buffer {
  return createHash("sha256").update(Buffer.from([0])).update(leaf).digest();
}

/** SHA-256(0x01 || left || right). */
export function nodeHash(left: Buffer, right: Buffer): Buffer {
  return createHash("sha256").update(Buffer.from([1])).update(left).update(right).digest();
}

/**
 * The root an inclusion proof leads to (RFC 9162 section 2.1.3.2), or null when the proof has the
 * wrong shape for `index` in a tree of `size` leaves. `leaf` is the leaf hash. Sizes are below 2^53.
 */
export function rootFromInclusion(index: number, size: number, leaf: Buffer, path: Buffer[]): Buffer | null {
  if (index < 0 || size <= index) return null;
  let fn = BigInt(index);
  let sn = BigInt(size - 1);
  let r = leaf;
  for (const p of path) {
    if (sn === 0n) return null;
    if (fn & 1n || fn === sn) {
      r = nodeHash(p, r);
      if (!(fn & 1n)) {
        while (fn && !(fn & 1n)) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n ? r : null;
}

/**
 * Verifies that the tree of `size1` leaves with `root1` is a prefix of the tree of `size2` leaves
 * with `root2` (RFC 9162 section 2.1.4.2). Null when it is; otherwise why not.
 */
export function checkConsistency(size1: number, size2: number, root1: Buffer, root2: Buffer, proof: Buffer[]): string | null {
  if (size1 < 0 || size2 < size1) return "the older tree is larger than the newer one";
  if (size1 === size2) {
    if (proof.length) return "a proof between equal sizes must be empty";
    return root1.equals(root2) ? null : "two different roots for the same tree size";
  }
  if (size1 === 0) return proof.length ? "a proof from the empty tree must be empty" : null;
  const path = [...proof];
  const s1 = BigInt(size1);
  if ((s1 & (s1 - 1n)) === 0n) path.unshift(root1); // a power of two: the old root is the first node
  if (!path.length) return "the consistency proof is empty";
  let fn = s1 - 1n;
  let sn = BigInt(size2) - 1n;
  while (fn & 1n) {
    fn >>= 1n;
    sn >>= 1n;
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0n) return "the consistency proof is too long";
    if (fn & 1n || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (!(fn & 1n)) {
        while (fn && !(fn & 1n)) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  if (sn !== 0n) return "the consistency proof is too short";
  if (!fr.equals(root1)) return "the consistency proof does not lead to the trusted root";
  if (!sr.equals(root2)) return "the consistency proof does not lead to the new root";
  return null;
}
