package io.trailproof.signin;

import io.trailproof.config.ApiKey;

import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Roles from the ID token (src/site/sign-in.md#roles): the claim named by {@code auth.oidc.roles-claim}
 * (a dotted path reaches into an object: {@code realm_access.roles}), a string or a list of strings;
 * each value found in {@code auth.oidc.role-map} adds its roles. Roles nest when they are checked
 * ({@code approve} includes {@code read}, {@code admin} includes both).
 */
final class RoleMap {

    private final String claim;
    private final Map<String, Set<ApiKey.Role>> map;

    RoleMap(String claim, Map<String, Set<ApiKey.Role>> map) {
        this.claim = claim;
        this.map = Map.copyOf(map);
    }

    /** The roles the claims give; empty when the claim is missing or none of its values is mapped. */
    Set<ApiKey.Role> roles(Map<String, Object> claims) {
        Set<ApiKey.Role> roles = EnumSet.noneOf(ApiKey.Role.class);
        for (String value : values(claims)) {
            Set<ApiKey.Role> mapped = map.get(value);
            if (mapped != null) {
                roles.addAll(mapped);
            }
        }
        return roles;
    }

    /** The claim's string values: one for a string, each string of a list, none otherwise. */
    List<String> values(Map<String, Object> claims) {
        Object node = claims;
        for (String part : claim.split("\\.")) {
            if (!(node instanceof Map<?, ?> m)) {
                return List.of();
            }
            node = m.get(part);
        }
        if (node instanceof String s) {
            return List.of(s);
        }
        if (node instanceof Collection<?> c) {
            return c.stream().filter(String.class::isInstance).map(String.class::cast).toList();
        }
        return List.of();
    }
}
