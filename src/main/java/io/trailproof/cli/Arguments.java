package io.trailproof.cli;

import java.nio.file.Path;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The values a parsed command line gives a command's options and parameters, already converted to
 * their types ({@link ValueType}) and with the declared defaults filled in. A command reads them with
 * the {@link OptionSpec} or {@link ParameterSpec} it declared; an option that was not given and has no
 * default reads as null (false for a flag). Asking for a value as the wrong type is a bug of the
 * command, a {@link ClassCastException}.
 */
final class Arguments {

    private final Map<Object, Object> values;

    /** The values by their spec object (compared by identity). */
    Arguments(IdentityHashMap<Object, Object> values) {
        this.values = values;
    }

    /** No values: every option as if not given. */
    static Arguments none() {
        return new Arguments(new IdentityHashMap<>());
    }

    boolean flag(OptionSpec option) {
        return values.containsKey(option);
    }

    String text(OptionSpec option) {
        return (String) values.get(option);
    }

    String text(ParameterSpec parameter) {
        return (String) values.get(parameter);
    }

    Integer integer(OptionSpec option) {
        return (Integer) values.get(option);
    }

    Long longValue(OptionSpec option) {
        return (Long) values.get(option);
    }

    Path path(OptionSpec option) {
        return (Path) values.get(option);
    }

    Path path(ParameterSpec parameter) {
        return (Path) values.get(parameter);
    }

    /** Every value of a repeatable text option, in the order given; null when it was not given. */
    @SuppressWarnings("unchecked")
    List<String> texts(OptionSpec option) {
        return (List<String>) values.get(option);
    }

    /** Every value of a repeatable path option, in the order given; null when it was not given. */
    @SuppressWarnings("unchecked")
    List<Path> paths(OptionSpec option) {
        return (List<Path>) values.get(option);
    }

    /** The pairs of a repeatable {@link ValueType#KEY_VALUE} option, in the order given; null when it was not given. */
    @SuppressWarnings("unchecked")
    Map<String, String> map(OptionSpec option) {
        return (Map<String, String>) values.get(option);
    }

    /** The values of a parameter that takes the remaining arguments. */
    @SuppressWarnings("unchecked")
    List<String> rest(ParameterSpec parameter) {
        return (List<String>) values.get(parameter);
    }
}
