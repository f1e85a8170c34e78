package io.trailproof.signin;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Optional;

/**
 * The sign-in sessions, held in memory by the server (src/site/sign-in.md#sessions-cookies-and-csrf): a session is a
 * random identifier (the cookie's value) that names a {@link Person}, with its own CSRF token. A
 * session ends at sign-out, after {@code idleTimeout} without a request, or {@code maxAge} after
 * sign-in, whichever comes first. At most {@code capacity} sessions are held; opening one more ends
 * the oldest. Nothing is written anywhere: a restart ends every session.
 *
 * <p>A lookup is a map access under a lock, with no call to the provider: it costs a request
 * microseconds. Identifiers and tokens are 32 bytes of the injected {@link SecureRandom}.
 */
public final class Sessions {

    /** Bytes of randomness in a session identifier and in a CSRF token. */
    static final int RANDOM_BYTES = 32;

    /** One signed-in person's session. {@code lastUsed} moves with each request. */
    public static final class Session {
        private final String id;
        private final Person person;
        private final String csrfToken;
        private final Instant created;
        /** The raw ID token, kept only to name the session to the provider's end-session endpoint; never logged. */
        private final String idToken;
        private Instant lastUsed;

        Session(String id, Person person, String csrfToken, Instant created, String idToken) {
            this.id = id;
            this.person = person;
            this.csrfToken = csrfToken;
            this.created = created;
            this.idToken = idToken;
            this.lastUsed = created;
        }

        public String id() {
            return id;
        }

        public Person person() {
            return person;
        }

        public String csrfToken() {
            return csrfToken;
        }

        public Instant created() {
            return created;
        }

        String idToken() {
            return idToken;
        }
    }

    private final Duration idleTimeout;
    private final Duration maxAge;
    private final int capacity;
    private final Clock clock;
    private final SecureRandom random;
    /** In order of opening, oldest first. Guarded by itself. */
    private final LinkedHashMap<String, Session> open = new LinkedHashMap<>();

    public Sessions(Duration idleTimeout, Duration maxAge, int capacity, Clock clock, SecureRandom random) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive");
        }
        this.idleTimeout = idleTimeout;
        this.maxAge = maxAge;
        this.capacity = capacity;
        this.clock = clock;
        this.random = random;
    }

    /** Opens a session for {@code person}; when {@code capacity} are open, the oldest ends first. */
    public Session open(Person person, String idToken) {
        Session s = new Session(randomToken(), person, randomToken(), clock.instant(), idToken);
        endExpired();
        synchronized (open) {
            while (open.size() >= capacity) {
                Iterator<String> oldest = open.keySet().iterator();
                oldest.next();
                oldest.remove();
            }
            open.put(s.id, s);
        }
        return s;
    }

    /**
     * The live session of this identifier, its idle time reset; empty when there is none or it has
     * passed a time-out (it is then ended).
     */
    public Optional<Session> find(String id) {
        if (id == null) {
            return Optional.empty();
        }
        Instant now = clock.instant();
        synchronized (open) {
            Session s = open.get(id);
            if (s == null) {
                return Optional.empty();
            }
            if (!now.isBefore(s.lastUsed.plus(idleTimeout)) || !now.isBefore(s.created.plus(maxAge))) {
                open.remove(id);
                return Optional.empty();
            }
            s.lastUsed = now;
            return Optional.of(s);
        }
    }

    /** Ends the session (sign-out); the ended session, if it was open. */
    public Optional<Session> end(String id) {
        if (id == null) {
            return Optional.empty();
        }
        synchronized (open) {
            return Optional.ofNullable(open.remove(id));
        }
    }

    /** Sessions held now, including ones past a time-out that no request has looked up since. */
    public int size() {
        synchronized (open) {
            return open.size();
        }
    }

    /** Ends every session past a time-out (at each sign-in, so abandoned sessions do not wait for eviction). */
    void endExpired() {
        Instant now = clock.instant();
        synchronized (open) {
            open.values().removeIf(s -> !now.isBefore(s.lastUsed.plus(idleTimeout)) || !now.isBefore(s.created.plus(maxAge)));
        }
    }

    private String randomToken() {
        byte[] b = new byte[RANDOM_BYTES];
        random.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
