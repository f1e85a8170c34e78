package io.trailproof.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.trailproof.store.FaultInjectingIo;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica's apply path (cluster mode): two replicas applying the same records hold the same bytes,
 * whatever their clocks say; keys are decided at apply time in the log's time; the position survives
 * a reopen; local writes are refused; a disk fault in the middle of an apply stops the replica, and a
 * restart resumes it from its last durable record.
 */
class ReplicaAppliesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long T0 = Instant.parse("2026-11-25T10:00:00Z").toEpochMilli();

    @TempDir
    Path dir;

    private Ledger open(String name, Instant clockAt) throws Exception {
        return Ledger.openReplica(dir.resolve(name), new LedgerOptions(1 << 20, 1_000_000),
                Clock.fixed(clockAt, ZoneOffset.UTC));
    }

    private static List<Submission> events(String agent, int n) {
        List<Submission> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ObjectNode e = JSON.createObjectNode().put("agent_id", agent);
            e.putObject("metadata").put("i", i);
            out.add(new Submission(e, 0));
        }
        return out;
    }

    private static DedupeKey key(String k) {
        return DedupeKey.of(DedupeRecord.IDEMPOTENCY_KEY, "", "/v1/events", k);
    }

    private static byte[] content(String s) {
        return DedupeKey.contentDigest(s.getBytes());
    }

    private static byte[] answer(List<AppendOutcome> o) {
        return ("first " + o.get(0).event().logIndex()).getBytes();
    }

    /** A small replicated history: plain writes, keyed ones, a repeat and a conflict, a broker clock going back. */
    private static List<ReplicatedWrite> history() {
        List<ReplicatedWrite> h = new ArrayList<>();
        h.add(new ReplicatedWrite(0, T0, 11, events("a", 2), null, null, null));
        h.add(new ReplicatedWrite(1, T0 + 5, 12, events("b", 1), key("k"), content("x"), ReplicaAppliesTest::answer));
        h.add(new ReplicatedWrite(2, T0 + 3, 13, events("a", 1), null, null, null));   // broker time went back
        h.add(new ReplicatedWrite(3, T0 + 9, 14, events("b", 1), key("k"), content("x"), ReplicaAppliesTest::answer));
        h.add(new ReplicatedWrite(4, T0 + 9, 15, events("b", 1), key("k"), content("other"), ReplicaAppliesTest::answer));
        return h;
    }

    private static List<ReplicaOutcome> applyAll(Ledger ledger, List<ReplicatedWrite> writes) throws Exception {
        ReplicaApplies r = ledger.replicaApplies().orElseThrow();
        List<ReplicaOutcome> out = new ArrayList<>();
        for (ReplicatedWrite w : writes) {
            out.add(r.apply(w));
        }
        r.sync();
        return out;
    }

    private static List<String> payloads(Ledger ledger) throws Exception {
        List<String> out = new ArrayList<>();
        ledger.scan(0, ledger.size(), (i, p) -> out.add(new String(p)));
        return out;
    }

    @Test
    void replicasWithDifferentClocksHoldTheSameBytes() throws Exception {
        try (Ledger one = open("one", Instant.parse("2030-01-01T00:00:00Z"));
             Ledger two = open("two", Instant.parse("2001-01-01T00:00:00Z"))) {
            List<ReplicaOutcome> a = applyAll(one, history());
            applyAll(two, history());
            assertThat(payloads(one)).isEqualTo(payloads(two));
            assertThat(one.root(one.size())).isEqualTo(two.root(two.size()));
            assertThat(one.size()).isEqualTo(4);

            assertThat(a.get(0)).isInstanceOf(ReplicaOutcome.Stored.class);
            assertThat(a.get(3)).isInstanceOf(ReplicaOutcome.Replayed.class);
            assertThat(new String(((ReplicaOutcome.Replayed) a.get(3)).record().answer())).isEqualTo("first 2");
            assertThat(a.get(4)).isInstanceOf(ReplicaOutcome.Conflicting.class);
            assertThat(a.get(4).end()).isEqualTo(4);

            // recorded_at from the broker time, never decreasing; the id's time from it too
            List<String> p = payloads(one);
            assertThat(p.get(0)).contains("\"recorded_at\":\"2026-11-25T10:00:00.000000Z\"");
            assertThat(p.get(3)).contains("\"recorded_at\":\"2026-11-25T10:00:00.005000Z\"");
        }
    }

    private static DedupeKey mark(String span) {
        return DedupeKey.of(DedupeRecord.OTLP_SPAN, "trace", span);
    }

    private static byte[] markAnswer(List<AppendOutcome> o) {
        return o.get(0).ok() ? ("at " + o.get(0).event().logIndex()).getBytes() : null;
    }

    private static ReplicatedWrite spans(long offset, long time, String... spanIds) {
        List<DedupeKey> marks = new ArrayList<>();
        for (String s : spanIds) {
            marks.add(mark(s));
        }
        return new ReplicatedWrite(offset, time, (int) offset, events("otel", spanIds.length), null, null, null, marks,
                ReplicaAppliesTest::markAnswer);
    }

    @Test
    void spansAlreadyMarkedAreLeftOutOnEveryReplicaEvenWithinOnePoll() throws Exception {
        List<ReplicatedWrite> h = List.of(spans(0, T0, "s1", "s2"), spans(1, T0 + 1, "s2", "s3"),
                spans(2, T0 + 2, "s1", "s3"));
        try (Ledger one = open("one", Instant.parse("2030-01-01T00:00:00Z"));
             Ledger two = open("two", Instant.EPOCH)) {
            List<ReplicaOutcome> a = applyAll(one, h);   // one poll: s2 is marked by a record not yet synced
            ReplicaApplies r = two.replicaApplies().orElseThrow();
            for (ReplicatedWrite w : h) {
                r.apply(w);
                r.sync();   // record by record
            }
            assertThat(one.size()).isEqualTo(3);
            assertThat(payloads(one)).isEqualTo(payloads(two));
            assertThat(one.root(3)).isEqualTo(two.root(3));
            List<AppendOutcome> second = ((ReplicaOutcome.Stored) a.get(1)).outcomes();
            assertThat(second.get(0)).isNull();
            assertThat(second.get(1).event().logIndex()).isEqualTo(2);
            assertThat(((ReplicaOutcome.Stored) a.get(2)).outcomes()).containsExactly(null, null);
            assertThat(a.get(2).end()).isEqualTo(3);
        }
        try (Ledger again = open("one", Instant.EPOCH)) {   // the marks are rebuilt from the log
            List<ReplicaOutcome> later = applyAll(again, List.of(spans(3, T0 + 3, "s3", "s4")));
            assertThat(((ReplicaOutcome.Stored) later.get(0)).outcomes().get(0)).isNull();
            assertThat(again.size()).isEqualTo(4);
        }
    }

    @Test
    void thePositionAndTheKeysSurviveAReopen() throws Exception {
        List<ReplicatedWrite> h = history();
        try (Ledger one = open("one", Instant.EPOCH)) {
            applyAll(one, h.subList(0, 2));
        }
        try (Ledger again = open("one", Instant.EPOCH)) {
            assertThat(again.replicaPosition()).contains(new ReplicaPosition(1, T0 + 5));
            assertThat(again.replicaApplies().orElseThrow().position()).isEqualTo(1);
            List<ReplicaOutcome> rest = applyAll(again, h.subList(2, 5));
            assertThat(rest.get(1)).isInstanceOf(ReplicaOutcome.Replayed.class);
            try (Ledger fresh = open("fresh", Instant.EPOCH)) {
                applyAll(fresh, h);
                assertThat(payloads(again)).isEqualTo(payloads(fresh));
            }
            assertThatThrownBy(() -> again.replicaApplies().orElseThrow().apply(h.get(4)))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aKeyExpiresInTheLogsTimeNotTheMachines() throws Exception {
        try (Ledger l = Ledger.openReplica(dir.resolve("r"), new LedgerOptions(1 << 20, 1_000_000, false, 100,
                Duration.ofSeconds(10), 1000), Clock.systemUTC())) {
            List<ReplicaOutcome> o = applyAll(l, List.of(
                    new ReplicatedWrite(0, T0, 1, events("a", 1), key("k"), content("x"), ReplicaAppliesTest::answer),
                    new ReplicatedWrite(1, T0 + 9_999, 2, events("a", 1), key("k"), content("x"), ReplicaAppliesTest::answer),
                    new ReplicatedWrite(2, T0 + 10_000, 3, events("a", 1), key("k"), content("x"), ReplicaAppliesTest::answer)));
            assertThat(o.get(1)).isInstanceOf(ReplicaOutcome.Replayed.class);
            assertThat(o.get(2)).isInstanceOf(ReplicaOutcome.Stored.class);
        }
    }

    @Test
    void localWritesAreRefusedInAReplica() throws Exception {
        try (Ledger l = open("r", Instant.EPOCH)) {
            assertThatThrownBy(() -> l.append(List.of(JSON.createObjectNode().put("agent_id", "a"))))
                    .isInstanceOf(LedgerUnavailableException.class).hasMessageContaining("cluster mode");
            assertThat(l.appendAsync(JSON.createObjectNode().put("agent_id", "a"))).isCompletedExceptionally();
            assertThat(l.size()).isZero();
        }
    }

    @Test
    void theEmbeddedLedgerHasNoReplicaSide() throws Exception {
        try (Ledger l = Ledger.open(dir.resolve("e"), new LedgerOptions(1 << 20, 1_000_000), Clock.systemUTC(),
                new Random(1))) {
            assertThat(l.replicaApplies()).isEmpty();
            assertThat(l.replicaPosition()).isEmpty();
        }
    }

    /** An fsync that fails while a replica applies (cluster mode): see {@link #faultThenResume}. */
    @Test
    void aFailedForceWhileApplyingStopsTheReplicaAndARestartResumesFromTheLastDurableRecord() throws Exception {
        faultThenResume(io -> io.failForces(true));
    }

    /** A disk that fills in the middle of a replicated record's group: see {@link #faultThenResume}. */
    @Test
    void aFullDiskWhileApplyingStopsTheReplicaAndARestartResumesFromTheLastDurableRecord() throws Exception {
        faultThenResume(io -> io.diskFullAfter(100));
    }

    /**
     * A disk fault in the middle of a replica's apply, which kill -9 cannot produce: the failed record
     * is an error, and so is every later one (writes stop, as in the embedded mode). After a restart
     * the replica is at its last durable record with nothing of the failed one, so the apply loop
     * consumes again from there, and the rest applied gives the bytes and the root of a replica that
     * never failed: nothing lost, nothing stored twice.
     */
    private void faultThenResume(Consumer<FaultInjectingIo> fault) throws Exception {
        List<ReplicatedWrite> h = history();
        FaultInjectingIo io = new FaultInjectingIo();
        try (Ledger faulty = LedgerOpening.open(dir.resolve("faulty"), new LedgerOptions(1 << 20, 1_000_000),
                Clock.fixed(Instant.EPOCH, ZoneOffset.UTC), RandomGenerator.getDefault(),
                UnaryOperator.identity(), true, io)) {
            applyAll(faulty, h.subList(0, 2));
            fault.accept(io);
            assertThatThrownBy(() -> applyAll(faulty, h.subList(2, 3))).isInstanceOf(LedgerUnavailableException.class);
            assertThat(faulty.failed()).isTrue();
            io.failForces(false);
            io.diskFullAfter(Long.MAX_VALUE);
            assertThatThrownBy(() -> applyAll(faulty, h.subList(3, 5))).isInstanceOf(LedgerUnavailableException.class);
        }
        try (Ledger again = open("faulty", Instant.EPOCH)) {
            assertThat(again.replicaPosition()).contains(new ReplicaPosition(1, T0 + 5));
            assertThat(again.size()).isEqualTo(3);
            applyAll(again, h.subList(2, 5));
            try (Ledger fresh = open("fresh", Instant.EPOCH)) {
                applyAll(fresh, h);
                assertThat(payloads(again)).isEqualTo(payloads(fresh));
                assertThat(again.root(again.size())).isEqualTo(fresh.root(fresh.size()));
            }
        }
    }
}
