package io.trailproof.ledger;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventHash;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.testing.HandClock;
import io.trailproof.testing.LogSurgeon;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A start's replay of the log after the chain-head snapshot reads each event in one pass over its
 * bytes; what it takes from an event must be what the full parse (the reference) takes, for intact
 * events, for events whose bytes no longer hash to their {@code hash}, and it must refuse what the
 * full parse refuses.
 */
class RecoveryReplayTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private List<byte[]> storedPayloads(long seed, int count) throws Exception {
        Random random = new Random(seed);
        String[] texts = {"plain", "naïve café", "emoji \uD83D\uDE80", "quote \" and \\ backslash", "tab\tnew\nline", ""};
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(64L << 20, 7), new HandClock("2026-11-22T10:00:00Z"),
                new Random(seed))) {
            for (int i = 0; i < count; i++) {
                ObjectNode e = JSON.createObjectNode().put("agent_id", "agent-" + texts[random.nextInt(texts.length)]
                        + random.nextInt(5));
                e.put("action_name", texts[random.nextInt(texts.length)]);
                ObjectNode input = e.putObject("action_input");
                input.put("n", random.nextInt(1_000_000));
                input.put("x", random.nextDouble() * 1e6);
                input.putArray("list").add(texts[random.nextInt(texts.length)]).add(random.nextBoolean()).addNull();
                ledger.append(List.of(e));
            }
        }
        return LogSurgeon.records(LogSurgeon.onlySegment(dir));
    }

    private static void assertReadLikeTheFullParse(long index, byte[] payload) throws Exception {
        StoredEvent reference = StoredEvent.parse(payload);
        Recovery.Replayed read = Recovery.Replayed.read(index, payload, EventHash.newDigest());
        assertThat(read).isEqualTo(new Recovery.Replayed(reference.agentId(), reference.sequence(), reference.hash(),
                reference.recordedAt()));
    }

    @Test
    void intactEventsGiveWhatTheFullParseGives() throws Exception {
        List<byte[]> payloads = storedPayloads(7, 300);
        assertThat(payloads).hasSize(300);
        MessageDigest shared = EventHash.newDigest();
        for (int i = 0; i < payloads.size(); i++) {
            assertReadLikeTheFullParse(i, payloads.get(i));
            // One digest kept for the whole replay gives the same answers.
            StoredEvent reference = StoredEvent.parse(payloads.get(i));
            assertThat(Recovery.Replayed.read(i, payloads.get(i), shared).hash()).isEqualTo(reference.hash());
        }
    }

    @Test
    void eventsWhoseBytesNoLongerHashToTheirHashAreReadByTheFullParseAsBefore() throws Exception {
        List<byte[]> payloads = storedPayloads(11, 40);
        Random random = new Random(11);
        int changed = 0;
        for (int i = 0; i < payloads.size(); i++) {
            String text = new String(payloads.get(i), StandardCharsets.UTF_8);
            // A digit of the input's number changed: still a readable stored event, no longer intact.
            int at = text.indexOf("\"n\":") + 5;
            char c = text.charAt(at);
            if (c < '0' || c > '9') {
                continue;
            }
            char other = (char) ('0' + (c - '0' + 1 + random.nextInt(8)) % 10);
            byte[] altered = (text.substring(0, at) + other + text.substring(at + 1)).getBytes(StandardCharsets.UTF_8);
            assertThat(StoredEvent.parse(altered).recomputeHash()).isNotEqualTo(StoredEvent.parse(altered).hashBytes());
            assertReadLikeTheFullParse(i, altered);
            changed++;
        }
        assertThat(changed).isGreaterThan(20);
    }

    @Test
    void whatTheFullParseRefusesTheReplayRefusesNamingTheIndex() throws Exception {
        byte[] payload = storedPayloads(13, 1).get(0);
        List<byte[]> refused = new ArrayList<>();
        refused.add(Arrays.copyOf(payload, payload.length - 1));
        refused.add(new String(payload, StandardCharsets.UTF_8).replace("\"sequence\":1", "\"sequence\":0")
                .getBytes(StandardCharsets.UTF_8));
        refused.add(new String(payload, StandardCharsets.UTF_8).replace("\"agent_id\":", "\"agent\":")
                .getBytes(StandardCharsets.UTF_8));
        refused.add("[]".getBytes(StandardCharsets.UTF_8));
        for (byte[] bad : refused) {
            assertThatThrownBy(() -> StoredEvent.parse(bad)).isNotNull();
            assertThatThrownBy(() -> Recovery.Replayed.read(41, bad, EventHash.newDigest()))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("log index 41")
                    .hasMessageContaining("the log has been altered");
        }
    }
}
