package io.trailproof.config;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The sign-in keys: defaults, the role map, and what is refused before anything starts. */
class SignInSettingsTest {

    private static Settings load(String... keyValues) throws ConfigException {
        Map<String, String> flags = new HashMap<>();
        flags.put("auth.oidc.issuer", "https://login.example.com/realms/corp");
        flags.put("auth.oidc.client-id", "trailproof");
        flags.put("auth.oidc.redirect-uri", "http://127.0.0.1:7600/auth/callback");
        for (int i = 0; i < keyValues.length; i += 2) {
            if (keyValues[i + 1] == null) {
                flags.remove(keyValues[i]);
            } else {
                flags.put(keyValues[i], keyValues[i + 1]);
            }
        }
        return SettingsLoader.load(flags, Map.of(), null, false);
    }

    @Test
    void withoutAnIssuerNobodySignsIn() throws Exception {
        Settings s = SettingsLoader.load(Map.of(), Map.of(), null, false);
        assertThat(s.signIn()).isEmpty();
        assertThat(s.accessTrail()).isFalse();
        assertThatThrownBy(() -> SettingsLoader.load(Map.of("auth.oidc.client-id", "x"), Map.of(), null, false))
                .hasMessageContaining("auth.oidc.client-id is set but auth.oidc.issuer is not");
    }

    @Test
    void defaultsAndTheRoleMap() throws Exception {
        Settings s = load("auth.oidc.role-map", "trail-readers=read, trail-approvers=approve,ops=admin+read,"
                + "cn=a=b=approve");
        Settings.SignIn in = s.signIn().orElseThrow();
        assertThat(in.issuer()).isEqualTo(URI.create("https://login.example.com/realms/corp"));
        assertThat(in.clientSecret()).isEmpty();
        assertThat(in.rolesClaim()).isEqualTo("groups");
        assertThat(in.scopes()).containsExactly("openid", "email", "profile");
        assertThat(in.strict()).isTrue();
        assertThat(in.idleTimeout()).isEqualTo(Duration.ofMinutes(30));
        assertThat(in.maxAge()).isEqualTo(Duration.ofHours(12));
        assertThat(in.publicUrl()).isEmpty();
        assertThat(in.roleMap()).isEqualTo(Map.of("trail-readers", Set.of(ApiKey.Role.READ),
                "trail-approvers", Set.of(ApiKey.Role.APPROVE), "ops", Set.of(ApiKey.Role.ADMIN, ApiKey.Role.READ),
                "cn=a=b", Set.of(ApiKey.Role.APPROVE)));
        assertThat(s.accessTrail()).as("on whenever people sign in").isTrue();
    }

    @Test
    void aBadValueIsRefusedNamingItsKeyNeverTheSecret() {
        assertThatThrownBy(() -> load("auth.oidc.client-secret", "s3cr3t-value", "auth.oidc.strict", "maybe"))
                .hasMessageContaining("auth.oidc.strict").hasMessageNotContaining("s3cr3t-value");
        assertThatThrownBy(() -> load("auth.oidc.client-secret", "s3cr3t-value", "auth.oidc.role-map", "x=root"))
                .hasMessageContaining("auth.oidc.role-map").hasMessageContaining("unknown role 'root'")
                .hasMessageNotContaining("s3cr3t-value");
        assertThatThrownBy(() -> load("auth.oidc.role-map", "just-a-group")).hasMessageContaining("<claim value>=<role>");
        assertThatThrownBy(() -> load("auth.oidc.client-id", null)).hasMessageContaining("auth.oidc.client-id");
        assertThatThrownBy(() -> load("auth.oidc.issuer", "login.example.com")).hasMessageContaining("auth.oidc.issuer");
        assertThatThrownBy(() -> load("auth.oidc.redirect-uri", "http://127.0.0.1:7600/callback"))
                .hasMessageContaining("must end in /auth/callback");
        assertThatThrownBy(() -> load("auth.oidc.scopes", "email")).hasMessageContaining("must include openid");
        assertThatThrownBy(() -> load("auth.session.idle-timeout", "PT0S")).hasMessageContaining("auth.session.idle-timeout");
    }

    @Test
    void awayFromLoopbackSignInNeedsHttpsThroughThePublicUrl() throws Exception {
        assertThatThrownBy(() -> load("server.host", "0.0.0.0", "server.host-names", "trail.example.com",
                "auth.api-keys", "k:admin")).hasMessageContaining("needs HTTPS").hasMessageContaining("server.public-url");
        assertThatThrownBy(() -> load("server.public-url", "http://trail.example.com"))
                .hasMessageContaining("server.public-url").hasMessageContaining("https://");
        assertThatThrownBy(() -> load("server.public-url", "https://trail.example.com/console"))
                .hasMessageContaining("scheme, host and port only");
        assertThatThrownBy(() -> load("server.public-url", "https://trail.example.com",
                "auth.oidc.redirect-uri", "https://elsewhere.example.com/auth/callback"))
                .hasMessageContaining("must be on server.public-url");
        assertThatThrownBy(() -> load("auth.oidc.redirect-uri", "http://trail.example.com/auth/callback"))
                .hasMessageContaining("server.public-url");

        Settings s = load("server.host", "0.0.0.0", "auth.api-keys", "k:admin", "server.public-url",
                "https://trail.example.com", "auth.oidc.redirect-uri", "https://trail.example.com/auth/callback");
        assertThat(s.signIn().orElseThrow().publicUrl()).isEqualTo(Optional.of(URI.create("https://trail.example.com")));
    }
}
