package io.trailproof.cli;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * What an option's or parameter's value is, and how its text becomes that value. A value that does
 * not convert is bad usage: {@link #convert} says which option and why, in words for the user.
 */
enum ValueType {
    /** No value: the option is given or not. */
    FLAG(""),
    TEXT(""),
    INT("a whole number"),
    LONG("a whole number"),
    PATH("a file path"),
    /** {@code KEY=VALUE}; a map option keeps every pair, later keys over earlier ones. */
    KEY_VALUE("KEY=VALUE");

    /** What a value must be, as a message says it. */
    private final String expected;

    ValueType(String expected) {
        this.expected = expected;
    }

    /**
     * {@code text} as this type: an {@link Integer}, a {@link Long}, a {@link Path}, a two-element
     * {@code String[]} (key, value) or the text itself.
     *
     * @param what the option or parameter, as the message names it ({@code option '--port'})
     * @param keyOnly for {@link #KEY_VALUE}: the value a key without {@code =} takes, or null when
     *                {@code =} is required
     * @throws UsageError when the text is not such a value
     */
    Object convert(String text, String what, String keyOnly) throws UsageError {
        switch (this) {
            case INT:
                try {
                    return Integer.valueOf(text);
                } catch (NumberFormatException e) {
                    throw invalid(text, what);
                }
            case LONG:
                try {
                    return Long.valueOf(text);
                } catch (NumberFormatException e) {
                    throw invalid(text, what);
                }
            case PATH:
                try {
                    return Path.of(text);
                } catch (InvalidPathException e) {
                    throw new UsageError(new StringBuilder("invalid value for ").append(what).append(": '")
                            .append(text).append("' is not a file path (").append(e.getReason()).append(')').toString());
                }
            case KEY_VALUE:
                int eq = text.indexOf('=');
                if (eq > 0) {
                    return new String[] {text.substring(0, eq), text.substring(eq + 1)};
                }
                if (eq < 0 && keyOnly != null && !text.isEmpty()) {
                    return new String[] {text, keyOnly};
                }
                throw invalid(text, what);
            default:
                return text;
        }
    }

    private UsageError invalid(String text, String what) {
        return new UsageError(new StringBuilder("invalid value for ").append(what).append(": '").append(text)
                .append("' is not ").append(expected).toString());
    }
}
