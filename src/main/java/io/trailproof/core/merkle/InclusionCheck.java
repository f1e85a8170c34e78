package io.trailproof.core.merkle;

/**
 * The outcome of checking an inclusion proof, with enough detail for an error message.
 *
 * @param valid whether the proof shows the leaf under {@code expectedRoot}
 * @param expectedRoot the root the caller supplied
 * @param computedRoot the root the proof leads to; null when the proof is malformed
 * @param reason empty when valid, otherwise why not, in words
 */
public record InclusionCheck(boolean valid, byte[] expectedRoot, byte[] computedRoot, String reason) {}
