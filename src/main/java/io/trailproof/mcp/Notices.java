package io.trailproof.mcp;

import java.io.PrintStream;
import java.util.HashSet;
import java.util.Set;

/**
 * The proxy's own lines on standard error (standard output belongs to the MCP session). A condition
 * that may come and go, such as the service being unreachable, is reported once per run, so a long
 * session does not fill the client's log with it.
 */
final class Notices {

    static final String PREFIX = "trailproof mcp-proxy: ";

    private final PrintStream err;
    private final Set<String> said = new HashSet<>();

    Notices(PrintStream err) {
        this.err = err;
    }

    /** Prints {@code line} the first time {@code kind} is reported in this run. */
    synchronized void once(String kind, String line) {
        if (said.add(kind)) {
            err.println(PREFIX + line);
            err.flush();
        }
    }

    synchronized void always(String line) {
        err.println(PREFIX + line);
        err.flush();
    }
}
