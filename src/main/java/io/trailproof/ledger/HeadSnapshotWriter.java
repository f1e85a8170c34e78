package io.trailproof.ledger;

import io.trailproof.store.EventLog;
import io.trailproof.store.MerkleNodeStore;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Writes chain-head snapshots every {@code intervalEvents} events (on its own thread) and at close.
 *
 * <p><b>Cost.</b> A snapshot appends the positions of the events since the previous one to the
 * {@link PositionJournal} and rewrites the small {@link HeadSnapshot} (one entry per agent):
 * its cost follows what changed, not the length of the log. The sequencer is held only while the
 * snapshot is copied (the heads and the journal's next record); the tree and log forces, the journal
 * append and the snapshot write run while groups go on being committed.
 *
 * <p><b>Order on disk</b>, so that any crash leaves a usable state: tree forced and log durable up to
 * the snapshot, then the journal record forced, then the snapshot (atomic) naming the journal's new
 * length. A crash before the snapshot leaves an orphaned record that the next start cuts off.
 */
final class HeadSnapshotWriter {

    private static final System.Logger LOG = System.getLogger(HeadSnapshotWriter.class.getName());

    private final Path dataDir;
    private final EventLog log;
    private final MerkleNodeStore tree;
    private final Sequencer sequencer;
    private final AgentTable agents;
    private final long intervalEvents;
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "trailproof-head-snapshot");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean pending = new AtomicBoolean();
    private final Object writing = new Object();
    // Read by any thread, written under writing.
    private volatile long snapshotSize;
    private long journalBytes;

    HeadSnapshotWriter(Path dataDir, EventLog log, MerkleNodeStore tree, Sequencer sequencer, AgentTable agents,
                 long intervalEvents, long snapshotSize, long journalBytes) {
        this.dataDir = dataDir;
        this.log = log;
        this.tree = tree;
        this.sequencer = sequencer;
        this.agents = agents;
        this.intervalEvents = intervalEvents;
        this.snapshotSize = snapshotSize;
        this.journalBytes = journalBytes;
    }

    /** Called once the log is durable up to {@code end}: starts a snapshot when enough has changed. */
    void maybeSnapshot(long end) {
        if (end - snapshotSize >= intervalEvents && pending.compareAndSet(false, true)) {
            try {
                thread.execute(() -> {
                    try {
                        snapshot();
                    } catch (IOException | RuntimeException e) {
                        LOG.log(System.Logger.Level.WARNING, "chain-head snapshot failed (the next start re-reads more of the log): " + e);
                    } finally {
                        pending.set(false);
                    }
                });
            } catch (RuntimeException rejected) {
                pending.set(false); // closing
            }
        }
    }

    /** Writes a snapshot covering every event applied so far. */
    void snapshot() throws IOException {
        synchronized (writing) {
            Sequencer.Snapshot s = sequencer.snapshot();
            if (s.logSize() == 0 || s.logSize() == snapshotSize) {
                return;
            }
            tree.force();
            log.awaitDurable(s.logSize());
            AgentTable.Pending record = s.journal();
            long end = PositionJournal.append(dataDir.resolve(PositionJournal.FILE), journalBytes, record.from(),
                    record.to(), record.firstNewAgent(), record.newAgents(), record.ordinals());
            new HeadSnapshot(s.logSize(), s.lastHash(), s.lastRecordedAt(), end, s.heads(), true).writeIn(dataDir);
            agents.journaled(record);
            journalBytes = end;
            snapshotSize = s.logSize();
        }
    }

    /** Lets a running snapshot finish and stops the thread. */
    void stop() {
        thread.shutdown();
        try {
            thread.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
