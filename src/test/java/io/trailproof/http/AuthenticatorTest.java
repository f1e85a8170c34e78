package io.trailproof.http;

import io.trailproof.config.ApiKey;
import io.trailproof.config.ApiKey.Role;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AuthenticatorTest {

    private final Authenticator auth = new Authenticator(List.of(
            new ApiKey("k-ingest", EnumSet.of(Role.INGEST)),
            new ApiKey("k-read", EnumSet.of(Role.READ)),
            new ApiKey("k-both", EnumSet.of(Role.INGEST, Role.READ)),
            new ApiKey("k-admin", EnumSet.of(Role.ADMIN))));

    @Test
    void withoutKeysEverythingIsAllowed() throws Exception {
        Authenticator open = new Authenticator(List.of());
        assertThat(open.enabled()).isFalse();
        assertThat(open.authenticate(null)).containsExactlyInAnyOrder(Role.values());
    }

    @Test
    void aKeysNameIsAFingerprintNeverTheKey() throws Exception {
        String name = auth.keyName("Bearer k-read");
        assertThat(name).isEqualTo("key-" + HexFormat.of().formatHex(MessageDigest
                .getInstance("SHA-256").digest("k-read".getBytes(StandardCharsets.UTF_8))).substring(0, 8));
        assertThat(auth.keyName("bearer   k-read ")).isEqualTo(name);
        assertThat(auth.keyName(null)).isNull();
        assertThat(auth.keyName("Basic abc")).isNull();
        assertThat(new Authenticator(List.of()).keyName("Bearer k-read")).isNull();
    }

    @Test
    void knownKeysGrantTheirRoles() throws Exception {
        assertThat(auth.authenticate("Bearer k-ingest")).containsExactly(Role.INGEST);
        assertThat(auth.authenticate("bearer k-read")).containsExactly(Role.READ);
        assertThat(auth.authenticate("BEARER   k-both  ")).containsExactlyInAnyOrder(Role.INGEST, Role.READ);
        assertThat(auth.authenticate("Bearer k-admin")).containsExactly(Role.ADMIN);
    }

    @Test
    void missingMalformedAndUnknownKeysAre401WithBearerChallenge() {
        for (String header : new String[] {null, "", "   ", "Bearer", "Bearer ", "Basic azppbmdlc3Q=", "k-read",
                "Bearer k-rea", "Bearer k-read2", "Bearer K-READ", "Token k-read"}) {
            assertThatThrownBy(() -> auth.authenticate(header)).as(String.valueOf(header))
                    .isInstanceOfSatisfying(ApiException.class, e -> {
                        assertThat(e.status()).isEqualTo(401);
                        assertThat(e.headers()).containsEntry("WWW-Authenticate", "Bearer");
                        assertThat(e.getMessage()).isNotBlank();
                        if (header != null && header.length() > 7) {
                            assertThat(e.getMessage()).doesNotContain(header.substring(7).strip());
                        }
                    });
        }
    }

    @Test
    void rolesAreCheckedAndAdminImpliesAll() throws Exception {
        Authenticator.authorize(Set.of(Role.INGEST), Role.INGEST, "POST", "/v1/events");
        Authenticator.authorize(Set.of(Role.ADMIN), Role.INGEST, "POST", "/v1/events");
        Authenticator.authorize(Set.of(Role.ADMIN), Role.READ, "GET", "/v1/agents");
        Authenticator.authorize(Set.of(), null, "GET", "/health");
        assertThatThrownBy(() -> Authenticator.authorize(Set.of(Role.INGEST), Role.READ, "GET", "/v1/agents"))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.status()).isEqualTo(403);
                    assertThat(e.getMessage()).contains("read").contains("GET /v1/agents");
                });
        assertThatThrownBy(() -> Authenticator.authorize(Set.of(Role.READ, Role.INGEST), Role.ADMIN, "POST", "/v1/timestamp"))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.status()).isEqualTo(403));
    }

    @Test
    void randomKeysNeverAuthenticateAndNeverAppearInMessages() {
        Random random = new Random(6);
        for (int i = 0; i < 2000; i++) {
            StringBuilder key = new StringBuilder("k-");
            int len = random.nextInt(12);
            for (int j = 0; j < len; j++) {
                key.append((char) (0x21 + random.nextInt(0x5e)));
            }
            String k = key.toString();
            if (List.of("k-ingest", "k-read", "k-both", "k-admin").contains(k)) {
                continue;
            }
            assertThatThrownBy(() -> auth.authenticate("Bearer " + k))
                    .isInstanceOfSatisfying(ApiException.class, e -> {
                        assertThat(e.status()).isEqualTo(401);
                        assertThat(e.getMessage()).doesNotContain(k);
                    });
        }
    }
}
