package io.trailproof.ledger;

import io.trailproof.background.HeldWork;
import io.trailproof.store.SegmentIo;
import io.trailproof.store.SegmentLog;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;

/**
 * Opening a ledger: the log's recovery (the last segment's frames checked, a torn tail cut, sealed
 * segments taken from their seal records' heads), then the ledger's own recovery
 * ({@link Recovery}: acknowledged events still there, chain heads and tree brought to the log's end).
 * What is left open on return belongs to the {@link Ledger}; on a failure nothing is left open.
 *
 * <p><b>The dedupe table</b> is rebuilt from the log's side records. A replica reads them all during
 * the open (its position is among them, and its table runs on the log's time). Otherwise the open
 * reads those of the last segment only, and the sealed segments' side records (one per keyed write or
 * OTLP span mark: they grow with the log) are read after it, on {@code background}, oldest first,
 * before the last segment's are entered: keyed writes wait for them, a bounded time, and are then
 * refused ({@link DedupeTable}); writes without a key do not wait; {@link Ledger#loading()} says
 * {@code "idempotency keys"} meanwhile. When the sealed segments hold no side record, or an
 * interrupted erasure is completed at the open (it rewrites segments), they are read during the open.
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
        return open(dataDir, options, clock, random, treeSeam, replica, io, HeldWork.none());
    }

    /**
     * As above, with the work left to after the start run on {@code background} (tests: a start
     * that must not wait for it).
     */
    static Ledger open(Path dataDir, LedgerOptions options, Clock clock, RandomGenerator random,
                       UnaryOperator<TreeAppends> treeSeam, boolean replica, SegmentIo io, Executor background)
            throws IOException {
        LogTime logTime = replica ? new LogTime(0) : null;
        // The dedupe table is rebuilt from the side records (see the class comment): no pass over the log.
        // A replica's table runs on the log's time, so that expiry is decided by the log alone.
        DedupeTable dedupe = new DedupeTable(options.dedupeRetention(), options.dedupeMaxKeys(),
                replica ? logTime : clock);
        long now = replica ? Long.MIN_VALUE / 2 : clock.millis();
        ReplicaPosition[] position = new ReplicaPosition[1];
        SegmentLog log;
        List<LastSide> lastSegment = new ArrayList<>();
        if (replica) {
            log = SegmentLog.open(dataDir.resolve("log"), options.segmentBytes(), options.acceptTruncation(), io,
                    (address, payload) -> {
                        if (payload.length > 0 && payload[0] == ReplicaPosition.MARKER) {
                            ReplicaPosition p = ReplicaPosition.decode(payload);
                            position[0] = p == null ? position[0] : p;
                        } else {
                            dedupe.restore(payload, address, now);
                        }
                    });
        } else {
            log = SegmentLog.openLeavingSealedSides(dataDir.resolve("log"), options.segmentBytes(),
                    options.acceptTruncation(), io, (address, payload) -> lastSegment.add(new LastSide(address, payload)));
            dedupe.loadingKeys();
        }
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
            // The erasure the ledger completes as it opens rewrites segments: their records go in first.
            // Sealed segments without side records leave nothing to load after the start.
            boolean keysNow = !replica && (Files.exists(dataDir.resolve(LedgerErasures.PENDING_FILE))
                    || log.sealedSidesLeft() == 0);
            if (keysNow) {
                loadKeys(log, dedupe, lastSegment, now, health);
            }
            Ledger ledger = new Ledger(dataDir, log, r, health, clock, random,
                    replica ? withoutRedaction(options) : options, treeSeam, dedupe, logTime, position[0]);
            if (!replica && !keysNow) {
                background.execute(() -> loadKeys(log, dedupe, lastSegment, now, health));
            }
            return ledger;
        } catch (IOException | RuntimeException e) {
            log.close();
            throw e;
        }
    }

    /** A side record of the last segment, entered into the dedupe table after the sealed segments'. */
    private record LastSide(long address, byte[] payload) {
    }

    /**
     * Enters the sealed segments' side records into the dedupe table, oldest first, then the last
     * segment's, and opens the table to keyed writes. No keyed write is recorded meanwhile (they wait
     * or are refused), so the table holds its records in the log's order, as a full read at the start made it.
     */
    private static void loadKeys(SegmentLog log, DedupeTable dedupe, List<LastSide> lastSegment, long now,
                                 LedgerHealth health) {
        try {
            log.readSealedSides((address, payload) -> dedupe.restore(payload, address, now));
            for (LastSide s : lastSegment) {
                dedupe.restore(s.payload(), s.address(), now);
            }
            lastSegment.clear();
            dedupe.keysLoaded();
        } catch (IOException | RuntimeException e) {
            if (log.failure() == null && !log.closed()) {
                health.report("the idempotency keys of the sealed log segments could not be read (" + e.getMessage()
                        + "); keyed writes are refused until the log is repaired and the service restarted");
                LOG.log(System.Logger.Level.ERROR, "loading the idempotency keys failed", e);
            }
            dedupe.keysFailed(String.valueOf(e.getMessage()));
        }
    }

    private static LedgerOptions withoutRedaction(LedgerOptions o) {
        return new LedgerOptions(o.segmentBytes(), o.snapshotIntervalEvents(), o.acceptTruncation(), o.maxQueuedEvents(),
                o.dedupeRetention(), o.dedupeMaxKeys(), null);
    }

}
