package io.trailproof.core.redaction;

import java.util.List;
import java.util.function.IntPredicate;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The 17 built-in redaction rules of src/site/redaction.md, in the order they run. Every pattern is linear in
 * the text (see {@link RedactionRule}); card numbers must pass their brand's prefix and length and
 * the Luhn check, an IBAN its checksum, so that ids, amounts and random digit runs are kept.
 *
 * <p>Decisions where a pattern must choose: phone numbers need separators or a leading {@code +}
 * (a bare run of ten digits is far more often an id or an amount); SSNs and SINs need their
 * separators for the same reason; {@code bearer_token} replaces the word {@code Bearer} with the
 * token; {@code ipv4} also takes dotted version strings of four numbers up to 255.
 */
public final class BuiltInRedactionRules {

    private BuiltInRedactionRules() {
    }

    /** Card rules need at least the shortest card's digits. */
    private static final Predicate<TextTraits> CARD_DIGITS = t -> t.digits() >= 13;

    /** A run of 13 to 19 digits, single spaces or dashes allowed between them. */
    private static final Pattern CARD = Pattern.compile("(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])");

    private static final List<RedactionRule> RULES = List.of(
            new RedactionRule("email", Pattern.compile(
                    "(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}+@[A-Za-z0-9][A-Za-z0-9-]{0,62}+(?:\\.[A-Za-z0-9-]{1,63}+)++"),
                    BuiltInRedactionRules::emailExtent, TextTraits::hasAt),
            new RedactionRule("aws_access_key", Pattern.compile(
                    "(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])"),
                    RedactionRule.Extent.WHOLE, t -> t.containsAny("AKIA", "ASIA", "ABIA", "ACCA", "A3T")),
            new RedactionRule("github_token", Pattern.compile(
                    "(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}+|github_pat_[A-Za-z0-9_]{22,255}+)(?![A-Za-z0-9_])"),
                    RedactionRule.Extent.WHOLE, t -> t.containsAny("gh")),
            new RedactionRule("api_key", Pattern.compile(
                    "(?<![A-Za-z0-9_-])(?:(?:sk|pk)-[A-Za-z0-9_-]{20,512}+|(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,512}+)"
                            + "(?![A-Za-z0-9_-])"),
                    RedactionRule.Extent.WHOLE, t -> t.containsAny("k-", "k_")),
            new RedactionRule("bearer_token", Pattern.compile(
                    "(?<![A-Za-z0-9])[Bb]earer[ \\t]{1,8}+[A-Za-z0-9._~+/-]{16,4096}+=*+"),
                    RedactionRule.Extent.WHOLE, t -> t.containsAny("earer")),
            new RedactionRule("jwt", Pattern.compile(
                    "(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,}+\\.eyJ[A-Za-z0-9_-]{4,}+\\.[A-Za-z0-9_-]{8,}+"),
                    RedactionRule.Extent.WHOLE, t -> t.containsAny("eyJ")),
            new RedactionRule("us_ssn", Pattern.compile(
                    "(?<![0-9-])(?!000|666|9[0-9][0-9])[0-9]{3}([- ])(?!00)[0-9]{2}\\1(?!0000)[0-9]{4}(?![0-9-])"),
                    RedactionRule.Extent.WHOLE, t -> t.digits() >= 9),
            new RedactionRule("ca_sin", Pattern.compile("(?<![0-9-])[0-79][0-9]{2}([- ])[0-9]{3}\\1[0-9]{3}(?![0-9-])"),
                    match -> Luhn.valid(digits(match)) ? match.length() : 0, t -> t.digits() >= 9),
            new RedactionRule("uk_nino", Pattern.compile(
                    "(?<![A-Za-z0-9])(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?[0-9]{2} ?[0-9]{2} ?[0-9]{2} ?"
                            + "[A-D](?![A-Za-z0-9])"),
                    RedactionRule.Extent.WHOLE, t -> t.digits() >= 6),
            new RedactionRule("visa", CARD, card(n -> n == 13 || n == 16 || n == 19, d -> d.startsWith("4")), CARD_DIGITS),
            new RedactionRule("mastercard", CARD, card(n -> n == 16,
                    d -> between(d, 2, 51, 55) || between(d, 4, 2221, 2720)), CARD_DIGITS),
            new RedactionRule("amex", CARD, card(n -> n == 15, d -> d.startsWith("34") || d.startsWith("37")), CARD_DIGITS),
            new RedactionRule("discover", CARD, card(n -> n >= 16 && n <= 19, d -> d.startsWith("6011")
                    || d.startsWith("65") || between(d, 3, 644, 649) || between(d, 6, 622126, 622925)), CARD_DIGITS),
            new RedactionRule("iban", Pattern.compile("(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])"),
                    BuiltInRedactionRules::ibanExtent, t -> t.digits() >= 2),
            new RedactionRule("phone_e164", Pattern.compile("(?<![0-9+])\\+[1-9][0-9]{7,14}(?![0-9])"),
                    RedactionRule.Extent.WHOLE, t -> t.hasPlus() && t.digits() >= 8),
            new RedactionRule("phone_nanp", Pattern.compile(
                    "(?<![0-9+])(?:\\+?1[ .-]?)?(?:\\([2-9][0-9]{2}\\) ?|[2-9][0-9]{2}[ .-])[2-9][0-9]{2}[ .-][0-9]{4}(?![0-9])"),
                    RedactionRule.Extent.WHOLE, t -> t.digits() >= 10),
            new RedactionRule("ipv4", Pattern.compile(
                    "(?<![0-9.])(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}"
                            + "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(?![0-9])(?!\\.[0-9])"),
                    RedactionRule.Extent.WHOLE, t -> t.hasDot() && t.digits() >= 4));

