package io.trailproof.stream;

import org.xnio.Options;
import org.xnio.channels.Configurable;

import java.io.IOException;

/**
 * The server's write timeout (its idle timeout) closes a connection whose next write comes more
 * than the timeout after the previous one, which is every stream that waits for events longer than
 * that. A stream suspends it while it runs (src/site/live-stream.md: the idle timeout never ends a waiting
 * stream) and restores it when it ends, so a client that stopped reading its last frames is still
 * dropped.
 */
final class WriteTimeouts {

    /** Puts the suspended timeout back. */
    @FunctionalInterface
    interface Restore {
        void restore();
    }

    private WriteTimeouts() {
    }

    /** Suspends the write timeout of a server connection or a WebSocket channel (both are XNIO {@link Configurable}s). */
    static Restore suspend(Configurable c) {
        try {
            Integer before = c.getOption(Options.WRITE_TIMEOUT);
            c.setOption(Options.WRITE_TIMEOUT, 0);
            return () -> {
                try {
                    if (before != null) {
                        c.setOption(Options.WRITE_TIMEOUT, before);
                    }
                } catch (IOException | IllegalArgumentException e) {
                    // the connection is closing anyway
                }
            };
        } catch (IOException | IllegalArgumentException e) {
            return () -> { };
        }
    }
}
