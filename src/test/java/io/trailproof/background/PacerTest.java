package io.trailproof.background;

import org.junit.jupiter.api.Test;

import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PacerTest {

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
        Pacer p = new Pacer(0.5, new LongSupplier() {
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

    @Test
    void whileBusyPausesOnlyAfterSlicesDuringWhichOthersWorked() throws Exception {
        FakeTime t = new FakeTime();
        long[] ingested = {0};
        Pacer p = Pacer.whileBusy(0.25, () -> ingested[0], () -> t.now, n -> {
            t.sleeps.add(n);
            t.now += n;
            ingested[0] += 10;   // others go on while the work pauses: not a reason to pause again
        });
        t.now += 10_000_000;
        p.pace();                // idle: full speed
        assertThat(t.sleeps).isEmpty();
        ingested[0] += 5;
        t.now += 10_000_000;
        p.pace();                // busy: three times the slice
        assertThat(t.sleeps).containsExactly(30_000_000L);
        t.now += 10_000_000;
        p.pace();                // idle again (what arrived during the pause does not count)
        assertThat(t.sleeps).hasSize(1);
        ingested[0] += 1;
        t.now += Pacer.SLICE_NANOS - 1;
        p.pace();                // busy, but the slice is not done yet
        assertThat(t.sleeps).hasSize(1);
        t.now += 1;
        p.pace();
        assertThat(t.sleeps).containsExactly(30_000_000L, 15_000_000L);
    }

    @Test
    void whileBusyPausesInStepsAndEndsThePauseOnceOthersStop() throws Exception {
        FakeTime t = new FakeTime();
        long[] ingested = {0};
        Pacer p = Pacer.whileBusy(0.25, () -> ingested[0], () -> t.now, n -> {
            t.sleeps.add(n);
            t.now += n;
            if (t.sleeps.size() <= 2) {
                ingested[0]++;   // ingestion goes on during the first two steps only
            }
        });
        ingested[0]++;
        t.now += 100_000_000;   // 100 ms of work: 300 ms of pause are due
        p.pace();
        long step = Pacer.PAUSE_STEP_NANOS;
        assertThat(t.sleeps).containsExactly(step, step, step);
        ingested[0]++;
        t.now += 10_000_000;
        p.pace();               // busy again: a pause of its own slice only
        assertThat(t.sleeps).hasSize(4).last().isEqualTo(30_000_000L);
    }
}
