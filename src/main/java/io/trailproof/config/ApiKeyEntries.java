package io.trailproof.config;

import io.trailproof.config.ConfigSources.Sourced;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/** The entries of {@code auth.api-keys} read as {@link ApiKey}s (src/site/security.md#api-keys-and-roles). */
final class ApiKeyEntries {

    private ApiKeyEntries() {
    }

    /** What a key name may hold: it appears in logs and records, so it is short and plain. */
    private static final Pattern KEY_NAME = Pattern.compile("[A-Za-z0-9_.@-]{1,64}");

    /**
     * {@code auth.api-keys}: entries {@code key}, {@code key:roles} and {@code name=key:roles}
     * (src/site/configuration.md). An entry is named when it holds a {@code =} followed by something
     * other than {@code =}: base64 keys end in padding {@code =} and keep working unnamed. No message
     * ever holds a key: only the entry's position, its name, and what is wrong.
     */
    static List<ApiKey> parse(Sourced sourced) throws ConfigException {
        List<ApiKey> keys = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (String entry : ConfigValues.list(sourced.value())) {
            String at = "auth.api-keys (from " + sourced.source() + ") entry " + (keys.size() + 1);
            String name = null;
            int equals = entry.indexOf('=');
            if (equals >= 0 && !entry.substring(equals).chars().allMatch(c -> c == '=')) {
                name = entry.substring(0, equals).trim();
                entry = entry.substring(equals + 1);
                if (!KEY_NAME.matcher(name).matches()) {
                    throw new ConfigException(at + " has a name that is not 1 to 64 of A-Z a-z 0-9 _ . @ -; "
                            + "write name=key:roles");
                }
                if (!names.add(name)) {
                    throw new ConfigException(at + " is named '" + name + "' like an earlier entry; names must be unique");
                }
            }
            int colon = entry.indexOf(':');
            String secret = colon < 0 ? entry : entry.substring(0, colon);
            if (secret.isEmpty()) {
                throw new ConfigException(at + " has an empty key");
            }
            Set<ApiKey.Role> roles = EnumSet.noneOf(ApiKey.Role.class);
            if (colon < 0) {
                roles = EnumSet.allOf(ApiKey.Role.class);
            } else {
                for (String role : entry.substring(colon + 1).split("\\+")) {
                    try {
                        roles.add(ApiKey.Role.valueOf(role.trim().toUpperCase(Locale.ROOT)));
                    } catch (IllegalArgumentException e) {
                        // The key itself is never echoed: only its position and the role.
                        throw new ConfigException(at + (name == null ? "" : " ('" + name + "')") + " has unknown role '"
                                + role + "'; roles are ingest, read, approve, admin");
                    }
                }
            }
            keys.add(new ApiKey(name, secret, roles));
        }
        return keys;
    }
}
