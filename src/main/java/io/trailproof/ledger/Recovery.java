package io.trailproof.ledger;

import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventHash;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.IntactEvent;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.store.AcknowledgedDataLostException;
import io.trailproof.store.EventLog;
import io.trailproof.store.MerkleNodeStore;
import io.trailproof.store.SegmentLog;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * Brings the derived state (agents, tree) up to the log at start, and checks the log against the
 * chain-head snapshot ({@link HeadSnapshot}) first.
 *
 * <p><b>Acknowledged data.</b> A snapshot is written only after every event it covers is durable,
 * so a log with fewer events than the snapshot covers, or whose event at the snapshot's last
 * index has another hash, lost acknowledged events: the start stops with an
 * {@link AcknowledgedDataLostException} naming the file, the offset and how many are missing, unless
 * the operator chose {@link LedgerOptions#acceptTruncation()}; then the loss is recorded in
 * {@link LedgerHealth} (shown on {@code GET /health}) and everything derived is rebuilt from the log.
 *
 * <p><b>Bounded start.</b> A snapshot of the current format restores every agent (head, count, last
 * position) by itself; the positions of the events it covers are read from the journal after the
 * start ({@link PositionLoader}), on {@code background}. One of the format before replays the journal
 * here, as before; the next snapshot is written in the current format.
 *
 * <p><b>Derived state</b> that does not match (a damaged or foreign position journal, a tree shorter
 * than the snapshot) is rebuilt from the log with a warning: it loses nothing.
 */
final class Recovery {

    private static final System.Logger LOG = System.getLogger(Recovery.class.getName());

    /** What the ledger starts from. */
    record Recovered(MerkleNodeStore tree, AgentTable agents, String lastHash, Instant lastRecordedAt,
                     long snapshotSize, long journalBytes) {
    }

    private Recovery() {
    }

    static Recovered recover(Path dataDir, Path logDir, EventLog log, LedgerOptions options, LedgerHealth health,
                             Executor background) throws IOException {
        HeadSnapshot snapshot = HeadSnapshot.readIn(dataDir);
        if (snapshot != null && snapshot.logSize() == 0) {
            snapshot = null;
        }
        if (snapshot != null && !acknowledgedEventsPresent(snapshot, logDir, log, options, health)) {
            snapshot = null;
        }
        AgentTable agents = new AgentTable();
        Path journal = dataDir.resolve(PositionJournal.FILE);
        long covered = 0;
        long journalBytes = 0;
        PositionLoad load = null;
        if (snapshot != null && snapshot.inOrdinalOrder() && snapshot.journalBytes() >= 0) {
            load = new PositionLoad();
            agents.restoreFromSnapshot(snapshot.heads(), load);
            covered = snapshot.logSize();
            journalBytes = snapshot.journalBytes();
        } else if (snapshot != null) {
            try {
                restore(snapshot, journal, agents);
                covered = snapshot.logSize();
                journalBytes = snapshot.journalBytes();
            } catch (PositionJournal.JournalException e) {
                LOG.log(System.Logger.Level.WARNING, "the position journal does not match the chain-head snapshot (" + e.getMessage()
                        + "); rebuilding chain heads and positions from the log");
                agents.clear();
                snapshot = null;
            }
        }
        PositionJournal.cutTo(journal, journalBytes);
        agents.journaledUpTo(covered);
        // The upper levels are checked after the start, on background; readers wait for it.
        MerkleNodeStore tree = MerkleNodeStore.openCheckingLater(dataDir.resolve("merkle"), covered);
        TreeCheckAtStart.start(background, tree, health);
        try {
            String lastHash = snapshot == null ? EventFields.GENESIS_PREV_HASH : snapshot.lastHash();
            Instant lastRecordedAt = snapshot == null ? Instant.EPOCH : Instant.parse(snapshot.lastRecordedAt());
            List<AgentState> restored = agents.inOrdinalOrder();
            CatchUp c = catchUp(log, tree, agents, covered, lastHash, lastRecordedAt);
            if (load != null) {
                PositionLoader.start(background, journal, snapshot, log, restored, load, health);
            }
            return new Recovered(tree, agents, c.lastHash, c.lastRecordedAt, covered, journalBytes);
        } catch (IOException | RuntimeException e) {
            tree.close();
            throw e;
        }
    }

    /** True when the log holds every event the snapshot covers; false when a loss was accepted. */
    private static boolean acknowledgedEventsPresent(HeadSnapshot snapshot, Path logDir, EventLog log,
                                                     LedgerOptions options, LedgerHealth health) throws IOException {
        long size = log.size();
        Segment segment;
        long missing;
        String what;
        if (snapshot.logSize() > size) {
            segment = segmentHolding(logDir, Math.max(0, size - 1));
            missing = snapshot.logSize() - size;
            what = "the log ends after " + size + " events but a chain-head snapshot written after " + snapshot.logSize()
                    + " events were durable covers them";
        } else {
            long index = snapshot.logSize() - 1;
            String hashInLog;
            try {
                hashInLog = StoredEvent.parse(log.read(index)).hash();
            } catch (Exception e) {
                hashInLog = "unreadable (" + e.getMessage() + ")";
            }
            if (hashInLog.equals(snapshot.lastHash())) {
                return true;
            }
            segment = segmentHolding(logDir, index);
            missing = 1;
            what = "the event at log index " + index + " (in the segment starting at index " + segment.firstIndex
                    + ") has hash " + hashInLog + " but the chain-head snapshot written after it was durable recorded "
                    + snapshot.lastHash() + ": the acknowledged event there was replaced";
        }
        if (!options.acceptTruncation()) {
            throw new AcknowledgedDataLostException(segment.file, segment.bytes, missing, what);
        }
        health.report("acknowledged events are missing; the loss was accepted at start (--accept-truncation) and "
                + "everything derived rebuilt from the log as it is: " + what + " (" + missing + " acknowledged event"
                + (missing == 1 ? "" : "s") + " missing) in " + segment.file + " at offset " + segment.bytes);
        return false;
    }

    private record Segment(Path file, long firstIndex, long bytes) {
    }

    /** The segment file whose first index is the largest at most {@code index}; the log directory when none. */
    private static Segment segmentHolding(Path logDir, long index) throws IOException {
        Path best = null;
        long bestStart = -1;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(logDir, "*" + SegmentLog.SEGMENT_SUFFIX)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                long start;
                try {
                    start = Long.parseLong(name.substring(0, name.length() - SegmentLog.SEGMENT_SUFFIX.length()));
                } catch (NumberFormatException e) {
                    continue;
                }
                if (start <= index && start > bestStart) {
                    best = p;
                    bestStart = start;
                }
            }
        }
        return best == null ? new Segment(logDir, 0, 0) : new Segment(best, bestStart, Files.size(best));
    }

    private static void restore(HeadSnapshot snapshot, Path journal, AgentTable agents) throws IOException {
        Map<String, HeadSnapshot.Head> heads = new HashMap<>();
        for (HeadSnapshot.Head h : snapshot.heads()) {
            heads.put(h.agentId(), h);
        }
        PositionJournal.replay(journal, snapshot.journalBytes(), snapshot.logSize(), new PositionJournal.Replay() {
            @Override
            public void newAgent(int ordinal, String agentId) throws PositionJournal.JournalException {
                if (!agents.restoreAgent(ordinal, agentId)) {
                    throw new PositionJournal.JournalException("agent " + agentId + " is introduced twice");
                }
            }

            @Override
            public void events(long from, int[] ordinals) {
                agents.restoreEvents(from, ordinals);
            }

            @Override
            public int agentCount() {
                return agents.ordinals();
            }
        });
        if (heads.size() != agents.count()) {
            throw new PositionJournal.JournalException("the journal names " + agents.count() + " agents, the snapshot "
                    + heads.size());
        }
        for (AgentState a : agents.all()) {
            HeadSnapshot.Head h = heads.get(a.agentId());
            if (h == null || h.eventCount() != a.countBelow(Long.MAX_VALUE)) {
                throw new PositionJournal.JournalException("agent " + a.agentId() + " has "
                        + a.countBelow(Long.MAX_VALUE) + " events in the journal and "
                        + (h == null ? "none" : h.eventCount()) + " in the snapshot");
            }
            a.restoreHead(h.headSequence(), h.headHash(), h.lastRecordedAt());
        }
    }

    private static final class CatchUp {
        String lastHash;
        Instant lastRecordedAt;
    }

    private static CatchUp catchUp(EventLog log, MerkleNodeStore tree, AgentTable agents, long covered,
                                   String lastHash, Instant lastRecordedAt) throws IOException {
        long treeSize = tree.size();
        long from = Math.min(treeSize, covered);
        long end = log.size();
        if (from < end) {
            LOG.log(System.Logger.Level.INFO, "catching up from the log: events " + from + " to " + end);
        }
        CatchUp c = new CatchUp();
        c.lastHash = lastHash;
        c.lastRecordedAt = lastRecordedAt;
        // The latest recorded_at replayed, as text: compared as text where its shape allows
        // (EventTime.recordedAtAfter) and parsed once at the end, not once per event.
        String[] latest = {null};
        MessageDigest sha = EventHash.newDigest();
        log.scan(from, end, (index, payload) -> {
            Replayed event = Replayed.read(index, payload, sha);
            if (index >= treeSize) {
                tree.append(Rfc9162.leafHash(HexFormat.of().parseHex(event.hash())));
            }
            if (index >= covered) {
                agents.add(index, event.agentId(), event.sequence(), event.hash(), event.recordedAt());
                c.lastHash = event.hash();
                if (latest[0] == null || EventTime.recordedAtAfter(event.recordedAt(), latest[0])) {
                    latest[0] = event.recordedAt();
                }
            }
        });
        if (latest[0] != null) {
            Instant recorded = Instant.parse(latest[0]);
            if (recorded.isAfter(c.lastRecordedAt)) {
                c.lastRecordedAt = recorded;
            }
        }
        return c;
    }

    /** What a replay takes from each stored event after the chain-head snapshot. */
    record Replayed(String agentId, long sequence, String hash, String recordedAt) {

        /**
         * Reads the event the way a verification does ({@link IntactEvent}: one pass over its bytes, its
         * hash recomputed, nothing built per event, where a full parse builds the event's JSON tree);
         * an event not shown intact that way (an erased one, whose hash cannot be recomputed, or
         * one whose bytes were changed) is parsed whole, as every event was before, and so is accepted or
         * refused exactly as then. The fields are the same either way ({@code RecoveryReplayTest}).
         *
         * @throws IOException when the payload is not a readable stored event: the log was altered
         */
        static Replayed read(long index, byte[] payload, MessageDigest sha) throws IOException {
            Optional<IntactEvent> intact = IntactEvent.check(payload, sha);
            if (intact.isPresent()) {
                IntactEvent e = intact.get();
                return new Replayed(e.agentId(), e.sequence(), e.hash(), e.recordedAt());
            }
            StoredEvent event;
            try {
                event = StoredEvent.parse(payload);
            } catch (Exception e) {
                throw new IOException("the event at log index " + index + " is not a readable stored event ("
                        + e.getMessage() + "): the log has been altered; restore it from a backup", e);
            }
            return new Replayed(event.agentId(), event.sequence(), event.hash(), event.recordedAt());
        }
    }
}
