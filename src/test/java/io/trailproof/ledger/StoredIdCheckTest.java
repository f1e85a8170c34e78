package io.trailproof.ledger;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.StoredEvent;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a proof checks that the stored event at an id's index is that id's ({@code LedgerQueries.storedIdIs}):
 * by a member scan of the stored form, and by the full parse for bytes the scanner does not expect.
 */
class StoredIdCheckTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ID = "019a8b2c-1d2e-7f30-8a41-5b6c00000007";

    private static byte[] stored() throws Exception {
        ObjectNode fields = JSON.createObjectNode().put("agent_id", "a");
        fields.putObject("metadata").put("id", "not-the-event-id");   // a nested "id" is not the event's
        return StoredEvent.seal(fields, ID, "2026-11-26T00:00:00.000000Z", 1, EventFields.GENESIS_PREV_HASH, 7).payload();
    }

    @Test
    void theStoredFormIsScannedForItsOwnId() throws Exception {
        byte[] payload = stored();
        assertThat(LedgerQueries.storedIdIs(payload, ID)).isTrue();
        assertThat(LedgerQueries.storedIdIs(payload, "1" + ID.substring(1))).isFalse();
        assertThat(LedgerQueries.storedIdIs(payload, "not-the-event-id")).isFalse();
    }

    @Test
    void bytesTheScannerDoesNotExpectAreDecidedByTheFullParse() throws Exception {
        // whitespace is never in a stored form: the scanner refuses it, the full parse reads it
        byte[] spaced = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(JSON.readTree(stored()));
        assertThat(LedgerQueries.storedIdIs(spaced, ID)).isTrue();
        assertThat(LedgerQueries.storedIdIs(spaced, "1" + ID.substring(1))).isFalse();
        assertThat(LedgerQueries.storedIdIs("{\"id\":".getBytes(StandardCharsets.US_ASCII), ID)).isFalse();
        assertThat(LedgerQueries.storedIdIs(new byte[0], ID)).isFalse();
    }

    @Test
    void anEventWithTwoIdsHasNeither() throws Exception {
        // A damaged log only: the full parse refuses duplicate keys, so the event is not found by either id,
        // as GET /v1/events/{id} does not find it.
        String text = new String(stored(), StandardCharsets.UTF_8);
        String own = "\"id\":\"" + ID + "\"";
        for (String twice : new String[] {text.replace(own, own + ",\"id\":\"other\""),
                text.replace(own, "\"id\":\"other\"," + own)}) {
            assertThat(LedgerQueries.storedIdIs(twice.getBytes(StandardCharsets.UTF_8), ID)).as(twice).isFalse();
        }
    }
}
