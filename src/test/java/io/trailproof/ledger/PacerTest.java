package io.trailproof.ledger;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PacerTest {

    @TempDir
    Path dir;

    /** A clock that moves only when told, and sleeps that are recorded and move it. */
    private static final class FakeTime {
        long now;
        final List<Long> sleeps = new ArrayList<>();

        Pacer pacer(double share) {
            return new Pacer(share, () -> now, n -> {
                sleeps.add(n);
                now += n;
            });
        }
    }

    @Test
    void sleepsSoThatWorkIsTheShareOfTheTime() throws Exception {
        FakeTime t = new FakeTime();
        Pacer p = t.pacer(0.25);
        for (int i = 0; i < 100; i++) {
            t.now += 1_000_000; // 1 ms of work between calls
            p.pace();
        }
        long slept = t.sleeps.stream().mapToLong(Long::longValue).sum();
        // 100 ms of work at a quarter of a core: three times as long asleep, in slices of 5 ms.
        assertThat(slept).isEqualTo(300_000_000L);
        assertThat(t.sleeps).hasSize(20).allMatch(n -> n == 15_000_000L);
    }

    @Test
    void shortWorkAndAWholeCoreNeverSleep() throws Exception {
        FakeTime t = new FakeTime();
        Pacer quarter = t.pacer(0.25);
        t.now += Pacer.SLICE_NANOS - 1;
        quarter.pace();
        Pacer whole = t.pacer(1.0);
        t.now += 1_000_000_000L;
        whole.pace();
        Pacer.unpaced().pace();
        assertThat(t.sleeps).isEmpty();
    }

    @Test
    void refusesSharesOutsideZeroToOne() {
        for (double bad : new double[] {0, -0.5, 1.01, Double.NaN}) {
            assertThatThrownBy(() -> new Pacer(bad, () -> 0, n -> { })).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void anInterruptedSleepEndsTheWork() {
        Pacer p = new Pacer(0.5, new java.util.function.LongSupplier() {
            long now;

            @Override
            public long getAsLong() {
                return now += Pacer.SLICE_NANOS;
            }
        }, n -> {
            throw new InterruptedException();
        });
        assertThatThrownBy(p::pace).isInstanceOf(InterruptedIOException.class);
        assertThat(Thread.interrupted()).isTrue();
    }

    /** The periodic check walks every chain at the pace; the same verdicts as an unpaced walk. */
    @Test
    void theRecheckOfEveryChainIsPaced() throws Exception {
        ObjectMapper json = new ObjectMapper();
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(1 << 16, 1000), Clock.systemUTC(), new Random(1))) {
            List<ObjectNode> events = new ArrayList<>();
            for (int i = 0; i < 3000; i++) {
                events.add(json.createObjectNode().put("agent_id", "agent-" + (i % 3)).put("action_type", "TOOL_CALL"));
            }
            ledger.append(events);
            FakeTime t = new FakeTime();
            // Each pace() call sees 2 ms of work: every third call (6 ms, past the 5 ms slice) sleeps.
            Pacer p = new Pacer(0.5, () -> t.now += 2_000_000, n -> t.sleeps.add(n));
            assertThat(ledger.verifyAll(p)).isEqualTo(3);
            assertThat(ledger.verifyAll()).isEqualTo(3);
            // 3000 events, a pace() every 64: 45 calls, a sleep on every third.
            assertThat(t.sleeps).hasSize(15);
        }
    }
}
