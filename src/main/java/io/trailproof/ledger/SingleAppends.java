package io.trailproof.ledger;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.trailproof.store.EventLog;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.LongConsumer;

/**
 * The queue of single events ({@link Ledger#appendAsync}) and the one thread that drains it: whatever
 * has arrived is sequenced as one group, and each caller's future completes when its group is durable
 * (on the thread that forced the log).
 *
 * <p><b>Bounded.</b> At most {@code maxQueued} events wait; one more is refused at once with a
 * {@link LedgerBusyException} (HTTP 503 with {@code Retry-After}), so a flood costs bounded memory.
 *
 * <p><b>A caller that gives up.</b> An event whose future was cancelled before its group was taken
 * for sealing is dropped: it is never stored, and nothing tells anyone else about it. Once its group
 * is being sealed the event is stored, whatever happens to the caller: a sealed event has a place in
 * the chain and the log and cannot be withdrawn. A client that timed out therefore cannot tell which
 * happened, as with any request whose answer was lost; it finds out by looking the event up.
 *
 * <p><b>Never hangs.</b> Any failure while sealing or writing, an {@link Error} included, completes
 * the group's futures with a {@link LedgerUnavailableException}; the thread goes on (and the sequencer
 * refuses what follows if the failure stopped writes). Should the thread die all the same, the queue
 * refuses new events and fails those waiting.
 */
final class SingleAppends {
    /** Most events one group takes, so that a flood of singles still gets acknowledged in steps. */
    private static final int MAX_GROUP = 1024;

    private record Pending(Submission fields, CompletableFuture<AppendOutcome> done, KeyedAnswer recording) {
    }

    /** Queued by {@link #stop}: the sequencer thread ends when it reaches it. */
    private static final Pending STOP = new Pending(null, null, null);

    private final Sequencer sequencer;
    private final EventLog log;
    private final LedgerHealth health;
    private final LongConsumer afterDurable;
    private final int maxQueued;
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    // Guarded by this.
    private Thread thread;
    private boolean stopped;
    private Throwable died;

    private final DedupeTable dedupe;

    SingleAppends(Sequencer sequencer, EventLog log, LedgerHealth health, int maxQueued, LongConsumer afterDurable,
                  DedupeTable dedupe) {
        this.dedupe = dedupe;
        if (maxQueued < 1) {
            throw new IllegalArgumentException("the single-event queue needs room for at least one event, was " + maxQueued);
        }
        this.sequencer = sequencer;
        this.log = log;
        this.health = health;
        this.maxQueued = maxQueued;
        this.afterDurable = afterDurable;
    }

    CompletableFuture<AppendOutcome> submit(Submission fields) {
        return submit(fields, null);
    }

    /** As {@link #submit(Submission)}; a non-null recording's record is written in the event's group. */
    CompletableFuture<AppendOutcome> submit(Submission fields, KeyedAnswer recording) {
        Pending p = new Pending(fields, new CompletableFuture<>(), recording);
        synchronized (this) {
            if (stopped) {
                return CompletableFuture.failedFuture(new LedgerUnavailableException("the service is shutting down", null));
            }
            if (died != null) {
                return CompletableFuture.failedFuture(new LedgerUnavailableException(
                        "the single-event sequencer stopped (" + died + ")", died));
            }
            int queued = queue.size();
            if (queued >= maxQueued) {
                return CompletableFuture.failedFuture(new LedgerBusyException(queued));
            }
            if (thread == null) {
                thread = Thread.ofPlatform().daemon().name("trailproof-sequencer").start(this::run);
            }
            queue.add(p);
        }
        return p.done();
    }

    private void run() {
        try {
            while (true) {
                Pending first;
                try {
                    first = queue.take();
                } catch (InterruptedException e) {
                    continue; // only STOP ends this thread: an interrupt inside a write would break the tree store
                }
                if (first == STOP) {
                    return;
                }
                List<Pending> group = new ArrayList<>();
                group.add(first);
                try {
                    queue.drainTo(group, MAX_GROUP - 1);
                    int stop = group.indexOf(STOP);
                    if (stop >= 0) {
                        store(group.subList(0, stop));
                        return; // nothing is queued after STOP (submit refuses once stopped)
                    }
                    store(group);
                } catch (Throwable t) {
                    LedgerUnavailableException e = new LedgerUnavailableException("the sequencer failed: " + t, t);
                    group.forEach(p -> {
                        if (p != STOP) {
                            p.done().completeExceptionally(e);
                        }
                    });
                    if (group.contains(STOP)) {
                        return;
                    }
                }
            }
        } catch (Throwable t) {
            die(t);
        }
    }

    private void die(Throwable t) {
        synchronized (this) {
            died = t;
        }
        health.failWrites("the single-event sequencer stopped", t);
        LedgerUnavailableException e = new LedgerUnavailableException("the single-event sequencer stopped: " + t, t);
        List<Pending> left = new ArrayList<>();
        queue.drainTo(left);
        left.forEach(p -> {
            if (p != STOP) {
                p.done().completeExceptionally(e);
            }
        });
    }

    private void store(List<Pending> taken) {
        List<Pending> group = new ArrayList<>(taken.size());
        List<Submission> fields = new ArrayList<>(taken.size());
        List<Sequencer.Keyed> keyed = List.of();
        for (Pending p : taken) {
            if (!p.done().isDone()) { // a cancelled one is dropped (see the class comment)
                if (p.recording() != null) {
                    if (keyed.isEmpty()) {
                        keyed = new ArrayList<>();
                    }
                    keyed.add(new Sequencer.Keyed(fields.size(), fields.size() + 1, p.recording()));
                }
                group.add(p);
                fields.add(p.fields());
            }
        }
        if (group.isEmpty()) {
            return;
        }
        Sequencer.Sequenced s;
        try {
            s = sequencer.sequence(fields, keyed);
        } catch (LedgerUnavailableException | RuntimeException e) {
            group.forEach(p -> p.done().completeExceptionally(e));
            return;
        }
        log.whenDurable(s.end()).whenComplete((v, error) -> {
            if (error != null) {
                LedgerUnavailableException e = sequencer.durabilityFailed(error);
                group.forEach(p -> p.done().completeExceptionally(e));
                return;
            }
            s.publish(dedupe);
            for (int i = 0; i < group.size(); i++) {
                group.get(i).done().complete(s.outcomes()[i]);
            }
            afterDurable.accept(s.end());
        });
    }

    /**
     * Stops taking events: those queued before are still handed to the sequencer (which refuses
     * them once the ledger is closed), those sequenced complete as usual. The thread is never
     * interrupted; it ends at {@link #STOP}.
     */
    void stop() {
        Thread t;
        synchronized (this) {
            if (stopped) {
                return;
            }
            stopped = true;
            t = thread;
            if (t != null) {
                queue.add(STOP);
            }
        }
        if (t != null) {
            try {
                t.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
