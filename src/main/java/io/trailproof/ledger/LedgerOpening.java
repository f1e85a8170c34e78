package io.trailproof.ledger;

import io.trailproof.store.SegmentIo;
import io.trailproof.store.SegmentLog;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Executor;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;

/**
 * Opening a ledger: the log's recovery (the last segment's frames checked, a torn tail cut, sealed
 * segments taken from their seal records, the dedupe table and a replica's position rebuilt from the
 * side records it visits), then the ledger's own recovery
 * ({@link Recovery}: acknowledged events still there, chain heads and tree brought to the log's end).
 * What is left open on return belongs to the {@link Ledger}; on a failure nothing is left open.
 */
final class LedgerOpening {

    private static final System.Logger LOG = System.getLogger(Ledger.class.getName());

    private LedgerOpening() {
    }

    /** @param replica a replica of a cluster (its writes come from replicated records only), or embedded */
    static Ledger open(Path dataDir, LedgerOptions options, Clock clock, RandomGenerator random,
                               UnaryOperator<TreeAppends> treeSeam, boolean replica) throws IOException {
        return open(dataDir, options, clock, random, treeSeam, replica, SegmentIo.FILES);
    }

    /** As above, with the log's write seam chosen (tests: disk faults in the middle of writes and forces). */
    static Ledger open(Path dataDir, LedgerOptions options, Clock clock, RandomGenerator random,
                       UnaryOperator<TreeAppends> treeSeam, boolean replica, SegmentIo io) throws IOException {
        return open(dataDir, options, clock, random, treeSeam, replica, io, LedgerOpening::onOwnThread);
    }

    /**
     * As above, with the work left to after the start run on {@code background} (tests: a start
     * that must not wait for it).
     */
    static Ledger open(Path dataDir, LedgerOptions options, Clock clock, RandomGenerator random,
                       UnaryOperator<TreeAppends> treeSeam, boolean replica, SegmentIo io, Executor background)
            throws IOException {
        LogTime logTime = replica ? new LogTime(0) : null;
        // The dedupe table is rebuilt from the side records the log visits while it recovers (the
        // last segment's frames, and the sealed segments' seal records, which it reads anyway): no
        // extra pass over the log.
        // A replica's table runs on the log's time, so that expiry is decided by the log alone.
        DedupeTable dedupe = new DedupeTable(options.dedupeRetention(), options.dedupeMaxKeys(),
                replica ? logTime : clock);
        long now = replica ? Long.MIN_VALUE / 2 : clock.millis();
        ReplicaPosition[] position = new ReplicaPosition[1];
        SegmentLog log = SegmentLog.open(dataDir.resolve("log"), options.segmentBytes(), options.acceptTruncation(), io,
                (address, payload) -> {
                    if (payload.length > 0 && payload[0] == ReplicaPosition.MARKER) {
                        ReplicaPosition p = ReplicaPosition.decode(payload);
                        position[0] = p == null ? position[0] : p;
                    } else {
                        dedupe.restore(payload, address, now);
                    }
                });
        if (log.recoveredTailBytes() > 0) {
            LOG.log(System.Logger.Level.WARNING, "cut " + log.recoveredTailBytes() + " bytes of torn, uncommitted or refused "
                    + "tail off the log (a crash or a failed write; none of it was acknowledged)");
        }
        try {
            LedgerHealth health = new LedgerHealth();
            Recovery.Recovered r = Recovery.recover(dataDir, dataDir.resolve("log"), log, options, health, background);
            // One loss, one sentence: the snapshot's account (when it saw the loss) already says it.
            if (health.problems().isEmpty()) {
                log.acceptedLoss().ifPresent(health::report);
            }
            if (replica && position[0] != null) {
                logTime.advanceTo(position[0].timeMillis());
            }
            return new Ledger(dataDir, log, r, health, clock, random, replica ? withoutRedaction(options) : options,
                    treeSeam, dedupe, logTime, position[0]);
        } catch (IOException | RuntimeException e) {
            log.close();
            throw e;
        }
    }

    /** Runs {@code work} on a daemon thread of its own: it ends with the work and never holds the JVM. */
    private static void onOwnThread(Runnable work) {
        Thread t = new Thread(work, "trailproof-position-load");
        t.setDaemon(true);
        t.start();
    }

    private static LedgerOptions withoutRedaction(LedgerOptions o) {
        return new LedgerOptions(o.segmentBytes(), o.snapshotIntervalEvents(), o.acceptTruncation(), o.maxQueuedEvents(),
                o.dedupeRetention(), o.dedupeMaxKeys(), null);
    }

}
