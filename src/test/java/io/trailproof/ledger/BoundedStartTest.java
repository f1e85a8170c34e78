package io.trailproof.ledger;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.ledger.LedgerViews.AgentSummary;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.trailproof.store.SegmentIo;
import io.trailproof.store.SegmentLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A start restores the agents from the chain-head snapshot alone and leaves the position journal
 * (which grows with the log) to after it (src/site/storage.md#what-a-start-reads): the ledger opens,
 * counts its agents and takes writes while the journal's load has not even begun, and the positions
 * it loads afterwards are those a full replay gives. A snapshot of the format before still opens.
 * Likewise the idempotency keys of the sealed segments: the log's open reads the last segment and a
 * fixed 44 bytes of each seal record, however many keys the log holds; keyed writes wait for the
 * keys' load after the start, unkeyed ones do not.
 */
class BoundedStartTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int AGENTS = 8;

    @TempDir
    Path dir;

    private final Random random = new Random(5);

    private Ledger open(Executor background) throws Exception {
        return LedgerOpening.open(dir, new LedgerOptions(1 << 13, 1_000_000), Clock.systemUTC(), new Random(1),
                UnaryOperator.identity(), false, SegmentIo.FILES, background);
    }

    private void append(Ledger ledger, int n) throws Exception {
        List<ObjectNode> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(JSON.createObjectNode().put("agent_id", "agent-" + random.nextInt(AGENTS)));
        }
        ledger.append(batch);
    }

    /** A log of many segments and a few events of an agent whose positions the snapshot holds. */
    private void fill(Ledger ledger) throws Exception {
        for (int i = 0; i < 12; i++) {
            append(ledger, 100);
            if (i % 4 == 0) {
                ledger.append(List.of(JSON.createObjectNode().put("agent_id", EventFields.POLICIES_AGENT)));
            }
        }
    }

    private static Map<String, long[]> positions(Ledger ledger) throws Exception {
        Map<String, long[]> all = new TreeMap<>();
        for (AgentSummary a : ledger.agents()) {
            all.put(a.agentId(), ledger.agentPositions(a.agentId()));
        }
        return all;
    }

    private static List<AgentSummary> summaries(Ledger ledger) throws Exception {
        List<AgentSummary> all = new ArrayList<>();
        for (AgentSummary a : ledger.agents()) {
            all.add(new AgentSummary(a.agentId(), a.eventCount(), a.lastActivity(), null, a.headSequence(), a.headHash(),
                    null));
        }
        all.sort((x, y) -> x.agentId().compareTo(y.agentId()));
        return all;
    }

    @Test
    void aStartDoesNotWaitForThePositionJournalAndLoadsItAfterwards() throws Exception {
        Map<String, long[]> expected;
        List<AgentSummary> heads;
        try (Ledger ledger = open(Runnable::run)) {
            fill(ledger);
            expected = positions(ledger);
            heads = summaries(ledger);
        }
        assertThat(Files.list(dir.resolve("log")).filter(p -> p.toString().endsWith(".seg")).count()).isGreaterThan(10);
        List<Runnable> held = new ArrayList<>();
        try (Ledger ledger = open(held::add)) {
            // Open, with the tree check and the journal's load handed to the background and not yet begun.
            assertThat(held).hasSize(2);
            assertThat(ledger.loading()).containsExactly("tree check", "agent positions");
            Runnable treeCheck = held.removeFirst();
            assertThat(ledger.agentPositions(EventFields.POLICIES_AGENT))
                    .containsExactly(expected.get(EventFields.POLICIES_AGENT));
            // Writes are taken meanwhile.
            long before = ledger.size();
            ledger.append(List.of(JSON.createObjectNode().put("agent_id", "agent-0")));
            assertThat(ledger.size()).isEqualTo(before + 1);
            CompletableFuture<long[]> agent0 = CompletableFuture.supplyAsync(() -> ledger.agentPositions("agent-0"));
            held.getFirst().run();
            long[] want = Arrays.copyOf(expected.get("agent-0"), expected.get("agent-0").length + 1);
            want[want.length - 1] = before;
            assertThat(agent0.get(30, TimeUnit.SECONDS)).containsExactly(want);
            assertThat(ledger.loading()).containsExactly("tree check");
            treeCheck.run();
            assertThat(ledger.loading()).isEmpty();
            assertThat(summaries(ledger)).filteredOn(a -> !a.agentId().equals("agent-0"))
                    .containsExactlyElementsOf(heads.stream().filter(a -> !a.agentId().equals("agent-0")).toList());
            for (String agent : expected.keySet()) {
                assertThat(ledger.verify(agent).orElseThrow().valid()).as(agent).isTrue();
            }
            expected.put("agent-0", want);
        }
        try (Ledger ledger = open(Runnable::run)) {
            assertThat(positions(ledger)).containsExactlyEntriesOf(expected);
        }
    }

    /** Appends {@code n} events, each under an idempotency key of its own; returns the keys' log indexes. */
    private static Map<String, Long> appendKeyed(Ledger ledger, int from, int n) throws Exception {
        Map<String, Long> keys = new TreeMap<>();
        for (int i = from; i < from + n; i++) {
            String k = "key-" + i;
            DedupeTable.Lookup l = ledger.dedupe().claim(key(k), body(k));
            KeyedAnswer answer = new KeyedAnswer(((DedupeTable.Fresh) l).claim(),
                    o -> Long.toString(o.get(0).event().logIndex()).getBytes(StandardCharsets.US_ASCII));
            List<AppendOutcome> out = ledger.append(List.of(JSON.createObjectNode().put("agent_id", "agent-1")), answer);
            keys.put(k, out.get(0).event().logIndex());
        }
        return keys;
    }

    private static DedupeKey key(String k) {
        return DedupeKey.of(DedupeRecord.IDEMPOTENCY_KEY, "", "/v1/events", k);
    }

    private static byte[] body(String k) {
        return DedupeKey.contentDigest(k.getBytes(StandardCharsets.US_ASCII));
    }

    private record LogRead(long segmentBytes, long sealRecordBytes, int sealed, long lastSegment) {
    }

    /** What the ledger's log reads at its open, measured on the log alone, opened as the ledger opens it. */
    private LogRead logOpen() throws Exception {
        Path logDir = dir.resolve("log");
        try (SegmentLog log = SegmentLog.openLeavingSealedSides(logDir, 1 << 13, false, SegmentIo.FILES,
                (address, payload) -> { })) {
            List<Path> segments;
            try (Stream<Path> s = Files.list(logDir)) {
                segments = s.filter(p -> p.toString().endsWith(SegmentLog.SEGMENT_SUFFIX)).sorted().toList();
            }
            return new LogRead(log.segmentBytesRead(), log.sealRecordBytesRead(), segments.size() - 1,
                    Files.size(segments.getLast()));
        }
    }

    @Test
    void aStartReadsAFixedAmountOfEachSealedSegmentHoweverManyKeysItHoldsAndKeyedWritesWaitForTheirLoad()
            throws Exception {
        Map<String, Long> keys = new TreeMap<>();
        try (Ledger ledger = open(Runnable::run)) {
            keys.putAll(appendKeyed(ledger, 0, 30));
            append(ledger, 10);
        }
        LogRead small = logOpen();
        try (Ledger ledger = open(Runnable::run)) {
            keys.putAll(appendKeyed(ledger, 30, 300));
            append(ledger, 10);
        }
        LogRead large = logOpen();
        // Ten times the keys and several times the sealed segments: of segment files, the last segment
        // (at most a segment and a group), and 44 bytes a seal record, none of the side records in them.
        assertThat(large.sealed()).isGreaterThan(3 * small.sealed());
        assertThat(small.segmentBytes()).isEqualTo(small.lastSegment());
        assertThat(large.segmentBytes()).isEqualTo(large.lastSegment()).isLessThan((1 << 13) + 10 * 1024);
        assertThat(small.sealRecordBytes()).isEqualTo(44L * small.sealed());
        assertThat(large.sealRecordBytes()).isEqualTo(44L * large.sealed());

        List<Runnable> held = new ArrayList<>();
        try (Ledger ledger = open(held::add)) {
            assertThat(held).hasSize(3);   // the tree check, the positions, then the keys
            assertThat(ledger.loading()).contains("idempotency keys");
            // An unkeyed write does not wait for the keys.
            long before = ledger.size();
            ledger.append(List.of(JSON.createObjectNode().put("agent_id", "agent-0")));
            assertThat(ledger.size()).isEqualTo(before + 1);
            // A keyed write waits for them, and then finds its key recorded in a sealed segment.
            CompletableFuture<DedupeTable.Lookup> retried = CompletableFuture.supplyAsync(() -> {
                try {
                    return ledger.dedupe().claim(key("key-0"), body("key-0"));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            held.get(2).run();
            DedupeTable.Lookup found = retried.get(30, TimeUnit.SECONDS);
            assertThat(found).isInstanceOf(DedupeTable.Replay.class);
            assertThat(new String(((DedupeTable.Replay) found).record().answer(), StandardCharsets.US_ASCII))
                    .isEqualTo(Long.toString(keys.get("key-0")));
            assertThat(ledger.loading()).doesNotContain("idempotency keys");
            for (Map.Entry<String, Long> k : keys.entrySet()) {
                DedupeTable.Lookup l = ledger.dedupe().claim(key(k.getKey()), body(k.getKey()));
                assertThat(l).as(k.getKey()).isInstanceOf(DedupeTable.Replay.class);
                assertThat(new String(((DedupeTable.Replay) l).record().answer(), StandardCharsets.US_ASCII))
                        .isEqualTo(Long.toString(k.getValue()));
            }
            assertThat(ledger.dedupe().table().size()).isEqualTo(keys.size());
            held.get(0).run();
            held.get(1).run();
        }
    }

    @Test
    void aSnapshotOfTheFormatBeforeReplaysTheJournalAtStartAndIsWrittenAnewAtTheNextSnapshot() throws Exception {
        Map<String, long[]> expected;
        try (Ledger ledger = open(Runnable::run)) {
            fill(ledger);
            expected = positions(ledger);
        }
        HeadSnapshot current = HeadSnapshot.readIn(dir);
        writeFormerFormat(current);
        List<Runnable> held = new ArrayList<>();
        try (Ledger ledger = open(held::add)) {
            assertThat(held).hasSize(1);   // the tree check only
            assertThat(ledger.loading()).doesNotContain("agent positions");
            held.getFirst().run();
            assertThat(positions(ledger)).containsExactlyEntriesOf(expected);
            append(ledger, 10);
            expected = positions(ledger);
        }
        assertThat(HeadSnapshot.readIn(dir).inOrdinalOrder()).isTrue();
        try (Ledger ledger = open(Runnable::run)) {
            assertThat(positions(ledger)).containsExactlyEntriesOf(expected);
        }
    }

    /** The snapshot as the format before wrote it ({@code TPK2}): heads in no particular order, no positions. */
    private void writeFormerFormat(HeadSnapshot s) throws Exception {
        List<HeadSnapshot.Head> heads = new ArrayList<>(s.heads());
        Collections.shuffle(heads, new Random(3));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(0x54504b32);
        out.writeLong(s.logSize());
        out.writeUTF(s.lastHash());
        out.writeUTF(s.lastRecordedAt());
        out.writeLong(s.journalBytes());
        out.writeInt(heads.size());
        for (HeadSnapshot.Head h : heads) {
            out.writeUTF(h.agentId());
            out.writeLong(h.headSequence());
            out.writeUTF(h.headHash());
            out.writeUTF(h.lastRecordedAt());
            out.writeInt(h.eventCount());
        }
        out.flush();
        CRC32C crc = new CRC32C();
        crc.update(bytes.toByteArray());
        out.writeInt((int) crc.getValue());
        out.flush();
        Files.write(dir.resolve(HeadSnapshot.FILE), bytes.toByteArray());
    }
}
