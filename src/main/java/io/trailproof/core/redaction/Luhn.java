package io.trailproof.core.redaction;

/** The Luhn check digit of payment card numbers (ISO/IEC 7812-1, annex B). */
public final class Luhn {

    private Luhn() {
    }

    /** True when {@code digits} (ASCII digits only) ends in a valid Luhn check digit. */
    public static boolean valid(CharSequence digits) {
        int sum = 0;
        boolean twice = false;
        for (int i = digits.length() - 1; i >= 0; i--) {
            int d = digits.charAt(i) - '0';
            if (d < 0 || d > 9) {
                return false;
            }
            if (twice) {
                d *= 2;
                if (d > 9) {
                    d -= 9;
                }
            }
            sum += d;
            twice = !twice;
        }
        return digits.length() > 1 && sum % 10 == 0;
    }
}
