package io.trailproof.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.config.ApiKey;
import io.trailproof.signin.Person;
import io.trailproof.signin.SignIn;
import io.trailproof.signin.SignInFailure;
import io.trailproof.signin.Sessions;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Deque;
import java.util.Locale;
import java.util.Optional;

/**
 * Sign-in of people (src/site/http-api.md#sign-in): {@code GET /auth/login}, {@code GET /auth/callback},
 * {@code POST /auth/logout}, {@code GET /auth/session}. These routes are open (they are how a person
 * gets a session); what they decide is in {@link SignIn}, this class carries cookies and pages.
 *
 * <p>The pages a person sees when sign-in fails say only that it failed (or that they have no role);
 * why it failed goes to the server log, and no token is ever written anywhere.
 */
final class AuthEndpoints {

    private static final System.Logger LOG = System.getLogger(AuthEndpoints.class.getName());

    static final String LOGIN = "/auth/login";
    static final String CALLBACK = "/auth/callback";
    static final String LOGOUT = "/auth/logout";
    static final String SESSION = "/auth/session";
    /** Where a sign-in returns when it was not asked for another console address. */
    static final String CONSOLE = ConsoleHandler.PREFIX;
    /** How long the browser keeps the cookie of a started sign-in: as long as the service waits for it. */
    private static final long SIGN_IN_COOKIE_SECONDS = 600;
    /** The longest console address remembered. */
    private static final int MAX_RETURN_LENGTH = 2048;

    /** Null when people do not sign in: every route is then a 404 that says so. */
    private final SignIn signIn;

    AuthEndpoints(SignIn signIn) {
        this.signIn = signIn;
    }

    void register(Router router) {
        router.add("GET", LOGIN, null, (ex, p) -> {
            configured();
            login(ex);
        });
        router.add("GET", CALLBACK, null, (ex, p) -> {
            configured();
            callback(ex);
        });
        router.add("POST", LOGOUT, null, (ex, p) -> {
            configured();
            logout(ex);
        });
        router.add("GET", SESSION, null, (ex, p) -> {
            configured();
            session(ex);
        });
    }

    private void configured() throws ApiException {
        if (signIn == null) {
            throw ApiException.notFound("people do not sign in to this service (auth.oidc.issuer is not set); "
                    + "use an API key");
        }
    }

    private void login(HttpServerExchange ex) {
        SignIn.Started started = signIn.begin(returnTo(param(ex, "return")));
        SessionCookies.set(ex, SessionCookies.SIGN_IN_STATE, started.state(), SIGN_IN_COOKIE_SECONDS);
        redirect(ex, started.authorizationUri().toString());
    }

    /**
     * The console address to return to: a path of this service under the console ({@code /ui/...}),
     * never another site's address nor a scheme-relative {@code //host}; anything else returns to the
     * console's start.
     */
    static String returnTo(String asked) {
        if (asked == null || asked.length() > MAX_RETURN_LENGTH || !asked.startsWith(CONSOLE)
                || asked.contains("\\") || asked.contains("//") || asked.chars().anyMatch(c -> c < 0x21 || c == 0x7f)) {
            return CONSOLE;
        }
        return asked;
    }

    private void callback(HttpServerExchange ex) throws Exception {
        String browserState = SessionCookies.read(ex, SessionCookies.SIGN_IN_STATE);
        SessionCookies.clear(ex, SessionCookies.SIGN_IN_STATE);
        try {
            SignIn.Completed done = signIn.complete(param(ex, "state"), browserState, param(ex, "code"), param(ex, "error"));
            SessionCookies.set(ex, SessionCookies.SESSION, done.session().id(), -1);
            redirect(ex, done.returnTo());
        } catch (SignInFailure f) {
            String id = ex.getAttachment(RequestIds.REQUEST_ID);
            LOG.log(System.Logger.Level.WARNING, "sign-in failed (request " + id + "): " + f.getMessage());
            if (f.kind() == SignInFailure.Kind.NO_ROLE) {
                page(ex, 403, "No role in trailproof", "You signed in, but your account has no role here: nobody "
                        + "has given your group access to the audit trail. Ask the administrator of trailproof to add "
                        + "it to the role map. (Reference " + id + ".)");
            } else {
                page(ex, 401, "Sign-in failed", "Sign-in failed: the identity provider's answer could not be "
                        + "accepted. Try again; if it fails again, give the administrator the reference " + id + ".");
            }
        }
    }

