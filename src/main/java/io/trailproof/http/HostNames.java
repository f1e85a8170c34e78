package io.trailproof.http;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The names the service answers to and the origin that is its own (src/site/security.md#the-front-door).
 *
 * <p>A browser that a web page steers at this service (DNS rebinding: the page's own name made to
 * resolve to 127.0.0.1) sends the page's name in {@code Host}; a request from a page of another site
 * sends that site in {@code Origin}. So a {@code Host} that is not one of the service's names is
 * refused, and so is a state-changing request or a WebSocket upgrade whose {@code Origin} is not the
 * origin the request itself was sent to.
 *
 * <p>The names: the loopback names ({@code localhost}, every loopback address), the bind address (every
 * address of the machine's interfaces when bound to a wildcard address), and {@code server.host-names}.
 * A port in {@code Host} is not compared: a rebinding page brings its own name, whatever the port.
 * Nothing here resolves a name: an address is recognised only when written as one.
 */
final class HostNames {

    /** A reason to refuse a {@code Host}: 400 when it is malformed, 421 when it names another service. */
    record Refusal(int status, String message) {
    }

    private static final Pattern IPV4 = Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
    private static final Pattern NAME = Pattern.compile("[a-z0-9_-]+(\\.[a-z0-9_-]+)*\\.?");
    private static final Pattern PORT = Pattern.compile("[0-9]{1,5}");

    private final Set<String> names = new HashSet<>();
    private final Set<InetAddress> addresses = new HashSet<>();
    /** At most this many {@code Host} headers are remembered as the service's own. */
    private static final int MAX_REMEMBERED = 64;

    /**
     * {@code Host} headers found to be the service's own, exactly as sent: nearly every request repeats
     * one its client sent before, so the parse runs once per spelling rather than once per request,
     * also when clients that spell the name differently take turns. Only headers that passed are kept,
     * and at most {@link #MAX_REMEMBERED}: a client that sends many spellings is parsed each time.
     */
    private final Set<String> remembered = ConcurrentHashMap.newKeySet();

    /**
     * @param bindHost  {@code server.host}
     * @param extra     {@code server.host-names}, lower case
     */
    HostNames(String bindHost, Collection<String> extra) {
        names.add("localhost");
        addName(bindHost.toLowerCase(Locale.ROOT));
        extra.forEach(this::addName);
        InetAddress bind = literal(bindHost.toLowerCase(Locale.ROOT));
        if (bind != null && bind.isAnyLocalAddress()) {
            addresses.addAll(interfaceAddresses());
        }
    }

    private void addName(String name) {
        InetAddress a = literal(name);
        if (a != null) {
            addresses.add(a);
        } else {
            names.add(withoutTrailingDot(name));
        }
    }

    /** Null when {@code hostHeader} names this service; otherwise why not. */
    Refusal check(String hostHeader) {
        if (remembered.contains(hostHeader)) {
            return null;
        }
        String host = hostOf(hostHeader);
        if (host == null) {
            return new Refusal(400, "the Host header is malformed: " + Params.shorten(hostHeader));
        }
        if (isOwn(host)) {
            if (remembered.size() < MAX_REMEMBERED) {
                remembered.add(hostHeader);
            }
            return null;
        }
        return new Refusal(421, "this service does not answer to the name " + Params.shorten(host)
                + "; reach it by one of its names (server.host-names)");
    }

    /**
     * True when {@code origin} (an {@code Origin} header) is the origin the request was sent to: its host
     * and port are those of {@code hostHeader} (a missing port being the scheme's default), with the
     * scheme http or https (https: behind a proxy that ends TLS). {@code null}, a sandboxed or file page,
     * and anything that does not parse are not.
     */
    static boolean sameOrigin(String origin, String hostHeader) {
        if (origin == null || hostHeader == null) {
            return false;
        }
        URI uri;
        try {
            uri = new URI(origin.trim());
        } catch (URISyntaxException e) {
            return false;
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        int defaultPort = switch (scheme) {
            case "http" -> 80;
            case "https" -> 443;
            default -> -1;
        };
        if (defaultPort < 0 || uri.getHost() == null || uri.getRawPath() != null && !uri.getRawPath().isEmpty()
                || uri.getRawQuery() != null || uri.getRawUserInfo() != null) {
            return false;
        }
        String host = hostOf(hostHeader);
        if (host == null) {
            return false;
        }
        String originHost = withoutTrailingDot(stripBrackets(uri.getHost().toLowerCase(Locale.ROOT)));
        int originPort = uri.getPort() < 0 ? defaultPort : uri.getPort();
        int hostPort = portOf(hostHeader);
        return originHost.equals(host) && originPort == (hostPort < 0 ? defaultPort : hostPort);
    }

    private boolean isOwn(String host) {
        InetAddress a = literal(host);
        if (a != null) {
            return a.isLoopbackAddress() || addresses.contains(a);
        }
        return names.contains(host);
    }

    /**
     * The host part of a {@code Host} header, lower case, without brackets or trailing dot; null when
     * it is not {@code name[:port]}, {@code a.b.c.d[:port]} or {@code [v6][:port]}.
     */
    static String hostOf(String hostHeader) {
        if (hostHeader == null) {
            return null;
        }
        String h = hostHeader.trim().toLowerCase(Locale.ROOT);
        String host;
        String port = null;
        if (h.startsWith("[")) {
            int close = h.indexOf(']');
            if (close < 0) {
                return null;
            }
            host = h.substring(1, close);
            String rest = h.substring(close + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) {
                    return null;
                }
                port = rest.substring(1);
            }
            if (!host.matches("[0-9a-f:.]+") || literal(host) == null) {
                return null;
            }
        } else {
            int colon = h.indexOf(':');
            host = colon < 0 ? h : h.substring(0, colon);
            port = colon < 0 ? null : h.substring(colon + 1);
            if (!NAME.matcher(host).matches()) {
                return null;
            }
        }
        if (port != null && !PORT.matcher(port).matches()) {
            return null;
        }
        return withoutTrailingDot(host);
    }

    /** The port of a {@code Host} header, or -1 when it names none. */
    private static int portOf(String hostHeader) {
        String h = hostHeader.trim();
        int close = h.lastIndexOf(']');
        int colon = h.lastIndexOf(':');
        if (colon < 0 || colon < close) {
            return -1;
        }
        try {
            return Integer.parseInt(h.substring(colon + 1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The address written in {@code text} (an IPv4 or IPv6 literal), or null: never a name lookup. */
    static InetAddress literal(String text) {
        String t = stripBrackets(text);
        if (!IPV4.matcher(t).matches() && !(t.contains(":") && t.matches("[0-9a-fA-F:.]+"))) {
            return null;
        }
        try {
            return InetAddress.getByName(t); // a literal: parsed, not looked up
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private static String stripBrackets(String s) {
        return s.startsWith("[") && s.endsWith("]") ? s.substring(1, s.length() - 1) : s;
    }

    private static String withoutTrailingDot(String s) {
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    private static List<InetAddress> interfaceAddresses() {
        try {
            return NetworkInterface.networkInterfaces().flatMap(NetworkInterface::inetAddresses)
                    .map(a -> {
                        try {
                            // Without the scope (fe80::1%eth0): a Host header never carries it.
                            return InetAddress.getByAddress(a.getAddress());
                        } catch (UnknownHostException e) {
                            return a;
                        }
                    }).toList();
        } catch (SocketException e) {
            return List.of();
        }
    }
}
