package io.trailproof.bench;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line of a bench main that starts the packaged server: the distribution directory
 * first (default {@code target/trailproof}), then {@code --name value} options from a known set.
 * An option not in the set, or one without its value, is refused with its name, so that a typo does
 * not silently run the default.
 */
final class BenchArgs {

    private final Path dist;
    private final Map<String, String> options = new HashMap<>();

    private BenchArgs(String[] args, List<String> known) {
        dist = Path.of(args.length > 0 ? args[0] : "target/trailproof");
        for (int i = 1; i < args.length; i += 2) {
            if (!known.contains(args[i])) {
                throw new IllegalArgumentException("unknown option " + args[i] + " (known: " + String.join(", ", known) + ")");
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + args[i] + " needs a value");
            }
            options.put(args[i], args[i + 1]);
        }
    }

    /** Parses {@code args}, accepting the options named in {@code known}. */
    static BenchArgs parse(String[] args, String... known) {
        return new BenchArgs(args, List.of(known));
    }

    Path dist() {
        return dist;
    }

    long longOption(String name, long otherwise) {
        String v = options.get(name);
        return v == null ? otherwise : Long.parseLong(v);
    }

    int intOption(String name, int otherwise) {
        String v = options.get(name);
        return v == null ? otherwise : Integer.parseInt(v);
    }

    double doubleOption(String name, double otherwise) {
        String v = options.get(name);
        return v == null ? otherwise : Double.parseDouble(v);
    }
}
