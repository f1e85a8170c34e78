package io.trailproof.core.event;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.json.Rfc8785;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IntactLink} against its reference, {@link IntactEvent#check}: over seeded random events and
 * every one-bit change of them, and over edits that keep the bytes hashing to their hash, both accept
 * exactly the same payloads and read the same link from them.
 */
class IntactLinkTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] AGENTS = {"agent-0", "agent-1", "agënt-2", "agent\"3", "a"};

    private static StoredEvent sealed(Random random, long index) throws Exception {
        ObjectNode fields = JSON.createObjectNode().put("agent_id", AGENTS[random.nextInt(AGENTS.length)]);
        fields.put("action_name", "step " + random.nextInt(1000));
        ObjectNode input = fields.putObject("action_input");
        input.put("hash", "nested fields named hash, prev_hash or agent_id are not the event's");
        input.put("agent_id", AGENTS[random.nextInt(AGENTS.length)]);
        input.put("log_index", random.nextInt());
        input.putArray("list").add(random.nextDouble()).add("é😀\n").add(random.nextLong());
        if (random.nextBoolean()) {
            fields.putObject("labels").put("env", "prod");
        }
        byte[] prev = new byte[EventHash.LENGTH];
        random.nextBytes(prev);
        return StoredEvent.seal(fields, "019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f0" + (index % 10),
                "2026-11-22T00:00:00.000001Z", 1 + random.nextInt(1_000_000), HexFormat.of().formatHex(prev), index);
    }

    /** Both readers on {@code payload}, for every agent a chain may be of: the same answer, the same link. */
    private static void agree(byte[] payload) {
        Optional<IntactEvent> reference = IntactEvent.check(payload);
        for (String agent : AGENTS) {
            IntactLink link = new IntactLink(agent, EventHash.newDigest());
            boolean read = link.read(payload);
            assertThat(read).as(new String(payload, StandardCharsets.UTF_8)).isEqualTo(reference.isPresent());
            if (read) {
                IntactEvent e = reference.get();
                assertThat(link.agentMatches()).isEqualTo(agent.equals(e.agentId()));
                assertThat(link.sequence()).isEqualTo(e.sequence());
                assertThat(link.logIndex()).isEqualTo(e.logIndex());
                assertThat(link.hash()).isEqualTo(e.hashBytes());
                assertThat(link.prevHash()).isEqualTo(HexFormat.of().parseHex(e.prevHash()));
            }
        }
    }

    @Test
    void agreesWithTheReferenceOnIntactEvents() throws Exception {
        Random random = new Random(21);
        for (int i = 0; i < 300; i++) {
            byte[] payload = sealed(random, i).payload();
            assertThat(IntactEvent.check(payload)).isPresent();
            agree(payload);
        }
    }

    @Test
    void agreesWithTheReferenceOnEveryOneBitChange() throws Exception {
        Random random = new Random(22);
        for (int n = 0; n < 3; n++) {
            byte[] original = sealed(random, n).payload();
            for (int pos = 0; pos < original.length; pos++) {
                for (int bit = 0; bit < 8; bit++) {
                    byte[] changed = Arrays.copyOf(original, original.length);
                    changed[pos] ^= (byte) (1 << bit);
                    agree(changed);
                }
            }
        }
    }

    @Test
    void agreesWithTheReferenceOnEditsThatKeepTheHashCorrect() throws Exception {
        Random random = new Random(23);
        String[] members = {"agent_id", "sequence", "prev_hash", "id", "recorded_at", "log_index", "hash"};
        for (int i = 0; i < 300; i++) {
            ObjectNode node = sealed(random, i).json();
            String member = members[random.nextInt(members.length)];
            switch (random.nextInt(5)) {
                case 0 -> node.remove(member);
                case 1 -> node.put(member, random.nextInt(3) - 1);
                case 2 -> node.put(member, "AB".repeat(32));
                case 3 -> node.putNull(member);
                default -> node.put(member, AGENTS[random.nextInt(AGENTS.length)]);
            }
            if (!member.equals("hash")) {
                node.put("hash", EventHash.toHex(EventHash.of(node)));
            }
            agree(Rfc8785.canonicalize(node));
        }
    }

    /**
     * The members a link reads, found by their names' lengths and first bytes: names of the same
     * length and first byte but another (a near miss, with the hash made right again), and the same
     * names spelled with an escape, which Jackson reads as the name itself.
     */
    @Test
    void agreesWithTheReferenceOnNamesSpelledOtherwise() throws Exception {
        Random random = new Random(24);
        String[] members = {"agent_id", "sequence", "prev_hash", "id", "recorded_at", "log_index", "hash"};
        for (int i = 0; i < 40; i++) {
            StoredEvent event = sealed(random, i);
            for (String member : members) {
                ObjectNode node = event.json();
                String nearMiss = member.substring(0, member.length() - 1)
                        + (char) (member.charAt(member.length() - 1) ^ 1);
                node.set(nearMiss, node.remove(member));
                if (!member.equals("hash")) {
                    node.put("hash", EventHash.toHex(EventHash.of(node)));
                }
                agree(Rfc8785.canonicalize(node));

                String text = new String(event.payload(), StandardCharsets.UTF_8);
                String escaped = String.format("\\u%04x", (int) member.charAt(0)) + member.substring(1);
                agree(text.replace("\"" + member + "\":", "\"" + escaped + "\":").getBytes(StandardCharsets.UTF_8));
            }
            agree(new String(event.payload(), StandardCharsets.UTF_8).replace("\"metadata\"", "\"agent_iX\"")
                    .getBytes(StandardCharsets.UTF_8));
        }
    }

    @Test
    void refusesWhatIsNotAStoredEvent() {
        IntactLink link = new IntactLink("a", EventHash.newDigest());
        assertThat(link.read("{not json".getBytes(StandardCharsets.UTF_8))).isFalse();
        assertThat(link.read("[]".getBytes(StandardCharsets.UTF_8))).isFalse();
        assertThat(link.read("{}".getBytes(StandardCharsets.UTF_8))).isFalse();
    }
}
