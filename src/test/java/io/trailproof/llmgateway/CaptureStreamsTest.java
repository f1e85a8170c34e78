package io.trailproof.llmgateway;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class CaptureStreamsTest {

    @Test
    void anEventNumberedAfterALaterOneTakesThatOnesTime() {
        CaptureStreams.Stream s = new CaptureStreams(() -> "id").of("agent");
        Instant callArrived = Instant.parse("2026-01-01T00:00:00.000200Z");
        Instant answerEnded = Instant.parse("2026-01-01T00:00:00.000100Z");
        assertThat(s.next()).isEqualTo(1);
        assertThat(s.notBefore(callArrived)).isEqualTo(callArrived);
        assertThat(s.next()).isEqualTo(2);
        assertThat(s.notBefore(answerEnded)).isEqualTo(callArrived);
        assertThat(s.notBefore(callArrived.plusNanos(1_000))).isEqualTo(callArrived.plusNanos(1_000));
    }

    @Test
    void timesNeverGoBackAsNumbersGoUp() {
        Random random = new Random(42);
        CaptureStreams.Stream s = new CaptureStreams(() -> "id").of("agent");
        List<Instant> times = new ArrayList<>();
        Instant base = Instant.parse("2026-01-01T00:00:00Z");
        for (int i = 0; i < 1_000; i++) {
            s.next();
            times.add(s.notBefore(base.plusNanos(random.nextInt(1_000_000) * 1_000L)));
        }
        for (int i = 1; i < times.size(); i++) {
            assertThat(times.get(i)).isAfterOrEqualTo(times.get(i - 1));
        }
    }
}
