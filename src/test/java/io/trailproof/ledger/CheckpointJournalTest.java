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
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A checkpoint costs what changed since the previous one (the position
 * journal grows by the new events only, the checkpoint of heads by the agents), and a start from any
 * state of the journal (torn, orphaned, damaged) ends in the same ledger.
 */
class CheckpointJournalTest {

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

    private record State(long size, String root, List<AgentSummary> agents) {
    }

    private static State state(Ledger ledger) throws Exception {
        List<AgentSummary> agents = new ArrayList<>();
        for (AgentSummary a : ledger.agents()) {
            agents.add(new AgentSummary(a.agentId(), a.eventCount(), a.lastActivity(), a.chainValid(), a.headSequence(),
                    a.headHash(), null));
        }
        return new State(ledger.size(), HexFormat.of().formatHex(ledger.root(ledger.size())), agents);
    }

    private long size(String file) throws Exception {
        return Files.size(dir.resolve(file));
    }

    @Test
    void theNthCheckpointWritesOnlyWhatChanged() throws Exception {
        try (Ledger ledger = open()) {
            append(ledger, 600);
            ledger.checkpoint();
            long heads = size("checkpoint");
            long journal = size("positions");
            append(ledger, 5000);
            ledger.checkpoint();
            long journalAfterMany = size("positions");
            append(ledger, 10);
            ledger.checkpoint();
            // Same six agents: the checkpoint of heads does not grow with the log.
            assertThat(size("checkpoint")).isEqualTo(heads);
            // The journal grows by the new events only: about a byte per event plus a record header.
            assertThat(journalAfterMany - journal).isBetween(5000L, 5100L);
            assertThat(size("positions") - journalAfterMany).isLessThan(60);
        }
    }

    @Test
    void aTornOrOrphanedJournalTailIsCutAndTheLogReReadFromTheCheckpoint() throws Exception {
        State expected;
        byte[] olderCheckpoint;
        try (Ledger ledger = open()) {
            append(ledger, 300);
            ledger.checkpoint();
            olderCheckpoint = Files.readAllBytes(dir.resolve("checkpoint"));
            append(ledger, 200);
            ledger.checkpoint();
            append(ledger, 50);
            expected = state(ledger);
        }
        // A crash after the journal record of the last checkpoint was forced but before the checkpoint
        // was renamed into place: the journal holds an orphaned record, and a torn one after it.
        Files.write(dir.resolve("checkpoint"), olderCheckpoint);
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
    void aDamagedJournalIsRebuiltFromTheLog() throws Exception {
        State expected;
        try (Ledger ledger = open()) {
            append(ledger, 400);
            ledger.checkpoint();
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
