package io.trailproof.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.json.Rfc8785;
import io.trailproof.core.json.StrictJson;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class StoredEventTest {
    private static final String ID = "019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00";
    private static final String RECORDED_AT = "2026-11-22T00:00:00.000100Z";

    private static ObjectNode client(String json) throws Exception {
        return EventValidator.validate(StrictJson.parse(json.getBytes(StandardCharsets.UTF_8), 64));
    }

    private static StoredEvent sample() throws Exception {
        return StoredEvent.seal(client("{\"agent_id\":\"agent-1\",\"action_type\":\"TOOL_CALL\",\"duration_ms\":150,"
                + "\"action_input\":{\"q\":\"revenue Q4\",\"n\":[1,2.5,true,null]},\"labels\":{\"env\":\"prod\"},"
                + "\"timestamp\":\"2026-11-22T01:00:00+01:00\"}"), ID, RECORDED_AT, 3,
                "e1ed391ffd61a54d49516eff16b7bcf29d469bf0a5d0f35baa489a50e01da145", 41);
    }

    @Test
    void sealAddsTheServiceFieldsAndHashesWithoutHashAndLogIndex() throws Exception {
        StoredEvent e = sample();

        assertThat(e.id()).isEqualTo(ID);
        assertThat(e.agentId()).isEqualTo("agent-1");
        assertThat(e.sequence()).isEqualTo(3);
        assertThat(e.prevHash()).isEqualTo("e1ed391ffd61a54d49516eff16b7bcf29d469bf0a5d0f35baa489a50e01da145");
        assertThat(e.logIndex()).isEqualTo(41);
        assertThat(e.recordedAt()).isEqualTo(RECORDED_AT);
        assertThat(e.timestamp()).isEqualTo("2026-11-22T01:00:00+01:00");
        assertThat(e.json().get("schema_version").textValue()).isEqualTo("1.0");
        assertThat(e.hash()).matches("[0-9a-f]{64}");
        assertThat(e.hashBytes()).hasSize(32);

        ObjectNode covered = e.json();
        covered.remove("hash");
        covered.remove("log_index");
        assertThat(EventHash.toHex(EventHash.sha256(Rfc8785.canonicalize(covered)))).isEqualTo(e.hash());
        assertThat(e.payload()).isEqualTo(Rfc8785.canonicalize(e.json()));
        assertThat(new String(e.payload(), StandardCharsets.UTF_8))
                .contains("\"hash\":\"" + e.hash() + "\"").contains("\"log_index\":41");
    }

    @Test
    void timestampDefaultsToRecordedAt() throws Exception {
        StoredEvent e = StoredEvent.seal(client("{\"agent_id\":\"a\"}"), ID, RECORDED_AT, 1,
                EventFields.GENESIS_PREV_HASH, 0);
        assertThat(e.timestamp()).isEqualTo(RECORDED_AT);
        assertThat(e.prevHash()).isEqualTo("0".repeat(64));
    }

    @Test
    void sealDoesNotChangeTheClientFields() throws Exception {
        ObjectNode fields = client("{\"agent_id\":\"a\"}");
        StoredEvent.seal(fields, ID, RECORDED_AT, 1, EventFields.GENESIS_PREV_HASH, 0);
        assertThat(Rfc8785.canonicalString(fields)).isEqualTo("{\"agent_id\":\"a\"}");
    }

    @Test
    void jsonIsACopy() throws Exception {
        StoredEvent e = sample();
        e.json().put("agent_id", "mallory");
        assertThat(e.json().get("agent_id").textValue()).isEqualTo("agent-1");
        assertThat(e.recomputeHash()).isEqualTo(e.hashBytes());
    }

    @Test
    void parsedPayloadRecomputesTheSealedHash() throws Exception {
        StoredEvent sealed = sample();
        StoredEvent read = StoredEvent.parse(sealed.payload().clone());

        assertThat(read.recomputeHash()).isEqualTo(sealed.hashBytes());
        assertThat(read.hash()).isEqualTo(sealed.hash());
        assertThat(read.id()).isEqualTo(sealed.id());
        assertThat(read.agentId()).isEqualTo(sealed.agentId());
        assertThat(read.sequence()).isEqualTo(sealed.sequence());
        assertThat(read.prevHash()).isEqualTo(sealed.prevHash());
        assertThat(read.logIndex()).isEqualTo(sealed.logIndex());
        assertThat(read.recordedAt()).isEqualTo(sealed.recordedAt());
        assertThat(read.timestamp()).isEqualTo(sealed.timestamp());
        assertThat(read.payload()).isEqualTo(sealed.payload());
    }

    /** Every single-character change that still parses is caught by the hash, except in log_index. */
    @Test
    void anyAlteredCharacterChangesTheRecomputedHash() throws Exception {
        StoredEvent sealed = sample();
        byte[] payload = sealed.payload();
        String text = new String(payload, StandardCharsets.US_ASCII);
        int hashStart = text.indexOf(sealed.hash());
        int logIndexStart = text.indexOf("\"log_index\":") + "\"log_index\":".length();
        int altered = 0;
        for (int i = 0; i < payload.length; i++) {
            byte b = payload[i];
            byte replacement;
            if (b >= '0' && b <= '9') {
                replacement = (byte) ('0' + (b - '0' + 1) % 10);
            } else if (b >= 'a' && b <= 'z') {
                replacement = (byte) ('a' + (b - 'a' + 1) % 26);
            } else if (b >= 'A' && b <= 'Z') {
                replacement = (byte) ('A' + (b - 'A' + 1) % 26);
            } else {
                continue;
            }
            byte[] tampered = payload.clone();
            tampered[i] = replacement;
            StoredEvent read;
            try {
                read = StoredEvent.parse(tampered);
            } catch (StoredEventFormatException e) {
                continue; // unreadable is detected too
            }
            altered++;
            if (i >= logIndexStart && i < logIndexStart + 2) {
                assertThat(read.recomputeHash()).isEqualTo(sealed.hashBytes()); // covered by the Merkle leaf
                assertThat(read.logIndex()).isNotEqualTo(41);
            } else if (i >= hashStart && i < hashStart + 64) {
                assertThat(read.recomputeHash()).isNotEqualTo(read.hashBytes());
            } else {
                assertThat(read.recomputeHash()).as("change at %d", i).isNotEqualTo(sealed.hashBytes());
            }
        }
        assertThat(altered).isGreaterThan(200);
    }

    @Test
    void oneMiBIsTheLimitOfTheCanonicalForm() throws Exception {
        int base = StoredEvent.seal(client("{\"agent_id\":\"a\",\"action_input\":{\"s\":\"\"}}"), ID, RECORDED_AT, 1,
                EventFields.GENESIS_PREV_HASH, 0).payload().length;
        String fits = "x".repeat((1 << 20) - base);
        StoredEvent max = StoredEvent.seal(client("{\"agent_id\":\"a\",\"action_input\":{\"s\":\"" + fits + "\"}}"),
                ID, RECORDED_AT, 1, EventFields.GENESIS_PREV_HASH, 0);
        assertThat(max.payload()).hasSize(1 << 20);

        ObjectNode tooBig = client("{\"agent_id\":\"a\",\"action_input\":{\"s\":\"" + fits + "x\"}}");
        assertThatThrownBy(() -> StoredEvent.seal(tooBig, ID, RECORDED_AT, 1, EventFields.GENESIS_PREV_HASH, 0))
                .isInstanceOf(EventRejection.class).hasMessageContaining("too large").hasMessageContaining("1 MiB");
    }

    @Test
    void parseRefusesGarbageWithACheckedException() throws Exception {
        String good = new String(sample().payload(), StandardCharsets.UTF_8);
        for (String bad : new String[] {"", "not json", "[]", "{\"a\":1}", good.substring(0, good.length() - 1),
                good.replace("\"sequence\":3", "\"sequence\":0"), good.replace("\"log_index\":41", "\"log_index\":-1"),
                good.replace("\"sequence\":3", "\"sequence\":\"3\""), good.replace("\"log_index\":41", "\"log_index\":4.5"),
                good.replace("\"hash\":\"", "\"hash\":\"A"), good.replace("\"prev_hash\":\"e1", "\"prev_hash\":\"E1"),
                good.replace("\"id\":", "\"xid\":")}) {
            assertThatThrownBy(() -> StoredEvent.parse(bad.getBytes(StandardCharsets.UTF_8)))
                    .as(bad.length() > 60 ? bad.substring(0, 60) : bad)
                    .isInstanceOf(StoredEventFormatException.class)
                    .hasMessageStartingWith("stored event");
        }
    }

    @Test
    void sealRefusesProgrammingErrors() throws Exception {
        ObjectNode fields = client("{\"agent_id\":\"a\"}");
        assertThatThrownBy(() -> StoredEvent.seal(fields, ID, RECORDED_AT, 0, EventFields.GENESIS_PREV_HASH, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StoredEvent.seal(fields, ID, RECORDED_AT, 1, "00", 0))
                .isInstanceOf(IllegalArgumentException.class);
        ObjectNode withHash = fields.deepCopy().put("hash", "x");
        assertThatThrownBy(() -> StoredEvent.seal(withHash, ID, RECORDED_AT, 1, EventFields.GENESIS_PREV_HASH, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
