package io.trailproof.core.json;

/**
 * JSON that trailproof refuses to accept, with a message a person can act on.
 *
 * <p>{@link #getMessage()} is complete on its own and already names the location; {@link #path()}
 * gives the same location separately (e.g. {@code action_input.items[3].x}) so a caller can prefix
 * it, e.g. with a batch item index. It is null when the problem is not inside a field.
 */
public final class JsonRejection extends Exception {
    private static final long serialVersionUID = 1L;

    private final String path;

    public JsonRejection(String path, String message) {
        super(message);
        this.path = path;
    }

    /** The JSON path of the offending field, or null when there is none (e.g. truncated input at the root). */
    public String path() {
        return path;
    }
}
