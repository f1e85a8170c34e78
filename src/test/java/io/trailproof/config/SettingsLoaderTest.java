package io.trailproof.config;

import io.trailproof.core.redaction.RedactionRule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SettingsLoaderTest {

    @TempDir
    Path dir;

    @Test
    void defaults() throws Exception {
        Settings s = SettingsLoader.load(Map.of(), Map.of(), null, false);
        assertThat(s.host()).isEqualTo("127.0.0.1");
        assertThat(s.port()).isEqualTo(7600);
        String home = System.getenv("HOME") != null ? System.getenv("HOME") : System.getProperty("user.home");
        assertThat(s.dataDir()).isEqualTo(Path.of(home, ".trailproof"));
        assertThat(s.apiKeys()).isEmpty();
        assertThat(s.maxBodyBytes()).isEqualTo(16L << 20);
        assertThat(s.maxBatchEvents()).isEqualTo(10_000);
        assertThat(s.defaultTsaUrl().toString()).isEqualTo("http://timestamp.digicert.com");
        assertThat(s.timestampTimeoutMs()).isEqualTo(10_000);
        assertThat(s.verifyInterval()).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void precedenceIsFlagThenEnvironmentThenFileThenDefault() throws Exception {
        Path file = dir.resolve("t.properties");
        Files.writeString(file, "server.port=7001\nserver.host=127.0.0.2\ndata.dir=/tmp/from-file\n");
        Map<String, String> env = Map.of("TRAILPROOF_SERVER_PORT", "7002", "TRAILPROOF_DATA_DIR", "/tmp/from-env",
                "TRAILPROOF_URL", "http://ignored-by-serve");
        Settings s = SettingsLoader.load(Map.of("server.port", "7003"), env, file, false);
        assertThat(s.port()).isEqualTo(7003);
        assertThat(s.dataDir()).isEqualTo(Path.of("/tmp/from-env"));
        assertThat(s.host()).isEqualTo("127.0.0.2");
    }

    @Test
    void theFormerNameOfTheSnapshotIntervalStillWorksWithAWarningAndTheNewNameWins() throws Exception {
        Path file = dir.resolve("t.properties");
        Files.writeString(file, "checkpoint.interval-events=64\n");
        List<String> warnings = new ArrayList<>();
        Settings s = SettingsLoader.load(Map.of(), Map.of(), file, false, warnings);
        assertThat(s.snapshotIntervalEvents()).isEqualTo(64);
        assertThat(warnings).singleElement().asString().contains("checkpoint.interval-events")
                .contains("recovery.snapshot-interval-events").contains(file.toString()).contains("deprecated");

        Files.writeString(file, "checkpoint.interval-events=64\nrecovery.snapshot-interval-events=65\n");
        warnings.clear();
        assertThat(SettingsLoader.load(Map.of(), Map.of(), file, false, warnings).snapshotIntervalEvents())
                .isEqualTo(65);
        assertThat(warnings).hasSize(1);

        warnings.clear();
        s = SettingsLoader.load(Map.of("checkpoint.interval-events", "66"),
                Map.of("TRAILPROOF_CHECKPOINT_INTERVAL_EVENTS", "67"), null, false, warnings);
        assertThat(s.snapshotIntervalEvents()).isEqualTo(66);
        assertThat(warnings).hasSize(2).anySatisfy(w -> assertThat(w).contains("TRAILPROOF_CHECKPOINT_INTERVAL_EVENTS")
                .contains("TRAILPROOF_RECOVERY_SNAPSHOT_INTERVAL_EVENTS"));
        assertThat(SettingsLoader.load(Map.of(), Map.of("TRAILPROOF_CHECKPOINT_INTERVAL_EVENTS", "67"), null, false)
                .snapshotIntervalEvents()).isEqualTo(67);

        assertThatThrownBy(() -> SettingsLoader.load(Map.of("checkpoint.interval-events", "zero"), Map.of(), null, false))
                .isInstanceOf(ConfigException.class).hasMessageContaining("recovery.snapshot-interval-events")
                .hasMessageContaining("checkpoint.interval-events");
        assertThat(SettingsLoader.load(Map.of(), Map.of(), null, false).snapshotIntervalEvents()).isEqualTo(100_000);
    }

    @Test
    void unknownKeyInFileStopsTheStartNamingIt() throws Exception {
        Path file = dir.resolve("t.properties");
        Files.writeString(file, "server.prot=7001\n");
        assertThatThrownBy(() -> SettingsLoader.load(Map.of(), Map.of(), file, false))
                .isInstanceOf(ConfigException.class).hasMessageContaining("server.prot").hasMessageContaining(file.toString());
    }

    @Test
    void badValuesStopTheStartNamingKeyAndSource() {
        assertThatThrownBy(() -> SettingsLoader.load(Map.of("server.port", "seventy"), Map.of(), null, false))
                .hasMessageContaining("server.port").hasMessageContaining("seventy").hasMessageContaining("command line");
        assertThatThrownBy(() -> SettingsLoader.load(Map.of(), Map.of("TRAILPROOF_SERVER_PORT", "70000"), null, false))
                .hasMessageContaining("server.port").hasMessageContaining("TRAILPROOF_SERVER_PORT");
        assertThatThrownBy(() -> SettingsLoader.load(Map.of("verify.interval", "hourly"), Map.of(), null, false))
                .hasMessageContaining("verify.interval");
        assertThatThrownBy(() -> SettingsLoader.load(Map.of("timestamp.default-tsa-url", "ftp://x"), Map.of(), null, false))
                .hasMessageContaining("timestamp.default-tsa-url");
        assertThatThrownBy(() -> SettingsLoader.load(Map.of("limits.max-batch-events", "0"), Map.of(), null, false))
                .hasMessageContaining("limits.max-batch-events");
        for (String share : new String[] {"0", "1.5", "-0.1", "quarter", "NaN", "1e-3", ""}) {
            assertThatThrownBy(() -> SettingsLoader.load(Map.of("verify.cpu-share", share), Map.of(), null, false))
                    .as(share).hasMessageContaining("verify.cpu-share").hasMessageContaining("such as 0.25");
        }
    }

    @Test
    void theVerificationShareIsADecimal() throws Exception {
        assertThat(SettingsLoader.load(Map.of("verify.cpu-share", "0.5"), Map.of(), null, false).hardening().verifyCpuShare())
                .isEqualTo(0.5);
        assertThat(SettingsLoader.load(Map.of("verify.cpu-share", "1"), Map.of(), null, false).hardening().verifyCpuShare())
                .isEqualTo(1.0);
    }

    @Test
    void apiKeysWithRolesAndNeverEchoed() throws Exception {
        Settings s = SettingsLoader.load(Map.of("auth.api-keys", "all-secret,ing-secret:ingest+read"), Map.of(), null, false);
        assertThat(s.apiKeys()).hasSize(2);
        assertThat(s.apiKeys().get(0).roles()).containsExactlyInAnyOrder(ApiKey.Role.values());
        assertThat(s.apiKeys().get(1).roles()).containsExactlyInAnyOrder(ApiKey.Role.INGEST, ApiKey.Role.READ);
        assertThat(s.apiKeys().toString()).doesNotContain("secret");
        assertThatThrownBy(() -> SettingsLoader.load(Map.of("auth.api-keys", "top-secret:superuser"), Map.of(), null, false))
                .hasMessageContaining("superuser").satisfies(e -> assertThat(e.getMessage()).doesNotContain("top-secret"));
    }

    @Test
    void shippedPropertiesFileListsEveryKeyWithItsDefault() throws Exception {
        Properties shipped = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of("config", "trailproof.properties"))) {
            shipped.load(r);
        }
        for (ConfigKey key : ConfigKey.values()) {
            assertThat(shipped.getProperty(key.key())).as(key.key()).isEqualTo(key.defaultValue());
        }
        assertThat(shipped.stringPropertyNames()).hasSize(ConfigKey.values().length);
        // And the shipped file itself is a valid configuration.
        assertThat(SettingsLoader.load(Map.of(), Map.of(), Path.of("config", "trailproof.properties"), false).port())
                .isEqualTo(7600);
        assertThat(Set.of(ConfigKey.values())).isNotEmpty();
    }

    /** One row of src/site/configuration.md's tables: {@code | `key` | default | meaning |}. */
    private static final Pattern DOC_ROW = Pattern.compile("^\\| `([a-z0-9.<>_-]+)` \\| (.*?) \\|");

    @Test
    void configurationMdDocumentsEveryKeyWithItsDefaultAndNoOtherKey() throws Exception {
        Map<String, String> documented = new LinkedHashMap<>();
        String doc = Files.readString(Path.of("src", "site", "configuration.md"));
        for (String line : doc.lines().toList()) {
            Matcher m = DOC_ROW.matcher(line);
            if (m.find()) {
                assertThat(documented.put(m.group(1), m.group(2))).as("documented twice: " + m.group(1)).isNull();
            }
        }
        for (ConfigKey key : ConfigKey.values()) {
            assertThat(documented).as("configuration.md documents " + key.key()).containsKey(key.key());
            String cell = documented.get(key.key());
            if (key.defaultValue().isEmpty()) {
                // an empty default is described in words: "(none)", "(the key's name, ...)"
                assertThat(cell).as(key.key()).startsWith("(");
            } else {
                assertThat(cell).as(key.key()).isEqualTo("`" + key.defaultValue() + "`");
            }
            key.deprecatedName().ifPresent(old -> assertThat(doc).as("the former name " + old).contains("`" + old + "`"));
        }
        Set<String> known = new HashSet<>();
        for (ConfigKey key : ConfigKey.values()) {
            known.add(key.key());
        }
        known.add(ConfigKey.KAFKA_PASS_THROUGH_PREFIX + "<property>");
        assertThat(documented.keySet()).as("keys documented in configuration.md that do not exist").isSubsetOf(known);
    }

    @Test
    void aRedactionRulesFileWithABadLineStopsTheStartNamingTheLine(@TempDir Path tmp)
            throws Exception {
        Path rules = tmp.resolve("rules.txt");
        Files.writeString(rules, "ticket = TCK-[0-9]+\nbroken = [unclosed\n");
        assertThatThrownBy(() -> SettingsLoader.load(Map.of("redaction.rules", rules.toString()), Map.of(), null, false))
                .isInstanceOf(ConfigException.class).hasMessageContaining("redaction.rules")
                .hasMessageContaining("line 2: rule 'broken' is not a valid regular expression");
        Files.writeString(rules, "ticket = TCK-[0-9]+\n");
        Settings s = SettingsLoader.load(Map.of("redaction.rules", rules.toString(), "redaction.enabled", "true"), Map.of(),
                null, false);
        assertThat(s.redaction().extraRules()).extracting(RedactionRule::name)
                .containsExactly("ticket");
        assertThat(s.redaction().redactor().rules()).hasSize(18);
        assertThat(SettingsLoader.load(Map.of(), Map.of(), null, false).redaction().redactor()).isNull();
    }

    @Test
    void clusterModeIsOffByDefaultAndNeedsServersAndANodeIdWhenOn(@TempDir Path tmp)
            throws Exception {
        Settings.Cluster off = SettingsLoader.load(Map.of(), Map.of(), null, false).cluster();
        assertThat(off.kafka()).isFalse();
        assertThat(off.topic()).isEqualTo("trailproof-log");
        assertThat(off.replicationFactor()).isEqualTo(3);
        assertThat(off.writeTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(off.readWait()).isEqualTo(Duration.ofSeconds(10));
        assertThat(off.allowUnsafeTopic()).isFalse();
        assertThat(off.kafkaProperties()).isEmpty();

        assertThatThrownBy(() -> SettingsLoader.load(Map.of("cluster.mode", "kafka", "cluster.node-id", "n1"), Map.of(),
                null, false)).isInstanceOf(ConfigException.class).hasMessageContaining("cluster.bootstrap-servers");
        assertThatThrownBy(() -> SettingsLoader.load(Map.of("cluster.mode", "kafka", "cluster.bootstrap-servers", "h:9092"),
                Map.of(), null, false)).isInstanceOf(ConfigException.class).hasMessageContaining("cluster.node-id");
        assertThatThrownBy(() -> SettingsLoader.load(Map.of("cluster.mode", "raft"), Map.of(), null, false))
                .isInstanceOf(ConfigException.class).hasMessageContaining("embedded or kafka");
        assertThatThrownBy(() -> SettingsLoader.load(Map.of("cluster.topic", "bad topic"), Map.of(), null, false))
                .isInstanceOf(ConfigException.class).hasMessageContaining("cluster.topic");

        Path file = tmp.resolve("c.properties");
        Files.writeString(file, "cluster.mode=kafka\ncluster.bootstrap-servers=a:9092,b:9092\n"
                + "cluster.node-id=n1\ncluster.kafka.security.protocol=SSL\n");
        Settings.Cluster on = SettingsLoader.load(Map.of("cluster.kafka.ssl.truststore.location", "/t.jks"),
                Map.of("TRAILPROOF_CLUSTER_WRITE_TIMEOUT", "PT3S"), file, false).cluster();
        assertThat(on.kafka()).isTrue();
        assertThat(on.bootstrapServers()).isEqualTo("a:9092,b:9092");
        assertThat(on.nodeId()).isEqualTo("n1");
        assertThat(on.writeTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(on.kafkaProperties()).containsExactlyInAnyOrderEntriesOf(Map.of("security.protocol", "SSL",
                "ssl.truststore.location", "/t.jks"));
        assertThatThrownBy(() -> SettingsLoader.load(Map.of("cluster.kafka.", "x"), Map.of(), null, false))
                .isInstanceOf(ConfigException.class).hasMessageContaining("names no Kafka client property");
    }

    @Test
    void retentionIsOffByDefaultAndBelowSixMonthsOnlyWhenAllowed() throws Exception {
        assertThat(SettingsLoader.load(Map.of(), Map.of(), null, false).erasure().contentAfter()).isNull();
        assertThat(SettingsLoader.load(Map.of("retention.content-after", "P1Y"), Map.of(), null, false).erasure()
                .contentAfter().toString()).isEqualTo("P1Y");
        assertThat(SettingsLoader.load(Map.of("retention.content-after", "P6M"), Map.of(), null, false).erasure()
                .contentAfter()).isNotNull();
        assertThatThrownBy(() -> SettingsLoader.load(Map.of("retention.content-after", "P30D"), Map.of(), null, false))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("retention.content-after").hasMessageContaining("P6M")
                .hasMessageContaining("retention.allow-short=true");
        assertThat(SettingsLoader.load(Map.of("retention.content-after", "P30D", "retention.allow-short", "true"), Map.of(),
                null, false).erasure().contentAfter().toString()).isEqualTo("P30D");
        assertThatThrownBy(() -> SettingsLoader.load(Map.of("retention.content-after", "1 year"), Map.of(), null, false))
                .isInstanceOf(ConfigException.class).hasMessageContaining("retention.content-after");
    }

    @Test
    void anErasureGivesWayToIngestionAtTheShareSetAndABadShareStopsTheStart() throws Exception {
        assertThat(SettingsLoader.load(Map.of(), Map.of(), null, false).erasure().shareWhileIngesting()).isEqualTo(0.25);
        assertThat(SettingsLoader.load(Map.of("erasure.share-while-ingesting", "1"), Map.of(), null, false).erasure()
                .shareWhileIngesting()).isEqualTo(1.0);
        for (String bad : new String[] {"0", "1.5", "-0.2", "half", ""}) {
            assertThatThrownBy(() -> SettingsLoader.load(Map.of("erasure.share-while-ingesting", bad), Map.of(), null,
                    false)).as(bad).isInstanceOf(ConfigException.class).hasMessageContaining("erasure.share-while-ingesting");
        }
    }
}
