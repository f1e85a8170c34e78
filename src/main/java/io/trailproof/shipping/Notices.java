package io.trailproof.shipping;

import java.io.PrintStream;
import java.util.HashSet;
import java.util.Set;

/**
 * A capture command's own lines on standard error (for the MCP proxy, standard output belongs to the
 * MCP session). A condition that may come and go, such as the service being unreachable, is reported
 * once per run, so a long session does not fill the client's log with it.
 */
public final class Notices {

    private final PrintStream err;
    private final String prefix;
    private final Set<String> said = new HashSet<>();

    /** @param prefix starts each line, naming the command, such as {@code "trailproof mcp-proxy: "} */
    public Notices(PrintStream err, String prefix) {
        this.err = err;
        this.prefix = prefix;
    }

    /** Prints {@code line} the first time {@code kind} is reported in this run. */
    public synchronized void once(String kind, String line) {
        if (said.add(kind)) {
            err.println(prefix + line);
            err.flush();
        }
    }

    public synchronized void always(String line) {
        err.println(prefix + line);
        err.flush();
    }
}
