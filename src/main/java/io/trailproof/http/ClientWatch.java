package io.trailproof.http;

import io.undertow.server.HttpServerExchange;
import io.undertow.server.ServerConnection;
import io.undertow.server.protocol.http.HttpServerConnection;
import io.undertow.util.ImmediatePooledByteBuffer;
import org.xnio.IoUtils;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Whether the client of an exchange has gone (closed or reset its connection), for work that stops
 * when nobody waits for its answer: a search (src/site/search.md#bounds). While an exchange is being
 * served, Undertow reads nothing from its connection, so a client that left is not noticed until the
 * answer is written; this looks, at most every {@link #PROBE_INTERVAL_NANOS}, with a non-blocking read
 * of one byte: end of stream or an error means gone. A byte that arrives is the start of the client's
 * next request (HTTP/1.1 pipelining): it is handed back to the connection, which reads it first, and
 * the client is taken to be there from then on. Only for requests without a body (an unread body
 * would come first). Thread-safe; cheap between probes.
 */
final class ClientWatch implements BooleanSupplier {

    static final long PROBE_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final ServerConnection connection;
    private volatile boolean gone;
    private volatile boolean present;
    private long lastProbe = System.nanoTime() - PROBE_INTERVAL_NANOS; // guarded by this

    ClientWatch(HttpServerExchange ex) {
        this.connection = ex.getConnection();
    }

    @Override
    public boolean getAsBoolean() {
        if (gone || present) {
            return gone;
        }
        synchronized (this) {
            long now = System.nanoTime();
            if (gone || present || now - lastProbe < PROBE_INTERVAL_NANOS) {
                return gone;
            }
            lastProbe = now;
            gone = probe();
            return gone;
        }
    }

    /** The answer to a request whose client has gone: its connection is closed, nothing is written. */
    static void closeConnection(HttpServerExchange ex) {
        IoUtils.safeClose(ex.getConnection());
    }

    private boolean probe() {
        if (!connection.isOpen()) {
            return true;
        }
        if (!(connection instanceof HttpServerConnection http) || http.getExtraBytes() != null) {
            present = true; // another protocol, or a request already waiting behind this one
            return false;
        }
        ByteBuffer one = ByteBuffer.allocate(1);
        int read;
        try {
            read = http.getChannel().getSourceChannel().read(one);
        } catch (IOException e) {
            return true;
        }
        if (read < 0) {
            return true;
        }
        if (read > 0) {
            one.flip();
            http.ungetRequestBytes(new ImmediatePooledByteBuffer(one));
            present = true;
        }
        return false;
    }
}
