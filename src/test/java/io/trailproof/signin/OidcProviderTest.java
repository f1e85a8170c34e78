package io.trailproof.signin;

import com.nimbusds.jwt.SignedJWT;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.token.DefaultOAuth2TokenCallback;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.net.URI;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The provider's side against a real one (mock-oauth2-server): discovery, the authorization request,
 * and the ID token checks that the browser flow cannot reach (an expired token, a nonce of another
 * sign-in, a token of another issuer); a provider that cannot be used is refused with why.
 */
class OidcProviderTest {

    private static final String CLIENT = "trailproof-console";
    private static final URI REDIRECT = URI.create("http://127.0.0.1:7600/auth/callback");
    static MockOAuth2Server server;
    static OidcProvider provider;

    @BeforeAll
    static void start() throws Exception {
        server = new MockOAuth2Server();
        server.start();
        provider = OidcProvider.discover(server.issuerUrl("corp").uri(), CLIENT, null, REDIRECT,
                List.of("openid", "email"));
    }

    @AfterAll
    static void stop() {
        server.shutdown();
    }

    private static SignedJWT token(String issuerId, String nonce, List<String> audience, Map<String, Object> extra) {
        Map<String, Object> claims = new HashMap<>(extra);
        claims.put("nonce", nonce);
        return server.issueToken(issuerId, CLIENT, new DefaultOAuth2TokenCallback(issuerId, "alice-sub", "JWT", audience,
                claims, 3600));
    }

    @Test
    void theAuthorizationRequestUsesTheCodeFlowWithPkceStateAndNonce() {
        String uri = provider.authorizationUri("the-state", "the-nonce", "v".repeat(43)).toString();
        assertThat(uri).startsWith(server.authorizationEndpointUrl("corp").toString())
                .contains("response_type=code").contains("client_id=" + CLIENT).contains("state=the-state")
                .contains("nonce=the-nonce").contains("code_challenge_method=S256").contains("code_challenge=")
                .contains("scope=openid+email").doesNotContain("v".repeat(43));
    }

    @Test
    void aGoodTokenPassesAndItsClaimsAreRead() throws Exception {
        var claims = provider.validate(token("corp", "n-1", List.of(CLIENT), Map.of("email", "a@example.com")), "n-1");
        assertThat(claims.getSubject().getValue()).isEqualTo("alice-sub");
        assertThat(claims.getStringClaim("email")).isEqualTo("a@example.com");
    }

    @Test
    void anExpiredTokenIsRefused() {
        long now = Instant.now().getEpochSecond();
        SignedJWT expired = token("corp", "n-2", List.of(CLIENT), Map.of("iat", now - 4200, "exp", now - 600));
        assertThatThrownBy(() -> provider.validate(expired, "n-2")).isInstanceOf(SignInFailure.class)
                .hasMessageContaining("Expired");
    }

    @Test
    void aTokenOfAnotherSignInIsRefusedByItsNonce() {
        assertThatThrownBy(() -> provider.validate(token("corp", "n-3", List.of(CLIENT), Map.of()), "n-other"))
                .isInstanceOf(SignInFailure.class).hasMessageContaining("nonce");
    }

    @Test
    void aTokenForAnotherClientIsRefused() {
        assertThatThrownBy(() -> provider.validate(token("corp", "n-4", List.of("another-app"), Map.of()), "n-4"))
                .isInstanceOf(SignInFailure.class).hasMessageContaining("audience");
    }

    @Test
    void aTokenOfAnotherIssuerIsRefused() {
        // Another issuer of the same server signs with its own key and names itself: refused either way.
        assertThatThrownBy(() -> provider.validate(token("elsewhere", "n-5", List.of(CLIENT), Map.of()), "n-5"))
                .isInstanceOf(SignInFailure.class).hasMessageContaining("refused")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("eyJ"));
    }

    @Test
    void anUnreachableIssuerIsRefusedWithWhy() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        assertThatThrownBy(() -> OidcProvider.discover(URI.create("http://127.0.0.1:" + closed + "/corp"), CLIENT, null,
                REDIRECT, List.of("openid"))).isInstanceOf(ProviderUnusable.class)
                .hasMessageContaining("could not be read from http://127.0.0.1:" + closed
                        + "/corp/.well-known/openid-configuration");
    }

    @Test
    void aDiscoveryDocumentOfAnotherIssuerIsRefused() {
        // The document at <issuer>/.well-known/openid-configuration must name that very issuer.
        URI wrong = URI.create(server.issuerUrl("corp") + "/");
        assertThatThrownBy(() -> OidcProvider.discover(wrong, CLIENT, null, REDIRECT, List.of("openid")))
                .isInstanceOf(ProviderUnusable.class).hasMessageContaining("not usable");
    }
}
