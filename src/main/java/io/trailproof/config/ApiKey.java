package io.trailproof.config;

import java.util.Set;

/**
 * One configured API key, its name and the roles it grants (src/site/http-api.md#conventions).
 * {@code name} is null for an unnamed key (the {@code key} and {@code key:roles} forms); the service
 * then names it {@code key-} and 8 hex digits of its SHA-256. {@link #toString} never shows the secret.
 */
public record ApiKey(String name, String secret, Set<Role> roles) {

    /**
     * What a key may do. {@code approve} answers asks of the gate (src/site/gates.md) and includes
     * {@code read}; {@code admin} includes every role.
     */
    public enum Role { INGEST, READ, ADMIN, APPROVE }

    public ApiKey(String secret, Set<Role> roles) {
        this(null, secret, roles);
    }

    @Override
    public String toString() {
        return "ApiKey[name=" + name + ", roles=" + roles + "]";
    }
}
