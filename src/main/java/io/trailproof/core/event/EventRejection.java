package io.trailproof.core.event;

/**
 * An event that breaks a rule of src/site/events.md#accepted-fields. The message is one sentence a person can act on and
 * names the field; {@link #field()} gives the field separately (null when the problem is the event
 * as a whole, e.g. not an object or too large).
 */
public final class EventRejection extends Exception {
    private static final long serialVersionUID = 1L;

    private final String field;

    public EventRejection(String field, String message) {
        super(message);
        this.field = field;
    }

    /** The offending top-level field, or null when the problem is not in one field. */
    public String field() {
        return field;
    }
}
