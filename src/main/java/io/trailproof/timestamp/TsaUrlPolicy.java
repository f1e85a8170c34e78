package io.trailproof.timestamp;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which TSA URLs the service may call (src/site/timestamps.md#request): the default TSA
 * ({@code timestamp.default-tsa-url}) and the entries of {@code timestamp.allowed-tsa-urls}, nothing
 * else, so a {@code tsa_url} in a request cannot make the service send a request anywhere else. An
 * entry allows a URL with the same scheme, host and port whose path starts with the entry's path, so
 * {@code https://tsa.example} does not also allow {@code https://tsa.example.evil.org}.
 */
public final class TsaUrlPolicy {

    private final List<URI> allowed;

    /**
     * @param allowedPrefixes the entries of {@code timestamp.allowed-tsa-urls}
     * @param defaultTsa      {@code timestamp.default-tsa-url}, always allowed
     */
    public TsaUrlPolicy(List<String> allowedPrefixes, URI defaultTsa) {
        List<URI> all = new ArrayList<>();
        all.add(parseEntry(defaultTsa.toString()));
        allowedPrefixes.stream().map(TsaUrlPolicy::parseEntry).forEach(all::add);
        this.allowed = List.copyOf(all);
    }

    /** The URL to call, or a refusal saying what is wrong with it. */
    public URI check(String url) throws TimestampRefusal {
        if (url == null || url.isBlank()) {
            throw bad("tsa_url must be a non-empty http or https URL");
        }
        URI uri;
        try {
            uri = new URI(url.trim());
        } catch (URISyntaxException e) {
            throw bad("tsa_url is not a valid URL: " + shorten(url));
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null || uri.getRawUserInfo() != null) {
            throw bad("tsa_url must be an http or https URL with a host, got " + shorten(url));
        }
        if (allowed.stream().noneMatch(a -> matches(a, uri))) {
            throw bad("tsa_url " + shorten(url) + " is not on the allow-list (timestamp.default-tsa-url and "
                    + "timestamp.allowed-tsa-urls); allowed: " + String.join(", ", allowed.stream().map(URI::toString).toList()));
        }
        return uri;
    }

    private static boolean matches(URI entry, URI uri) {
        return entry.getScheme().equalsIgnoreCase(uri.getScheme())
                && entry.getHost().equalsIgnoreCase(uri.getHost())
                && port(entry) == port(uri)
                && path(uri).startsWith(path(entry));
    }

    private static int port(URI u) {
        return u.getPort() >= 0 ? u.getPort() : u.getScheme().equalsIgnoreCase("https") ? 443 : 80;
    }

    private static String path(URI u) {
        return u.getRawPath() == null ? "" : u.getRawPath();
    }

    private static URI parseEntry(String entry) {
        try {
            URI u = new URI(entry.trim());
            if (u.getScheme() == null || u.getHost() == null) {
                throw new IllegalArgumentException("allowed TSA URL " + entry + " has no scheme or host");
            }
            return u;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("allowed TSA URL " + entry + " is not a valid URL", e);
        }
    }

    private static TimestampRefusal bad(String message) {
        return new TimestampRefusal(TimestampRefusal.Reason.BAD_TSA_URL, message);
    }

    private static String shorten(String v) {
        return v.length() > 200 ? v.substring(0, 200) + "..." : v;
    }
}
