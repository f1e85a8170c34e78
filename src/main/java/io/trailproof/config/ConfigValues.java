package io.trailproof.config;

import io.trailproof.config.ConfigSources.Sourced;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reading one configuration value as its type (a number in a range, a share, a duration, a URL, a
 * list, a path): a value that does not parse is a {@link ConfigException} naming the key, the value
 * (never an API key's) and where it came from (src/site/configuration.md).
 */
final class ConfigValues {

    private ConfigValues() {
    }

    static String nonEmpty(Map<ConfigKey, Sourced> raw, ConfigKey key) throws ConfigException {
        String v = raw.get(key).value();
        if (v.isEmpty()) {
            throw bad(key, raw, "must not be empty");
        }
        return v;
    }

    static long longIn(Map<ConfigKey, Sourced> raw, ConfigKey key, long min, long max) throws ConfigException {
        String v = raw.get(key).value();
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw bad(key, raw, "must be a whole number");
        }
        if (n < min || n > max) {
            throw bad(key, raw, "must be between " + min + " and " + max);
        }
        return n;
    }

    /** A share in (0, 1], written as a decimal ({@code 0.25}). */
    static double share(Map<ConfigKey, Sourced> raw, ConfigKey key) throws ConfigException {
        String v = raw.get(key).value();
        double d;
        try {
            d = v.matches("[0-9]*\\.?[0-9]+") ? Double.parseDouble(v) : Double.NaN;
        } catch (NumberFormatException e) {
            d = Double.NaN;
        }
        if (!(d > 0 && d <= 1)) {
            throw bad(key, raw, "must be a decimal above 0 and at most 1, such as 0.25");
        }
        return d;
    }

    static boolean bool(Map<ConfigKey, Sourced> raw, ConfigKey key) throws ConfigException {
        String v = raw.get(key).value().toLowerCase(Locale.ROOT);
        return switch (v) {
            case "true" -> true;
            case "false" -> false;
            default -> throw bad(key, raw, "must be true or false");
        };
    }

    /** {@code auto} (0: the service sizes it from the heap) or a whole number in range. */
    static long autoOrLong(Map<ConfigKey, Sourced> raw, ConfigKey key, long min, long max) throws ConfigException {
        if (raw.get(key).value().equalsIgnoreCase("auto")) {
            return 0;
        }
        try {
            return longIn(raw, key, min, max);
        } catch (ConfigException e) {
            throw bad(key, raw, "must be 'auto' or a whole number between " + min + " and " + max);
        }
    }

    static Duration duration(Map<ConfigKey, Sourced> raw, ConfigKey key) throws ConfigException {
        String v = raw.get(key).value();
        if (v.isEmpty() || v.equalsIgnoreCase("off")) {
            return Duration.ZERO;
        }
        try {
            Duration d = Duration.parse(v);
            if (d.isNegative()) {
                throw bad(key, raw, "must not be negative");
            }
            return d;
        } catch (DateTimeParseException e) {
            throw bad(key, raw, "must be an ISO 8601 duration such as PT1H, or 'off'");
        }
    }

    static URI httpUrl(Map<ConfigKey, Sourced> raw, ConfigKey key) throws ConfigException {
        String v = raw.get(key).value();
        try {
            URI uri = new URI(v);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
                throw bad(key, raw, "must be an http or https URL");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw bad(key, raw, "must be an http or https URL");
        }
    }

    static List<String> list(String value) {
        List<String> out = new ArrayList<>();
        for (String part : value.split(",")) {
            if (!part.isBlank()) {
                out.add(part.trim());
            }
        }
        return out;
    }

    static Path path(String value) {
        if (value.equals("~") || value.startsWith("~/")) {
            // Like a shell: $HOME first, the JVM's idea of the home directory when it is unset.
            String home = System.getenv("HOME");
            if (home == null || home.isEmpty()) {
                home = System.getProperty("user.home");
            }
            return Path.of(home, value.substring(1).replaceFirst("^/", ""));
        }
        return Path.of(value);
    }

    static ConfigException bad(ConfigKey key, Map<ConfigKey, Sourced> raw, String why) {
        Sourced s = raw.get(key);
        String shown = key == ConfigKey.AUTH_API_KEYS || key == ConfigKey.AUTH_OIDC_CLIENT_SECRET ? "(hidden)"
                : "'" + s.value() + "'";
        return new ConfigException("configuration key " + key.key() + " = " + shown + " (from " + s.source() + ") " + why);
    }
}
