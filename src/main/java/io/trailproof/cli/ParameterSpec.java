package io.trailproof.cli;

/**
 * One positional parameter of a command: its label in the help ({@code FILE}), what its value is,
 * whether it must be given, and whether it takes every remaining argument ({@code COMMAND [ARGS...]}).
 * Compared by identity, like {@link OptionSpec}.
 */
final class ParameterSpec {

    private final String label;
    private final ValueType type;
    private final String description;
    private final boolean required;
    private final boolean rest;

    private ParameterSpec(String label, ValueType type, String description, boolean required, boolean rest) {
        this.label = label;
        this.type = type;
        this.description = description;
        this.required = required;
        this.rest = rest;
    }

    /** A parameter that must be given. */
    static ParameterSpec required(ValueType type, String label, String description) {
        return new ParameterSpec(label, type, description, true, false);
    }

    /** A parameter that may be left out. */
    static ParameterSpec optional(ValueType type, String label, String description) {
        return new ParameterSpec(label, type, description, false, false);
    }

    /** The last parameter: one or more values, every argument that remains (a list of text). */
    static ParameterSpec rest(String label, String description) {
        return new ParameterSpec(label, ValueType.TEXT, description, true, true);
    }

    String label() {
        return label;
    }

    ValueType type() {
        return type;
    }

    String description() {
        return description;
    }

    boolean isRequired() {
        return required;
    }

    /** Whether it takes every remaining argument. */
    boolean isRest() {
        return rest;
    }
}
