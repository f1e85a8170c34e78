package io.trailproof.shipping;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SpoolTest {

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void eventsSerializedOnceMakeTheSameFileAndBodyAsTheEventsThemselves(@TempDir Path dir) throws Exception {
        List<JsonNode> events = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ObjectNode e = json.createObjectNode();
            e.put("agent_id", "a\"gent\u00e9\n" + i);
            e.putObject("action_input").put("temperature", 0.2).put("n", 1L << 40).putArray("list").add("\ud83d\ude00");
            events.add(e);
        }
        List<byte[]> encoded = new ArrayList<>();
        for (JsonNode e : events) {
            encoded.add(json.writeValueAsBytes(e));
        }
        Spool spool = new Spool(dir, json);
        String key = "trailproof-llm-gateway:r\"un:1";
        try (Spool.Entry plain = spool.write("0001-a", key, events);
             Spool.Entry once = spool.writeEncoded("0002-b", key, encoded)) {
            assertThat(Files.readAllBytes(once.path())).isEqualTo(Files.readAllBytes(plain.path()));
            assertThat(once.body()).isEqualTo(plain.body());
            assertThat(once.events).isEqualTo(plain.events);
        }
        try (Spool.Entry empty = spool.writeEncoded("0003-c", key, List.of());
             Spool.Entry plainEmpty = spool.write("0004-d", key, List.of())) {
            assertThat(Files.readAllBytes(empty.path())).isEqualTo(Files.readAllBytes(plainEmpty.path()));
        }
    }
}
