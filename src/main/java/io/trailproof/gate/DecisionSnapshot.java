package io.trailproof.gate;

/**
 * A decision as the gate sees it at one moment (src/site/gates.md): what was decided, the answer to
 * an ask, and whether a call used it. Times are microseconds since the epoch, -1 when absent.
 */
record DecisionSnapshot(String id, String agentId, String sessionId, String effect, String rule, String reason,
                        String argsSha256, long expiresAtMicros, Boolean approved, String approver,
                        long validUntilMicros, String approvalId, String usedBy, long logIndex,
                        long recordedAtMicros) {

    static final String PENDING = "pending";

    /**
     * {@code allow} and {@code deny} (final at once); for an ask {@code pending}, {@code approved},
     * {@code denied}, or {@code expired} once {@code expires_at} passed without an answer.
     */
    String state(long nowMicros) {
        if (!"ask".equals(effect)) {
            return effect;
        }
        if (approved != null) {
            return approved ? "approved" : "denied";
        }
        return expiresAtMicros >= 0 && nowMicros > expiresAtMicros ? "expired" : PENDING;
    }
}
