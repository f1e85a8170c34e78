package io.trailproof.cli;

import java.util.function.Consumer;

/**
 * SIGTERM and SIGINT handling. A JVM shutdown hook would run too, but the process would then exit
 * with 143; handling the signals lets {@code serve} finish its work and exit 0 as src/site/operations.md#start-output promises.
 */
final class Shutdown {

    private Shutdown() {
    }

    @SuppressWarnings("removal")
    static void onTerminate(Runnable action) {
        sun.misc.SignalHandler handler = signal -> action.run();
        sun.misc.Signal.handle(new sun.misc.Signal("TERM"), handler);
        sun.misc.Signal.handle(new sun.misc.Signal("INT"), handler);
    }

    /**
     * Hands SIGTERM, SIGINT and SIGHUP to {@code action} by name ({@code "TERM"}, {@code "INT"},
     * {@code "HUP"}) instead of ending the JVM: {@code mcp-proxy} passes them on to its child and
     * ends when the child does, with the child's exit code.
     */
    @SuppressWarnings("removal")
    static void forward(Consumer<String> action) {
        sun.misc.SignalHandler handler = signal -> action.accept(signal.getName());
        for (String name : new String[] {"TERM", "INT", "HUP"}) {
            sun.misc.Signal.handle(new sun.misc.Signal(name), handler);
        }
    }
}
