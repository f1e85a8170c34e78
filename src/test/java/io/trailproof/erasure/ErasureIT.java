package io.trailproof.erasure;

import io.trailproof.testing.ByteSearch;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Erasure against the real server (src/site/erasure.md): the erased events keep their integrity
 * fields and hash, verification accepts them and counts them, searches no longer find the content,
 * and no byte of it is left in any file of the data directory (nor in any term or doc value of the
 * search index, whose files may compress), while the other events' content still is.
 */
class ErasureIT {

    @TempDir
    Path dir;

    @Test
    void erasedContentIsGoneFromEveryFileAndEveryProofStillHolds() throws Exception {
        Path data = dir.resolve("data");
        List<String> erasedIds = new ArrayList<>();
        String hashBefore;
        try (InProcessServer s = InProcessServer.start(data, "log.segment-bytes", "4096")) {
            Api api = s.api();
            for (int i = 0; i < 30; i++) {
                api.post("/v1/events", "{\"agent_id\":\"bob\",\"session_id\":\"keepsession" + i
                        + "\",\"action_input\":{\"note\":\"keepmarkerzq" + i + "\"}}");
                Api.Reply r = api.post("/v1/events", "{\"agent_id\":\"alice\",\"session_id\":\"s1\","
                        + "\"action_input\":{\"email\":\"erasemarkerqx" + i + "@example.com\"}}");
                assertThat(r.status()).isEqualTo(201);
                if (i % 3 == 0) {
                    erasedIds.add(r.json().get("id").asText());
                }
            }
            api.post("/v1/events", "{\"agent_id\":\"alice\",\"session_id\":\"s2\",\"action_input\":{\"x\":\"alicekeep\"}}");
            JsonNode first = api.get("/v1/events/" + erasedIds.get(0)).json();
            hashBefore = first.get("hash").asText();
            String root = api.get("/v1/merkle/root").json().get("root").asText();
            assertThat(api.get("/v1/search?q=erasemarkerqx0%40example.com").json().get("total").asLong()).isEqualTo(1);

            // bad bodies erase nothing
            assertThat(api.post("/v1/admin/erasures", "{\"agent_id\":\"alice\"}").status()).isEqualTo(400);
            assertThat(api.post("/v1/admin/erasures", "{\"event_ids\":[\"" + erasedIds.get(0)
                    + "\"],\"agent_id\":\"alice\",\"reason\":\"r\"}").status()).isEqualTo(400);
            assertThat(api.post("/v1/admin/erasures", "{\"agent_id\":\"alice\",\"reason\":\"r\",\"fields\":[\"agent_id\"]}")
                    .status()).isEqualTo(400);
            assertThat(api.post("/v1/admin/erasures", "{\"event_ids\":[\"" + erasedIds.get(0)
                    + "\",\"0190c7a0-0000-7000-8000-000000000000\"],\"reason\":\"r\"}").status()).isEqualTo(404);
            assertThat(api.post("/v1/events", "{\"agent_id\":\"trailproof.erasures\"}").status()).isEqualTo(400);

            JsonNode dry = api.post("/v1/admin/erasures", "{\"agent_id\":\"alice\",\"session_id\":\"s1\","
                    + "\"reason\":\"data subject request\",\"dry_run\":true}").json();
            assertThat(dry.get("would_erase").asLong()).isEqualTo(30);
            assertThat(dry.get("already_erased").asLong()).isZero();

            StringBuilder ids = new StringBuilder();
            for (String id : erasedIds) {
                ids.append(ids.isEmpty() ? "" : ",").append('"').append(id).append('"');
            }
            Api.Reply byIds = api.post("/v1/admin/erasures", "{\"event_ids\":[" + ids + "],\"reason\":\"ticket 7\"}");
            assertThat(byIds.status()).as(byIds.body()).isEqualTo(200);
            assertThat(byIds.json().get("erased").asLong()).isEqualTo(erasedIds.size());
            Api.Reply rest = api.post("/v1/admin/erasures", "{\"agent_id\":\"alice\",\"session_id\":\"s1\","
                    + "\"reason\":\"data subject request\"}");
            assertThat(rest.status()).as(rest.body()).isEqualTo(200);
            assertThat(rest.json().get("erased").asLong()).isEqualTo(30 - erasedIds.size());
            // the events erased first no longer carry their session_id, so the session selects them no more
            assertThat(rest.json().get("already_erased").asLong()).isZero();

            JsonNode erased = api.get("/v1/events/" + erasedIds.get(0)).json();
            assertThat(erased.get("hash").asText()).isEqualTo(hashBefore);
            assertThat(erased.has("action_input")).isFalse();
            assertThat(erased.has("session_id")).isFalse();
            assertThat(erased.get("erased").get("erasure_id").asText()).isEqualTo(byIds.json().get("erasure_id").asText());
            assertThat(api.get("/v1/merkle/proof?event_id=" + erasedIds.get(0) + "&tree_size=61").json().get("root")
                    .asText()).isEqualTo(root);
            JsonNode verify = api.get("/v1/verify?agent_id=alice").json();
            assertThat(verify.get("valid").asBoolean()).as(verify.toString()).isTrue();
            assertThat(verify.get("erased").asLong()).isEqualTo(30);
            assertThat(api.get("/v1/verify?agent_id=trailproof.erasures").json().get("valid").asBoolean()).isTrue();
            assertThat(api.get("/v1/search?q=erasemarkerqx0%40example.com").json().get("total").asLong()).isZero();
            assertThat(api.get("/v1/search?q=keepmarkerzq3").json().get("total").asLong()).isEqualTo(1);
            JsonNode listed = api.get("/v1/admin/erasures").json();
            assertThat(listed.size()).isEqualTo(2);
            assertThat(listed.get(0).get("id").asText()).isEqualTo(rest.json().get("erasure_id").asText());
            assertThat(listed.get(0).at("/action_input/reason").asText()).isEqualTo("data subject request");

            assertThat(containsAnywhere(data, "erasemarkerqx")).isFalse();
            assertThat(containsAnywhere(data, "keepmarkerzq")).isTrue();
        }
        // after a restart everything still holds, and nothing came back
        try (InProcessServer s = InProcessServer.start(data, "log.segment-bytes", "4096")) {
            Api api = s.api();
            assertThat(api.get("/v1/verify?agent_id=alice").json().get("erased").asLong()).isEqualTo(30);
            assertThat(api.get("/v1/events/" + erasedIds.get(1)).json().has("erased")).isTrue();
        }
        assertThat(containsAnywhere(data, "erasemarkerqx")).isFalse();
        assertThat(indexTermsContain(data, "erasemarkerqx")).isFalse();
        assertThat(indexTermsContain(data, "keepmarkerzq")).isTrue();
    }

