package io.trailproof.config;

import io.trailproof.config.ConfigSources.Sourced;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the {@code auth.oidc.*}, {@code auth.session.*} and {@code server.public-url} keys
 * (src/site/sign-in.md#signing-in-people) and refuses what cannot be safe: sign-in on an address other
 * than loopback without HTTPS (the session cookie is {@code Secure}), a redirect URI that is not this
 * service's {@code /auth/callback}, a role map naming an unknown role.
 */
final class SignInSettings {

    /** The path of the redirect URI: the callback route. */
    static final String CALLBACK_PATH = "/auth/callback";

    private SignInSettings() {
    }

    /** Empty when {@code auth.oidc.issuer} is not set (and no other sign-in key is). */
    static Optional<Settings.SignIn> read(Map<ConfigKey, Sourced> raw, String host) throws ConfigException {
        Optional<URI> publicUrl = publicUrl(raw);
        String issuer = raw.get(ConfigKey.AUTH_OIDC_ISSUER).value().trim();
        if (issuer.isEmpty()) {
            for (ConfigKey k : List.of(ConfigKey.AUTH_OIDC_CLIENT_ID, ConfigKey.AUTH_OIDC_CLIENT_SECRET,
                    ConfigKey.AUTH_OIDC_REDIRECT_URI, ConfigKey.AUTH_OIDC_ROLE_MAP)) {
                if (!raw.get(k).value().isBlank()) {
                    throw new ConfigException("configuration key " + k.key() + " is set but auth.oidc.issuer is not: "
                            + "set auth.oidc.issuer to the provider's issuer URL to turn sign-in on");
                }
            }
            return Optional.empty();
        }
        URI issuerUri = ConfigValues.httpUrl(raw, ConfigKey.AUTH_OIDC_ISSUER);
        String clientId = raw.get(ConfigKey.AUTH_OIDC_CLIENT_ID).value().trim();
        if (clientId.isEmpty()) {
            throw ConfigValues.bad(ConfigKey.AUTH_OIDC_CLIENT_ID, raw,
                    "is needed with auth.oidc.issuer: the client id the provider gave this service");
        }
        String secret = raw.get(ConfigKey.AUTH_OIDC_CLIENT_SECRET).value().trim();
        URI redirect = redirectUri(raw, publicUrl);
        List<String> scopes = ConfigValues.list(raw.get(ConfigKey.AUTH_OIDC_SCOPES).value());
        if (!scopes.contains("openid")) {
            throw ConfigValues.bad(ConfigKey.AUTH_OIDC_SCOPES, raw, "must include openid");
        }
        String claim = raw.get(ConfigKey.AUTH_OIDC_ROLES_CLAIM).value().trim();
        if (claim.isEmpty()) {
            throw ConfigValues.bad(ConfigKey.AUTH_OIDC_ROLES_CLAIM, raw, "must name an ID token claim, such as groups");
        }
        Duration idle = positive(raw, ConfigKey.AUTH_SESSION_IDLE_TIMEOUT, "PT30M");
        Duration maxAge = positive(raw, ConfigKey.AUTH_SESSION_MAX_AGE, "PT12H");
        if (!isLoopback(host) && publicUrl.isEmpty()) {
            throw new ConfigException("sign-in on " + host + " (server.host) needs HTTPS: the session cookie is Secure "
                    + "and browsers send it over http only to loopback addresses. Put a TLS proxy in front of the "
                    + "service and set server.public-url to its https:// address, or bind 127.0.0.1");
        }
        return Optional.of(new Settings.SignIn(issuerUri, clientId, secret.isEmpty() ? Optional.empty() : Optional.of(secret),
                redirect, scopes, claim, roleMap(raw), ConfigValues.bool(raw, ConfigKey.AUTH_OIDC_STRICT), idle, maxAge,
                publicUrl));
    }

    /** {@code server.public-url}: an https URL of scheme, host and optional port only. */
    private static Optional<URI> publicUrl(Map<ConfigKey, Sourced> raw) throws ConfigException {
        String v = raw.get(ConfigKey.SERVER_PUBLIC_URL).value().trim();
        if (v.isEmpty()) {
            return Optional.empty();
        }
        URI uri = ConfigValues.httpUrl(raw, ConfigKey.SERVER_PUBLIC_URL);
        if (!uri.getScheme().equalsIgnoreCase("https")) {
            throw ConfigValues.bad(ConfigKey.SERVER_PUBLIC_URL, raw, "must be an https:// address (the TLS proxy's)");
        }
        if (uri.getRawPath() != null && !uri.getRawPath().isEmpty() && !uri.getRawPath().equals("/")
                || uri.getRawQuery() != null || uri.getRawFragment() != null || uri.getRawUserInfo() != null) {
            throw ConfigValues.bad(ConfigKey.SERVER_PUBLIC_URL, raw,
                    "must be scheme, host and port only, such as https://trail.example.com");
        }
        return Optional.of(URI.create(uri.getScheme().toLowerCase(Locale.ROOT) + "://" + uri.getRawAuthority()));
    }

    /**
     * {@code auth.oidc.redirect-uri}: this service's callback, on {@code server.public-url} when that is
     * set, else on a loopback address.
     */
    private static URI redirectUri(Map<ConfigKey, Sourced> raw, Optional<URI> publicUrl) throws ConfigException {
        if (raw.get(ConfigKey.AUTH_OIDC_REDIRECT_URI).value().isBlank()) {
            throw ConfigValues.bad(ConfigKey.AUTH_OIDC_REDIRECT_URI, raw, "is needed with auth.oidc.issuer: "
                    + "this service's " + CALLBACK_PATH + " as the browser reaches it, registered at the provider");
        }
        URI uri = ConfigValues.httpUrl(raw, ConfigKey.AUTH_OIDC_REDIRECT_URI);
        if (!CALLBACK_PATH.equals(uri.getRawPath()) || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw ConfigValues.bad(ConfigKey.AUTH_OIDC_REDIRECT_URI, raw, "must end in " + CALLBACK_PATH
                    + " with no query, such as https://trail.example.com" + CALLBACK_PATH);
        }
        if (publicUrl.isPresent()) {
            URI p = publicUrl.get();
            if (!uri.getScheme().equalsIgnoreCase("https") || !uri.getRawAuthority().equalsIgnoreCase(p.getRawAuthority())) {
                throw ConfigValues.bad(ConfigKey.AUTH_OIDC_REDIRECT_URI, raw, "must be on server.public-url ("
                        + p + CALLBACK_PATH + ")");
            }
        } else if (!isLoopback(uri.getHost())) {
            throw ConfigValues.bad(ConfigKey.AUTH_OIDC_REDIRECT_URI, raw, "names a host other than loopback: set "
                    + "server.public-url to the https:// address of the TLS proxy in front of the service");
        }
        try {
            return new URI(uri.getScheme().toLowerCase(Locale.ROOT), uri.getRawAuthority(), CALLBACK_PATH, null, null);
        } catch (URISyntaxException e) {
            throw ConfigValues.bad(ConfigKey.AUTH_OIDC_REDIRECT_URI, raw, "must be an http or https URL");
        }
    }

    /**
     * {@code auth.oidc.role-map}: {@code <claim value>=<role>[+<role>...]} entries separated by commas;
     * a value may hold {@code =} (the last one separates the role).
     */
    private static Map<String, Set<ApiKey.Role>> roleMap(Map<ConfigKey, Sourced> raw) throws ConfigException {
        Map<String, Set<ApiKey.Role>> map = new LinkedHashMap<>();
        for (String entry : ConfigValues.list(raw.get(ConfigKey.AUTH_OIDC_ROLE_MAP).value())) {
            int equals = entry.lastIndexOf('=');
            if (equals <= 0) {
                throw ConfigValues.bad(ConfigKey.AUTH_OIDC_ROLE_MAP, raw, "entries are <claim value>=<role>, such as "
                        + "trail-readers=read,trail-admins=admin; got '" + entry + "'");
            }
            Set<ApiKey.Role> roles = map.computeIfAbsent(entry.substring(0, equals).trim(),
                    v -> EnumSet.noneOf(ApiKey.Role.class));
            for (String role : entry.substring(equals + 1).split("\\+")) {
                String r = role.trim().toLowerCase(Locale.ROOT);
                switch (r) {
                    case "read" -> roles.add(ApiKey.Role.READ);
                    case "approve" -> roles.add(ApiKey.Role.APPROVE);
                    case "admin" -> roles.add(ApiKey.Role.ADMIN);
                    default -> throw ConfigValues.bad(ConfigKey.AUTH_OIDC_ROLE_MAP, raw, "has unknown role '" + role
                            + "'; a person's roles are read, approve, admin");
                }
            }
        }
        return map;
    }

    private static Duration positive(Map<ConfigKey, Sourced> raw, ConfigKey key, String example) throws ConfigException {
        Duration d = ConfigValues.duration(raw, key);
        if (d.toMillis() < 1) {
            throw ConfigValues.bad(key, raw, "must be a positive ISO 8601 duration such as " + example);
        }
        return d;
    }

    /** True for a loopback address or a name that resolves to one ({@code localhost}). */
    static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
