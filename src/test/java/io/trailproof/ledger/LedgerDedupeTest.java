package io.trailproof.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.trailproof.testing.LogSurgeon;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Keyed writes: the dedupe record is in the group of its events, and the log is its source of truth. */
class LedgerDedupeTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Ledger open() throws Exception {
        return Ledger.open(dir, new LedgerOptions(1 << 20, 1_000_000), Clock.systemUTC(), new Random(1));
    }

    private static ObjectNode event(String agent) {
        return JSON.createObjectNode().put("agent_id", agent);
    }

    private static DedupeKey key(String k) {
        return DedupeKey.of(DedupeRecord.IDEMPOTENCY_KEY, "", "/test", k);
    }

    private static byte[] content(String s) {
        return DedupeKey.contentDigest(s.getBytes());
    }

    private static DedupeTable.Claim claim(Ledger ledger, String k, String body) throws Exception {
        DedupeTable.Lookup l = ledger.dedupe().claim(key(k), content(body));
        assertThat(l).isInstanceOf(DedupeTable.Fresh.class);
        return ((DedupeTable.Fresh) l).claim();
    }

    private static byte[] answerOf(List<AppendOutcome> outcomes) {
        return ("stored " + outcomes.size() + " first " + outcomes.get(0).event().logIndex()).getBytes();
    }

    @Test
    void aKeyedBatchIsRecordedWithItsEventsAndReplayedAfterReopen() throws Exception {
        try (Ledger ledger = open()) {
            ledger.append(List.of(event("a")));
            ledger.append(List.of(event("a"), event("b")), new KeyedAnswer(claim(ledger, "k1", "body"), LedgerDedupeTest::answerOf));
            assertThat(ledger.dedupe().claim(key("k1"), content("body"))).isInstanceOf(DedupeTable.Replay.class);
            assertThat(ledger.dedupe().claim(key("k1"), content("other"))).isInstanceOf(DedupeTable.Conflict.class);
        }
        try (Ledger ledger = open()) {
            assertThat(ledger.size()).isEqualTo(3);
            DedupeTable.Lookup l = ledger.dedupe().claim(key("k1"), content("body"));
            assertThat(l).isInstanceOf(DedupeTable.Replay.class);
            assertThat(new String(((DedupeTable.Replay) l).record().answer())).isEqualTo("stored 2 first 1");
        }
        // The log is the source of truth: derived files gone, the record is still found.
        Files.deleteIfExists(dir.resolve("head-snapshot"));
        Files.deleteIfExists(dir.resolve("positions"));
        try (Ledger ledger = open()) {
            assertThat(ledger.dedupe().claim(key("k1"), content("body"))).isInstanceOf(DedupeTable.Replay.class);
        }
    }

    @Test
    void keyedSingleEventsEachGetTheirRecordInTheGroupOfTheirEvent() throws Exception {
        try (Ledger ledger = open()) {
            List<CompletableFuture<AppendOutcome>> futures = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                ObjectNode e = event("s" + (i % 3));
                if (i % 2 == 0) {
                    futures.add(ledger.appendAsync(e, new KeyedAnswer(claim(ledger, "single-" + i, "b" + i),
                            LedgerDedupeTest::answerOf)));
                } else {
                    futures.add(ledger.appendAsync(e));
                }
            }
            for (CompletableFuture<AppendOutcome> f : futures) {
                assertThat(f.get().ok()).isTrue();
            }
            for (int i = 0; i < 50; i += 2) {
                DedupeTable.Lookup l = ledger.dedupe().claim(key("single-" + i), content("b" + i));
                assertThat(l).isInstanceOf(DedupeTable.Replay.class);
                assertThat(new String(((DedupeTable.Replay) l).record().answer()))
                        .isEqualTo("stored 1 first " + futures.get(i).get().event().logIndex());
            }
        }
        // On disk each record follows its event inside the same group, before that group's commit frame.
        assertEveryRecordSitsInAGroupAfterItsEvent(LogSurgeon.onlySegment(dir));
    }

    private static void assertEveryRecordSitsInAGroupAfterItsEvent(Path segment) throws Exception {
        ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(segment));
        int sides = 0;
        int recordsInGroup = 0;
        while (buf.remaining() >= 8) {
            int word = buf.getInt();
            buf.getInt();
            boolean commit = word < 0;
            boolean side = !commit && (word & 0x4000_0000) != 0;
            buf.position(buf.position() + (word & 0x3FFF_FFFF));
            if (commit) {
                recordsInGroup = 0;
            } else if (side) {
                assertThat(recordsInGroup).as("events before a record in its group").isPositive();
                sides++;
            } else {
                recordsInGroup++;
            }
        }
        assertThat(sides).isEqualTo(25);
    }

    @Test
    void aRefusedWriteRecordsNothingAndAnAllRefusedBatchRecordsItsAnswerAlone() throws Exception {
        try (Ledger ledger = open()) {
            DedupeTable.Claim c = claim(ledger, "nothing", "x");
            ledger.append(List.of(event("a")), new KeyedAnswer(c, o -> null));
            c.release();
            assertThat(ledger.dedupe().claim(key("nothing"), content("x"))).isInstanceOf(DedupeTable.Fresh.class);
            ledger.append(List.of(), new KeyedAnswer(claim(ledger, "alone", "y"), o -> "all refused".getBytes()));
            assertThat(ledger.size()).isEqualTo(1);
        }
        try (Ledger ledger = open()) {
            DedupeTable.Lookup l = ledger.dedupe().claim(key("alone"), content("y"));
            assertThat(new String(((DedupeTable.Replay) l).record().answer())).isEqualTo("all refused");
        }
    }

    @Test
    void aTornGroupLosesItsEventsAndItsRecordTogether() throws Exception {
        long before;
        Path segment;
        try (Ledger ledger = open()) {
            ledger.append(List.of(event("a")), new KeyedAnswer(claim(ledger, "kept", "1"), LedgerDedupeTest::answerOf));
            segment = LogSurgeon.onlySegment(dir);
            before = Files.size(segment);
            ledger.append(List.of(event("a"), event("b")), new KeyedAnswer(claim(ledger, "torn", "2"), LedgerDedupeTest::answerOf));
        }
        // A crash before the commit frame reached the disk: cut the group anywhere before its end.
        Files.deleteIfExists(dir.resolve("head-snapshot"));
        Files.deleteIfExists(dir.resolve("positions"));
        Files.deleteIfExists(dir.resolve("log").resolve("forced-size"));
        long after = Files.size(segment);
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            ch.truncate(after - 3);
        }
        try (Ledger ledger = open()) {
            assertThat(ledger.size()).isEqualTo(1);
            assertThat(ledger.dedupe().claim(key("kept"), content("1"))).isInstanceOf(DedupeTable.Replay.class);
            assertThat(ledger.dedupe().claim(key("torn"), content("2"))).isInstanceOf(DedupeTable.Fresh.class);
        }
        assertThat(Files.size(segment)).isEqualTo(before);
    }
}
