package io.trailproof.gate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The gate's decision table against a map holding the same rows, over seeded random adds, answers
 * and uses across several doublings of its index and past one mapped chunk of rows, and its file's
 * life: replaced at open, gone at close.
 */
class DecisionTableTest {

    @TempDir
    Path dir;

    private record Expected(int effect, String args, long expires, int answer, long validUntil, long decisionAt,
                            long answerAt, long usedAt) {
    }

    @Test
    void holdsWhatAMapHoldsAcrossGrowth() throws Exception {
        Random random = new Random(20261203);
        Map<String, Expected> reference = new HashMap<>();
        try (DecisionTable table = DecisionTable.open(dir.resolve("t"))) {
            int ids = DecisionTable.ROWS_PER_CHUNK * 3 / 2;   // about 85,000 distinct: rows in two chunks
            for (long i = 0; i < 3L * ids; i++) {
                String id = "decision-" + random.nextInt(ids);
                Expected had = reference.get(id);
                int op = random.nextInt(4);
                if (had == null || op == 0) {
                    int effect = random.nextInt(4);
                    String args = random.nextInt(5) == 0 ? null : hex(random);
                    long expires = random.nextBoolean() ? -1 : random.nextLong(1L << 52);
                    boolean added = table.add(id, effect, args, expires, i);
                    assertThat(added).isEqualTo(had == null);
                    if (had == null) {
                        reference.put(id, new Expected(effect, args, expires, DecisionTable.UNANSWERED, -1, i, -1, -1));
                    }
                } else if (op == 1) {
                    boolean approved = random.nextBoolean();
                    long until = random.nextLong(1L << 52);
                    table.answer(id, approved, until, i);
                    reference.put(id, new Expected(had.effect(), had.args(), had.expires(),
                            approved ? DecisionTable.APPROVED : DecisionTable.REFUSED, until, had.decisionAt(), i, had.usedAt()));
                } else {
                    table.use(id, i);
                    reference.put(id, new Expected(had.effect(), had.args(), had.expires(), had.answer(), had.validUntil(),
                            had.decisionAt(), had.answerAt(), i));
                }
            }
            assertThat(table.size()).isEqualTo(reference.size());
            for (Map.Entry<String, Expected> e : reference.entrySet()) {
                DecisionTable.Row row = table.find(e.getKey());
                Expected x = e.getValue();
                assertThat(row).as(e.getKey()).isNotNull();
                assertThat(row.argsSha256() == null ? null : HexFormat.of().formatHex(row.argsSha256())).isEqualTo(x.args());
                assertThat(new Expected(row.effect(), x.args(), row.expiresAtMicros(), row.answer(), row.validUntilMicros(),
                        row.decisionAt(), row.answerAt(), row.usedAt())).isEqualTo(x);
            }
            for (int i = 0; i < 1000; i++) {
                assertThat(table.find("never-" + i)).isNull();
            }
        }
    }

    @Test
    void aDigestThatIsNotLowerCaseHexIsHeldAsNone() throws Exception {
        try (DecisionTable table = DecisionTable.open(dir.resolve("t"))) {
            String lower = "ab".repeat(32);
            table.add("upper", DecisionTable.ALLOW, lower.toUpperCase(), -1, 1);
            table.add("short", DecisionTable.ALLOW, "abcd", -1, 2);
            table.add("lower", DecisionTable.ALLOW, lower, -1, 3);
            assertThat(table.find("upper").argsSha256()).isNull();
            assertThat(table.find("short").argsSha256()).isNull();
            assertThat(HexFormat.of().formatHex(table.find("lower").argsSha256())).isEqualTo(lower);
        }
    }

    @Test
    void theFileIsScratchReplacedAtOpenAndDeletedAtClose() throws Exception {
        Path file = dir.resolve("t");
        Files.writeString(file, "left by an earlier run");
        DecisionTable table = DecisionTable.open(file);
        assertThat(table.find("x")).isNull();
        table.add("x", DecisionTable.DENY, null, -1, 7);
        assertThat(table.find("x").decisionAt()).isEqualTo(7);
        table.close();
        assertThat(file).doesNotExist();
    }

    /** Fault injection: Java closes the channel of a thread interrupted in its I/O. */
    @Test
    void aChunkThatCannotBeAddedChangesNothingAndTheTableStaysUsable() throws Exception {
        try (DecisionTable table = DecisionTable.open(dir.resolve("t"))) {
            for (int i = 0; i < DecisionTable.ROWS_PER_CHUNK; i++) {
                table.add("decision-" + i, DecisionTable.ALLOW, null, -1, i);
            }
            Thread.currentThread().interrupt();
            try {
                assertThatThrownBy(() -> table.add("next", DecisionTable.DENY, null, -1, 70_000))
                        .isInstanceOf(UncheckedIOException.class).hasMessageContaining("cannot grow");
            } finally {
                Thread.interrupted();
            }
            assertThat(table.size()).isEqualTo(DecisionTable.ROWS_PER_CHUNK);
            assertThat(table.find("next")).isNull();
            assertThat(table.find("decision-7").decisionAt()).isEqualTo(7);
            assertThat(table.add("next", DecisionTable.DENY, null, -1, 70_000)).isTrue();
            assertThat(table.find("next").decisionAt()).isEqualTo(70_000);
            table.use("decision-7", 70_001);
            assertThat(table.find("decision-7").usedAt()).isEqualTo(70_001);
        }
    }

    @Test
    void answeringOrUsingAnUnknownDecisionIsAnError() throws Exception {
        try (DecisionTable table = DecisionTable.open(dir.resolve("t"))) {
            assertThatThrownBy(() -> table.use("nobody", 3)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("nobody");
        }
    }

    private static String hex(Random random) {
        byte[] b = new byte[32];
        random.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
