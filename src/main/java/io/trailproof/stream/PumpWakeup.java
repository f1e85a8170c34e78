package io.trailproof.stream;

import org.xnio.XnioIoThread;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Hands a transport's pump to its connection's I/O thread with at most one run pending: the
 * dispatcher may wake a stream many times between two runs, and each burst costs one hand-off.
 */
final class PumpWakeup {

    private final AtomicBoolean scheduled = new AtomicBoolean();

    void wake(XnioIoThread thread, Runnable pump) {
        if (scheduled.compareAndSet(false, true)) {
            thread.execute(() -> {
                scheduled.set(false);
                pump.run();
            });
        }
    }
}
