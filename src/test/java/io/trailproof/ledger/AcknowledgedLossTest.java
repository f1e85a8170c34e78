package io.trailproof.ledger;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.store.AcknowledgedDataLostException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Acknowledged loss, the ledger's part: a log with fewer events than its chain-head snapshot covers lost
 * acknowledged events; the start refuses, unless the operator accepted the loss, which then stays
 * visible on the ledger's health.
 */
class AcknowledgedLossTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Path segment() {
        return dir.resolve("log").resolve("00000000000000000000.seg");
    }

    private static List<ObjectNode> events(int n) {
        List<ObjectNode> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(JSON.createObjectNode().put("agent_id", "agent-" + (i % 2)));
        }
        return batch;
    }

    /** 5 events, then 7 more acknowledged and in the chain-head snapshot; returns the segment's length after the first 5. */
    private long writeAndCutTheLastSevenAcknowledgedEvents() throws Exception {
        long boundary;
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(1))) {
            ledger.append(events(5));
            boundary = Files.size(segment());
            ledger.append(events(7));
        }
        try (FileChannel ch = FileChannel.open(segment(), StandardOpenOption.WRITE)) {
            ch.truncate(boundary); // an earlier commit boundary, behind the snapshot
        }
        return boundary;
    }

    @Test
    void aLogShorterThanItsSnapshotRefusesToStartNamingFileOffsetAndCount() throws Exception {
        long boundary = writeAndCutTheLastSevenAcknowledgedEvents();
        assertThatThrownBy(() -> Ledger.open(dir, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(1)))
                .isInstanceOfSatisfying(AcknowledgedDataLostException.class, e -> {
                    assertThat(e.missingEvents()).isEqualTo(7);
                    assertThat(e.file()).isEqualTo(segment());
                    assertThat(e.offset()).isEqualTo(boundary);
                })
                .hasMessageContaining("00000000000000000000.seg").hasMessageContaining("offset " + boundary)
                .hasMessageContaining("7 acknowledged events missing").hasMessageContaining("--accept-truncation");
        // Refusing changed nothing: the same refusal again.
        assertThatThrownBy(() -> Ledger.open(dir, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(1)))
                .isInstanceOf(AcknowledgedDataLostException.class);
    }

    @Test
    void aSnapshotStillNamedCheckpointByAnOlderVersionGuardsAcknowledgedEvents() throws Exception {
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(1))) {
            ledger.append(events(3));
        }
        Path other = dir.resolve("other");
        try (Ledger ledger = Ledger.open(other, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(2))) {
            ledger.append(events(3));
        }
        Files.copy(other.resolve("log").resolve("00000000000000000000.seg"), segment(),
                StandardCopyOption.REPLACE_EXISTING);
        // Only the snapshot knows the last hash, and it still has the name an older version gave it.
        Files.move(dir.resolve("head-snapshot"), dir.resolve("checkpoint"));
        assertThatThrownBy(() -> Ledger.open(dir, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(1)))
                .isInstanceOf(AcknowledgedDataLostException.class).hasMessageContaining("log index 2")
                .hasMessageContaining("was replaced").hasMessageContaining("chain-head snapshot");
    }

    @Test
    void withAcceptTruncationItServesWhatRemainsAndHealthReportsTheLoss() throws Exception {
        writeAndCutTheLastSevenAcknowledgedEvents();
        LedgerOptions accept = new LedgerOptions(1 << 20, 1000, true, 100);
        String root;
        try (Ledger ledger = Ledger.open(dir, accept, Clock.systemUTC(), new Random(1))) {
            assertThat(ledger.size()).isEqualTo(5);
            assertThat(ledger.health().problems()).singleElement().asString()
                    .contains("accept-truncation").contains("7 acknowledged events missing")
                    .contains("00000000000000000000.seg");
            assertThat(ledger.verifyAll()).isEqualTo(2);
            assertThat(ledger.agents()).extracting(LedgerViews.AgentSummary::eventCount).containsExactly(3L, 2L);
            ledger.append(events(1));
            root = HexFormat.of().formatHex(ledger.root(ledger.size()));
        }
        // The next snapshot covers what the log now holds: the following start is clean.
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(1))) {
            assertThat(ledger.health().problems()).isEmpty();
            assertThat(HexFormat.of().formatHex(ledger.root(ledger.size()))).isEqualTo(root);
        }
    }

    @Test
    void aReplacedAcknowledgedEventRefusesToStart() throws Exception {
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(1))) {
            ledger.append(events(3));
        }
        // Another log of the same length in its place (e.g. a restored backup of another directory).
        Path other = dir.resolve("other");
        try (Ledger ledger = Ledger.open(other, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(2))) {
            ledger.append(events(3));
        }
        Files.copy(other.resolve("log").resolve("00000000000000000000.seg"), segment(),
                StandardCopyOption.REPLACE_EXISTING);
        assertThatThrownBy(() -> Ledger.open(dir, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(1)))
                .isInstanceOf(AcknowledgedDataLostException.class).hasMessageContaining("log index 2")
                .hasMessageContaining("was replaced");
    }

    @Test
    void aSnapshotOfTheFormatBeforeTheJournalStillGuardsAcknowledgedEvents() throws Exception {
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(1))) {
            ledger.append(events(3));
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(0x54504b31); // "TPK1": heads and every agent's positions in one file
        out.writeLong(10);
        out.writeUTF("00".repeat(32));
        out.writeUTF("2026-11-22T10:00:00.000000Z");
        out.writeInt(0);
        out.flush();
        CRC32C crc = new CRC32C();
        crc.update(bytes.toByteArray());
        out.writeInt((int) crc.getValue());
        // Versions of that format named the file "checkpoint".
        Files.delete(dir.resolve("head-snapshot"));
        Files.write(dir.resolve("checkpoint"), bytes.toByteArray());
        assertThatThrownBy(() -> Ledger.open(dir, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(1)))
                .isInstanceOfSatisfying(AcknowledgedDataLostException.class,
                        e -> assertThat(e.missingEvents()).isEqualTo(7));
    }

    @Test
    void aMatchingSnapshotOfTheFormatBeforeTheJournalIsRebuiltFromTheLog() throws Exception {
        String root;
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(1))) {
            ledger.append(events(3));
            root = HexFormat.of().formatHex(ledger.root(3));
        }
        byte[] current = Files.readAllBytes(dir.resolve("head-snapshot"));
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(current));
        in.readInt();
        long size = in.readLong();
        String hash = in.readUTF();
        String recordedAt = in.readUTF();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(0x54504b31);
        out.writeLong(size);
        out.writeUTF(hash);
        out.writeUTF(recordedAt);
        out.writeInt(0);
        out.flush();
        CRC32C crc = new CRC32C();
        crc.update(bytes.toByteArray());
        out.writeInt((int) crc.getValue());
        Files.delete(dir.resolve("head-snapshot"));
        Files.write(dir.resolve("checkpoint"), bytes.toByteArray());
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(1))) {
            assertThat(HexFormat.of().formatHex(ledger.root(ledger.size()))).isEqualTo(root);
            assertThat(ledger.agents()).extracting(LedgerViews.AgentSummary::eventCount).containsExactly(2L, 1L);
            assertThat(ledger.health().problems()).isEmpty();
        }
    }
}
