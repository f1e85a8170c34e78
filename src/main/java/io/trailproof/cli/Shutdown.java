package io.trailproof.cli;

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
}
