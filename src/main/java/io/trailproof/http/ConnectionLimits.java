package io.trailproof.http;

import io.undertow.server.HttpServerExchange;
import io.undertow.server.ServerConnection;
import io.undertow.server.AbstractServerConnection;
import io.undertow.server.ExchangeCompletionListener;
import io.undertow.util.AttachmentKey;
import org.xnio.ChannelListener;
import org.xnio.IoUtils;
import org.xnio.StreamConnection;
import org.xnio.channels.AcceptingChannel;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The listener's accept step: how many connections one client address may hold, and which connections
 * give way when the service nears its connection limit (src/site/security.md#connections).
 *
 * <ul>
 * <li>An address may hold at most {@code server.max-connections-per-address} connections; one more is
 *     closed as soon as it is accepted, before a byte of it is read. So one address, however many
 *     connections it opens and however slowly it uses them, leaves the rest of the limit to others.</li>
 * <li>When the open connections pass the limit less its headroom (a sixteenth, at least one), idle
 *     kept-alive connections (an answer sent, no next request begun) are closed, the longest idle
 *     first, until the count is back under it. A connection serving a request, a live stream or a
 *     WebSocket is never closed for this, nor one that has not sent its first request yet (the header
 *     and idle time-outs bound those).</li>
 * </ul>
 * The hard limit itself stays with XNIO ({@code CONNECTION_HIGH_WATER}): at it the listener stops
 * accepting until a connection closes.
 *
 * <p>Closed connections are noticed by looking ({@link StreamConnection#isOpen}), not by close
 * listeners, which Undertow replaces on the way (a WebSocket takes its connection over): an address's
 * closed connections are dropped from the count at its next connection, all of them whenever the
 * count reaches the headroom.
 */
final class ConnectionLimits {

    private static final System.Logger LOG = System.getLogger(ConnectionLimits.class.getName());
    private static final AttachmentKey<Tracked> TRACKED = AttachmentKey.create(Tracked.class);

    /**
     * One accepted connection and whether it is busy. Its state changes on its own I/O thread only. It
     * is also the completion listener of each of its exchanges: one object per connection, nothing
     * allocated per request.
     */
    private final class Tracked implements ExchangeCompletionListener {
        final StreamConnection connection;
        final InetAddress address;
        volatile boolean busy;
        /** A WebSocket took the connection over: it is a stream, never idle. */
        volatile boolean upgraded;
        /** At least one request was answered: an idle connection now is one kept alive. */
        volatile boolean kept;
        volatile long idleSinceNanos;

        Tracked(StreamConnection connection, InetAddress address, long now) {
            this.connection = connection;
            this.address = address;
            this.idleSinceNanos = now;
        }

        /** Kept alive after an answer and waiting for the next request. */
        boolean idle() {
            return kept && !busy && !upgraded;
        }

        /** The exchange is complete: the connection is idle again, or a stream for good after a WebSocket upgrade. */
        @Override
        public void exchangeEvent(HttpServerExchange done, NextListener nextListener) {
            if (done.getStatusCode() == 101) {
                upgraded = true;
            } else {
                idleSinceNanos = nanoTime.getAsLong();
                kept = true;
            }
            busy = false;
            nextListener.proceed();
        }
    }

    private final int maxPerAddress;
    private final int evictAbove;
    private final LongSupplier nanoTime;
    /** Guarded by this. */
    private final Map<InetAddress, List<Tracked>> byAddress = new HashMap<>();
    /** Guarded by this: every tracked connection, closed ones until pruned; at least the open count. */
    private int counted;
    /** For {@link #requestStarted}: the tracking of a connection, found once per connection. */
    private final Map<StreamConnection, Tracked> byConnection = new ConcurrentHashMap<>();

    /**
     * @param maxConnections {@code server.max-connections}
     * @param maxPerAddress  {@code server.max-connections-per-address}
     */
    ConnectionLimits(int maxConnections, int maxPerAddress, LongSupplier nanoTime) {
        this.maxPerAddress = maxPerAddress;
        this.evictAbove = maxConnections - Math.max(1, maxConnections / 16);
        this.nanoTime = nanoTime;
    }

    /** The listener's accept step: admits each accepted connection, then hands it to {@code open}. */
    ChannelListener<AcceptingChannel<StreamConnection>> acceptInto(ChannelListener<StreamConnection> open) {
        return channel -> accept(channel, open);
    }

    private void accept(AcceptingChannel<StreamConnection> channel, ChannelListener<StreamConnection> open) {
        StreamConnection connection;
        try {
            connection = channel.accept();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "accepting a connection failed: " + e);
            return;
        }
        if (connection == null) {
            return;
        }
        if (!admit(connection)) {
            IoUtils.safeClose(connection);
            return;
        }
        open.handleEvent(connection);
    }

    /** Counts the connection against its address and the limit; false when its address holds its share. */
    private boolean admit(StreamConnection connection) {
        InetAddress address = connection.getPeerAddress(InetSocketAddress.class).getAddress();
        List<Tracked> evict;
        synchronized (this) {
            List<Tracked> mine = byAddress.computeIfAbsent(address, a -> new ArrayList<>());
            counted -= prune(mine);
            if (mine.size() >= maxPerAddress) {
                if (mine.isEmpty()) {
                    byAddress.remove(address);
                }
                return false;
            }
            Tracked t = new Tracked(connection, address, nanoTime.getAsLong());
            mine.add(t);
            byConnection.put(connection, t);
            counted++;
            evict = counted > evictAbove ? idleToClose() : List.of();
        }
        for (Tracked t : evict) {
            // On the connection's own I/O thread, where a request would start: one that started in
            // the meantime keeps its connection.
            t.connection.getIoThread().execute(() -> {
                if (t.idle()) {
                    IoUtils.safeClose(t.connection);
                }
            });
        }
        return true;
    }

    /** Guarded by this: prunes every address, then picks the idle connections to close, longest idle first. */
    private List<Tracked> idleToClose() {
        List<Tracked> idle = new ArrayList<>();
        for (Iterator<List<Tracked>> it = byAddress.values().iterator(); it.hasNext(); ) {
            List<Tracked> list = it.next();
            counted -= prune(list);
            if (list.isEmpty()) {
                it.remove();
            }
            for (Tracked t : list) {
                if (t.idle()) {
                    idle.add(t);
                }
            }
        }
        int surplus = counted - evictAbove;
        if (surplus <= 0) {
            return List.of();
        }
        idle.sort(Comparator.comparingLong(t -> t.idleSinceNanos));
        return idle.subList(0, Math.min(surplus, idle.size()));
    }

    /** Removes the closed connections from {@code list}; returns how many. */
    private int prune(List<Tracked> list) {
        int before = list.size();
        list.removeIf(t -> {
            if (t.connection.isOpen()) {
                return false;
            }
            byConnection.remove(t.connection);
            return true;
        });
        return before - list.size();
    }

    /**
     * On the I/O thread, as a request starts: its connection is busy until the exchange completes, then
     * idle again (or a stream for good, after a WebSocket upgrade).
     */
    void requestStarted(HttpServerExchange ex) {
        ServerConnection c = ex.getConnection();
        Tracked t = c.getAttachment(TRACKED);
        if (t == null) {
            t = c instanceof AbstractServerConnection a ? byConnection.get(a.getChannel()) : null;
            if (t == null) {
                return;
            }
            c.putAttachment(TRACKED, t);
        }
        t.busy = true;
        ex.addExchangeCompleteListener(t);
    }

    /** Open connections of {@code address} as last counted (tests). */
    synchronized int counted(InetAddress address) {
        List<Tracked> list = byAddress.get(address);
        return list == null ? 0 : list.size();
    }
}
