package io.trailproof.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.chain.ChainFailure;
import io.trailproof.ledger.LedgerViews.ChainReport;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A verification reads sealed segments and the tree's leaves through memory maps
 * (src/site/storage.md#memory-maps); files cut under the maps from outside the service make it
 * fail, as a verification failure on its own thread, and the service goes on.
 */
class MappedVerifyTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Ledger open() throws Exception {
        return Ledger.open(dir, new LedgerOptions(1 << 14, 500), Clock.systemUTC(), new Random(1));
    }

    private static void fill(Ledger ledger) throws Exception {
        for (int i = 0; i < 1200; i += 100) {
            List<ObjectNode> batch = new ArrayList<>();
            for (int j = i; j < i + 100; j++) {
                ObjectNode e = JSON.createObjectNode().put("agent_id", j % 3 == 0 ? "walked" : "other");
                e.putObject("action_input").put("text", "x".repeat(300) + " " + j);
                batch.add(e);
            }
            ledger.append(batch);
        }
    }

    /** The verification on a thread of its own: its report, or what it threw. */
    private static Object verifyApart(Ledger ledger, String agent) throws Exception {
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                outcome.set(ledger.verify(agent).orElseThrow());
            } catch (Throwable e) {
                outcome.compareAndSet(null, e);
            }
        });
        t.start();
        t.join();
        return outcome.get();
    }

    @Test
    void aSealedSegmentCutUnderItsMapFailsTheVerification() throws Exception {
        try (Ledger ledger = open()) {
            fill(ledger);
            assertThat(ledger.verify("walked").orElseThrow().valid()).isTrue();   // maps the sealed segments
            List<Path> segments;
            try (Stream<Path> files = Files.list(dir.resolve("log"))) {
                segments = files.filter(f -> f.toString().endsWith(".seg")).sorted().toList();
            }
            assertThat(segments).hasSizeGreaterThan(4);
            try (FileChannel ch = FileChannel.open(segments.get(2), StandardOpenOption.WRITE)) {
                ch.truncate(ch.size() / 3);
            }
            Object outcome = verifyApart(ledger, "walked");
            assertThat(outcome).isInstanceOf(ChainReport.class);
            ChainReport report = (ChainReport) outcome;
            assertThat(report.valid()).isFalse();
            assertThat(report.failure().orElseThrow().kind()).isEqualTo(ChainFailure.Kind.HASH_MISMATCH);
            assertThat(report.failure().orElseThrow().actual()).startsWith("unreadable");
            assertThat(report.eventsVerified()).isPositive().isLessThan(ledger.agentPositions("walked").length);
        }
    }

    @Test
    void theLeafLevelCutUnderItsMapFailsTheVerification() throws Exception {
        try (Ledger ledger = open()) {
            fill(ledger);
            assertThat(ledger.verify("walked").orElseThrow().valid()).isTrue();   // maps the leaf level
            try (FileChannel ch = FileChannel.open(dir.resolve("merkle").resolve("level-00.hash"),
                    StandardOpenOption.WRITE)) {
                ch.truncate(32 * 100);
            }
            Object outcome = verifyApart(ledger, "walked");
            assertThat(outcome).isInstanceOf(ChainReport.class);
            ChainReport report = (ChainReport) outcome;
            assertThat(report.valid()).isFalse();
            assertThat(report.failure().orElseThrow().kind()).isIn(ChainFailure.Kind.MERKLE_LEAF_MISMATCH,
                    ChainFailure.Kind.HASH_MISMATCH);
            assertThat(report.eventsVerified()).isLessThan(ledger.agentPositions("walked").length);
        }
    }
}
