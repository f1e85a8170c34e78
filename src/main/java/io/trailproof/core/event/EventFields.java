package io.trailproof.core.event;

import java.util.Set;

/**
 * The names and fixed values of src/site/events.md#accepted-fields (client fields) and 2.2/2.3 (service-assigned
 * fields). Every other class refers to these; the spelling is the wire format and the hash input,
 * so it must never drift.
 */
public final class EventFields {
    private EventFields() {}

    // src/site/events.md#accepted-fields: fields a client may send.
    public static final String AGENT_ID = "agent_id";
    public static final String SESSION_ID = "session_id";
    public static final String SOURCE = "source";
    public static final String CAPTURE_METHOD = "capture_method";
    public static final String ACTION_TYPE = "action_type";
    public static final String ACTION_NAME = "action_name";
    public static final String ACTION_STATUS = "action_status";
    public static final String ERROR_MESSAGE = "error_message";
    public static final String ACTION_INPUT = "action_input";
    public static final String ACTION_OUTPUT = "action_output";
    public static final String METADATA = "metadata";
    public static final String TIMESTAMP = "timestamp";
    public static final String DURATION_MS = "duration_ms";
    public static final String LABELS = "labels";
    /** src/site/gates.md: the decision a {@code TOOL_CALL} was allowed by; checked on ingest. */
    public static final String DECISION_ID = "decision_id";

    // src/site/completeness.md#capture-sequences: the capture stream an event belongs to.
    /** The capture stream: one per client instance, process or hook session. */
    public static final String CAPTURE_ID = "capture_id";
    /** 1, 2, 3, ... within a {@link #CAPTURE_ID}, assigned when the event is created. */
    public static final String CAPTURE_SEQ = "capture_seq";
    /** {@code true} on the last event of a capture stream. */
    public static final String CAPTURE_LAST = "capture_last";
    /** {@code [from, to]}: numbers of the same stream the client knows it lost. */
    public static final String CAPTURE_DROPPED = "capture_dropped";

    // src/site/events.md#service-assigned-fields: fields the service assigns.
    public static final String ID = "id";
    public static final String SCHEMA_VERSION = "schema_version";
    public static final String SEQUENCE = "sequence";
    public static final String PREV_HASH = "prev_hash";
    public static final String RECORDED_AT = "recorded_at";
    public static final String LOG_INDEX = "log_index";
    public static final String HASH = "hash";
    /**
     * src/site/redaction.md: set only when redaction replaced something, {@code {"<rule name>": count}}; covered
     * by the hash like every field but {@code hash} and {@code log_index}.
     */
    public static final String REDACTIONS = "redactions";

    /**
     * src/site/erasure.md: set on an erased event, {@code {"erasure_id", "at", "fields"}}; outside the hash,
     * like {@code log_index} (the hash was computed before the erasure and is kept as it was).
     */
    public static final String ERASED = "erased";

    /** The agent whose events record erasures (src/site/erasure.md); clients may not write as it. */
    public static final String ERASURES_AGENT = "trailproof.erasures";

    /** The agent whose events record the gate policies (src/site/gates.md); clients may not write as it. */
    public static final String POLICIES_AGENT = "trailproof.policies";

    /**
     * The agent whose events record who read the trail (src/site/sign-in.md#the-trail-of-who-looked);
     * clients may not write as it, so a reader's record cannot be forged.
     */
    public static final String ACCESS_AGENT = "trailproof.access";

    /** {@code action_type} of a record of one read of the trail, in the chain of {@link #ACCESS_AGENT}. */
    public static final String ACCESS_ACTION_TYPE = "ACCESS";

    /**
     * The {@code action_type}s only the service writes (src/site/gates.md): a decision, an answer to
     * an ask, a failed binding, a gate policy. A client that could send them could forge its own approvals.
     */
    public static final Set<String> SERVICE_ACTION_TYPES = Set.of("DECISION", "APPROVAL",
            "GATE_VIOLATION", "GATE_POLICY");

    /**
     * {@code action_type} of the service's record of a capture gap (src/site/completeness.md#gaps);
     * reserved: a client event with it is refused, so a gap record cannot be forged.
     */
    public static final String GAP_ACTION_TYPE = "GAP";

    /** {@code action_type} of the event that ends a capture stream with nothing else left to send. */
    public static final String CAPTURE_END_ACTION_TYPE = "CAPTURE_END";

    /** The value of {@code schema_version} for every event this version writes. */
    public static final String SCHEMA_VERSION_1_0 = "1.0";

    /** {@code prev_hash} of an agent's first event (sequence 1): 64 zeros. */
    public static final String GENESIS_PREV_HASH = "0".repeat(64);
}
