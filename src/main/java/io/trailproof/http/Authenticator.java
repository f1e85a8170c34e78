package io.trailproof.http;

import io.trailproof.config.ApiKey;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Decides whether a request's {@code Authorization: Bearer <key>} may do what it asks (src/site/http-api.md#conventions).
 *
 * <p>With no keys configured every request is allowed. Otherwise a missing, malformed or unknown key
 * is a 401 with {@code WWW-Authenticate: Bearer}, and a known key without the role is a 403. {@code admin}
 * implies every role. Keys are compared as SHA-256 digests with {@link MessageDigest#isEqual}, against
 * every configured key without stopping at a match, so the time taken says nothing about which key
 * or how much of it matched. No message, log line or exception ever contains a presented or
 * configured key.
 */
final class Authenticator {

    static final String CHALLENGE = "Bearer";
    private static final String SCHEME = "bearer ";

    private final boolean signIn;
    private final List<byte[]> digests;
    private final List<Set<ApiKey.Role>> roles;
    /** Configured name per key (null for an unnamed key), by the hex SHA-256 of the key. */
    private final Map<String, String> names = new HashMap<>();

    Authenticator(List<ApiKey> keys) {
        this(keys, false);
    }

    /**
     * @param signIn whether people sign in too: then a request needs a key or a session even when
     *     no keys are configured
     */
    Authenticator(List<ApiKey> keys, boolean signIn) {
        this.signIn = signIn;
        this.digests = keys.stream().map(k -> sha256(k.secret())).toList();
        for (ApiKey k : keys) {
            if (k.name() != null) {
                names.put(HexFormat.of().formatHex(sha256(k.secret())), k.name());
            }
        }
        this.roles = keys.stream().map(k -> {
            Set<ApiKey.Role> r = EnumSet.noneOf(ApiKey.Role.class);
            r.addAll(k.roles());
            return r;
        }).toList();
    }

    /** True when keys are configured, so that every request but the open ones must present one. */
    boolean enabled() {
        return !digests.isEmpty();
    }

    /**
     * The roles the request's key grants; every role when authentication is off.
     *
     * @throws ApiException 401 when the key is missing, malformed or unknown
     */
    Set<ApiKey.Role> authenticate(String authorization) throws ApiException {
        if (!enabled() && !signIn) {
            return EnumSet.allOf(ApiKey.Role.class);
        }
        if (authorization == null || authorization.isBlank()) {
            throw unauthorized(signIn ? "this request needs a signed-in person (sign in at /auth/login) or an API key "
                    + "(the header Authorization: Bearer <key>)"
                    : "this request needs an API key: send the header Authorization: Bearer <key>");
        }
        String header = authorization.strip();
        if (header.length() <= SCHEME.length() || !header.substring(0, SCHEME.length()).toLowerCase(Locale.ROOT)
                .equals(SCHEME)) {
            throw unauthorized("the Authorization header must have the form 'Bearer <key>'");
        }
        byte[] presented = sha256(header.substring(SCHEME.length()).strip());
        EnumSet<ApiKey.Role> granted = EnumSet.noneOf(ApiKey.Role.class);
        boolean known = false;
        for (int i = 0; i < digests.size(); i++) {
            // No early exit: every configured key is compared whatever the outcome.
            boolean match = MessageDigest.isEqual(presented, digests.get(i));
            known |= match;
            if (match) {
                granted.addAll(roles.get(i));
            }
        }
        if (!known) {
            throw unauthorized("the API key is not valid; check the key you were given (it is not shown here)");
        }
        return granted;
    }

    /**
     * Who a request acts as, for scoping what it records (an {@code Idempotency-Key}): empty when no
     * keys are configured (everyone shares one scope), otherwise the hex SHA-256 of the presented
     * key, never the key itself. Call only for a request {@link #authenticate} accepted.
     */
    String scope(String authorization) {
        if (!enabled() || authorization == null) {
            return "";
        }
        return HexFormat.of().formatHex(sha256(authorization.strip().substring(SCHEME.length()).strip()));
    }

    /**
     * The name under which a request's key appears wherever a key is named (the access log, erasure
     * records, approvals): its configured name, or for an unnamed key {@code key-} and the first 8 hex
     * digits of its SHA-256 (this identifies one among those configured and reveals nothing usable of
     * it). Null when no keys are configured or the request sent none.
     */
    String keyName(String authorization) {
        String scope = authorization == null || !authorization.strip().toLowerCase(Locale.ROOT).startsWith(SCHEME)
                ? "" : scope(authorization);
        if (scope.isEmpty()) {
            return null;
        }
        String name = names.get(scope);
        return name != null ? name : "key-" + scope.substring(0, 8);
    }

    /**
     * @throws ApiException 403 when {@code granted} lacks {@code needed} (admin grants everything;
     *     approve includes read)
     */
    static void authorize(Set<ApiKey.Role> granted, ApiKey.Role needed, String method, String path)
            throws ApiException {
        authorize(granted, needed, method, path, false);
    }

    /** As {@link #authorize(Set, ApiKey.Role, String, String)}; {@code person}: the refusal speaks of a signed-in person's roles. */
    static void authorize(Set<ApiKey.Role> granted, ApiKey.Role needed, String method, String path, boolean person)
            throws ApiException {
        if (grants(granted, needed)) {
            return;
        }
        String role = needed.name().toLowerCase(Locale.ROOT);
        throw new ApiException(403, person
                ? "your roles lack the " + role + " role needed for " + method + " " + Params.shorten(path)
                        + "; ask the administrator of trailproof for it"
                : "this API key lacks the " + role + " role needed for " + method + " " + Params.shorten(path)
                        + "; use a key with that role");
    }

    /** Whether {@code granted} includes {@code needed}: admin grants everything, approve includes read. */
    static boolean grants(Set<ApiKey.Role> granted, ApiKey.Role needed) {
        return needed == null || granted.contains(ApiKey.Role.ADMIN) || granted.contains(needed)
                || needed == ApiKey.Role.READ && granted.contains(ApiKey.Role.APPROVE);
    }

    private static ApiException unauthorized(String message) {
        return new ApiException(401, message, Map.of("WWW-Authenticate", CHALLENGE));
    }

    private static byte[] sha256(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
