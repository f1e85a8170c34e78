package io.trailproof.timestamp;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TsaUrlPolicyTest {

    @Test
    void withoutAnAllowListOnlyTheDefaultTsaIsAccepted() throws Exception {
        TsaUrlPolicy p = new TsaUrlPolicy(List.of(), URI.create("https://tsa.example/x"));
        assertThat(p.check("https://tsa.example/x").getHost()).isEqualTo("tsa.example");
        assertThat(p.check("https://tsa.example/x/sha256").getHost()).isEqualTo("tsa.example");
        for (String other : new String[] {"http://tsa.example/x", "https://tsa.example/y", "http://127.0.0.1:22/",
                "http://169.254.169.254/latest/meta-data/", "http://localhost:7600/v1/events"}) {
            assertThatThrownBy(() -> p.check(other)).as(other).isInstanceOf(TimestampRefusal.class)
                    .hasMessageContaining("not on the allow-list").hasMessageContaining("https://tsa.example/x");
        }
    }

    @Test
    void refusesOtherSchemesAndMalformedUrls() {
        TsaUrlPolicy p = new TsaUrlPolicy(List.of(), URI.create("https://tsa.example/"));
        for (String bad : new String[] {"", " ", "ftp://tsa.example", "file:///etc/passwd", "tsa.example", "http://",
                "http://user:pw@tsa.example/", "http://exa mple"}) {
            assertThatThrownBy(() -> p.check(bad)).as(bad).isInstanceOf(TimestampRefusal.class)
                    .extracting(e -> ((TimestampRefusal) e).reason()).isEqualTo(TimestampRefusal.Reason.BAD_TSA_URL);
        }
    }

    @Test
    void theAllowListMatchesSchemeHostPortAndPathPrefix() throws Exception {
        TsaUrlPolicy p = new TsaUrlPolicy(List.of("https://tsa.example/rfc3161", "http://127.0.0.1:8080"),
                URI.create("https://default.example/"));
        assertThat(p.check("https://tsa.example/rfc3161/sha256")).isNotNull();
        assertThat(p.check("https://TSA.example:443/rfc3161")).isNotNull();
        assertThat(p.check("http://127.0.0.1:8080/anything")).isNotNull();
        for (String bad : new String[] {"https://tsa.example.evil.org/rfc3161", "http://tsa.example/rfc3161",
                "https://tsa.example/other", "http://127.0.0.1:8081/", "http://127.0.0.1/"}) {
            assertThatThrownBy(() -> p.check(bad)).as(bad).isInstanceOf(TimestampRefusal.class)
                    .hasMessageContaining("not on the allow-list");
        }
    }

    @Test
    void backoffDoublesUpToTheInterval() {
        Duration first = Duration.ofSeconds(10);
        Duration cap = Duration.ofMinutes(5);
        assertThat(TimestampScheduler.backoff(1, first, cap)).isEqualTo(Duration.ofSeconds(10));
        assertThat(TimestampScheduler.backoff(2, first, cap)).isEqualTo(Duration.ofSeconds(20));
        assertThat(TimestampScheduler.backoff(5, first, cap)).isEqualTo(Duration.ofSeconds(160));
        assertThat(TimestampScheduler.backoff(6, first, cap)).isEqualTo(cap);
        assertThat(TimestampScheduler.backoff(1000, first, cap)).isEqualTo(cap);
    }
}
