package io.trailproof.signin;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Optional;

/**
 * Sign-ins started and not yet completed, by their {@code state}: the nonce the ID token must carry,
 * the PKCE code verifier and the console address to return to. Each is taken once (a replayed
 * {@code state} finds nothing), lives at most {@link #LIFETIME}, and at most {@link #CAPACITY} wait
 * (the oldest goes first), so a flood of started sign-ins holds bounded memory.
 */
final class PendingSignIns {

    /** How long a person has at the provider to sign in. */
    static final Duration LIFETIME = Duration.ofMinutes(10);
    static final int CAPACITY = 10_000;

    record Pending(String nonce, String codeVerifier, String returnTo, Instant started) {
    }

    private final Clock clock;
    /** Oldest first; guarded by itself. */
    private final LinkedHashMap<String, Pending> pending = new LinkedHashMap<>();

    PendingSignIns(Clock clock) {
        this.clock = clock;
    }

    void put(String state, String nonce, String codeVerifier, String returnTo) {
        Instant now = clock.instant();
        synchronized (pending) {
            Iterator<Pending> it = pending.values().iterator();
            while (it.hasNext()) {
                Pending p = it.next();
                if (pending.size() < CAPACITY && now.isBefore(p.started().plus(LIFETIME))) {
                    break;
                }
                it.remove();
            }
            pending.put(state, new Pending(nonce, codeVerifier, returnTo, now));
        }
    }

    /** The pending sign-in of {@code state}, removed; empty when unknown, already taken or too old. */
    Optional<Pending> take(String state) {
        if (state == null) {
            return Optional.empty();
        }
        synchronized (pending) {
            Pending p = pending.remove(state);
            if (p == null || !clock.instant().isBefore(p.started().plus(LIFETIME))) {
                return Optional.empty();
            }
            return Optional.of(p);
        }
    }
}
