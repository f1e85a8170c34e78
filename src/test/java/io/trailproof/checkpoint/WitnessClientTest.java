package io.trailproof.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class WitnessClientTest {

    @Test
    void backOffDoublesFromOneSecondToFiveMinutes() {
        assertThat(WitnessClient.backoff(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(WitnessClient.backoff(2)).isEqualTo(Duration.ofSeconds(2));
        assertThat(WitnessClient.backoff(9)).isEqualTo(Duration.ofSeconds(256));
        assertThat(WitnessClient.backoff(10)).isEqualTo(Duration.ofMinutes(5));
        assertThat(WitnessClient.backoff(1000)).isEqualTo(Duration.ofMinutes(5));
    }
}
