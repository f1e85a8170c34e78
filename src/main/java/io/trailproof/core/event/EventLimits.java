package io.trailproof.core.event;

/** The size limits of src/site/events.md#accepted-fields. Lengths are in UTF-16 code units (Java's String.length). */
public final class EventLimits {
    private EventLimits() {}

    /** Deepest nesting of an event; the event object itself is level 1. */
    public static final int MAX_NESTING_DEPTH = 64;
    /** Largest canonical (RFC 8785) form of one stored event, in bytes: 1 MiB. */
    public static final int MAX_CANONICAL_BYTES = 1 << 20;

    public static final int AGENT_ID_MAX_LENGTH = 256;
    public static final int STRING_MAX_LENGTH = 1024;
    public static final int ERROR_MESSAGE_MAX_LENGTH = 64 * 1024;
    /** Largest {@code duration_ms}: 2^53, the largest integer every JSON reader holds exactly. */
    public static final long DURATION_MS_MAX = 1L << 53;
    public static final int MAX_LABELS = 64;
    public static final int LABEL_KEY_MAX_LENGTH = 128;
    public static final int LABEL_VALUE_MAX_LENGTH = 1024;
    /** Longest {@code capture_id} (src/site/completeness.md#capture-sequences). */
    public static final int CAPTURE_ID_MAX_LENGTH = 128;
    /** Largest {@code capture_seq}: 2^53, as {@link #DURATION_MS_MAX}. */
    public static final long CAPTURE_SEQ_MAX = 1L << 53;
}
