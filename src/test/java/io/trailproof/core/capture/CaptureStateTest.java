package io.trailproof.core.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CaptureStateTest {

    private static final long GAP_AFTER = 300_000;

    /** {@code recorded_at} of an event at {@code millis}. */
    private static String at(long millis) {
        return Instant.ofEpochMilli(millis).toString();
    }

    private static CaptureFacts ev(String capture, long seq, long at) {
        return new CaptureFacts("a", "s", capture, seq, false, null, at(at), null, List.of());
    }

    private static CaptureFacts last(String capture, long seq, long at) {
        return new CaptureFacts("a", "s", capture, seq, true, null, at(at), null, List.of());
    }

    private static CaptureFacts dropped(String capture, long seq, long from, long to, long at) {
        return new CaptureFacts("a", "s", capture, seq, false, new long[] {from, to}, at(at), null, List.of());
    }

    private static CaptureFacts gap(String capture, long from, long to) {
        return new CaptureFacts("a", "s", null, 0, false, null, at(0), capture, List.of(new long[] {from, to}));
    }

    private static String ranges(List<long[]> r) {
        StringBuilder b = new StringBuilder();
        for (long[] x : r) {
            b.append(x[0]).append('-').append(x[1]).append(' ');
        }
        return b.toString().trim();
    }

    @Test
    void aSkippedNumberIsDueGapAfterTheFirstEventPastIt() {
        CaptureState s = new CaptureState();
        s.apply(ev("c", 1, 1000));
        s.apply(ev("c", 2, 1000));
        s.apply(ev("c", 5, 2000));
        assertThat(ranges(s.holes("a", "c"))).isEqualTo("3-4");
        assertThat(s.due(2000 + GAP_AFTER - 1, GAP_AFTER)).isEmpty();
        List<CaptureState.Due> due = s.due(2000 + GAP_AFTER, GAP_AFTER);
        assertThat(due).hasSize(1);
        assertThat(due.get(0).captureId()).isEqualTo("c");
        assertThat(due.get(0).sessionId()).isEqualTo("s");
        assertThat(ranges(due.get(0).missing())).isEqualTo("3-4");
        assertThat(s.due(10_000_000, GAP_AFTER)).as("in flight: handed out once").isEmpty();
        s.apply(gap("c", 3, 4));
        assertThat(s.holes("a", "c")).isEmpty();
        assertThat(s.streamsWithHoles()).isZero();
    }

    @Test
    void aFillerBeforeTheReportLeavesNothingToReport() {
        CaptureState s = new CaptureState();
        s.apply(ev("c", 1, 0));
        s.apply(ev("c", 4, 0));
        s.apply(ev("c", 3, 0));
        assertThat(ranges(s.holes("a", "c"))).isEqualTo("2-2");
        s.apply(ev("c", 2, 0));
        assertThat(s.due(Long.MAX_VALUE / 2, GAP_AFTER)).isEmpty();
    }

    @Test
    void aFirstEventBeyondOneMeansTheFirstNumbersAreMissing() {
        CaptureState s = new CaptureState();
        s.apply(ev("c", 3, 0));
        assertThat(ranges(s.holes("a", "c"))).isEqualTo("1-2");
    }

    @Test
    void theEndOfAStreamMakesItsHolesDueAtOnceAndEvictsIt() {
        CaptureState s = new CaptureState();
        s.apply(ev("c", 1, 0));
        s.apply(ev("c", 3, 0));
        s.apply(last("c", 6, 50));
        assertThat(s.openStreams()).isZero();
        assertThat(s.closedStreams()).isOne();
        List<CaptureState.Due> due = s.due(50, GAP_AFTER);
        assertThat(ranges(due.get(0).missing())).isEqualTo("2-2 4-5");
        s.apply(gap("c", 2, 2));
        s.apply(gap("c", 4, 5));
        assertThat(s.streamsWithHoles()).isZero();
        // A resent copy after the end opens nothing.
        s.apply(ev("c", 9, 60));
        assertThat(s.holes("a", "c")).isEmpty();
        assertThat(s.ended("a", "c")).isTrue();
    }

    @Test
    void aDropReportMakesTheNamedNumbersDueAtOnce() {
        CaptureState s = new CaptureState();
        s.apply(ev("c", 1, 0));
        s.apply(dropped("c", 6, 3, 4, 100));
        List<CaptureState.Due> due = s.due(100, GAP_AFTER);
        assertThat(ranges(due.get(0).missing())).isEqualTo("3-4");
        assertThat(ranges(s.holes("a", "c"))).isEqualTo("2-2 3-4 5-5");
        assertThat(ranges(s.due(GAP_AFTER + 100, GAP_AFTER).get(0).missing())).isEqualTo("2-2 5-5");
    }

    @Test
    void aReleasedReportIsHandedOutAgain() {
        CaptureState s = new CaptureState();
        s.apply(last("c", 3, 0));
        CaptureState.Due d = s.due(0, GAP_AFTER).get(0);
        assertThat(s.due(0, GAP_AFTER)).isEmpty();
        s.release(d);
        assertThat(ranges(s.due(0, GAP_AFTER).get(0).missing())).isEqualTo("1-2");
    }

    @Test
    void streamsOfTwoAgentsNeverMix() {
        CaptureState s = new CaptureState();
        s.apply(ev("c", 1, 0));
        s.apply(new CaptureFacts("b", null, "c", 3, false, null, at(0), null, List.of()));
        assertThat(s.holes("a", "c")).isEmpty();
        assertThat(ranges(s.holes("b", "c"))).isEqualTo("1-2");
        assertThat(s.highest("a", "c")).isEqualTo(1);
        assertThat(s.highest("b", "c")).isEqualTo(3);
    }

    @Test
    void aSnapshotGivesTheSameStateBack() throws Exception {
        CaptureState s = new CaptureState();
        for (int i = 0; i < 1000; i++) {
            s.apply(ev("c" + i, 1, 0));
            if (i % 3 == 0) {
                s.apply(ev("c" + i, 4, 10));
            }
            if (i % 5 == 0) {
                s.apply(last("c" + i, 7, 20));
            }
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        s.write(new DataOutputStream(bytes));
        CaptureState back = CaptureState.read(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        assertThat(back.openStreams()).isEqualTo(s.openStreams());
        assertThat(back.closedStreams()).isEqualTo(s.closedStreams());
        assertThat(back.streamsWithHoles()).isEqualTo(s.streamsWithHoles());
        for (int i = 0; i < 1000; i++) {
            assertThat(ranges(back.holes("a", "c" + i))).isEqualTo(ranges(s.holes("a", "c" + i)));
            assertThat(back.highest("a", "c" + i)).isEqualTo(s.highest("a", "c" + i));
        }
        assertThat(back.due(Long.MAX_VALUE / 2, GAP_AFTER)).hasSize(s.due(Long.MAX_VALUE / 2, GAP_AFTER).size());
    }

    @Test
    void theKeyTableAgreesWithAHashMapOnSeededRandomOperations() {
        Random r = new Random(42);
        KeyTable t = new KeyTable(true);
        Map<Long, Long> ref = new HashMap<>();
        for (int i = 0; i < 200_000; i++) {
            long k = r.nextInt(5000) + 1;
            int op = r.nextInt(3);
            if (op == 0) {
                t.remove(k, k * 31);
                ref.remove(k);
            } else {
                long v = r.nextLong();
                t.put(k, k * 31, v);
                ref.put(k, v);
            }
            if (i % 1000 == 0) {
                for (long q = 1; q <= 5000; q++) {
                    int slot = t.find(q, q * 31);
                    assertThat(slot >= 0).isEqualTo(ref.containsKey(q));
                    if (slot >= 0) {
                        assertThat(t.value(slot)).isEqualTo(ref.get(q));
                    }
                }
                assertThat(t.size()).isEqualTo(ref.size());
            }
        }
    }
}
