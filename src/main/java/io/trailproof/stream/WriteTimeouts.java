package io.trailproof.stream;

import org.xnio.Option;
import org.xnio.Options;

import java.io.IOException;

/**
 * The server's write timeout (its idle timeout) closes a connection whose next write comes more
 * than the timeout after the previous one, which is every stream that waits for events longer than
 * that. A stream suspends it while it runs (CONTRACT 11: the idle timeout never ends a waiting
 * stream) and restores it when it ends, so a client that stopped reading its last frames is still
 * dropped.
 */
final class WriteTimeouts {

    /** Puts the suspended timeout back. */
    @FunctionalInterface
    interface Restore {
        void restore();
    }

    /** Anything with XNIO options: a server connection or a WebSocket channel. */
    interface Configurable {
        <T> T getOption(Option<T> option) throws IOException;

        <T> T setOption(Option<T> option, T value) throws IOException;
    }

    private WriteTimeouts() {
    }

    static Restore suspend(io.undertow.server.ServerConnection c) {
        return suspend(new Configurable() {
            @Override
            public <T> T getOption(Option<T> option) throws IOException {
                return c.getOption(option);
            }

            @Override
            public <T> T setOption(Option<T> option, T value) throws IOException {
                return c.setOption(option, value);
            }
        });
    }

    static Restore suspend(io.undertow.websockets.core.WebSocketChannel c) {
        return suspend(new Configurable() {
            @Override
            public <T> T getOption(Option<T> option) throws IOException {
                return c.getOption(option);
            }

            @Override
            public <T> T setOption(Option<T> option, T value) throws IOException {
                return c.setOption(option, value);
            }
        });
    }

    private static Restore suspend(Configurable c) {
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
