package io.trailproof.http;

import io.undertow.Undertow;
import io.undertow.UndertowOptions;
import io.undertow.server.DefaultByteBufferPool;
import io.undertow.server.HttpHandler;
import io.undertow.server.protocol.http.HttpOpenListener;
import org.xnio.IoUtils;
import org.xnio.OptionMap;
import org.xnio.Options;
import org.xnio.StreamConnection;
import org.xnio.Xnio;
import org.xnio.XnioWorker;
import org.xnio.channels.AcceptingChannel;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.function.Supplier;

/**
 * The HTTP listener, assembled as Undertow's builder assembles one (the same worker, buffers and
 * socket options), with two differences the builder has no place for: every accepted connection
 * passes {@link ConnectionLimits} before Undertow reads from it, and gets {@link UndertowRefusals} under
 * its output before Undertow writes to it.
 */
final class Listener {

    /** Undertow's own choice for heaps over 128 MB: 16 KiB direct buffers. */
    private static final int BUFFER_BYTES = 16 * 1024;

    private final XnioWorker worker;
    private final DefaultByteBufferPool buffers;
    private final AcceptingChannel<StreamConnection> channel;

    private Listener(XnioWorker worker, DefaultByteBufferPool buffers, AcceptingChannel<StreamConnection> channel) {
        this.worker = worker;
        this.buffers = buffers;
        this.channel = channel;
    }

    /**
     * Initializes XNIO, the I/O library under Undertow, as {@link #start} would on its first call: its
     * provider, and the JMX beans it registers, which first builds the JVM's platform MBean server (a
     * tenth of a second and more of a server's start). Any thread, any number of times.
     */
    static void prepare() {
        Xnio.getInstance(Undertow.class.getClassLoader());
    }

    /**
     * Binds {@code host:port} and starts accepting.
     *
     * @param undertowOptions Undertow's server options (time-outs, entity size)
     * @param socketOptions   XNIO socket options (write time-out, connection high and low water)
     * @param requestIds      the ids of Undertow's own refusals
     */
    static Listener start(String host, int port, int workerThreads, HttpHandler root, OptionMap undertowOptions,
                          OptionMap socketOptions, ConnectionLimits limits, Supplier<String> requestIds)
            throws IOException {
        Xnio xnio = Xnio.getInstance(Undertow.class.getClassLoader());
        int ioThreads = Math.max(Runtime.getRuntime().availableProcessors(), 2);
        XnioWorker worker = xnio.createWorker(OptionMap.builder()
                .set(Options.WORKER_IO_THREADS, ioThreads)
                .set(Options.CONNECTION_HIGH_WATER, 1_000_000)
                .set(Options.CONNECTION_LOW_WATER, 1_000_000)
                .set(Options.WORKER_TASK_CORE_THREADS, workerThreads)
                .set(Options.WORKER_TASK_MAX_THREADS, workerThreads)
                .set(Options.TCP_NODELAY, true)
                .set(Options.CORK, true)
                .getMap());
        DefaultByteBufferPool buffers = new DefaultByteBufferPool(true, BUFFER_BYTES, -1, 4);
        try {
            HttpOpenListener open = new HttpOpenListener(buffers, OptionMap.builder()
                    .set(UndertowOptions.BUFFER_PIPELINED_DATA, true)
                    .addAll(undertowOptions)
                    .getMap());
            open.setRootHandler(root);
            AcceptingChannel<StreamConnection> channel = worker.createStreamConnectionServer(
                    new InetSocketAddress(InetAddress.getByName(host), port), limits.acceptInto(connection -> {
                        UndertowRefusals.install(connection, requestIds);
                        open.handleEvent(connection);
                    }), OptionMap.builder()
                            .set(Options.WORKER_IO_THREADS, worker.getIoThreadCount())
                            .set(Options.TCP_NODELAY, true)
                            .set(Options.REUSE_ADDRESSES, true)
                            .set(Options.BALANCING_TOKENS, 1)
                            .set(Options.BALANCING_CONNECTIONS, 2)
                            .set(Options.BACKLOG, 1000)
                            .addAll(socketOptions)
                            .getMap());
            channel.resumeAccepts();
            return new Listener(worker, buffers, channel);
        } catch (IOException | RuntimeException e) {
            worker.shutdownNow();
            buffers.close();
            throw e;
        }
    }

    /** The port actually bound (useful with port 0). */
    int port() {
        return channel.getLocalAddress(InetSocketAddress.class).getPort();
    }

    /** Stops accepting, closes every connection and stops the I/O and worker threads. */
    void stop() {
        IoUtils.safeClose(channel);
        worker.shutdown();
        try {
            worker.awaitTermination();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        buffers.close();
    }
}
