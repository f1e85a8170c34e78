package io.trailproof.core.json;

/**
 * Compares the exact decimal values of two JSON number texts in linear time, without BigDecimal,
 * whose parsing of long digit strings is superlinear and would let one request burn CPU.
 */
final class DecimalText {
    /** Exponents beyond this are far outside the double range; clamping keeps the arithmetic in a long. */
    private static final long EXPONENT_CLAMP = 1_000_000_000_000L;

    private DecimalText() {}

    /** Whether two JSON number texts denote the same decimal value ({@code -0} equals {@code 0}). */
    static boolean sameValue(String a, String b) {
        return normalize(a).equals(normalize(b));
    }

    /**
     * A canonical text for the value: "0" for zero, otherwise sign, significant digits without
     * leading or trailing zeros, and the power of ten of the last digit.
     */
    private static String normalize(String text) {
        int i = 0;
        int n = text.length();
        boolean negative = false;
        if (i < n && (text.charAt(i) == '-' || text.charAt(i) == '+')) {
            negative = text.charAt(i) == '-';
            i++;
        }
        StringBuilder digits = new StringBuilder(Math.min(n, 32));
        long exponent = 0;
        boolean fraction = false;
        for (; i < n; i++) {
            char c = text.charAt(i);
            if (c == '.') {
                fraction = true;
            } else if (c == 'e' || c == 'E') {
                exponent += parseExponent(text, i + 1);
                break;
            } else {
                if (!(digits.isEmpty() && c == '0')) {
                    digits.append(c);
                }
                if (fraction) {
                    exponent--;
                }
            }
        }
        int end = digits.length();
        while (end > 0 && digits.charAt(end - 1) == '0') {
            end--;
            exponent++;
        }
        if (end == 0) {
            return "0";
        }
        digits.setLength(end);
        return (negative ? "-" : "+") + digits + "e" + exponent;
    }

    private static long parseExponent(String text, int i) {
        boolean negative = false;
        if (i < text.length() && (text.charAt(i) == '-' || text.charAt(i) == '+')) {
            negative = text.charAt(i) == '-';
            i++;
        }
        long value = 0;
        for (; i < text.length(); i++) {
            value = Math.min(EXPONENT_CLAMP, value * 10 + (text.charAt(i) - '0'));
        }
        return negative ? -value : value;
    }
}
