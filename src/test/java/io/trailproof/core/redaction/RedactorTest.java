package io.trailproof.core.redaction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventHash;
import io.trailproof.core.event.EventValidator;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.json.Rfc8785;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** Where redaction applies, what it leaves alone, the {@code redactions} field, and the size it adds. */
class RedactorTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Redactor BUILT_INS = Redactor.withBuiltIns(List.of());

    private static ObjectNode event(String json) throws Exception {
        return EventValidator.validate(JSON.readTree(json));
    }

    @Test
    void stringValuesInsideTheFreeFieldsErrorMessageAndLabelsAreRedactedKeysAndOtherFieldsNever() throws Exception {
        ObjectNode in = event("""
                {"agent_id": "bob@example.com", "action_name": "mail bob@example.com",
                 "action_input": {"to": ["bob@example.com", {"cc": "amy@example.org", "n": 4111111111111111}],
                                  "bob@example.com": "key"},
                 "action_output": {"deep": [[["AKIAIOSFODNN7EXAMPLE"]]]},
                 "metadata": {"client_ip": "10.0.0.1", "ok": true},
                 "error_message": "token Bearer abcdefghijklmnop1234 refused",
                 "labels": {"owner": "amy@example.org", "bob.example.com": "x"}}""");
        String before = in.toString();
        Redactor.Redacted r = BUILT_INS.redact(in);
        assertThat(in.toString()).as("the input is never modified").isEqualTo(before);
        ObjectNode out = r.fields();
        assertThat(out.get("agent_id").asText()).isEqualTo("bob@example.com");
        assertThat(out.get("action_name").asText()).isEqualTo("mail bob@example.com");
        assertThat(out.at("/action_input/to/0").asText()).isEqualTo("[REDACTED:email]");
        assertThat(out.at("/action_input/to/1/cc").asText()).isEqualTo("[REDACTED:email]");
        assertThat(out.at("/action_input/to/1/n").asLong()).as("numbers are not strings").isEqualTo(4111111111111111L);
        assertThat(out.at("/action_input").has("bob@example.com")).as("keys are kept").isTrue();
        assertThat(out.at("/action_output/deep/0/0/0").asText()).isEqualTo("[REDACTED:aws_access_key]");
        assertThat(out.at("/metadata/client_ip").asText()).isEqualTo("[REDACTED:ipv4]");
        assertThat(out.at("/metadata/ok").asBoolean()).isTrue();
        assertThat(out.get("error_message").asText()).isEqualTo("token [REDACTED:bearer_token] refused");
        assertThat(out.at("/labels/owner").asText()).isEqualTo("[REDACTED:email]");
        assertThat(out.at("/labels/bob.example.com").asText()).as("label keys are kept").isEqualTo("x");
        assertThat(r.counts()).isEqualTo(Map.of("email", 3, "aws_access_key", 1, "ipv4", 1, "bearer_token", 1));
        assertThat(out.get(EventFields.REDACTIONS)).isEqualTo(JSON.valueToTree(r.counts()));
    }

    @Test
    void anEventWithNothingToRedactIsReturnedAsItIsWithoutRedactions() throws Exception {
        ObjectNode in = event("{\"agent_id\": \"a\", \"action_input\": {\"q\": \"revenue by region\"}, \"labels\": {\"env\": \"prod\"}}");
        Redactor.Redacted r = BUILT_INS.redact(in);
        assertThat(r.fields()).isSameAs(in);
        assertThat(r.counts()).isEmpty();
        assertThat(r.addedBytes()).isZero();
    }

    @Test
    void addedBytesIsExactlyHowMuchLongerTheCanonicalFormBecameForRandomEvents() throws Exception {
        Random rnd = new Random(1616);
        String[] pieces = {"bob@example.com", "10.0.0.1", "AKIAIOSFODNN7EXAMPLE", "4111 1111 1111 1111", "plain", "\"q\"",
                "é", "\n", "+14155552671", "GB82WEST12345698765432", "123-45-6789", "1.2.3"};
        for (int round = 0; round < 500; round++) {
            ObjectNode e = JSON.createObjectNode().put("agent_id", "a");
            for (String field : List.of("action_input", "action_output", "metadata")) {
                ObjectNode o = e.putObject(field);
                for (int k = 0; k < rnd.nextInt(4); k++) {
                    StringBuilder v = new StringBuilder();
                    for (int p = 0; p < 1 + rnd.nextInt(4); p++) {
                        v.append(pieces[rnd.nextInt(pieces.length)]).append(' ');
                    }
                    if (rnd.nextBoolean()) {
                        o.putArray("k" + k).add(v.toString()).add(rnd.nextInt());
                    } else {
                        o.put("k" + k, v.toString());
                    }
                }
            }
            if (rnd.nextBoolean()) {
                e.put("error_message", pieces[rnd.nextInt(pieces.length)]);
            }
            ObjectNode in = EventValidator.validate(e);
            Redactor.Redacted r = BUILT_INS.redact(in);
            int grown = Rfc8785.canonicalize(r.fields()).length - Rfc8785.canonicalize(in).length;
            assertThat(r.addedBytes()).as("round %d: %s", round, e).isEqualTo(grown);
        }
    }

    @Test
    void aRedactedEventHashesWhatIsStoredAndMaySealPastTheLimitOnlyByWhatRedactionAdded() throws Exception {
        // just under 1 MiB as sent, longer once every short IP becomes [REDACTED:ipv4]
        StringBuilder ips = new StringBuilder();
        while (ips.length() < 1_000_000) {
            ips.append("1.2.3.4 ");
        }
        ObjectNode in = event("{\"agent_id\": \"a\", \"metadata\": {\"ips\": \"" + ips + "\"}}");
        Redactor.Redacted r = BUILT_INS.redact(in);
        assertThat(r.counts().get("ipv4")).isEqualTo(125_000);
        assertThat(Rfc8785.canonicalize(r.fields()).length).isGreaterThan(1 << 20);
        StoredEvent sealed = StoredEvent.seal(r.fields(), "0190a0b0-0000-7000-8000-000000000000",
                "2026-11-25T00:00:00.000000Z", 1, EventFields.GENESIS_PREV_HASH, 0, r.addedBytes());
        StoredEvent read = StoredEvent.parse(sealed.payload().clone());
        assertThat(EventHash.toHex(read.recomputeHash())).isEqualTo(read.hash());
        assertThat(read.json().get(EventFields.REDACTIONS).get("ipv4").asInt()).isEqualTo(125_000);
    }

    @Test
    void extraRulesRunAfterTheBuiltInsOnTheirResult() throws Exception {
        Redactor r = Redactor.withBuiltIns(List.of(new RedactionRule("ticket", Pattern.compile("TCK-[0-9]{4}+")),
                new RedactionRule("redacted_word", Pattern.compile("REDACTED"))));
        ObjectNode out = r.redact(event("{\"agent_id\": \"a\", \"metadata\": {\"m\": \"TCK-1234 by bob@example.com\"}}"))
                .fields();
        // the second extra rule sees the replacement texts of the rules before it: each runs on their result
        assertThat(out.at("/metadata/m").asText())
                .isEqualTo("[[REDACTED:redacted_word]:ticket] by [[REDACTED:redacted_word]:email]");
        JsonNode counts = out.get(EventFields.REDACTIONS);
        assertThat(counts.get("ticket").asInt()).isEqualTo(1);
        assertThat(counts.get("redacted_word").asInt()).isEqualTo(2);
    }
}
