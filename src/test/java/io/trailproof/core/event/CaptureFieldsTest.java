package io.trailproof.core.event;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.StrictJson;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The capture fields of src/site/completeness.md#capture-sequences: their rules and their place in the hash. */
class CaptureFieldsTest {

    private static final String ID = "019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00";
    private static final String AT = "2026-11-22T00:00:00.000000Z";

    private static JsonNode json(String text) throws JsonRejection {
        return StrictJson.parse(text.getBytes(StandardCharsets.UTF_8), 65);
    }

    private static EventRejection rejection(String extra) throws JsonRejection {
        try {
            EventValidator.validate(json("{\"agent_id\":\"a\"," + extra + "}"));
        } catch (EventRejection r) {
            return r;
        }
        throw new AssertionError("expected a rejection of " + extra);
    }

    private static ObjectNode valid(String extra) throws Exception {
        return EventValidator.validate(json("{\"agent_id\":\"a\"," + extra + "}"));
    }

    @Test
    void acceptsAStreamsFields() throws Exception {
        ObjectNode out = valid("\"capture_id\":\"py-1\",\"capture_seq\":7,\"capture_last\":true,"
                + "\"capture_dropped\":[2,5]");
        assertThat(out.get("capture_id").textValue()).isEqualTo("py-1");
        assertThat(out.get("capture_seq").longValue()).isEqualTo(7);
        assertThat(out.get("capture_last").booleanValue()).isTrue();
        assertThat(out.get("capture_dropped").toString()).isEqualTo("[2,5]");
        assertThat(valid("\"capture_id\":\"" + "x".repeat(128) + "\",\"capture_seq\":9007199254740992")).isNotNull();
        assertThat(valid("\"capture_id\":\"c\",\"capture_seq\":3.0").get("capture_seq").longValue()).isEqualTo(3);
        assertThat(valid("\"capture_id\":\"c\",\"capture_seq\":1,\"capture_last\":null,\"capture_dropped\":null")
                .has("capture_last")).isFalse();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "\"capture_id\":\"\",\"capture_seq\":1|capture_id|capture_id must be 1..128 characters long, it is 0",
        "\"capture_id\":1,\"capture_seq\":1|capture_id|capture_id must be a string, not a number",
        "\"capture_id\":\"a\\nb\",\"capture_seq\":1|capture_id|capture_id must not contain control characters (found U+000A at index 1)",
        "\"capture_id\":\"c\",\"capture_seq\":0|capture_seq|capture_seq must hold positive integers (1..9007199254740992), not 0",
        "\"capture_id\":\"c\",\"capture_seq\":-3|capture_seq|capture_seq must hold positive integers (1..9007199254740992), not -3",
        "\"capture_id\":\"c\",\"capture_seq\":1.5|capture_seq|capture_seq must hold positive integers (1..9007199254740992), not 1.5",
        "\"capture_id\":\"c\",\"capture_seq\":\"1\"|capture_seq|capture_seq must hold positive integers (1..9007199254740992), not a string",
        "\"capture_id\":\"c\",\"capture_seq\":18014398509481984|capture_seq|capture_seq must hold positive integers (1..9007199254740992), not 18014398509481984",
        "\"capture_id\":\"c\"|capture_seq|capture_seq is required with capture_id",
        "\"capture_seq\":1|capture_id|capture_id is required with capture_seq",
        "\"capture_last\":true|capture_last|capture_last needs capture_id and capture_seq",
        "\"capture_dropped\":[1,2]|capture_dropped|capture_dropped needs capture_id and capture_seq",
        "\"capture_id\":\"c\",\"capture_seq\":2,\"capture_last\":\"yes\"|capture_last|capture_last must be true or false, not a string",
        "\"capture_id\":\"c\",\"capture_seq\":9,\"capture_dropped\":[1]|capture_dropped|capture_dropped must be an array [from, to] of two capture_seq numbers, not an array of 1",
        "\"capture_id\":\"c\",\"capture_seq\":9,\"capture_dropped\":{}|capture_dropped|capture_dropped must be an array [from, to] of two capture_seq numbers, not an object",
        "\"capture_id\":\"c\",\"capture_seq\":9,\"capture_dropped\":[0,2]|capture_dropped|capture_dropped must hold positive integers (1..9007199254740992), not 0",
        "\"capture_id\":\"c\",\"capture_seq\":9,\"capture_dropped\":[5,2]|capture_dropped|capture_dropped [from, to] must have from <= to, not [5, 2]",
        "\"capture_id\":\"c\",\"capture_seq\":9,\"capture_dropped\":[5,9]|capture_dropped|capture_dropped must name numbers before this event's capture_seq 9, not up to 9"})
    void badCaptureFieldsAreRefusedNamingTheField(String extra, String field, String message) throws Exception {
        EventRejection r = rejection(extra);
        assertThat(r.field()).isEqualTo(field);
        assertThat(r.getMessage()).isEqualTo(message);
    }

    @Test
    void captureIdHoldsAtMost128Characters() throws Exception {
        EventRejection r = rejection("\"capture_id\":\"" + "x".repeat(129) + "\",\"capture_seq\":1");
        assertThat(r.field()).isEqualTo("capture_id");
        assertThat(r.getMessage()).isEqualTo("capture_id must be 1..128 characters long, it is 129");
    }

    @Test
    void theFieldsJoinTheHashOnlyWhenPresent() throws Exception {
        ObjectNode plain = valid("\"action_type\":\"T\"");
        ObjectNode captured = valid("\"action_type\":\"T\",\"capture_id\":\"c\",\"capture_seq\":1");
        StoredEvent a = StoredEvent.seal(plain, ID, AT, 1, EventFields.GENESIS_PREV_HASH, 0);
        StoredEvent b = StoredEvent.seal(captured, ID, AT, 1, EventFields.GENESIS_PREV_HASH, 0);
        assertThat(new String(a.payload(), StandardCharsets.UTF_8)).doesNotContain("capture");
        assertThat(b.hash()).isNotEqualTo(a.hash());
        // Every field is covered: a different number is a different hash.
        ObjectNode other = valid("\"action_type\":\"T\",\"capture_id\":\"c\",\"capture_seq\":2");
        assertThat(StoredEvent.seal(other, ID, AT, 1, EventFields.GENESIS_PREV_HASH, 0).hash()).isNotEqualTo(b.hash());
        assertThat(new String(b.payload(), StandardCharsets.UTF_8))
                .contains("\"capture_id\":\"c\",\"capture_seq\":1");
    }
}
