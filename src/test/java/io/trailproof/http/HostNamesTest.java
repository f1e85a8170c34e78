package io.trailproof.http;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Which {@code Host} names the service answers to and which {@code Origin} is its own. */
class HostNamesTest {

    private final HostNames loopback = new HostNames("127.0.0.1", List.of("trail.example.com", "192.0.2.7"));

    @Test
    void loopbackNamesTheBindAddressAndConfiguredNamesAreOwn() {
        for (String own : List.of("localhost", "LocalHost:7600", "localhost.", "127.0.0.1", "127.0.0.1:7600", "127.0.0.2",
                "127.1.2.3:80", "[::1]", "[::1]:7600", "[0:0:0:0:0:0:0:1]:7600", "trail.example.com",
                "TRAIL.example.com.:443", "192.0.2.7:7600")) {
            assertThat(loopback.check(own)).as(own).isNull();
            assertThat(loopback.check(own)).as(own + " again (the remembered one)").isNull();
        }
    }

    /** Spellings found good are remembered, a bounded number of them; a refused one never is. */
    @Test
    void rememberingGoodSpellingsNeverLetsAnotherNameThrough() {
        HostNames names = new HostNames("127.0.0.1", List.of());
        for (int round = 0; round < 2; round++) {
            for (int port = 1; port <= 200; port++) {
                assertThat(names.check("localhost:" + port)).as("localhost:" + port).isNull();
                assertThat(names.check("evil.example:" + port).status()).as("evil.example:" + port).isEqualTo(421);
                assertThat(names.check("bad host:" + port).status()).isEqualTo(400);
            }
        }
    }

    @Test
    void otherNamesAre421AndMalformedHostsAre400() {
        for (String foreign : List.of("evil.example", "evil.example:7600", "127.0.0.1.nip.io", "localhost.evil.example",
                "trail.example.com.evil.example", "192.0.2.8", "[2001:db8::1]:7600", "0.0.0.0")) {
            HostNames.Refusal r = loopback.check(foreign);
            assertThat(r).as(foreign).isNotNull();
            assertThat(r.status()).as(foreign).isEqualTo(421);
        }
        for (String malformed : List.of("", ":7600", "evil.example:port", "[::1", "[::1]x", "a b", "evil.example:7600:1",
                "user@evil.example", "[evil.example]", "..", "127.0.0.1:123456")) {
            HostNames.Refusal r = loopback.check(malformed);
            assertThat(r).as(malformed).isNotNull();
            assertThat(r.status()).as(malformed).isEqualTo(400);
        }
    }

    @Test
    void aNameBindAddressIsOwnAndAWildcardBindTakesTheMachinesAddresses() {
        HostNames named = new HostNames("trail-host", List.of());
        assertThat(named.check("trail-host:7600")).isNull();
        assertThat(named.check("other-host").status()).isEqualTo(421);
        HostNames wildcard = new HostNames("0.0.0.0", List.of());
        assertThat(wildcard.check("localhost")).isNull();
        assertThat(wildcard.check("evil.example").status()).isEqualTo(421);
    }

    @Test
    void theOwnOriginIsTheRequestsHostWithHttpOrHttps() {
        assertThat(HostNames.sameOrigin("http://127.0.0.1:7600", "127.0.0.1:7600")).isTrue();
        assertThat(HostNames.sameOrigin("http://LOCALHOST:7600", "localhost:7600")).isTrue();
        assertThat(HostNames.sameOrigin("https://trail.example.com", "trail.example.com")).isTrue();
        assertThat(HostNames.sameOrigin("https://trail.example.com:443", "trail.example.com")).isTrue();
        assertThat(HostNames.sameOrigin("http://trail.example.com", "trail.example.com:80")).isTrue();
        assertThat(HostNames.sameOrigin("http://[::1]:7600", "[::1]:7600")).isTrue();
        for (String[] foreign : new String[][] {
                {"http://evil.example", "127.0.0.1:7600"},
                {"http://evil.example:7600", "127.0.0.1:7600"},
                {"http://127.0.0.1:7601", "127.0.0.1:7600"},
                {"http://localhost:7600", "127.0.0.1:7600"},
                {"null", "127.0.0.1:7600"},
                {"file://", "127.0.0.1:7600"},
                {"ws://127.0.0.1:7600", "127.0.0.1:7600"},
                {"http://127.0.0.1:7600/path", "127.0.0.1:7600"},
                {"http://user@127.0.0.1:7600", "127.0.0.1:7600"},
                {"https://trail.example.com", "trail.example.com:80"},
                {"http://127.0.0.1:7600", null},
                {"not a uri", "127.0.0.1:7600"}}) {
            assertThat(HostNames.sameOrigin(foreign[0], foreign[1])).as(foreign[0] + " for " + foreign[1]).isFalse();
        }
    }
}
