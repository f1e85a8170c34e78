package io.trailproof.ledger;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.trailproof.testing.HandClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class LedgerTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static ObjectNode event(String agent) {
        return JSON.createObjectNode().put("agent_id", agent);
    }

    private Ledger open(Clock clock) throws Exception {
        return Ledger.open(dir, new LedgerOptions(1 << 16, 7), clock, new Random(1));
    }

    @Test
    void recordedAtNeverDecreasesWhenTheClockGoesBack() throws Exception {
        HandClock clock = new HandClock("2026-11-22T10:00:00Z");
        try (Ledger ledger = open(clock)) {
            String first = ledger.append(List.of(event("a"))).get(0).event().recordedAt();
            clock.now = clock.now.minus(Duration.ofHours(1));
            String second = ledger.append(List.of(event("a"))).get(0).event().recordedAt();
            assertThat(second).isEqualTo(first);
            clock.now = clock.now.plus(Duration.ofHours(2));
            assertThat(ledger.append(List.of(event("a"))).get(0).event().recordedAt()).isGreaterThan(first);
        }
        // Also across a restart: the last recorded_at comes back from the log or the checkpoint.
        clock.now = Instant.parse("2020-01-01T00:00:00Z");
        try (Ledger ledger = open(clock)) {
            assertThat(ledger.append(List.of(event("a"))).get(0).event().recordedAt()).startsWith("2026-11-22T11");
        }
    }

    @Test
    void anOversizedItemIsRefusedAndTakesNoPlace() throws Exception {
        try (Ledger ledger = open(new HandClock("2026-11-22T10:00:00Z"))) {
            ObjectNode huge = event("a");
            huge.putObject("metadata").put("blob", "x".repeat(1 << 20));
            List<AppendOutcome> out = ledger.append(List.of(event("a"), huge, event("a")));
            assertThat(out.get(1).ok()).isFalse();
            assertThat(out.get(1).error()).contains("1");
            assertThat(out.get(0).event().logIndex()).isZero();
            assertThat(out.get(2).event().logIndex()).isEqualTo(1);
            assertThat(out.get(2).event().sequence()).isEqualTo(2);
            assertThat(out.get(2).event().prevHash()).isEqualTo(out.get(0).event().hash());
            assertThat(ledger.size()).isEqualTo(2);
        }
    }

    @Test
    void reopeningGivesTheSameStateWithOrWithoutDerivedFiles() throws Exception {
        Random random = new Random(42);
        String root;
        List<LedgerViews.AgentSummary> agents;
        try (Ledger ledger = open(new HandClock("2026-11-22T10:00:00Z"))) {
            for (int i = 0; i < 60; i++) {
                List<ObjectNode> batch = new ArrayList<>();
                for (int j = 0, n = 1 + random.nextInt(5); j < n; j++) {
                    batch.add(event("agent-" + random.nextInt(4)));
                }
                ledger.append(batch);
            }
            root = HexFormat.of().formatHex(ledger.root(ledger.size()));
            agents = ledger.agents();
        }
        try (Ledger ledger = open(new HandClock("2026-11-22T10:00:00Z"))) {
            assertThat(HexFormat.of().formatHex(ledger.root(ledger.size()))).isEqualTo(root);
            assertThat(ledger.agents()).isEqualTo(agents);
        }
        Files.delete(dir.resolve("head-snapshot"));
        try (var files = Files.list(dir.resolve("merkle"))) {
            for (Path p : files.toList()) {
                Files.delete(p);
            }
        }
        try (Ledger ledger = open(new HandClock("2026-11-22T10:00:00Z"))) {
            assertThat(HexFormat.of().formatHex(ledger.root(ledger.size()))).isEqualTo(root);
            assertThat(ledger.agents()).isEqualTo(agents);
            for (LedgerViews.AgentSummary a : agents) {
                assertThat(ledger.verify(a.agentId()).orElseThrow().valid()).isTrue();
            }
            StoredEvent next = ledger.append(List.of(event("agent-0"))).get(0).event();
            assertThat(next.sequence()).isEqualTo(agents.get(0).headSequence() + 1);
        }
    }

    @Test
    void idsLocateTheirEventAndForgedIdsFindNothing() throws Exception {
        try (Ledger ledger = open(new HandClock("2026-11-22T10:00:00Z"))) {
            StoredEvent e = ledger.append(List.of(event("a"), event("b"))).get(1).event();
            assertThat(EventIds.logIndexOf(e.id()).getAsLong()).isEqualTo(1);
            assertThat(ledger.eventPayload(e.id())).contains(e.payload());
            String forged = e.id().substring(0, 9) + (e.id().charAt(9) == 'a' ? 'b' : 'a') + e.id().substring(10);
            assertThat(ledger.eventPayload(forged)).isEmpty();
            assertThat(ledger.eventPayload(e.id().substring(0, 24) + "000000000007")).isEmpty();
        }
    }

    @Test
    void statsCountTheLastDayByRecordedAt() throws Exception {
        HandClock clock = new HandClock("2026-11-22T10:00:00Z");
        try (Ledger ledger = open(clock)) {
            ledger.append(List.of(event("old"), event("old")));
            clock.now = clock.now.plus(Duration.ofDays(2));
            ledger.append(List.of(event("new"), event("new"), event("new")));
            LedgerViews.Stats stats = ledger.stats();
            assertThat(stats.totalEvents()).isEqualTo(5);
            assertThat(stats.eventsLast24h()).isEqualTo(3);
            assertThat(stats.activeAgents()).isEqualTo(1);
            assertThat(stats.totalAgents()).isEqualTo(2);
            assertThat(stats.chainHealth()).isEqualTo(1.0);
        }
    }

    @Test
    void concurrentSingleEventsAreGroupedAndEachChainStaysConsecutive() throws Exception {
        int threads = 16;
        int perThread = 300;
        try (Ledger ledger = open(Clock.systemUTC())) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<List<AppendOutcome>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String agent = "agent-" + (t % 4);
                results.add(pool.submit(() -> {
                    List<CompletableFuture<AppendOutcome>> mine = new ArrayList<>();
                    for (int i = 0; i < perThread; i++) {
                        mine.add(ledger.appendAsync(event(agent)));
                    }
                    List<AppendOutcome> out = new ArrayList<>();
                    for (var f : mine) {
                        out.add(f.get());
                    }
                    return out;
                }));
            }
            Set<String> ids = new HashSet<>();
            for (var r : results) {
                for (AppendOutcome o : r.get()) {
                    assertThat(o.ok()).isTrue();
                    assertThat(ids.add(o.event().id())).isTrue();
                    // acknowledged means durable and readable
                    assertThat(ledger.eventPayload(o.event().id())).contains(o.event().payload());
                }
            }
            pool.shutdown();
            assertThat(ledger.size()).isEqualTo((long) threads * perThread);
            for (int a = 0; a < 4; a++) {
                var report = ledger.verify("agent-" + a).orElseThrow();
                assertThat(report.valid()).isTrue();
                assertThat(report.headSequence()).isEqualTo((long) perThread * threads / 4);
            }
        }
        try (Ledger reopened = open(Clock.systemUTC())) {
            assertThat(reopened.size()).isEqualTo((long) threads * perThread);
        }
    }

    @Test
    void aSingleEventAfterCloseIsRefusedAsUnavailable() throws Exception {
        Ledger ledger = open(Clock.systemUTC());
        assertThat(ledger.appendAsync(event("a")).get().ok()).isTrue();
        ledger.close();
        assertThat(ledger.appendAsync(event("a")))
                .failsWithin(Duration.ofSeconds(10))
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(LedgerUnavailableException.class);
    }

    @Test
    void anOversizedSingleEventIsRefusedAndTakesNoPlace() throws Exception {
        try (Ledger ledger = open(Clock.systemUTC())) {
            ObjectNode big = event("a").put("error_message", "x".repeat(1 << 20));
            AppendOutcome refused = ledger.appendAsync(big).get();
            assertThat(refused.ok()).isFalse();
            assertThat(refused.error()).contains("too large");
            AppendOutcome next = ledger.appendAsync(event("a")).get();
            assertThat(next.ok()).isTrue();
            assertThat(next.event().sequence()).isEqualTo(1);
            assertThat(next.event().logIndex()).isEqualTo(0);
        }
    }

    @Test
    void closingWhileSingleEventsAreInFlightAnswersEachAndKeepsEveryAcknowledgedOne() throws Exception {
        Ledger ledger = open(Clock.systemUTC());
        List<CompletableFuture<AppendOutcome>> futures = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            futures.add(ledger.appendAsync(event("agent-" + (i % 3))));
            if (i == 2_500) {
                new Thread(() -> {
                    try {
                        ledger.close();
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                }).start();
            }
        }
        List<String> acknowledged = new ArrayList<>();
        for (var f : futures) {
            try {
                AppendOutcome o = f.get(30, TimeUnit.SECONDS);
                assertThat(o.ok()).isTrue();
                acknowledged.add(o.event().id());
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(LedgerUnavailableException.class);
            }
        }
        ledger.close();
        try (Ledger reopened = open(Clock.systemUTC())) {
            for (String id : acknowledged) {
                assertThat(reopened.eventPayload(id)).as(id).isPresent();
            }
            for (int a = 0; a < 3; a++) {
                reopened.verify("agent-" + a).ifPresent(r -> assertThat(r.valid()).isTrue());
            }
        }
    }
}
