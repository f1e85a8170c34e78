package io.trailproof.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The command line of every bench main: {@code --name value} options and {@code --name} flags from a
 * known set, after the distribution directory for the mains that start the packaged server (default
 * {@code target/trailproof}, also when the first argument is an option). An option or flag not in the
 * set, an option without its value, or a value that is not a number where one is read, is refused
 * with its name, so that a typo does not silently run the default.
 */
final class BenchArgs {

    private static final String DEFAULT_DIST = "target/trailproof";

    private final Path dist;
    private final Map<String, List<String>> options = new HashMap<>();

    private BenchArgs(String[] args, boolean withDist, List<String> known, Set<String> flags) {
        int i = 0;
        if (withDist && args.length > 0 && !args[0].startsWith("--")) {
            dist = Path.of(args[0]);
            i = 1;
        } else {
            dist = withDist ? Path.of(DEFAULT_DIST) : null;
        }
        for (; i < args.length; i++) {
            String name = args[i];
            if (!known.contains(name) && !flags.contains(name)) {
                List<String> all = new ArrayList<>(known);
                all.addAll(flags);
                throw new IllegalArgumentException("unknown option " + name + " (known: " + String.join(", ", all) + ")");
            }
            if (flags.contains(name)) {
                options.computeIfAbsent(name, n -> new ArrayList<>()).add("true");
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + name + " needs a value");
            }
            options.computeIfAbsent(name, n -> new ArrayList<>()).add(args[++i]);
        }
    }

    /** Parses {@code [DIST] --option value...}, accepting the options named in {@code known}. */
    static BenchArgs parse(String[] args, String... known) {
        return new BenchArgs(args, true, List.of(known), Set.of());
    }

    /** As {@link #parse(String[], String...)}, with {@code flags} accepted as options without a value. */
    static BenchArgs parse(String[] args, List<String> known, Set<String> flags) {
        return new BenchArgs(args, true, known, flags);
    }

    /** Parses {@code --option value...} for a main that does not start the packaged server (no DIST). */
    static BenchArgs parseOptions(String[] args, String... known) {
        return new BenchArgs(args, false, List.of(known), Set.of());
    }

    /** As {@link #parseOptions(String[], String...)}, with {@code flags} accepted as options without a value. */
    static BenchArgs parseOptions(String[] args, List<String> known, Set<String> flags) {
        return new BenchArgs(args, false, known, flags);
    }

    Path dist() {
        if (dist == null) {
            throw new IllegalStateException("this benchmark takes no distribution directory");
        }
        return dist;
    }

    boolean flag(String name) {
        return options.containsKey(name);
    }

    String option(String name, String otherwise) {
        List<String> v = options.get(name);
        return v == null ? otherwise : v.get(v.size() - 1);
    }

    /** The value of a required option. */
    String required(String name) {
        String v = option(name, null);
        if (v == null) {
            throw new IllegalArgumentException("option " + name + " is required");
        }
        return v;
    }

    /** Every value given to an option that may be repeated, in order. */
    List<String> all(String name) {
        return List.copyOf(options.getOrDefault(name, List.of()));
    }

    Path pathOption(String name, Path otherwise) {
        String v = option(name, null);
        return v == null ? otherwise : Path.of(v);
    }

    long longOption(String name, long otherwise) {
        String v = option(name, null);
        return v == null ? otherwise : number(name, v, Long::parseLong);
    }

    int intOption(String name, int otherwise) {
        String v = option(name, null);
        return v == null ? otherwise : number(name, v, Integer::parseInt);
    }

    double doubleOption(String name, double otherwise) {
        String v = option(name, null);
        return v == null ? otherwise : number(name, v, Double::parseDouble);
    }

    private static <T> T number(String name, String value, Function<String, T> parse) {
        try {
            return parse.apply(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option " + name + " needs a number, not " + value);
        }
    }
}
