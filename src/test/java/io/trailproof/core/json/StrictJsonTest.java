package io.trailproof.core.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class StrictJsonTest {

    private static JsonNode parse(String json) throws JsonRejection {
        return StrictJson.parse(json.getBytes(StandardCharsets.UTF_8), 64);
    }

    private static JsonRejection rejection(String json) {
        return rejection(json.getBytes(StandardCharsets.UTF_8), 64);
    }

    private static JsonRejection rejection(byte[] bytes, int depth) {
        try {
            StrictJson.parse(bytes, depth);
        } catch (JsonRejection r) {
            return r;
        }
        throw new AssertionError("expected a rejection of " + new String(bytes, StandardCharsets.UTF_8));
    }

    private static String nested(int depth) {
        return "[".repeat(depth) + "]".repeat(depth);
    }

    @Test
    void loneSurrogateInAValueIsRejectedNamingTheField() {
        JsonRejection r = rejection("{\"agent_id\":\"a\",\"metadata\":{\"x\":\"ab\\ud800\"}}");
        assertThat(r.path()).isEqualTo("metadata.x");
        assertThat(r.getMessage()).contains("metadata.x").contains("lone surrogate");
    }

    @Test
    void loneLowSurrogateAndReversedPairAreRejected() {
        assertThat(rejection("{\"a\":\"\\udc00\"}").path()).isEqualTo("a");
        assertThat(rejection("{\"a\":[\"ok\",\"\\udc00\\ud800\"]}").path()).isEqualTo("a[1]");
    }

    @Test
    void validSurrogatePairIsAccepted() throws Exception {
        assertThat(parse("{\"a\":\"\\ud83d\\ude00\"}").get("a").textValue()).isEqualTo("😀");
    }

    @ParameterizedTest
    @ValueSource(strings = {"k\\ud800", "k\\udc00", "\\ud800x", "\\ud800\\ud800"})
    void loneSurrogateInAKeyIsRejectedNamingTheObject(String key) {
        JsonRejection r = rejection("{\"metadata\":{\"ok\":1,\"" + key + "\":1}}");
        assertThat(r.path()).isEqualTo("metadata");
        assertThat(r.getMessage()).contains("a key in metadata").contains("lone surrogate");
    }

    @Test
    void loneSurrogateInATopLevelKeyIsRejected() {
        JsonRejection r = rejection("{\"\\ud800\":1}");
        assertThat(r.getMessage()).contains("a key of the top-level object").contains("lone surrogate");
    }

    @ParameterizedTest
    @ValueSource(strings = {"12345678901234567890", "0.30000000000000001", "9007199254740993", "1e400",
        "-1e400", "1e-400", "1152921504606846976", "0.1000000000000000055511151231257827021181583404541015625"})
    void numbersThatDoNotRoundTripThroughADoubleAreRejected(String number) {
        JsonRejection r = rejection("{\"action_input\":{\"items\":[1,2,3,{\"x\":" + number + "}]}}");
        assertThat(r.path()).isEqualTo("action_input.items[3].x");
        assertThat(r.getMessage()).contains("action_input.items[3].x").contains("send it as a string");
    }

    @ParameterizedTest
    @CsvSource({"4.50, 4.5", "1E30, 1e+30", "0.1, 0.1", "-0, 0", "-0.0, 0", "1.0, 1", "1e2, 100",
        "1e21, 1e+21", "1000000000000000000000, 1e+21", "9007199254740992, 9007199254740992",
        "-9007199254740992, -9007199254740992", "1152921504606847000, 1152921504606847000",
        "5e-324, 5e-324", "1.7976931348623157e308, 1.7976931348623157e+308", "0.000001, 0.000001",
        "1e-7, 1e-7", "123.456e-2, 1.23456", "100e-2, 1",
        "1.00000000000000000000000000000000000000000000000000000000000000000000000000000, 1"})
    void acceptedNumbersAreNormalizedByValue(String sent, String canonical) throws Exception {
        JsonNode n = parse("{\"n\":" + sent + "}");
        assertThat(Rfc8785.canonicalString(n)).isEqualTo("{\"n\":" + canonical + "}");
    }

    @Test
    void integralValuesAreHeldAsIntegers() throws Exception {
        assertThat(parse("[1.0]").get(0).isInt()).isTrue();
        assertThat(parse("[9007199254740992]").get(0).isLong()).isTrue();
        assertThat(parse("[4.5]").get(0).isDouble()).isTrue();
        assertThat(parse("[1e30]").get(0).isDouble()).isTrue();
    }

    @Test
    void duplicateKeyAtTopLevelIsRejected() {
        JsonRejection r = rejection("{\"agent_id\":\"a\",\"agent_id\":\"b\"}");
        assertThat(r.path()).isEqualTo("agent_id");
        assertThat(r.getMessage()).contains("duplicate key 'agent_id'");
    }

    @Test
    void duplicateKeyNestedIsRejected() {
        JsonRejection r = rejection("{\"action_input\":{\"list\":[{\"x\":1,\"y\":2,\"x\":3}]}}");
        assertThat(r.path()).isEqualTo("action_input.list[0].x");
        assertThat(r.getMessage()).contains("duplicate key 'x'").contains("action_input.list[0].x");
    }

    @Test
    void sameKeyInSiblingObjectsIsFine() throws Exception {
        assertThat(parse("{\"a\":{\"x\":1},\"b\":{\"x\":1}}").size()).isEqualTo(2);
    }

    @Test
    void depth64IsAcceptedAnd65Rejected() throws Exception {
        assertThat(parse(nested(64))).isNotNull();
        JsonRejection r = rejection(nested(65));
        assertThat(r.getMessage()).contains("deeper than 64");
        assertThat(r.path()).startsWith("[0][0]");
    }

    @Test
    void depthCountsTheTopLevelObjectAsLevelOne() throws Exception {
        String ok = "{\"a\":" + nested(63) + "}";
        assertThat(parse(ok)).isNotNull();
        JsonRejection r = rejection("{\"action_input\":" + nested(64) + "}");
        assertThat(r.path()).startsWith("action_input");
        assertThat(StrictJson.parse("{\"a\":{}}".getBytes(StandardCharsets.UTF_8), 2)).isNotNull();
        assertThat(rejection("{\"a\":{\"b\":{}}}".getBytes(StandardCharsets.UTF_8), 2).path()).isEqualTo("a.b");
    }

    @Test
    void deepNestingBeyondJacksonDefaultsGivesOurMessage() {
        JsonRejection r = rejection(nested(5000).getBytes(StandardCharsets.UTF_8), 2000);
        assertThat(r.getMessage()).contains("deeper than 2000");
    }

    @Test
    void invalidUtf8IsRejected() {
        byte[] prefix = "{\"agent_id\":\"a\",\"source\":\"".getBytes(StandardCharsets.UTF_8);
        for (byte[] bad : new byte[][] {
                {(byte) 0xC3, 0x28}, // bad continuation
                {(byte) 0xC0, (byte) 0x80}, // overlong NUL
                {(byte) 0xE0, (byte) 0x80, (byte) 0xAF}, // overlong '/'
                {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, // encoded surrogate U+D800
                {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, // above U+10FFFF
                {(byte) 0xFF}, {(byte) 0x80}}) {
            byte[] json = concat(prefix, bad, "\"}".getBytes(StandardCharsets.UTF_8));
            JsonRejection r = rejection(json, 64);
            assertThat(r.getMessage()).contains("not valid UTF-8").contains("byte offset " + prefix.length)
                    .contains("source");
            assertThat(r.path()).isEqualTo("source");
        }
    }

    @Test
    void truncatedUtf8SequenceAtTheEndIsRejected() {
        byte[] json = concat("\"a".getBytes(StandardCharsets.UTF_8), new byte[] {(byte) 0xE2, (byte) 0x82});
        assertThat(rejection(json, 64).getMessage()).contains("not valid UTF-8").contains("byte offset 2");
    }

    @Test
    void validMultibyteUtf8IsAccepted() throws Exception {
        assertThat(parse("{\"a\":\"é€😀日本\"}").get("a").textValue()).isEqualTo("é€😀日本");
    }

    @Test
    void truncatedJsonIsRejected() {
        JsonRejection r = rejection("{\"agent_id\":\"a\",\"action_input\":{\"x\":[1,2");
        assertThat(r.getMessage()).contains("ends unexpectedly").contains("action_input.x");
        assertThat(rejection("{\"agent_id\":\"abc").getMessage()).contains("ends unexpectedly").contains("agent_id");
        assertThat(rejection("").getMessage()).contains("empty");
        assertThat(rejection("   ").getMessage()).contains("empty");
    }

    @Test
    void trailingContentIsRejected() {
        assertThat(rejection("{\"a\":1} x").getMessage()).contains("unexpected content after the JSON value");
        assertThat(rejection("{\"a\":1}{}").getMessage()).contains("unexpected content after the JSON value");
        assertThat(rejection("{\"a\":1}]").getMessage()).contains("unexpected content after the JSON value");
    }

    @Test
    void trailingWhitespaceIsFine() throws Exception {
        assertThat(parse("{\"a\":1} \n\t")).isNotNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"a\":01}", "{\"a\":.5}", "{\"a\":NaN}", "{'a':1}", "{\"a\":1,}", "[1,]",
        "{\"a\" 1}", "{a:1}", "{\"a\":\"\t\"}", "{\"a\":tru}", "/*c*/{}"})
    void malformedJsonIsRejected(String json) {
        assertThat(rejection(json).getMessage()).containsAnyOf("malformed JSON", "ends unexpectedly");
    }

    @Test
    void malformedJsonNamesThePathAndPosition() {
        JsonRejection r = rejection("{\"metadata\":{\"a\":[1,2,}]}}");
        assertThat(r.getMessage()).contains("line 1").contains("metadata.a[2]");
    }

    @Test
    void nulBytesAreRejected() {
        assertThat(rejection(new byte[] {'{', 0, '}', 0}, 64).getMessage()).contains("NUL");
    }

    @Test
    void inputsBeyondJacksonDefaultLimitsGetOurChecksNotJacksons() throws Exception {
        assertThat(Rfc8785.canonicalString(parse("[1." + "0".repeat(5000) + "]"))).isEqualTo("[1]");
        JsonRejection r = rejection("{\"n\":" + "9".repeat(5000) + "}");
        assertThat(r.path()).isEqualTo("n");
        assertThat(r.getMessage()).contains("send it as a string");
        String longKey = "k".repeat(60_000);
        assertThat(parse("{\"" + longKey + "\":1}").has(longKey)).isTrue();
    }

    @Test
    void aLeadingByteOrderMarkIsIgnored() throws Exception {
        byte[] withBom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '[', '1', ']'};
        assertThat(StrictJson.parse(withBom, 64).get(0).intValue()).isEqualTo(1);
    }

    @Test
    void scalarsAtTheRootAreParsed() throws Exception {
        assertThat(parse("\"x\"").textValue()).isEqualTo("x");
        assertThat(parse("12").intValue()).isEqualTo(12);
        assertThat(parse("null").isNull()).isTrue();
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    @Test
    void topLevelArrayLengthIsLimitedWhileParsing() throws Exception {
        byte[] three = "[{\"a\":1},{\"a\":2},{\"a\":3}]".getBytes(StandardCharsets.UTF_8);
        assertThat(StrictJson.parse(three, 64, 3).size()).isEqualTo(3);
        assertThatThrownBy(() -> StrictJson.parse(three, 64, 2)).isInstanceOf(JsonRejection.class)
                .hasMessageContaining("more than 2 items").hasMessageContaining("limit is 2");
        // The parse stops at the first item too many: what follows it is never read.
        byte[] broken = "[1,2,3,{\"x\":".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> StrictJson.parse(broken, 64, 3)).hasMessageContaining("more than 3 items");
        // Nested arrays and objects do not count against the limit.
        assertThat(StrictJson.parse("[[1,2,3,4],{\"a\":[5,6,7]}]".getBytes(StandardCharsets.UTF_8), 64, 2).size()).isEqualTo(2);
    }
}
