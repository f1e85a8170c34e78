package io.trailproof.core.evidence;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/**
 * Checks the RFC 3161 token of one {@code timestamps} entry of a package (src/site/evidence-format.md, src/site/timestamps.md): its
 * signature, that its message imprint is the entry's {@code merkle_root}, and that its certificate
 * chain reaches a trust anchor at the token's time. Pure: the trust anchors are given to the
 * implementation when it is made, and it reads no clock (the token's own time is the time of
 * validation). The consistency of the stamped tree with the package's tree is checked by
 * the verifier itself ({@code TimestampsChecker}).
 *
 * <p>{@link Rfc3161TokenChecker} is the implementation; {@link #UNAVAILABLE} stands in where RFC 3161
 * support is not wanted, and claims no time. (Not to be confused with
 * {@code core.timestamp.TimestampTokenVerifier}, the RFC 3161 verification both the server and
 * {@link Rfc3161TokenChecker} use.)
 */
public interface TokenChecker {

    /**
     * @param entry one item of the package's {@code timestamps}: the timestamp record of src/site/timestamps.md#record
     *              plus its {@code consistency_proof}
     */
    TokenVerdict check(JsonNode entry);

    /**
     * What a token proves.
     *
     * @param checks  the token's checks ({@code signature}, {@code message_imprint},
     *                {@code certificate_chain}), each with its outcome
     * @param genTime the token's time (RFC 3339) when the token could be read, else null
     * @param tsa     who signed it (the TSA's name or host), else null
     */
    record TokenVerdict(List<TokenCheck> checks, String genTime, String tsa) {
        public boolean allPassed() {
            return !checks.isEmpty() && checks.stream().allMatch(c -> c.outcome() == CheckResult.Outcome.PASSED);
        }
    }

    /** One check of a token, with what it expected and found on failure. */
    record TokenCheck(String name, CheckResult.Outcome outcome, String expected, String actual, String detail) {
    }

    /** Used when no RFC 3161 support is plugged in: every token check is skipped, never passed. */
    TokenChecker UNAVAILABLE = entry -> new TokenVerdict(List.of(new TokenCheck("token",
            CheckResult.Outcome.SKIPPED, null, null,
            "this verifier cannot check RFC 3161 tokens, so the time they claim is not proven")),
            entry.path("timestamp").isTextual() ? entry.get("timestamp").asText() : null,
            entry.path("tsa").isTextual() ? entry.get("tsa").asText() : null);
}
