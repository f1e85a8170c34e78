package io.trailproof.core.redaction;

/**
 * The check of an International Bank Account Number (ISO 13616-1): the first four characters moved
 * to the end, letters read as 10..35, the whole number modulo 97 (ISO/IEC 7064 MOD 97-10) is 1.
 */
public final class IbanChecksum {

    /** Shortest and longest IBAN of any country (Norway 15, Saint Lucia 32; the standard allows 34). */
    static final int MIN_LENGTH = 15;
    static final int MAX_LENGTH = 34;

    private IbanChecksum() {
    }

    /** True when {@code iban} (spaces allowed between characters) is well formed and its checksum holds. */
    public static boolean valid(CharSequence iban) {
        StringBuilder compact = new StringBuilder(MAX_LENGTH);
        for (int i = 0; i < iban.length(); i++) {
            char c = iban.charAt(i);
            if (c != ' ') {
                compact.append(c);
            }
        }
        int n = compact.length();
        if (n < MIN_LENGTH || n > MAX_LENGTH || !Character.isUpperCase(compact.charAt(0))
                || !Character.isUpperCase(compact.charAt(1)) || !Character.isDigit(compact.charAt(2))
                || !Character.isDigit(compact.charAt(3))) {
            return false;
        }
        int remainder = 0;
        for (int k = 0; k < n; k++) {
            char c = compact.charAt((k + 4) % n);
            if (c >= '0' && c <= '9') {
                remainder = (remainder * 10 + (c - '0')) % 97;
            } else if (c >= 'A' && c <= 'Z') {
                remainder = (remainder * 100 + (c - 'A' + 10)) % 97;
            } else {
                return false;
            }
        }
        return remainder == 1;
    }
}
