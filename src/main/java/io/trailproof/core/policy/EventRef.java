package io.trailproof.core.policy;

import java.util.UUID;

/**
 * The identity of an event a rule keeps until it knows whether it violates (a pending call, a
 * scope's first event). Compact, as a trail may leave many pending (a million calls never answered):
 * the id is kept as the two halves of its UUID, and the agent id is the reader's shared instance.
 */
final class EventRef {

    final long logIndex;
    private final long idHigh;
    private final long idLow;
    /** The id as stored when it is not a UUID in canonical form (null otherwise). */
    private final String idText;
    private final String agentId;
    final long sequence;
    final long timestampMicros;

    EventRef(long logIndex, String id, String agentId, long sequence, long timestampMicros) {
        this.logIndex = logIndex;
        UUID uuid = canonicalUuid(id);
        this.idHigh = uuid == null ? 0 : uuid.getMostSignificantBits();
        this.idLow = uuid == null ? 0 : uuid.getLeastSignificantBits();
        this.idText = uuid == null ? id : null;
        this.agentId = agentId;
        this.sequence = sequence;
        this.timestampMicros = timestampMicros;
    }

    static EventRef of(PolicyEvent e) {
        return new EventRef(e.logIndex(), e.id(), e.agentId(), e.sequence(), e.timestampMicros());
    }

    long sequence() {
        return sequence;
    }

    long timestampMicros() {
        return timestampMicros;
    }

    Example example(String message) {
        String id = idText != null || (idHigh == 0 && idLow == 0) ? idText : new UUID(idHigh, idLow).toString();
        return new Example(id, agentId, sequence, message, logIndex);
    }

    /** The UUID when {@code id} is one written as UUID.toString writes it (so that it comes back the same). */
    private static UUID canonicalUuid(String id) {
        if (id == null || id.length() != 36) {
            return null;
        }
        try {
            UUID u = UUID.fromString(id);
            return u.toString().equals(id) ? u : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
