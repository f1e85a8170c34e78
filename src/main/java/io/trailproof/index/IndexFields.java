package io.trailproof.index;

import java.util.List;
import java.util.Set;

/**
 * The search fields of src/site/search.md#fields and how each is analysed. Keyword fields are matched exactly
 * (case and punctuation kept); text fields go through the standard analyzer; numeric and time
 * fields are points with doc values (time in epoch microseconds).
 */
public final class IndexFields {

    private IndexFields() {
    }

    /**
     * The default field: every text value of the event (src/site/search.md#fields). Its own postings hold only the
     * keyword and label values, analysed; the free text is inverted once, in its own field, and a
     * query on {@code text} searches {@link #TEXT_FIELDS}.
     */
    public static final String TEXT = "text";

    public static final String ID = "id";
    public static final String HASH = "hash";
    public static final String AGENT_ID = "agent_id";
    public static final String SESSION_ID = "session_id";
    public static final String SOURCE = "source";
    public static final String CAPTURE_METHOD = "capture_method";
    public static final String ACTION_TYPE = "action_type";
    public static final String ACTION_STATUS = "action_status";

    public static final String ACTION_NAME = "action_name";
    public static final String ERROR_MESSAGE = "error_message";
    /** The text of {@code action_input}. */
    public static final String INPUT = "input";
    /** The text of {@code action_output}. */
    public static final String OUTPUT = "output";
    public static final String METADATA = "metadata";

    public static final String TIMESTAMP = "timestamp";
    public static final String RECORDED_AT = "recorded_at";
    public static final String SEQUENCE = "sequence";
    public static final String DURATION_MS = "duration_ms";
    public static final String LOG_INDEX = "log_index";

    /** {@code label.{key}}: one keyword field per label key; keys are dynamic, so the prefix decides. */
    public static final String LABEL_PREFIX = "label.";

    static final Set<String> KEYWORD = Set.of(ID, HASH, AGENT_ID, SESSION_ID, SOURCE, CAPTURE_METHOD, ACTION_TYPE,
            ACTION_STATUS);
    static final Set<String> TIME = Set.of(TIMESTAMP, RECORDED_AT);
    static final Set<String> NUMBER = Set.of(SEQUENCE, DURATION_MS, LOG_INDEX);

    /** Text fields shown in highlights, in the order a reader scans an event. */
    static final List<String> HIGHLIGHTED_TEXT = List.of(ACTION_NAME, ERROR_MESSAGE, INPUT, OUTPUT, METADATA);

    /** Where the text of {@link #TEXT} is indexed: between them they hold every text value of an event, each once. */
    static final List<String> TEXT_FIELDS = List.of(TEXT, ACTION_NAME, ERROR_MESSAGE, INPUT, OUTPUT, METADATA);

    /** True for fields indexed as one exact term. */
    public static boolean isKeyword(String field) {
        return KEYWORD.contains(field) || field.startsWith(LABEL_PREFIX);
    }

    /** True for points compared by value: times (epoch microseconds) and whole numbers. */
    public static boolean isPoint(String field) {
        return TIME.contains(field) || NUMBER.contains(field);
    }
}
