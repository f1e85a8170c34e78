package io.trailproof.cli;

import java.util.List;

/**
 * One option of a command as the command declares it: its names ({@code -o}, {@code --output}), what
 * its value is, and how often it may be given. Immutable; each {@code with}-style method returns a
 * changed copy, so a command declares an option in one expression. Compared by identity: a command
 * reads its values from {@link Arguments} with the same object it declared.
 */
final class OptionSpec {

    private final List<String> names;
    private final ValueType type;
    private final String label;
    private final String description;
    private final boolean required;
    private final boolean repeatable;
    private final String split;
    private final String defaultValue;
    private final String keyOnlyValue;

    private OptionSpec(List<String> names, ValueType type, String label, String description, boolean required,
                       boolean repeatable, String split, String defaultValue, String keyOnlyValue) {
        this.names = names;
        this.type = type;
        this.label = label;
        this.description = description;
        this.required = required;
        this.repeatable = repeatable;
        this.split = split;
        this.defaultValue = defaultValue;
        this.keyOnlyValue = keyOnlyValue;
    }

    /** An option without a value: given or not. */
    static OptionSpec flag(String description, String... names) {
        return new OptionSpec(List.of(names), ValueType.FLAG, null, description, false, false, null, null, null);
    }

    /** An option with one value of {@code type}, shown in the help as {@code --name=LABEL}. */
    static OptionSpec value(ValueType type, String label, String description, String... names) {
        return new OptionSpec(List.of(names), type, label, description, false, false, null, null, null);
    }

    /** A text option. */
    static OptionSpec text(String label, String description, String... names) {
        return value(ValueType.TEXT, label, description, names);
    }

    /** This option, which must be given. */
    OptionSpec required() {
        return new OptionSpec(names, type, label, description, true, repeatable, split, defaultValue, keyOnlyValue);
    }

    /** This option, which may be given more than once; its value is the list of all (a map for {@link ValueType#KEY_VALUE}). */
    OptionSpec repeatable() {
        return new OptionSpec(names, type, label, description, required, true, split, defaultValue, keyOnlyValue);
    }

    /** This option, repeatable, each value also split at {@code separator} ({@code --event a,b}). */
    OptionSpec split(String separator) {
        return new OptionSpec(names, type, label, description, required, true, separator, defaultValue, keyOnlyValue);
    }

    /** This option, whose value is {@code text} (converted like a given one) when it is not given. */
    OptionSpec defaultValue(String text) {
        return new OptionSpec(names, type, label, description, required, repeatable, split, text, keyOnlyValue);
    }

    /** This {@link ValueType#KEY_VALUE} option, where a key without {@code =} stands for {@code key=value}. */
    OptionSpec keyOnlyValue(String value) {
        return new OptionSpec(names, type, label, description, required, repeatable, split, defaultValue, value);
    }

    List<String> names() {
        return names;
    }

    /** The name messages use: the longest, {@code --output} rather than {@code -o}. */
    String longName() {
        String longest = names.get(0);
        for (String n : names) {
            if (n.length() > longest.length()) {
                longest = n;
            }
        }
        return longest;
    }

    boolean hasName(String name) {
        return names.contains(name);
    }

    ValueType type() {
        return type;
    }

    boolean isFlag() {
        return type == ValueType.FLAG;
    }

    String label() {
        return label;
    }

    String description() {
        return description;
    }

    boolean isRequired() {
        return required;
    }

    boolean isRepeatable() {
        return repeatable;
    }

    /** The separator a value is split at, or null. */
    String split() {
        return split;
    }

    /** The default's text, or null. */
    String defaultValue() {
        return defaultValue;
    }

    /** For a key given without {@code =}: its value, or null when {@code =} is required. */
    String keyOnlyValue() {
        return keyOnlyValue;
    }
}
