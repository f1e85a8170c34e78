package io.trailproof.http;

import io.undertow.server.HttpServerExchange;
import io.undertow.server.handlers.Cookie;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;

/**
 * The cookies of sign-in (src/site/sign-in.md#sessions-cookies-and-csrf): the session cookie and the
 * short-lived one that binds a started sign-in to the browser that started it. Both are
 * {@code __Host-} cookies: {@code Secure}, {@code Path=/}, no {@code Domain}, so no other host and no
 * plain-http page can set or read them; {@code HttpOnly}, so no script reads them;
 * {@code SameSite=Lax}, so another site's page cannot send them along with a request that changes
 * anything (and the provider's redirect back, a top-level navigation, still carries them).
 */
final class SessionCookies {

    static final String SESSION = "__Host-trailproof_session";
    static final String SIGN_IN_STATE = "__Host-trailproof_signin";
    /** The header a state-changing request made with the session cookie carries the session's token in. */
    static final HttpString CSRF_HEADER = new HttpString("X-CSRF-Token");

    private SessionCookies() {
    }

    /** The cookie's value, or null. */
    static String read(HttpServerExchange ex, String name) {
        Cookie c = ex.getRequestCookie(name);
        return c == null || c.getValue() == null || c.getValue().isEmpty() ? null : c.getValue();
    }

    /** Sets a cookie; {@code maxAgeSeconds} negative for one that lasts while the browser runs. */
    static void set(HttpServerExchange ex, String name, String value, long maxAgeSeconds) {
        ex.getResponseHeaders().add(Headers.SET_COOKIE, name + "=" + value + "; Path=/; Secure; HttpOnly; SameSite=Lax"
                + (maxAgeSeconds >= 0 ? "; Max-Age=" + maxAgeSeconds : ""));
    }

    /** Tells the browser to drop the cookie. */
    static void clear(HttpServerExchange ex, String name) {
        set(ex, name, "", 0);
    }
}
