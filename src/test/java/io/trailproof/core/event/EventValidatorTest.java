package io.trailproof.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.Rfc8785;
import io.trailproof.core.json.StrictJson;
import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class EventValidatorTest {

    private static JsonNode json(String text) throws JsonRejection {
        return StrictJson.parse(text.getBytes(StandardCharsets.UTF_8), 65);
    }

    private static ObjectNode valid(String text) throws Exception {
        return EventValidator.validate(json(text));
    }

    private static EventRejection rejection(String text) throws JsonRejection {
        try {
            EventValidator.validate(json(text));
        } catch (EventRejection r) {
            return r;
        }
        throw new AssertionError("expected a rejection of " + text);
    }

    private static String event(String extra) {
        return "{\"agent_id\":\"agent-1\"" + (extra.isEmpty() ? "" : "," + extra) + "}";
    }

    private static String quote(String s) {
        return "\"" + s + "\"";
    }

    @Test
    void acceptsEveryFieldOfTheContract() throws Exception {
        ObjectNode out = valid(event("\"session_id\":\"s\",\"source\":\"sdk\",\"capture_method\":\"http\","
                + "\"action_type\":\"T\",\"action_name\":\"n\",\"action_status\":\"ok\",\"error_message\":\"\","
                + "\"action_input\":{\"a\":[1]},\"action_output\":{},\"metadata\":{\"m\":null},"
                + "\"timestamp\":\"2026-11-22T10:00:00Z\",\"duration_ms\":150,"
                + "\"labels\":{\"env\":\"prod\",\"a.b:c-d_e\":\"\"}"));
        assertThat(out.size()).isEqualTo(14);
        assertThat(out.get("metadata").get("m").isNull()).isTrue();
    }

    @Test
    void nullOptionalFieldsAreRemoved() throws Exception {
        ObjectNode out = valid(event("\"session_id\":null,\"labels\":null,\"timestamp\":null,\"action_input\":null"));
        assertThat(Rfc8785.canonicalString(out)).isEqualTo("{\"agent_id\":\"agent-1\"}");
    }

    @Test
    void returnsANewObject() throws Exception {
        JsonNode in = json(event("\"source\":null"));
        ObjectNode out = EventValidator.validate(in);
        assertThat(out).isNotSameAs(in);
        assertThat(in.has("source")).isTrue();
    }

    @Test
    void eventMustBeAnObject() throws Exception {
        for (String s : new String[] {"[]", "\"x\"", "1", "null"}) {
            EventRejection r = rejection(s);
            assertThat(r.getMessage()).isEqualTo("an event must be a JSON object");
            assertThat(r.field()).isNull();
        }
    }

    @Test
    void unknownFieldsAreRejectedByName() throws Exception {
        EventRejection r = rejection(event("\"hash\":\"x\",\"colour\":1"));
        assertThat(r.field()).isEqualTo("hash");
        assertThat(r.getMessage()).startsWith("unknown fields 'hash', 'colour'");
        assertThat(rejection(event("\"id\":\"x\"")).getMessage()).startsWith("unknown field 'id';");
    }

    @Test
    void agentIdIsRequired() throws Exception {
        assertThat(rejection("{}").getMessage()).isEqualTo("agent_id is required");
        assertThat(rejection("{\"agent_id\":null}").getMessage()).isEqualTo("agent_id is required");
        assertThat(rejection("{\"agent_id\":null}").field()).isEqualTo("agent_id");
    }

    @Test
    void agentIdLengthAndCharacters() throws Exception {
        assertThat(rejection("{\"agent_id\":\"\"}").getMessage()).startsWith("agent_id must be 1..256 characters");
        assertThat(rejection("{\"agent_id\":\"" + "a".repeat(257) + "\"}").getMessage())
                .startsWith("agent_id must be 1..256 characters");
        assertThat(valid("{\"agent_id\":\"" + "a".repeat(256) + "\"}")).isNotNull();
        assertThat(valid("{\"agent_id\":\"" + "😀".repeat(128) + "\"}")).isNotNull(); // 256 UTF-16 units
        assertThat(rejection("{\"agent_id\":\"" + "😀".repeat(129) + "\"}").field()).isEqualTo("agent_id");
        for (String cc : new String[] {"\\u0000", "\\n", "\\u001f", "\\u007f", "\\u0085", "\\u009f"}) {
            EventRejection r = rejection("{\"agent_id\":\"a" + cc + "b\"}");
            assertThat(r.field()).isEqualTo("agent_id");
            assertThat(r.getMessage()).contains("agent_id must not contain control characters");
        }
        assertThat(valid("{\"agent_id\":\"a\\u00a0b é\"}")).isNotNull();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "agent_id|1|agent_id must be a string, not a number",
        "session_id|1|session_id must be a string, not a number",
        "source|true|source must be a string, not a boolean",
        "capture_method|[]|capture_method must be a string, not an array",
        "action_type|{}|action_type must be a string, not an object",
        "action_name|1.5|action_name must be a string, not a number",
        "action_status|false|action_status must be a string, not a boolean",
        "error_message|[]|error_message must be a string, not an array",
        "action_input|\"x\"|action_input must be a JSON object, not a string",
        "action_output|[]|action_output must be a JSON object, not an array",
        "metadata|1|metadata must be a JSON object, not a number",
        "timestamp|1|timestamp must be a string, not a number",
        "duration_ms|\"1\"|duration_ms must be an integer between 0 and 9007199254740992, not a string",
        "labels|[]|labels must be a JSON object of string to string, not an array"})
    void wrongTypeIsRejectedNamingTheField(String field, String value, String message) throws Exception {
        String text = field.equals("agent_id") ? "{\"agent_id\":" + value + "}" : event(quote(field) + ":" + value);
        EventRejection r = rejection(text);
        assertThat(r.field()).isEqualTo(field);
        assertThat(r.getMessage()).isEqualTo(message);
    }

    @ParameterizedTest
    @ValueSource(strings = {"session_id", "source", "capture_method", "action_type", "action_name", "action_status"})
    void shortStringsHoldAtMost1024Characters(String field) throws Exception {
        assertThat(valid(event(quote(field) + ":" + quote("x".repeat(1024))))).isNotNull();
        EventRejection r = rejection(event(quote(field) + ":" + quote("x".repeat(1025))));
        assertThat(r.field()).isEqualTo(field);
        assertThat(r.getMessage()).isEqualTo(field + " must be at most 1024 characters long, it is 1025");
    }

    @Test
    void errorMessageHoldsAtMost64KiB() throws Exception {
        assertThat(valid(event("\"error_message\":" + quote("x".repeat(65536))))).isNotNull();
        assertThat(rejection(event("\"error_message\":" + quote("x".repeat(65537)))).getMessage())
                .isEqualTo("error_message must be at most 65536 characters long, it is 65537");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "150", "9007199254740992", "1.0", "1e3"})
    void durationAccepted(String value) throws Exception {
        assertThat(valid(event("\"duration_ms\":" + value))).isNotNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "1.5", "1e300", "-0.5"})
    void durationRejected(String value) throws Exception {
        EventRejection r = rejection(event("\"duration_ms\":" + value));
        assertThat(r.field()).isEqualTo("duration_ms");
        assertThat(r.getMessage()).startsWith("duration_ms must be an integer between 0 and 9007199254740992");
    }

    @Test
    void durationAboveTwoToThe53IsRejectedAlreadyAsANumber() {
        // 2^53+1 has no double; StrictJson refuses it before the validator sees it.
        JsonRejection r = assertThrows(JsonRejection.class,
                () -> json(event("\"duration_ms\":9007199254740993")));
        assertThat(r.path()).isEqualTo("duration_ms");
        assertThat(r.getMessage()).contains("duration_ms").contains("send it as a string");
    }

    @Test
    void labelKeysMustHaveTheContractShape() throws Exception {
        for (String key : new String[] {"bad key", "", "x".repeat(129), "é", "a/b", "a\\u0000"}) {
            EventRejection r = rejection(event("\"labels\":{" + quote(key) + ":\"v\"}"));
            assertThat(r.field()).isEqualTo("labels");
            assertThat(r.getMessage()).endsWith("must be 1..128 characters of A-Z a-z 0-9 _ . : -");
        }
        assertThat(rejection(event("\"labels\":{\"bad key\":\"v\"}")).getMessage())
                .isEqualTo("labels key 'bad key' must be 1..128 characters of A-Z a-z 0-9 _ . : -");
        assertThat(valid(event("\"labels\":{" + quote("x".repeat(128)) + ":\"v\"}"))).isNotNull();
    }

    @Test
    void labelValuesMustBeShortStrings() throws Exception {
        assertThat(rejection(event("\"labels\":{\"k\":1}")).getMessage())
                .isEqualTo("labels value of 'k' must be a string, not a number");
        assertThat(rejection(event("\"labels\":{\"k\":null}")).getMessage())
                .isEqualTo("labels value of 'k' must be a string, not null");
        assertThat(rejection(event("\"labels\":{\"k\":" + quote("v".repeat(1025)) + "}")).getMessage())
                .isEqualTo("labels value of 'k' must be at most 1024 characters long, it is 1025");
        assertThat(valid(event("\"labels\":{\"k\":" + quote("v".repeat(1024)) + "}"))).isNotNull();
    }

    @Test
    void atMost64Labels() throws Exception {
        String labels64 = IntStream.range(0, 64).mapToObj(i -> "\"k" + i + "\":\"v\"").collect(Collectors.joining(","));
        assertThat(valid(event("\"labels\":{" + labels64 + "}"))).isNotNull();
        EventRejection r = rejection(event("\"labels\":{" + labels64 + ",\"k64\":\"v\"}"));
        assertThat(r.field()).isEqualTo("labels");
        assertThat(r.getMessage()).isEqualTo("labels may hold at most 64 labels, it holds 65");
    }

    @ParameterizedTest
    @ValueSource(strings = {"2026-11-22T10:00:00Z", "2026-11-22T10:00:00.123456Z", "2026-11-22T10:00:00+01:00",
        "2026-11-22T10:00:00-05:30", "2026-11-22T10:00:00", "2026-11-22T10:00:00.5", "2026-11-22t10:00:00z",
        "2026-11-22T10:00Z", "2026-11-22T10:00:00+0100", "2026-11-22T10:00:00+01", "2026-11-22T10:00:00.123456789Z"})
    void timestampFormsAccepted(String ts) throws Exception {
        ObjectNode out = valid(event("\"timestamp\":" + quote(ts)));
        assertThat(out.get("timestamp").textValue()).isEqualTo(ts); // stored exactly as sent
    }

    @ParameterizedTest
    @ValueSource(strings = {"2026-11-22", "2026-11-22T10:00:00Z[Europe/Paris]", "2026-11-22T10:00:00[Europe/Paris]",
        "2026-11-22T10:00:00+01:00[Europe/Paris]", "2026-11-22 10:00:00Z", "2026-02-30T10:00:00Z",
        "2026-11-22T25:00:00Z", "1700000000", "", "yesterday", "2026-11-22T10:00:00 Z", "22-11-2026T10:00:00Z",
        "+12026-11-22T10:00:00Z", "2026-11-22T10:00:00Europe/Paris", "2026-11-22T10:00:00+25:00"})
    void timestampFormsRejected(String ts) throws Exception {
        EventRejection r = rejection(event("\"timestamp\":" + quote(ts)));
        assertThat(r.field()).isEqualTo("timestamp");
        assertThat(r.getMessage()).startsWith("timestamp must be an ISO 8601 date-time");
    }

    @Test
    void nestingIsCountedFromTheEventObject() throws Exception {
        String ok = event("\"action_input\":" + "{\"a\":".repeat(62) + "{}" + "}".repeat(62)); // levels 1..64
        assertThat(valid(ok)).isNotNull();
        String deep = event("\"metadata\":" + "{\"a\":".repeat(63) + "{}" + "}".repeat(63)); // level 65
        EventRejection r = rejection(deep);
        assertThat(r.field()).isEqualTo("metadata");
        assertThat(r.getMessage()).contains("metadata nests deeper than 64 levels");
    }

    @Test
    void canonicalSizeLimitIsOneMiB() throws Exception {
        EventValidator.checkCanonicalSize(1 << 20);
        EventRejection r = assertThrows(EventRejection.class,
                () -> EventValidator.checkCanonicalSize((1 << 20) + 1));
        assertThat(r.getMessage()).contains("too large").contains("1048577").contains("1 MiB");
    }
}
