package io.trailproof.core.redaction;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each built-in rule against at least five values it must redact and five it must keep
 * (src/site/redaction.md#built-in-rules): card numbers that fail Luhn, IBANs that fail their checksum, ids and amounts stay.
 */
class BuiltInRedactionRulesTest {

    private record Case(List<String> redacted, List<String> kept) {
    }

    private static final Map<String, Case> TABLE = Map.ofEntries(
            Map.entry("email", new Case(
                    List.of("bob@example.com", "first.last+tag@sub.example.co.uk", "x_y%z@host-name.io", "UPPER@EXAMPLE.ORG",
                            "a1@b2.de"),
                    List.of("user@localhost", "@example.com", "a@b.c", "foo at example.com", "user@123.456"))),
            Map.entry("aws_access_key", new Case(
                    List.of("AKIAIOSFODNN7EXAMPLE", "ASIAY34FZKBOKMUTVV7A", "AKIA1234567890ABCDEF", "ABIA1234567890ABCDEF",
                            "A3T11234567890ABCDEF"),
                    List.of("AKIAIOSFODNN7EXAMPL", "akiaiosfodnn7example", "XAKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLEX",
                            "BKIAIOSFODNN7EXAMPLE"))),
            Map.entry("github_token", new Case(
                    List.of("ghp_" + "a1".repeat(18), "gho_" + "Z9".repeat(18), "ghs_" + "x".repeat(40), "ghu_" + "0".repeat(36),
                            "github_pat_" + "11ABCDEFG_".repeat(4)),
                    List.of("ghp_" + "a".repeat(35), "ghx_" + "a".repeat(36), "ghp_", "xghp_" + "a".repeat(36),
                            "ghp-" + "a".repeat(36)))),
            Map.entry("api_key", new Case(
                    List.of("sk-proj-abcdefghijklmnopqrstuvwxyz12", "sk-ant-api03-abcdefghijklmnopqrstuvwx",
                            "pk_live_abcdefghijklmnop1234", "sk_test_4eC39HqLyjWDarjtT1zdp7dc", "rk_live_0123456789abcdefXYZ"),
                    List.of("sk-short", "ask-abcdefghijklmnopqrstuvwxyz", "sk_prod_abcdefghijklmnopqrstu", "skeleton-key-abcdefghijklmnopq",
                            "pk-123"))),
            Map.entry("bearer_token", new Case(
                    List.of("Bearer abcdefghijklmnop1234", "bearer 0123456789abcdef0123", "Bearer abc.def-ghi_jkl~mno+pqr/stu=",
                            "Bearer\tXYZXYZXYZXYZXYZXYZ", "Bearer tok_1234567890abcdef=="),
                    List.of("Bearer short", "Bearers abcdefghijklmnop", "the bearer of news", "Bearer",
                            "Bearer: abcdefghijklmnopqrst"))),
            Map.entry("jwt", new Case(
                    List.of("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                            "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJ4In0.MEUCIQDabcdefgh-_",
                            "eyJ0eXAiOiJKV1QifQ.eyJleHAiOjF9.abcdefghij",
                            "eyJraWQiOiIxIn0.eyJhdWQiOiJ5In0.ZZZZZZZZZZZZ",
                            "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhIn0.signature_1"),
                    List.of("eyJ.eyJ.x", "abc.def.ghi", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0",
                            "xeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghij", "eyJhbGciOiJIUzI1NiJ9"))),
            Map.entry("us_ssn", new Case(
                    List.of("123-45-6789", "078-05-1120", "219 09 9999", "536-22-1234", "001-01-0001"),
                    List.of("000-12-3456", "666-12-3456", "900-12-3456", "123-00-4567", "123-45-0000", "123456789",
                            "123-45 6789"))),
            Map.entry("ca_sin", new Case(
                    List.of("046 454 286", "130-692-007", "700 000 003", "900-000-001", "046-454-286"),
                    List.of("046 454 287", "046454286", "846 454 286", "046-454 286", "130-692-008"))),
            Map.entry("uk_nino", new Case(
                    List.of("AB123456C", "CE 12 34 56 B", "JG103759A", "NR123456D", "AB 12 34 56 A"),
                    List.of("BG123456A", "GB123456A", "DA123456A", "AB123456E", "AB12345C", "ab123456c"))),
            Map.entry("visa", new Case(
                    List.of("4111111111111111", "4012888888881881", "4222222222222", "4242 4242 4242 4242",
                            "4000-0566-5566-5556", "4000000000000000006"),
                    List.of("4111111111111112", "1234567812345678", "4111 1111 1111 111", "4111111111111111111",
                            "5555555555554444"))),
            Map.entry("mastercard", new Case(
                    List.of("5555555555554444", "5105105105105100", "2223003122003222", "5200 8282 8282 8210",
                            "2222-4200-0000-1113", "2720000000000005"),
                    List.of("5555555555554445", "5655555555554444", "1111222233334444", "555555555555444",
                            "4111111111111111"))),
            Map.entry("amex", new Case(
                    List.of("378282246310005", "371449635398431", "378734493671000", "340000000000009", "3714 496353 98431"),
                    List.of("378282246310006", "388282246310005", "37828224631000", "3782822463100050", "4111111111111111"))),
            Map.entry("discover", new Case(
                    List.of("6011111111111117", "6011000990139424", "6440000000000005", "65000000000000003",
                            "6221260000000000", "6011 0000 0000 0004"),
                    List.of("6011111111111118", "6221250000000000", "6011000000000000001".substring(0, 15),
                            "6300000000000000", "4111111111111111"))),
            Map.entry("iban", new Case(
                    List.of("GB82WEST12345698765432", "DE89370400440532013000", "FR1420041010050500013M02606",
                            "NL91ABNA0417164300", "DE89 3704 0044 0532 0130 00"),
                    List.of("GB82WEST12345698765433", "DE89370400440532013001", "GB82 WEST", "de89370400440532013000",
                            "XX00123456789012345"))),
            Map.entry("phone_e164", new Case(
                    List.of("+14155552671", "+447911123456", "+4930123456", "+819012345678", "+33612345678"),
                    List.of("+0123456789", "14155552671", "+1234567", "+1234567890123456", "1+2345678901"))),
            Map.entry("phone_nanp", new Case(
                    List.of("(415) 555-2671", "415-555-2671", "415.555.2671", "+1 415 555 2671", "1-800-555-0199"),
                    List.of("4155552671", "015-555-2671", "415-155-2671", "415-555-267", "12-555-2671"))),
            Map.entry("ipv4", new Case(
                    List.of("192.168.1.1", "10.0.0.255", "8.8.8.8", "255.255.255.255", "0.0.0.0"),
                    List.of("256.1.1.1", "1.2.3", "1.2.3.4.5", "192.168.1.300", "01.02.03.04"))));

    private static RedactionRule rule(String name) {
        return BuiltInRedactionRules.rules().stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void thereAreSeventeenRulesInTheContractsOrderAndEachHasItsTable() {
        assertThat(BuiltInRedactionRules.rules()).extracting(RedactionRule::name).containsExactly("email",
                "aws_access_key", "github_token", "api_key", "bearer_token", "jwt", "us_ssn", "ca_sin", "uk_nino", "visa",
                "mastercard", "amex", "discover", "iban", "phone_e164", "phone_nanp", "ipv4");
        assertThat(TABLE.keySet()).containsExactlyInAnyOrderElementsOf(
                BuiltInRedactionRules.rules().stream().map(RedactionRule::name).toList());
        TABLE.values().forEach(c -> {
            assertThat(c.redacted()).hasSizeGreaterThanOrEqualTo(5);
            assertThat(c.kept()).hasSizeGreaterThanOrEqualTo(5);
        });
    }

    @Test
    void eachRuleRedactsItsPositivesAloneAndInsideText() {
        TABLE.forEach((name, c) -> {
            RedactionRule r = rule(name);
            for (String secret : c.redacted()) {
                assertThat(r.apply(secret).text()).as("%s: %s", name, secret).isEqualTo("[REDACTED:" + name + "]");
                String inText = "before " + secret + ", after.";
                RedactionRule.Applied a = r.apply(inText);
                assertThat(a.text()).as("%s in text: %s", name, secret).isEqualTo("before [REDACTED:" + name + "], after.");
                assertThat(a.count()).isEqualTo(1);
            }
        });
    }

    @Test
    void eachRuleKeepsItsNegatives() {
        TABLE.forEach((name, c) -> {
            RedactionRule r = rule(name);
            for (String kept : c.kept()) {
                assertThat(r.apply(kept).text()).as("%s must keep %s", name, kept).isEqualTo(kept);
                assertThat(r.apply("x " + kept + " y").count()).as("%s must keep %s in text", name, kept).isZero();
            }
        });
    }

    @Test
    void aCardFollowedByAnotherNumberIsStillFoundAndTheNumberKept() {
        assertThat(rule("visa").apply("card 4111 1111 1111 1111 123 exp").text())
                .isEqualTo("card [REDACTED:visa] 123 exp");
        assertThat(rule("iban").apply("DE89 3704 0044 0532 0130 00 AND MORE").text())
                .isEqualTo("[REDACTED:iban] AND MORE");
        assertThat(rule("email").apply("mail bob@example.com.").text()).isEqualTo("mail [REDACTED:email].");
        assertThat(rule("ipv4").apply("from 10.1.2.3.").text()).isEqualTo("from [REDACTED:ipv4].");
    }

    @Test
    void rulesRunInOrderEachOnTheResultOfTheOnesBefore() {
        Redactor all = Redactor.withBuiltIns(List.of());
        String text = "mail bob@example.com, key AKIAIOSFODNN7EXAMPLE, card 4111111111111111, call +14155552671, "
                + "host 10.0.0.1, id 1234567812345678";
        String out = text;
        for (RedactionRule r : all.rules()) {
            out = r.apply(out).text();
        }
        assertThat(out).isEqualTo("mail [REDACTED:email], key [REDACTED:aws_access_key], card [REDACTED:visa], call "
                + "[REDACTED:phone_e164], host [REDACTED:ipv4], id 1234567812345678");
    }

    @Test
    void checksumsHoldForKnownValuesAndFailForOneChangedDigit() {
        assertThat(Luhn.valid("79927398713")).isTrue();
        assertThat(Luhn.valid("79927398710")).isFalse();
        assertThat(Luhn.valid("0")).isFalse();
        assertThat(IbanChecksum.valid("GB82 WEST 1234 5698 7654 32")).isTrue();
        assertThat(IbanChecksum.valid("GB82 WEST 1234 5698 7654 33")).isFalse();
        assertThat(IbanChecksum.valid("GB82-WEST12345698765432")).isFalse();
    }
}
