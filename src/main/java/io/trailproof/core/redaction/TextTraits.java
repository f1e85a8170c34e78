package io.trailproof.core.redaction;

/**
 * What one pass over a text tells about it, so that a rule that cannot match (an e-mail rule on text
 * without {@code @}, a card rule on text with fewer than 13 digits) is skipped without running its
 * pattern. Most values of most events hold nothing to redact; this keeps redaction's cost there to a
 * scan of the text instead of seventeen.
 */
public final class TextTraits {

    private final String text;
    private final int digits;
    private final boolean at;
    private final boolean plus;
    private final boolean dot;

    public TextTraits(String text) {
        this.text = text;
        int d = 0;
        boolean a = false;
        boolean p = false;
        boolean o = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= '0' && c <= '9') {
                d++;
            } else if (c == '@') {
                a = true;
            } else if (c == '+') {
                p = true;
            } else if (c == '.') {
                o = true;
            }
        }
        this.digits = d;
        this.at = a;
        this.plus = p;
        this.dot = o;
    }

    /** Number of ASCII digits in the text. */
    public int digits() {
        return digits;
    }

    public boolean hasAt() {
        return at;
    }

    public boolean hasPlus() {
        return plus;
    }

    public boolean hasDot() {
        return dot;
    }

    /** True when the text contains any of {@code parts}. */
    public boolean containsAny(String... parts) {
        for (String p : parts) {
            if (text.contains(p)) {
                return true;
            }
        }
        return false;
    }
}
