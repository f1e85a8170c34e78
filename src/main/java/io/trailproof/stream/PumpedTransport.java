package io.trailproof.stream;

import org.xnio.XnioIoThread;

import java.util.List;

/**
 * What both transports do with a connection's {@link EventBuffer}, on its I/O thread: write the
 * next batch when no write is in flight, and once the buffer is empty and the stream has an
 * {@link Ending}, end it (src/site/live-stream.md): an overflow and a stop each in the transport's
 * own way, a client gone by closing the connection. A failed write or read is the client gone.
 */
abstract class PumpedTransport implements Transport {

    final Subscription subscription;
    private final int batch;
    private final PumpWakeup wakeup = new PumpWakeup();

    // I/O thread only.
    /** A write is in flight: the subclass sets it when it writes and clears it when the write completes. */
    boolean writing;
    /** Nothing more is written: the stream ended or failed. */
    boolean finished;
    /** Puts the connection's write timeout back when the stream ends (see {@link WriteTimeouts}). */
    WriteTimeouts.Restore writeTimeout = () -> { };

    /** @param batch events written per write: the next batch is taken once a write completes */
    PumpedTransport(Subscription subscription, int batch) {
        this.subscription = subscription;
        this.batch = batch;
    }

    /** The connection's I/O thread. */
    abstract XnioIoThread ioThread();

    /** Whether the connection can still be written (checked before each batch). */
    abstract boolean writable();

    /** Writes these events (never empty); the completion of the write pumps again. */
    abstract void write(List<Delivery> events);

    /** Called once, when the stream ends for any reason but a failure, before its ending is written. */
    void beforeEnd() {
    }

    /** Ends the stream after an overflow, telling the client where to resume. */
    abstract void endOverflow(long resumeFrom);

    /** Ends the stream because the server is stopping. */
    abstract void endShutdown();

    /** Closes the connection now. */
    abstract void closeConnection();

    @Override
    public final void wake() {
        wakeup.wake(ioThread(), this::pump);
    }

    @Override
    public final void abort() {
        ioThread().execute(() -> {
            finished = true;
            closeConnection();
        });
    }

    /** I/O thread: writes the next batch, or the ending once the buffer is empty. */
    final void pump() {
        if (writing || finished || !writable()) {
            return;
        }
        EventBuffer buffer = subscription.buffer();
        List<Delivery> events = buffer.take(batch);
        if (!events.isEmpty()) {
            write(events);
            if (buffer.size() == 0) {
                subscription.drained();
            }
            return;
        }
        Ending ending = buffer.ending();
        if (ending == null) {
            return;
        }
        finished = true;
        beforeEnd();
        writeTimeout.restore();
        switch (ending) {
            case Ending.Overflow o -> endOverflow(o.resumeFrom());
            case Ending.Shutdown s -> endShutdown();
            case Ending.Gone g -> closeConnection();
        }
    }

    /** I/O thread: the write in flight completed; the next one may go. */
    final void written() {
        writing = false;
        pump();
    }

    /** I/O thread: the write in flight failed. */
    final void writeFailed() {
        writing = false;
        failed();
    }

    /** I/O thread: a write or a read failed, or the client misbehaved; its place is freed at once. */
    final void failed() {
        finished = true;
        subscription.release();
        closeConnection();
    }
}
