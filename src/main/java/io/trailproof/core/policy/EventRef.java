package io.trailproof.core.policy;

/** The identity of an event a rule keeps until it knows whether it violates (a pending call, a scope's first event). */
record EventRef(long logIndex, String id, String agentId, long sequence, long timestampMicros) {

    static EventRef of(PolicyEvent e) {
        return new EventRef(e.logIndex(), e.id(), e.agentId(), e.sequence(), e.timestampMicros());
    }

    Example example(String message) {
        return new Example(id, agentId, sequence, message, logIndex);
    }
}
