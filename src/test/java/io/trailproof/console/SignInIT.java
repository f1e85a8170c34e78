package io.trailproof.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.trailproof.testing.Api;
import io.trailproof.testing.Await;
import io.trailproof.testing.Browser;
import io.trailproof.testing.HandClock;
import io.trailproof.testing.InProcessServer;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.OAuth2Config;
import no.nav.security.mock.oauth2.token.DefaultOAuth2TokenCallback;
import no.nav.security.mock.oauth2.token.KeyProvider;
import no.nav.security.mock.oauth2.token.OAuth2TokenProvider;
import okhttp3.HttpUrl;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.Cookie;

import java.net.ServerSocket;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * People sign in (src/site/sign-in.md) against a real OpenID Connect provider started here
 * (mock-oauth2-server), with Chromium signing in through the console: the role map decides what the
 * console offers and what the API allows, strict mode refuses a person without a role, sign-out ends
 * the session on the server and then at the provider (its end-session endpoint, with the person's ID
 * token as the hint), an idle session sends the person back to sign in at the same console address,
 * the provider rotates its keys, forged tokens (another audience, a key the provider never published)
 * and replayed or foreign states get the "sign-in failed" page, a request with the cookie but without the CSRF token changes nothing, and an
 * approval, an erasure and the ACCESS events of a search and an export name the person. One service,
 * one provider and one browser for the class.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SignInIT {

    private static final String ISSUER_ID = "corp";
    private static final String CLIENT_ID = "trailproof-console";
    private static final String INGEST = "shipper-secret-71c2";
    private static final String ADMIN = "ops-secret-3e9a";
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final String READER = "reader@example.com (reader-sub)";

    @TempDir
    static Path dir;
    static MockOAuth2Server provider;
    static ForgingKeys keys;
    static int providerPort;
    static InProcessServer server;
    static String base;
    static Browser browser;
    /** The service's clock, started at the real time and moved by hand (idle time-outs without waiting). */
    static final HandClock clock = new HandClock(Instant.now().toString());
    static final HttpClient HTTP = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    @BeforeAll
    static void start() throws Exception {
        providerPort = freePort();
        provider = provider(newKey());
        provider.start(providerPort);
        warmUp();
        int port = freePort();
        base = "http://localhost:" + port;
        server = InProcessServer.start(dir.resolve("data"), clock, "server.port", String.valueOf(port),
                "auth.api-keys", "shipper=" + INGEST + ":ingest,ops=" + ADMIN + ":admin",
                "auth.oidc.issuer", provider.issuerUrl(ISSUER_ID).toString(),
                "auth.oidc.client-id", CLIENT_ID,
                "auth.oidc.redirect-uri", base + "/auth/callback",
                "auth.oidc.role-map", "trail-readers=read,trail-approvers=approve,trail-admins=admin",
                "gate.default", "ask");
        for (int i = 0; i < 3; i++) {
            assertThat(keyed("POST", "/v1/events", INGEST, "{\"agent_id\":\"agent-007\",\"action_type\":\"TOOL_CALL\","
                    + "\"action_name\":\"wire_transfer\",\"action_input\":{\"n\":" + i + "}}").statusCode()).isEqualTo(201);
        }
        browser = Browser.start(dir.resolve("downloads"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (browser != null) {
            browser.close();
        }
        if (server != null) {
            server.close();
        }
        if (provider != null) {
            provider.shutdown();
        }
    }

    /**
     * Waits until the console names {@code who} as signed in. The text is read in the page, not from a
     * held element: until the sign-in's redirects end, the page that showed it may be replaced.
     */
    private void assertSignedInAs(String who) {
        browser.await(d -> who.equals(browser.text("#who")) && browser.visible("#who").isDisplayed() ? true : null);
    }

    @Test
    @Order(1)
    void aReaderSignsInThroughTheConsoleSeesWhatReadingAllowsAndTheirReadsAreRecorded() throws Exception {
        personNext("reader-sub", "reader@example.com", "Rita Reader", List.of("trail-readers", "staff"));
        browser.open(base + "/ui/?q=wire_transfer");
        // The console found no session, sent the browser to the provider, and came back to the same address.
        assertSignedInAs("reader@example.com");
        assertThat(browser.driver().getCurrentUrl()).isEqualTo(base + "/ui/?q=wire_transfer");
        assertThat(browser.visible("#total[data-total]").getAttribute("data-total")).isEqualTo("3");
        assertThat(browser.visible("#sign-out").isDisplayed()).isTrue();
        assertThat(browser.script("return document.getElementById('nav-approvals').hidden")).isEqualTo(true);
        browser.screenshot("signed-in");

        Cookie cookie = browser.driver().manage().getCookieNamed("__Host-trailproof_session");
        assertThat(cookie.isHttpOnly()).isTrue();
        assertThat(cookie.isSecure()).isTrue();
        assertThat(cookie.getSameSite()).isEqualTo("Lax");
        assertThat(cookie.getPath()).isEqualTo("/");
        JsonNode session = Api.JSON.readTree(withCookie("GET", "/auth/session", cookie.getValue(), null, null).body());
        assertThat(session.get("subject").asText()).isEqualTo("reader-sub");
        assertThat(session.get("name").asText()).isEqualTo("Rita Reader");
        assertThat(session.get("roles").toString()).isEqualTo("[\"read\"]");
        // Reading allows no approving, through the console or not.
        assertThat(withCookie("GET", "/v1/approvals", cookie.getValue(), null, null).statusCode()).isEqualTo(403);

        Object exported = browser.driver().executeAsyncScript("const done = arguments[arguments.length - 1];"
                + "fetch('/v1/export?agent_id=agent-007', {credentials: 'same-origin'}).then(r => done(r.status))");
        assertThat(exported).isEqualTo(200L);

        // The page of results (the console also asks for facets and the histogram, with limit=1).
        JsonNode search = awaitAccess("GET /v1/search", READER, "limit=25");
        assertThat(search.at("/action_input/query").asText()).contains("q=wire_transfer");
        assertThat(search.at("/action_output/status").asInt()).isEqualTo(200);
        assertThat(search.at("/action_output/results").asLong()).isEqualTo(3);
        JsonNode export = awaitAccess("GET /v1/export", READER, "agent_id=agent-007");
        assertThat(export.at("/action_output/results").asLong()).isEqualTo(3);

        // Sign-out ends the session on the server, whatever the browser keeps, then at the provider: the
        // browser goes to its end-session endpoint with the person's ID token as the hint, and the
        // provider sends it back to the console, which says the person signed out.
        browser.visible("#sign-out").click();
        RecordedRequest endSession = providerRequest(provider.endSessionEndpointUrl(ISSUER_ID).encodedPath());
        assertThat(endSession.getMethod()).isEqualTo("GET");
        HttpUrl ended = endSession.getRequestUrl();
        assertThat(ended.queryParameter("post_logout_redirect_uri")).isEqualTo(base + "/ui/");
        assertThat(ended.queryParameter("client_id")).isEqualTo(CLIENT_ID);
        JWTClaimsSet hint = SignedJWT.parse(ended.queryParameter("id_token_hint")).getJWTClaimsSet();
        assertThat(hint.getIssuer()).isEqualTo(provider.issuerUrl(ISSUER_ID).toString());
        assertThat(hint.getSubject()).isEqualTo("reader-sub");
        assertThat(hint.getAudience()).containsExactly(CLIENT_ID);
        Await.until("back from the provider's sign-out", DEADLINE,
                () -> browser.driver().getCurrentUrl().equals(base + "/ui/"));
        assertThat(browser.visible("#sign-in").isDisplayed()).isTrue();
        assertThat(browser.text("#notice")).contains("signed out");
        assertThat(withCookie("GET", "/auth/session", cookie.getValue(), null, null).statusCode()).isEqualTo(401);
        assertThat(withCookie("GET", "/v1/search?q=wire_transfer", cookie.getValue(), null, null).statusCode())
                .isEqualTo(401);
    }

    @Test
    @Order(2)
    void strictModeRefusesAPersonWithoutAMappedRole() throws Exception {
        personNext("intern-sub", "intern@example.com", null, List.of("marketing"));
        browser.visible("#sign-in").click();
        assertThat(browser.visible("h1").getText()).isEqualTo("No role in trailproof");
        assertThat(browser.text("#auth-message")).contains("no role here");
        assertThat(browser.driver().manage().getCookieNamed("__Host-trailproof_session")).isNull();
        browser.screenshot("sign-in-no-role");
    }

    @Test
    @Order(3)
    void anApproverApprovesInTheConsoleAndTheApprovalNamesThem() throws Exception {
        String id = askForTransfer();
        forgetThisBrowser();
        personNext("approver-sub", "approver@example.com", "Abe Approver", List.of("trail-approvers"));
        browser.open(base + "/ui/?view=approvals");
        assertSignedInAs("approver@example.com");
        assertThat(browser.driver().getCurrentUrl()).isEqualTo(base + "/ui/?view=approvals");
        String card = "#approvals-list li.approval[data-decision='" + id + "']";
        browser.visible(card + " .approve");
        Await.untilTrue("the agent's recent events", DEADLINE, () -> browser.text(card + " .recent-events").length() > 0);
        browser.visible(card + " input.comment").sendKeys("checked by phone");
        browser.visible(card + " .approve").click();
        assertThat(browser.visible(card + " .approval-result[data-answered=approved]").getText()).startsWith("✓ approved");

        JsonNode approval = null;
        for (JsonNode e : events("payer")) {
            if (e.path("action_type").asText().equals("APPROVAL")) {
                approval = e;
            }
        }
        assertThat(approval).isNotNull();
        assertThat(approval.at("/action_output/approver").asText()).isEqualTo("approver@example.com (approver-sub)");
        assertThat(awaitAccess("POST /v1/approvals/{id}", "approver@example.com (approver-sub)", "")
                .at("/action_output/status").asInt()).isEqualTo(201);
    }

    @Test
    @Order(4)
    void withoutTheCsrfTokenARequestWithTheCookieChangesNothing() throws Exception {
        String cookie = signInWithoutBrowser("admin-sub", "admin@example.com", List.of("trail-admins"));
        String csrf = Api.JSON.readTree(withCookie("GET", "/auth/session", cookie, null, null).body())
                .get("csrf_token").asText();
        String id = askForTransfer();

        HttpResponse<String> refused = withCookie("POST", "/v1/approvals/" + id, cookie, null, "{\"approve\":true}");
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(refused.body()).contains("X-CSRF-Token");
        assertThat(withCookie("POST", "/v1/approvals/" + id, cookie, "not-the-token", "{\"approve\":true}").statusCode())
                .isEqualTo(403);
        String erase = "{\"event_ids\":[\"" + events("agent-007").get(0).get("id").asText()
                + "\"],\"reason\":\"customer request\"}";
        assertThat(withCookie("POST", "/v1/admin/erasures", cookie, null, erase).statusCode()).isEqualTo(403);
        assertThat(Api.JSON.readTree(keyed("GET", "/v1/decisions/" + id, INGEST, null).body()).get("state").asText())
                .isEqualTo("pending");
        assertThat(events("trailproof.erasures")).isEmpty();

        // With the token, the same erasure is made and names the person.
        HttpResponse<String> erased = withCookie("POST", "/v1/admin/erasures", cookie, csrf, erase);
        assertThat(erased.statusCode()).as(erased.body()).isEqualTo(200);
        assertThat(events("trailproof.erasures")).hasSize(1);
        assertThat(events("trailproof.erasures").get(0).at("/action_input/key").asText())
                .isEqualTo("admin@example.com (admin-sub)");
        // A key still works beside sign-in, and is judged by itself.
        assertThat(keyed("GET", "/v1/search?q=wire_transfer", ADMIN, null).statusCode()).isEqualTo(200);
    }

    @Test
    @Order(5)
    void forgedAndReplayedSignInsGetThePageThatSaysSignInFailed() throws Exception {
        // An ID token for another application.
        Map<String, Object> claims = new HashMap<>(Map.of("groups", List.of("trail-admins"), "aud", "another-app"));
        provider.enqueueCallback(new DefaultOAuth2TokenCallback(ISSUER_ID, "mallory-sub", "JWT", null, claims, 3600));
        assertSignInFailed(completeSignIn(null).callback());

        // Signed by a key the provider never published: under an unknown key id, and under the provider's own.
        for (String kid : List.of("not-a-provider-key", ISSUER_ID)) {
            keys.forgeWith(newKey(kid));
            try {
                Flow forged = completeSignIn(List.of("trail-admins"));
                assertSignInFailed(forged.callback());
                assertThat(forged.callback().body()).doesNotContain("eyJ");
            } finally {
                keys.forgeWith(null);
            }
        }

        // A state used once cannot be used again, nor one this browser did not start.
        Flow done = completeSignIn(List.of("trail-readers"));
        assertThat(done.callback().statusCode()).isEqualTo(302);
        assertSignInFailed(get(done.callbackUrl(), "__Host-trailproof_signin=" + done.state()));
        Flow other = startSignIn();
        assertSignInFailed(get(base + "/auth/callback?code=x&state=" + other.state(), null));
    }

    @Test
    @Order(6)
    void theProviderRotatesItsKeysAndSignInGoesOn() throws Exception {
        provider.shutdown();
        provider = provider(newKey());
        provider.start(providerPort);
        warmUp();
        String cookie = signInWithoutBrowser("after-rotation-sub", "rotated@example.com", List.of("trail-readers"));
        assertThat(withCookie("GET", "/v1/search?q=wire_transfer", cookie, null, null).statusCode()).isEqualTo(200);
    }

    @Test
    @Order(7)
    void anIdleSessionEndsAndTheConsoleSendsThePersonBackToSignInAtTheSameAddress() throws Exception {
        forgetThisBrowser();
        personNext("reader-sub", "reader@example.com", "Rita Reader", List.of("trail-readers"));
        browser.open(base + "/ui/?view=agents");
        assertSignedInAs("reader@example.com");
        String first = browser.driver().manage().getCookieNamed("__Host-trailproof_session").getValue();

        clock.advance(Duration.ofMinutes(31)); // past auth.session.idle-timeout (PT30M)
        assertThat(withCookie("GET", "/v1/agents", first, null, null).statusCode()).isEqualTo(401);
        personNext("reader-sub", "reader@example.com", "Rita Reader", List.of("trail-readers"));
        // One navigation only: a click that also met the ended session would start a second sign-in,
        // which could end after this one and land on its own address.
        browser.open(base + "/ui/?q=wire_transfer&agent_id=agent-007");
        Await.until("a new session after signing in again", DEADLINE, () -> {
            Cookie c = browser.driver().manage().getCookieNamed("__Host-trailproof_session");
            return c != null && !c.getValue().equals(first);
        });
        assertSignedInAs("reader@example.com");
        assertThat(browser.driver().getCurrentUrl()).isEqualTo(base + "/ui/?q=wire_transfer&agent_id=agent-007");

        // Every record of who looked, and everything else, verifies.
        for (String agent : List.of("trailproof.access", "agent-007", "payer", "trailproof.erasures")) {
            JsonNode verified = Api.JSON.readTree(keyed("GET", "/v1/verify?agent_id=" + agent, ADMIN, null).body());
            assertThat(verified.get("valid").asBoolean()).as(agent + ": " + verified).isTrue();
        }
    }

    /** No session cookie and nothing in the console's storage: a browser that never signed in here. */
    private static void forgetThisBrowser() {
        browser.open(base + "/health"); // this origin, without the console's own start
        browser.script("sessionStorage.clear()");
        browser.driver().manage().deleteAllCookies();
    }

    // ---- the provider ----

    private static MockOAuth2Server provider(ECKey key) {
        keys = new ForgingKeys(key);
        return new MockOAuth2Server(new OAuth2Config(false, null, null, false, new OAuth2TokenProvider(keys),
                new HashSet<>()));
    }

    /**
     * The provider's keys, which can be made to sign tokens with a key the provider does not publish:
     * its key set (jwks_uri) keeps the published key, its token endpoint signs with the forging one.
     */
    static final class ForgingKeys extends KeyProvider {
        private final AtomicReference<ECKey> forging = new AtomicReference<>();

        ForgingKeys(ECKey published) {
            super(List.of(published), "ES256");
        }

        void forgeWith(ECKey key) {
            forging.set(key);
        }

        @Override
        public JWK signingKey(String issuerId) {
            ECKey forged = forging.get();
            boolean signing = StackWalker.getInstance().walk(frames -> frames.anyMatch(f -> f.getMethodName().equals("sign")
                    && f.getClassName().equals(OAuth2TokenProvider.class.getName())));
            return forged != null && signing ? forged : super.signingKey(issuerId);
        }
    }

    /**
     * Reads the provider's discovery document once with a generous deadline: its first answer loads
     * its whole stack, which on a busy machine can take longer than the service's read time-out.
     */
    private static void warmUp() throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(provider.wellKnownUrl(ISSUER_ID).toString()))
                .timeout(Duration.ofSeconds(60)).GET().build();
        assertThat(HTTP.send(r, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        assertThat(HTTP.send(HttpRequest.newBuilder(URI.create(provider.jwksUrl(ISSUER_ID).toString()))
                .timeout(Duration.ofSeconds(60)).GET().build(), HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(200);
    }

    /**
     * The next request the provider received at {@code path}, skipping the others it received before
     * (discovery, keys, authorization, tokens).
     */
    private static RecordedRequest providerRequest(String path) {
        while (true) {
            RecordedRequest r = provider.takeRequest(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            if (r.getRequestUrl() != null && r.getRequestUrl().encodedPath().equals(path)) {
                return r;
            }
        }
    }

    private static ECKey newKey() throws Exception {
        return newKey("k-" + System.nanoTime());
    }

    /** P-256 keys: generated in milliseconds, where an RSA key takes seconds on a busy machine. */
    private static ECKey newKey(String kid) throws Exception {
        return new ECKeyGenerator(Curve.P_256).keyID(kid).generate();
    }

    /** The provider signs the next person in as this one. */
    private static void personNext(String subject, String email, String name, List<String> groups) {
        Map<String, Object> claims = new HashMap<>();
        claims.put("groups", groups);
        claims.put("email", email);
        if (name != null) {
            claims.put("name", name);
        }
        provider.enqueueCallback(new DefaultOAuth2TokenCallback(ISSUER_ID, subject, "JWT", null, claims, 3600));
    }

    // ---- signing in without the browser ----

    /** A started sign-in: its state, nonce, and the provider address to go to. */
    record Flow(String state, String nonce, String authorizeUrl, String callbackUrl, HttpResponse<String> callback) {
    }

    private static Flow startSignIn() throws Exception {
        HttpResponse<String> login = get(base + "/auth/login?return=/ui/", null);
        assertThat(login.statusCode()).isEqualTo(302);
        String location = login.headers().firstValue("Location").orElseThrow();
        Map<String, String> q = query(URI.create(location));
        assertThat(q.get("code_challenge_method")).isEqualTo("S256");
        assertThat(cookie(login, "__Host-trailproof_signin")).isEqualTo(q.get("state"));
        return new Flow(q.get("state"), q.get("nonce"), location, null, null);
    }

    /** Runs a whole sign-in; with {@code groups} the provider's next person is enqueued first. */
    private static Flow completeSignIn(List<String> groups) throws Exception {
        if (groups != null) {
            personNext("http-sub", "http@example.com", null, groups);
        }
        Flow f = startSignIn();
        HttpResponse<String> authorized = get(f.authorizeUrl(), null);
        assertThat(authorized.statusCode()).as(authorized.body()).isEqualTo(302);
        String callbackUrl = authorized.headers().firstValue("Location").orElseThrow();
        assertThat(callbackUrl).startsWith(base + "/auth/callback?");
        return new Flow(f.state(), f.nonce(), f.authorizeUrl(), callbackUrl,
                get(callbackUrl, "__Host-trailproof_signin=" + f.state()));
    }

    private static String signInWithoutBrowser(String subject, String email, List<String> groups) throws Exception {
        personNext(subject, email, null, groups);
        Flow f = startSignIn();
        String callbackUrl = get(f.authorizeUrl(), null).headers().firstValue("Location").orElseThrow();
        HttpResponse<String> done = get(callbackUrl, "__Host-trailproof_signin=" + f.state());
        assertThat(done.statusCode()).as(done.body()).isEqualTo(302);
        assertThat(done.headers().firstValue("Location")).hasValue("/ui/");
        return cookie(done, "__Host-trailproof_session");
    }

    private static void assertSignInFailed(HttpResponse<String> page) {
        assertThat(page.statusCode()).isEqualTo(401);
        assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
        assertThat(page.headers().firstValue("Content-Security-Policy")).isPresent();
        assertThat(page.body()).contains("Sign-in failed");
        assertThat(cookie(page, "__Host-trailproof_session")).isNull();
    }

    // ---- HTTP ----

    private static HttpResponse<String> get(String url, String cookieHeader) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).GET();
        if (cookieHeader != null) {
            b.header("Cookie", cookieHeader);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> withCookie(String method, String path, String session, String csrf, String body)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .header("Cookie", "__Host-trailproof_session=" + session)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (csrf != null) {
            b.header("X-CSRF-Token", csrf);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> keyed(String method, String path, String key, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + key)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A cookie the answer sets (with a value), or null. */
    private static String cookie(HttpResponse<?> r, String name) {
        for (String set : r.headers().allValues("Set-Cookie")) {
            if (set.startsWith(name + "=")) {
                String value = set.substring(name.length() + 1, set.indexOf(';') < 0 ? set.length() : set.indexOf(';'));
                return value.isEmpty() ? null : value;
            }
        }
        return null;
    }

    private static Map<String, String> query(URI uri) {
        Map<String, String> out = new HashMap<>();
        for (String pair : uri.getRawQuery().split("&")) {
            int eq = pair.indexOf('=');
            out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    // ---- the trail ----

    /** A pending ask of agent payer (gate.default is ask); its decision id. */
    private static String askForTransfer() throws Exception {
        HttpResponse<String> r = keyed("POST", "/v1/decisions", INGEST,
                "{\"agent_id\":\"payer\",\"action_name\":\"transfer_funds\",\"action_input\":{\"amount\":100}}");
        JsonNode d = Api.JSON.readTree(r.body());
        assertThat(d.get("decision").asText()).as(r.body()).isEqualTo("ask");
        return d.get("decision_id").asText();
    }

    /** An agent's events, oldest first, read from the ledger (so the reading is not itself recorded). */
    private static List<JsonNode> events(String agent) throws Exception {
        List<JsonNode> events = new ArrayList<>();
        for (long p : server.server().ledger().agentPositions(agent)) {
            events.add(Api.JSON.readTree(server.server().ledger().payloadAt(p)));
        }
        return events;
    }

    /** The latest ACCESS event of this route by this person whose query holds {@code queryPart}, once written. */
    private static JsonNode awaitAccess(String route, String who, String queryPart) throws Exception {
        AtomicReference<JsonNode> found = new AtomicReference<>();
        Await.untilTrue("an ACCESS event of " + route + " by " + who, DEADLINE, () -> {
            for (JsonNode e : events("trailproof.access")) {
                if (e.path("action_name").asText().equals(route) && e.at("/action_input/who").asText().equals(who)
                        && e.at("/action_input/query").asText().contains(queryPart)) {
                    found.set(e);
                }
            }
            return found.get() != null;
        });
        return found.get();
    }
}
