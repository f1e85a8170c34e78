package io.trailproof.ledger;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.ledger.LedgerViews.AgentSummary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A chain-head snapshot costs what changed since the previous one (the position journal grows by the
 * new events only, the snapshot by the agents), a start from any state of the journal (torn,
 * orphaned, damaged) ends in the same ledger, and a data directory of a version that named the
 * snapshot file {@code checkpoint} starts as it is.
 */
class HeadSnapshotJournalTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final Random random = new Random(11);

    private Ledger open() throws Exception {
        return Ledger.open(dir, new LedgerOptions(1 << 16, 1_000_000), Clock.systemUTC(), new Random(1));
    }

    private void append(Ledger ledger, int n) throws Exception {
        List<ObjectNode> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(JSON.createObjectNode().put("agent_id", "agent-" + random.nextInt(6)));
        }
        ledger.append(batch);
    }

    private record State(long size, String root, List<AgentSummary> agents, Map<String, List<Long>> positions) {
    }

    private static State state(Ledger ledger) throws Exception {
        List<AgentSummary> agents = new ArrayList<>();
        for (AgentSummary a : ledger.agents()) {
            agents.add(new AgentSummary(a.agentId(), a.eventCount(), a.lastActivity(), a.chainValid(), a.headSequence(),
                    a.headHash(), null));
        }
        Map<String, List<Long>> positions = new TreeMap<>();
        for (AgentSummary a : agents) {
            positions.put(a.agentId(), Arrays.stream(ledger.agentPositions(a.agentId())).boxed().toList());
        }
        return new State(ledger.size(), HexFormat.of().formatHex(ledger.root(ledger.size())), agents, positions);
    }

    private long size(String file) throws Exception {
        return Files.size(dir.resolve(file));
    }

    @Test
    void theNthSnapshotWritesOnlyWhatChanged() throws Exception {
        try (Ledger ledger = open()) {
            append(ledger, 600);
            ledger.snapshotHeads();
            long heads = size("head-snapshot");
            long journal = size("positions");
            append(ledger, 5000);
            ledger.snapshotHeads();
            long journalAfterMany = size("positions");
            append(ledger, 10);
            ledger.snapshotHeads();
            // Same six agents: the snapshot does not grow with the log.
            assertThat(size("head-snapshot")).isEqualTo(heads);
            // The journal grows by the new events only: about a byte per event plus a record header.
            assertThat(journalAfterMany - journal).isBetween(5000L, 5100L);
            assertThat(size("positions") - journalAfterMany).isLessThan(60);
        }
    }

    @Test
    void aTornOrOrphanedJournalTailIsCutAndTheLogReReadFromTheSnapshot() throws Exception {
        State expected;
        byte[] olderSnapshot;
        try (Ledger ledger = open()) {
            append(ledger, 300);
            ledger.snapshotHeads();
            olderSnapshot = Files.readAllBytes(dir.resolve("head-snapshot"));
            append(ledger, 200);
            ledger.snapshotHeads();
            append(ledger, 50);
            expected = state(ledger);
        }
        // A crash after the journal record of the last snapshot was forced but before the snapshot
        // was renamed into place: the journal holds an orphaned record, and a torn one after it.
        Files.write(dir.resolve("head-snapshot"), olderSnapshot);
        Files.write(dir.resolve("positions"), new byte[] {0, 0, 0, 42, 1, 2, 3}, StandardOpenOption.APPEND);
        try (Ledger ledger = open()) {
            assertThat(state(ledger)).isEqualTo(expected);
            append(ledger, 20);
            expected = state(ledger);
        }
        try (Ledger ledger = open()) {
            assertThat(state(ledger)).isEqualTo(expected);
        }
    }

    @Test
    void aDataDirectoryWhoseSnapshotIsStillNamedCheckpointStartsAndIsMovedToTheNewName() throws Exception {
        State expected;
        try (Ledger ledger = open()) {
            append(ledger, 700);
            expected = state(ledger);
        }
        // What an older version leaves: the same record under its former name (the format is unchanged).
        Files.move(dir.resolve("head-snapshot"), dir.resolve("checkpoint"));
        try (Ledger ledger = open()) {
            assertThat(state(ledger)).isEqualTo(expected);
            append(ledger, 30);
            expected = state(ledger);
        }
        assertThat(dir.resolve("checkpoint")).doesNotExist();
        assertThat(dir.resolve("head-snapshot")).exists();
        try (Ledger ledger = open()) {
            assertThat(state(ledger)).isEqualTo(expected);
        }
    }

    @Test
    void aLeftoverFileOfTheFormerNameNeverOverridesTheSnapshot() throws Exception {
        byte[] older;
        State expected;
        try (Ledger ledger = open()) {
            append(ledger, 100);
            ledger.snapshotHeads();
            older = Files.readAllBytes(dir.resolve("head-snapshot"));
            append(ledger, 100);
            expected = state(ledger);
        }
        // A crash between writing the new file and removing the old one leaves both: the new one counts.
        Files.write(dir.resolve("checkpoint"), older);
        try (Ledger ledger = open()) {
            assertThat(state(ledger)).isEqualTo(expected);
        }
        assertThat(dir.resolve("checkpoint")).doesNotExist();
    }

    @Test
    void aDamagedJournalIsRebuiltFromTheLog() throws Exception {
        State expected;
        try (Ledger ledger = open()) {
            append(ledger, 400);
            ledger.snapshotHeads();
            append(ledger, 100);
            expected = state(ledger);
        }
        try (FileChannel ch = FileChannel.open(dir.resolve("positions"), StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {(byte) 0xff}), 100);
        }
        try (Ledger ledger = open()) {
            assertThat(state(ledger)).isEqualTo(expected);
        }
        Files.delete(dir.resolve("positions"));
        try (Ledger ledger = open()) {
            assertThat(state(ledger)).isEqualTo(expected);
        }
    }
}
