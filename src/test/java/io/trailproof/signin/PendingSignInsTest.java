package io.trailproof.signin;

import io.trailproof.testing.HandClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** Started sign-ins: taken once, expired after ten minutes, bounded. */
class PendingSignInsTest {

    private final HandClock clock = new HandClock("2026-03-02T10:00:00Z");
    private final PendingSignIns pending = new PendingSignIns(clock);

    @Test
    void aStateIsTakenOnceOnly() {
        pending.put("s1", "n1", "v1", "/ui/?q=x");
        PendingSignIns.Pending p = pending.take("s1").orElseThrow();
        assertThat(p.nonce()).isEqualTo("n1");
        assertThat(p.codeVerifier()).isEqualTo("v1");
        assertThat(p.returnTo()).isEqualTo("/ui/?q=x");
        assertThat(pending.take("s1")).isEmpty();
        assertThat(pending.take("unknown")).isEmpty();
        assertThat(pending.take(null)).isEmpty();
    }

    @Test
    void aStateOlderThanTenMinutesIsRefused() {
        pending.put("s1", "n", "v", "/ui/");
        clock.advance(Duration.ofMinutes(10));
        assertThat(pending.take("s1")).isEmpty();
    }

    @Test
    void atMostTheBoundWaitTheOldestGoingFirst() {
        for (int i = 0; i <= PendingSignIns.CAPACITY; i++) {
            pending.put("s" + i, "n", "v", "/ui/");
        }
        assertThat(pending.take("s0")).isEmpty();
        assertThat(pending.take("s1")).isPresent();
        assertThat(pending.take("s" + PendingSignIns.CAPACITY)).isPresent();
    }
}
