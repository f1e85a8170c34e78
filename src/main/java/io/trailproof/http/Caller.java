package io.trailproof.http;

import io.undertow.server.HttpServerExchange;
import io.undertow.util.AttachmentKey;

/**
 * Who sent an authenticated request, by name, as records name them (an approval's {@code approver},
 * src/site/gates.md): the API key's configured name, {@code key-} and 8 hex digits of its SHA-256 for
 * an unnamed key, or {@value #ANONYMOUS} when the service runs without keys. Never the key itself.
 * Set by {@link ApiHandler} once a request is admitted; a signed-in person's name is attached the
 * same way by whatever admits the person.
 */
record Caller(String name) {

    static final String ANONYMOUS = "anonymous";

    static final AttachmentKey<Caller> KEY = AttachmentKey.create(Caller.class);

    /** The caller of an admitted request. */
    static Caller of(HttpServerExchange ex) {
        Caller c = ex.getAttachment(KEY);
        return c != null ? c : new Caller(ANONYMOUS);
    }
}
