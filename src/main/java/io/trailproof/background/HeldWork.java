package io.trailproof.background;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * Work a start leaves to after it, held until the service listens: loads that grow with the log
 * (the tree check, the agents' positions, the sealed segments' idempotency keys, the check of the
 * search index's checksums, and the indexing of the events a crash left beyond the index's last
 * commit) would
 * otherwise take, on a machine with few cores, the CPU the start itself needs, and make the start
 * grow with the log after all. {@link #release} starts every held task, each on a daemon thread of
 * its own; a task handed over after that starts at once.
 *
 * <p>Held work never blocks a start: if the start has not released it within {@code limit} (a start
 * that waits for some of it, such as an erasure completed at the start that must read agents'
 * events), it is released anyway. Daemon threads: a task never keeps the process alive.
 */
public final class HeldWork implements Executor {

    private final List<Runnable> held = new ArrayList<>();   // guarded by this
    private boolean released;                                 // guarded by this
    private final Thread timer;

    /** Holds work until {@link #release}, or until {@code limit} has passed, whichever comes first. */
    public HeldWork(Duration limit) {
        timer = new Thread(() -> {
            try {
                Thread.sleep(limit.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            release();
        }, "trailproof-held-work");
        timer.setDaemon(true);
        timer.start();
    }

    /** Work that runs at once, each task on a daemon thread of its own (nothing is held). */
    public static Executor none() {
        return HeldWork::start;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (this) {
            if (!released) {
                held.add(task);
                return;
            }
        }
        start(task);
    }

    /** Starts every held task, in the order handed over; later tasks start at once. Idempotent. */
    public void release() {
        List<Runnable> tasks;
        synchronized (this) {
            if (released) {
                return;
            }
            released = true;
            tasks = new ArrayList<>(held);
            held.clear();
        }
        if (Thread.currentThread() != timer) {
            timer.interrupt();
        }
        tasks.forEach(HeldWork::start);
    }

    private static void start(Runnable task) {
        Thread t = new Thread(task, "trailproof-after-start");
        t.setDaemon(true);
        t.start();
    }
}
