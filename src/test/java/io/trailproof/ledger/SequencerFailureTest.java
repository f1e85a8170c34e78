package io.trailproof.ledger;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The sequencer under failure: an Error never leaves requests hanging; the single-event queue is bounded;
 * a withdrawn event.
 */
class SequencerFailureTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static ObjectNode event(String agent) {
        return JSON.createObjectNode().put("agent_id", agent);
    }

    /** Holds the sequencer inside its first tree append until released. */
    private static final class Gate {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicBoolean first = new AtomicBoolean(true);

        TreeAppends wrap(TreeAppends tree) {
            return leaf -> {
                if (first.getAndSet(false)) {
                    entered.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                tree.append(leaf);
            };
        }
    }

    @Test
    void anErrorInTheSequencerAnswersEveryLaterWriteAsUnavailableAndHealthSaysWhy() throws Exception {
        AtomicBoolean explode = new AtomicBoolean();
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(1),
                tree -> leaf -> {
                    if (explode.get()) {
                        throw new OutOfMemoryError("injected: Java heap space");
                    }
                    tree.append(leaf);
                })) {
            AppendOutcome ok = ledger.appendAsync(event("a")).get(5, TimeUnit.SECONDS);
            assertThat(ok.ok()).isTrue();
            explode.set(true);
            CompletableFuture<AppendOutcome> hit = ledger.appendAsync(event("a"));
            assertThatThrownBy(() -> hit.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(LedgerUnavailableException.class).hasMessageContaining("OutOfMemoryError");
            explode.set(false);
            // Later requests are answered at once, single or batch, and never hang.
            CompletableFuture<AppendOutcome> later = ledger.appendAsync(event("b"));
            assertThatThrownBy(() -> later.get(5, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(LedgerUnavailableException.class);
            assertThatThrownBy(() -> ledger.append(List.of(event("c")))).isInstanceOf(LedgerUnavailableException.class);
            assertThat(ledger.failed()).isTrue();
            assertThat(ledger.health().problems()).singleElement().asString()
                    .contains("OutOfMemoryError").contains("writes are refused");
            // Reads go on at the last readable size.
            assertThat(ledger.size()).isEqualTo(1);
            ledger.root(ledger.size());
        }
    }

    @Test
    void anErrorWhileSealingFailsOnlyThatGroup() throws Exception {
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(1))) {
            ObjectNode poisoned = event("a");
            // An agent_id whose text fails with an Error when the sequencer reads it.
            poisoned.set("agent_id", new TextNode("a") {
                @Override
                public String asText() {
                    throw new StackOverflowError("injected");
                }
            });
            assertThatThrownBy(() -> ledger.append(List.of(poisoned))).isInstanceOf(LedgerUnavailableException.class)
                    .hasMessageContaining("StackOverflowError").hasMessageContaining("nothing was stored");
            assertThat(ledger.failed()).isFalse();
            assertThat(ledger.append(List.of(event("a"))).get(0).event().logIndex()).isZero();
        }
    }

    @Test
    void aFullSingleEventQueueRefusesAtOnceAsBusy() throws Exception {
        Gate gate = new Gate();
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(1 << 20, 1000, false, 3), Clock.systemUTC(),
                new Random(1), gate::wrap)) {
            List<CompletableFuture<AppendOutcome>> accepted = new ArrayList<>();
            accepted.add(ledger.appendAsync(event("a")));
            assertThat(gate.entered.await(5, TimeUnit.SECONDS)).isTrue(); // the first is being written
            for (int i = 0; i < 3; i++) {
                accepted.add(ledger.appendAsync(event("a")));
            }
            CompletableFuture<AppendOutcome> refused = ledger.appendAsync(event("a"));
            assertThat(refused).isCompletedExceptionally();
            assertThatThrownBy(refused::join).cause().isInstanceOf(LedgerBusyException.class)
                    .isInstanceOf(LedgerUnavailableException.class).hasMessageContaining("3 queued");
            gate.release.countDown();
            for (CompletableFuture<AppendOutcome> f : accepted) {
                assertThat(f.get(5, TimeUnit.SECONDS).ok()).isTrue();
            }
            assertThat(ledger.size()).isEqualTo(4);
            assertThat(ledger.appendAsync(event("a")).get(5, TimeUnit.SECONDS).event().sequence()).isEqualTo(5);
        }
    }

    @Test
    void anEventWithdrawnBeforeSealingIsNotStoredAndOneSealedIs() throws Exception {
        Gate gate = new Gate();
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(1 << 20, 1000), Clock.systemUTC(), new Random(1),
                gate::wrap)) {
            CompletableFuture<AppendOutcome> sealed = ledger.appendAsync(event("a"));
            assertThat(gate.entered.await(5, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<AppendOutcome> withdrawn = ledger.appendAsync(event("a"));
            CompletableFuture<AppendOutcome> kept = ledger.appendAsync(event("a"));
            // The client of the first gives up while its event is being written: it is stored all the same.
            sealed.cancel(false);
            // The second client gives up while its event is still queued: it is dropped.
            withdrawn.cancel(false);
            gate.release.countDown();
            AppendOutcome third = kept.get(5, TimeUnit.SECONDS);
            assertThat(third.event().logIndex()).isEqualTo(1);
            assertThat(third.event().sequence()).isEqualTo(2);
            assertThat(ledger.size()).isEqualTo(2);
            assertThat(ledger.agents()).singleElement().satisfies(a -> assertThat(a.eventCount()).isEqualTo(2));
        }
    }
}