    private void logout(HttpServerExchange ex) throws Exception {
        String id = SessionCookies.read(ex, SessionCookies.SESSION);
        Optional<Sessions.Session> session = signIn.session(id);
        if (session.isPresent()) {
            checkCsrf(ex, session.get());
        }
        Optional<URI> endSession = signIn.signOut(id);
        SessionCookies.clear(ex, SessionCookies.SESSION);
        ObjectNode o = Responses.MAPPER.createObjectNode().put("signed_out", session.isPresent());
        o.put("end_session_url", endSession.map(URI::toString).orElse(null));
        Responses.json(ex, 200, o);
    }

    private void session(HttpServerExchange ex) throws Exception {
        Sessions.Session s = signIn.session(SessionCookies.read(ex, SessionCookies.SESSION))
                .orElseThrow(() -> new ApiException(401, "not signed in: sign in at " + LOGIN));
        Person p = s.person();
        ObjectNode o = Responses.MAPPER.createObjectNode()
                .put("subject", p.subject())
                .put("email", p.email())
                .put("name", p.name());
        ArrayNode roles = o.putArray("roles");
        for (ApiKey.Role r : ApiKey.Role.values()) {
            if (r != ApiKey.Role.INGEST && Authenticator.grants(p.roles(), r)) {
                roles.add(r.name().toLowerCase(Locale.ROOT));
            }
        }
        o.put("csrf_token", s.csrfToken());
        Responses.json(ex, 200, o);
    }

    /**
     * @throws ApiException 403 when the request does not carry the session's CSRF token in
     *     {@code X-CSRF-Token} (compared in constant time)
     */
    static void checkCsrf(HttpServerExchange ex, Sessions.Session session) throws ApiException {
        String sent = ex.getRequestHeaders().getFirst(SessionCookies.CSRF_HEADER);
        if (sent == null || !MessageDigest.isEqual(sent.getBytes(StandardCharsets.UTF_8),
                session.csrfToken().getBytes(StandardCharsets.UTF_8))) {
            throw new ApiException(403, "a request that changes anything with the sign-in cookie must carry the "
                    + "session's token in the header X-CSRF-Token (GET /auth/session answers it); nothing was changed");
        }
    }

    private static String param(HttpServerExchange ex, String name) {
        Deque<String> values = ex.getQueryParameters().get(name);
        return values == null || values.isEmpty() ? null : values.getFirst();
    }

    private static void redirect(HttpServerExchange ex, String location) {
        ex.setStatusCode(302);
        ex.getResponseHeaders().put(Headers.LOCATION, location);
        ex.endExchange();
    }

    /** A short HTML page with the console's security headers; {@code text} is escaped. */
    private static void page(HttpServerExchange ex, int status, String title, String text) {
        ConsoleHandler.securityHeaders(ex.getResponseHeaders());
        String html = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(title)
                + " · trailproof</title><link rel=\"stylesheet\" href=\"/ui/console.css\"></head><body class=\"auth-page\">"
                + "<main><h1>" + escape(title) + "</h1><p id=\"auth-message\">" + escape(text) + "</p>"
                + "<p><a href=\"" + LOGIN + "\">Sign in again</a> · <a href=\"" + CONSOLE + "\">Console</a></p>"
                + "</main></body></html>\n";
        byte[] body = html.getBytes(StandardCharsets.UTF_8);
        ex.setStatusCode(status);
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "text/html; charset=utf-8");
        ex.setResponseContentLength(body.length);
        ex.getResponseSender().send(ByteBuffer.wrap(body));
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
