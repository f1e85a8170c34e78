package io.trailproof.core.timestamp;

import java.time.Instant;

/**
 * What a TimeStampToken states, read from its TSTInfo: when (genTime), who (the TSA's name from
 * the token, or the signer certificate's subject when the token names none), and its identifiers.
 *
 * @param imprint the hashed message, lowercase hex
 */
public record TokenFacts(Instant genTime, String tsaName, String serialNumber, String policy, String nonce,
                         String hashAlgorithm, String imprint) {

    /** The claim a valid token supports, e.g. {@code existed no later than 2026-11-22T10:00:00Z (TSA CN=...)}. */
    public String existedNoLaterThan() {
        return "existed no later than " + genTime + " (TSA " + tsaName + ")";
    }
}
