package io.trailproof.config;

import java.util.Set;

/** One configured API key and the roles it grants (src/site/http-api.md#conventions). {@link #toString} never shows the secret. */
public record ApiKey(String secret, Set<Role> roles) {

    public enum Role { INGEST, READ, ADMIN }

    @Override
    public String toString() {
        return "ApiKey[roles=" + roles + "]";
    }
}
