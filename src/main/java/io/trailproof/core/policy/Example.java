package io.trailproof.core.policy;

/** One violation as the answer shows it: the event it names, and a sentence saying what is wrong. */
public record Example(String eventId, String agentId, long sequence, String message, long logIndex) {
}
