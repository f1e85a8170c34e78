package io.trailproof.core.merkle;

/**
 * The outcome of checking a consistency proof, with enough detail for an error message.
 *
 * @param valid whether the proof shows the tree of {@code rootN} extends the tree of {@code rootM}
 * @param computedRootM the old root the proof leads to; null when the proof is malformed
 * @param computedRootN the new root the proof leads to; null when the proof is malformed
 * @param reason empty when valid, otherwise why not, in words
 */
public record ConsistencyCheck(boolean valid, byte[] computedRootM, byte[] computedRootN, String reason) {}