    /** The rules in the order they run. */
    public static List<RedactionRule> rules() {
        return RULES;
    }

    /** True when {@code name} is a built-in rule's (a rules file may not reuse it). */
    public static boolean isBuiltIn(String name) {
        return RULES.stream().anyMatch(r -> r.name().equals(name));
    }

    /** A domain must end in a top-level label of letters (two or more); a trailing label that is not one is left out. */
    private static int emailExtent(String match) {
        int end = match.length();
        while (true) {
            int dot = match.lastIndexOf('.', end - 1);
            int at = match.indexOf('@');
            if (dot <= at) {
                return 0;
            }
            String tld = match.substring(dot + 1, end);
            if (tld.length() >= 2 && tld.chars().allMatch(c -> (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
                return end;
            }
            end = dot;
        }
    }

    /**
     * The longest leading part of a digit run that is a card of the brand: its digits (separators
     * left out) have a brand length, start with a brand prefix and pass the Luhn check, and it ends
     * where a digit group ends. A card followed by another number after a space is still found.
     */
    private static RedactionRule.Extent card(IntPredicate length, Predicate<String> prefix) {
        return match -> {
            for (int end = match.length(); end > 0; end--) {
                if (end < match.length() && match.charAt(end) != ' ' && match.charAt(end) != '-') {
                    continue;
                }
                if (!Character.isDigit(match.charAt(end - 1))) {
                    continue;
                }
                String digits = digits(match.substring(0, end));
                if (length.test(digits.length()) && prefix.test(digits) && Luhn.valid(digits)) {
                    return end;
                }
            }
            return 0;
        };
    }

    /** The longest leading part, ending where a group ends, that passes the IBAN checksum. */
    private static int ibanExtent(String match) {
        for (int end = match.length(); end >= IbanChecksum.MIN_LENGTH; end--) {
            if ((end == match.length() || match.charAt(end) == ' ') && IbanChecksum.valid(match.substring(0, end))) {
                return end;
            }
        }
        return 0;
    }

    /** True when the first {@code n} digits, read as a number, lie in {@code [low, high]}. */
    private static boolean between(String digits, int n, int low, int high) {
        if (digits.length() < n) {
            return false;
        }
        int v = Integer.parseInt(digits, 0, n, 10);
        return v >= low && v <= high;
    }

    private static String digits(String text) {
        StringBuilder b = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= '0' && c <= '9') {
                b.append(c);
            }
        }
        return b.toString();
    }
}
