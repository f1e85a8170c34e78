package io.trailproof.core.json;

/**
 * The human-readable path notation used in rejection messages: {@code a.b[3].c}, with names that are
 * not plain identifiers written as {@code ["odd key"]} and non-printable characters as escapes, so a
 * person can find the field in what they sent.
 */
final class JsonPath {
    private JsonPath() {}

    static void appendName(StringBuilder sb, String name) {
        if (isPlain(name)) {
            if (!sb.isEmpty()) {
                sb.append('.');
            }
            sb.append(name);
        } else {
            sb.append("[\"");
            appendEscaped(sb, name);
            sb.append("\"]");
        }
    }

    static void appendIndex(StringBuilder sb, int index) {
        sb.append('[').append(index).append(']');
    }

    /** The name as it would be quoted in a message: printable characters literal, others escaped. */
    static String quoted(String name) {
        StringBuilder sb = new StringBuilder(name.length() + 2).append('\'');
        appendEscaped(sb, name);
        return sb.append('\'').toString();
    }

    private static boolean isPlain(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '_' || c == '-' || c == ':';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static void appendEscaped(StringBuilder sb, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean pairedSurrogate = Character.isHighSurrogate(c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1));
            if (pairedSurrogate) {
                sb.append(c).append(s.charAt(++i));
            } else if (c < 0x20 || (c >= 0x7F && c <= 0x9F) || Character.isSurrogate(c)) {
                sb.append(String.format("\\u%04x", (int) c));
            } else if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else {
                sb.append(c);
            }
        }
    }
}
