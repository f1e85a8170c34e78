package io.trailproof.backup;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackupManifestTest {

    private static final String H = "ab".repeat(32);

    private static BackupManifest parse(String json) {
        return BackupManifest.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    private static String with(String name) {
        return "{\"format\":\"trailproof-backup/1\",\"created_at\":\"2026-11-25T19:00:00Z\",\"tree_size\":3,"
                + "\"root\":\"" + H + "\",\"files\":[{\"name\":\"" + name + "\",\"size\":5,\"sha256\":\"" + H + "\"}]}";
    }

    @Test
    void roundTrips() {
        BackupManifest m = new BackupManifest(Instant.parse("2026-11-25T19:00:00Z"), 42, H, List.of(
                new BackupManifest.FileEntry("log/00000000000000000000.seg", 1234, H),
                new BackupManifest.FileEntry("timestamps/00000000000000000000.seg", 0, H),
                new BackupManifest.FileEntry("keys/checkpoint.key", 90, H),
                new BackupManifest.FileEntry("tlog/checkpoint", 200, H),
                new BackupManifest.FileEntry("tlog/witness-alarms/w.example+0a1b2c3d", 10, H)));
        assertThat(BackupManifest.parse(m.toJson())).isEqualTo(m);
    }

    @Test
    void acceptsTheFilesABackupHolds() {
        assertThat(parse(with("log/00000000000000000123.seg")).files()).hasSize(1);
    }

    @Test
    void refusesNamesThatAreNotOursOrLeaveTheDirectory() {
        for (String bad : new String[] {"../x", "/etc/passwd", "log/../../x.seg", "log/0.seg", "index/current",
                "checkpoint", "head-snapshot", "log/forced-size", "tlog/witness-alarms/..", "tlog/witness-alarms/.hidden",
                "tlog/witness-alarms/a/b", "MANIFEST.json", "keys/other.key", "log\\\\00000000000000000000.seg"}) {
            assertThatThrownBy(() -> parse(with(bad))).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not a file a backup holds");
        }
    }

    @Test
    void refusesMalformedManifests() {
        String ok = with("tlog/checkpoint");
        assertThatThrownBy(() -> parse(ok.replace("trailproof-backup/1", "other/1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("format");
        assertThatThrownBy(() -> parse(ok.replace("\"tree_size\":3", "\"tree_size\":-3")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tree_size");
        assertThatThrownBy(() -> parse(ok.replace("\"root\":\"" + H, "\"root\":\"" + H.toUpperCase())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("root");
        assertThatThrownBy(() -> parse(ok.replace("{\"format\"", "{\"extra\":1,\"format\"")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown member");
        assertThatThrownBy(() -> parse(ok.replace("]}", ",{\"name\":\"tlog/checkpoint\",\"size\":1,\"sha256\":\"" + H
                + "\"}]}"))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
        assertThatThrownBy(() -> parse("[1]")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> parse("{")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("JSON");
    }
}
