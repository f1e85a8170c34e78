package io.trailproof.cli;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * An input stream that closes itself when nothing arrives for a while, so that a reader blocked on
 * a connection that died without closing (no FIN, no RST: a pulled cable, a dropped NAT entry)
 * gets an end and can reconnect. A daemon thread looks at the time of the last byte.
 */
final class SilenceWatch extends FilterInputStream {

    private final long limitNanos;
    private final Thread watcher;
    private volatile long lastByte = System.nanoTime();
    private volatile boolean tripped;
    private volatile boolean stopped;

    SilenceWatch(InputStream in, Duration limit) {
        super(in);
        this.limitNanos = limit.toNanos();
        this.watcher = Thread.ofPlatform().daemon().name("trailproof-tail-watch").start(this::watch);
    }

    private void watch() {
        long step = Math.max(10, TimeUnit.NANOSECONDS.toMillis(limitNanos) / 4);
        while (!stopped) {
            try {
                Thread.sleep(step);
            } catch (InterruptedException e) {
                return;
            }
            if (!stopped && System.nanoTime() - lastByte > limitNanos) {
                tripped = true;
                try {
                    in.close();
                } catch (IOException ignored) {
                    // closing is all that was wanted
                }
                return;
            }
        }
    }

    /** True when the stream was closed for its silence. */
    boolean tripped() {
        return tripped;
    }

    void stop() {
        stopped = true;
        watcher.interrupt();
    }

    @Override
    public int read() throws IOException {
        int c = checked(super.read());
        if (c >= 0) {
            lastByte = System.nanoTime();
        }
        return c;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        int n = checked(super.read(b, off, len));
        if (n > 0) {
            lastByte = System.nanoTime();
        }
        return n;
    }

    /** After a trip, an end of stream is reported as the drop it is. */
    private int checked(int n) throws IOException {
        if (tripped) {
            throw new IOException("no data for " + TimeUnit.NANOSECONDS.toSeconds(limitNanos) + " s");
        }
        return n;
    }
}