    /** A raw byte search of every file under {@code root}. */
    static boolean containsAnywhere(Path root, String marker) throws IOException {
        byte[] needle = marker.getBytes(StandardCharsets.UTF_8);
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                if (ByteSearch.find(Files.readAllBytes(f), needle) >= 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Every term of every field and every sorted doc value of every Lucene index under {@code root}
     * (their files may compress, so a byte search alone could miss a trace), and no deleted document.
     */
    static boolean indexTermsContain(Path root, String marker) throws IOException {
        List<Path> indexes = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(p -> p.getFileName().toString().startsWith("segments_")).forEach(p -> indexes.add(p.getParent()));
        }
        assertThat(indexes).isNotEmpty();
        boolean found = false;
        for (Path index : indexes) {
            try (DirectoryReader reader = DirectoryReader.open(FSDirectory.open(index))) {
                assertThat(reader.numDeletedDocs()).as("deleted documents merged away").isZero();
                for (LeafReaderContext leaf : reader.leaves()) {
                    for (FieldInfo fi : leaf.reader().getFieldInfos()) {
                        Terms terms = leaf.reader().terms(fi.name);
                        if (terms != null) {
                            TermsEnum it = terms.iterator();
                            for (BytesRef t = it.next(); t != null; t = it.next()) {
                                found |= t.utf8ToString().contains(marker);
                            }
                        }
                        SortedDocValues dv = fi.getDocValuesType() == DocValuesType.SORTED
                                ? leaf.reader().getSortedDocValues(fi.name) : null;
                        if (dv != null) {
                            for (int o = 0; o < dv.getValueCount(); o++) {
                                found |= dv.lookupOrd(o).utf8ToString().contains(marker);
                            }
                        }
                    }
                }
            }
        }
        return found;
    }
}
