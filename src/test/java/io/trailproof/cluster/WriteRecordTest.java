package io.trailproof.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.json.StrictJson;
import io.trailproof.core.note.NoteSignature;
import io.trailproof.core.note.TlogCheckpoint;
import io.trailproof.core.note.TlogCosignature;
import io.trailproof.core.timestamp.TimestampRecord;
import io.trailproof.ledger.DedupeKey;
import io.trailproof.ledger.DedupeRecord;
import io.trailproof.ledger.Submission;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class WriteRecordTest {

    private static ObjectNode fields(String json) throws Exception {
        return (ObjectNode) StrictJson.parse(json.getBytes(StandardCharsets.UTF_8), 64);
    }

    @Test
    void aKeyedBatchRoundTripsAndEncodesTheSameBytesAgain() throws Exception {
        DedupeKey key = DedupeKey.of(DedupeRecord.IDEMPOTENCY_KEY, "scope", "/v1/batch", "k");
        byte[] content = DedupeKey.contentDigest("body".getBytes());
        WriteRecord r = new WriteRecord("n1", "req-1",
                List.of(new Submission(fields("{\"agent_id\":\"a\",\"metadata\":{\"x\":4.5,\"big\":1e30,\"s\":\"é\\u2028\"}}"), 7)),
                key, content, new AnswerSpec.Batch(new String[] {"bad item", null}));
        byte[] bytes = r.encode();
        WriteRecord back = WriteRecord.decode(bytes);
        assertThat(back.nodeId()).isEqualTo("n1");
        assertThat(back.requestId()).isEqualTo("req-1");
        assertThat(back.key()).isEqualTo(key);
        assertThat(back.contentDigest()).isEqualTo(content);
        assertThat(((AnswerSpec.Batch) back.answer()).refused()).containsExactly("bad item", null);
        assertThat(back.events().get(0).sizeAllowance()).isEqualTo(7);
        assertThat(back.events().get(0).fields()).isEqualTo(r.events().get(0).fields());
        assertThat(back.encode()).isEqualTo(bytes);
    }

    @Test
    void anUnkeyedSingleHasNoKey() throws Exception {
        WriteRecord back = WriteRecord.decode(new WriteRecord("n", "r", List.of(new Submission(fields("{\"agent_id\":\"a\"}"), 0)),
                null, null, new AnswerSpec.Single()).encode());
        assertThat(back.key()).isNull();
        assertThat(back.answer()).isInstanceOf(AnswerSpec.Single.class);
    }

    @Test
    void theSpansOfAnExportCarryTheirMarks() throws Exception {
        DedupeKey m1 = DedupeKey.of(DedupeRecord.OTLP_SPAN, "t", "s1");
        DedupeKey m2 = DedupeKey.of(DedupeRecord.OTLP_SPAN, "t", "s2");
        WriteRecord r = new WriteRecord("n", "r", List.of(new Submission(fields("{\"agent_id\":\"a\"}"), 0),
                new Submission(fields("{\"agent_id\":\"b\"}"), 3)), null, null, new AnswerSpec.Spans(), List.of(m1, m2));
        byte[] bytes = r.encode();
        WriteRecord back = WriteRecord.decode(bytes);
        assertThat(back.answer()).isInstanceOf(AnswerSpec.Spans.class);
        assertThat(back.marks()).containsExactly(m1, m2);
        assertThat(back.key()).isNull();
        assertThat(back.encode()).isEqualTo(bytes);
        assertThat(WriteRecord.decode(new WriteRecord("n", "r", List.of(new Submission(fields("{\"agent_id\":\"a\"}"), 0)),
                null, null, new AnswerSpec.Single()).encode()).marks()).isEmpty();
        // a spans record with an event lacking its mark cannot be applied: refused, not skipped
        String broken = new String(bytes, StandardCharsets.UTF_8).replaceFirst("\"mark\":\\{[^}]*\\},", "");
        assertThatThrownBy(() -> WriteRecord.decode(broken.getBytes(StandardCharsets.UTF_8))).isInstanceOf(IOException.class);
    }

    @Test
    void somethingElseIsRefusedNotSkipped() {
        assertThatThrownBy(() -> WriteRecord.decode("{\"v\":2}".getBytes())).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> WriteRecord.decode("not json".getBytes())).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> WriteRecord.decode(new byte[0])).isInstanceOf(IOException.class);
    }

    @Test
    void aTimestampRecordRoundTripsAndIsToldApartFromWrites() throws Exception {
        TimestampRecord record = new TimestampRecord("id-1",
                "ab".repeat(32), 7, "tsa.example", "http://tsa.example/", "2026-03-01T10:00:00Z",
                "2026-03-01T10:00:00Z", "01", "1.2.3", "SHA-256", "02", "AA==", List.of("AQ=="));
        byte[] value = new TimestampWrite("n1", "r1", record).encode();
        var parsed = WriteRecord.parse(value);
        assertThat(TimestampWrite.is(parsed)).isTrue();
        assertThat(TimestampWrite.decode(parsed)).isEqualTo(new TimestampWrite("n1", "r1", record));
        assertThatThrownBy(() -> WriteRecord.decode(value)).isInstanceOf(IOException.class);
        byte[] write = new WriteRecord("n1", "r2", List.of(), null, null, new AnswerSpec.Single()).encode();
        assertThat(TimestampWrite.is(WriteRecord.parse(write))).isFalse();
    }

    @Test
    void aCosignatureRecordRoundTripsAndIsToldApartFromWritesAndTimestamps() throws Exception {
        TlogCheckpoint cp = TlogCheckpoint.of("example.com/log", 7,
                new byte[32]);
        NoteSignature sig = TlogCosignature.sign("w.example",
                new byte[32], 1_700_000_000L, cp.text());
        byte[] value = new CosignatureWrite("n1", "r1", cp, sig).encode();
        var parsed = WriteRecord.parse(value);
        assertThat(CosignatureWrite.is(parsed)).isTrue();
        assertThat(TimestampWrite.is(parsed)).isFalse();
        CosignatureWrite back = CosignatureWrite.decode(parsed);
        assertThat(back.checkpoint()).isEqualTo(cp);
        assertThat(back.cosignature()).isEqualTo(sig);
        assertThat(back.nodeId()).isEqualTo("n1");
        assertThat(back.requestId()).isEqualTo("r1");
        assertThatThrownBy(() -> WriteRecord.decode(value)).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> CosignatureWrite.decode(WriteRecord.parse(
                "{\"v\":1,\"answer\":\"cosignature\",\"checkpoint\":\"x\",\"cosignature\":\"y\"}".getBytes())))
                .isInstanceOf(IOException.class);
        byte[] write = new WriteRecord("n1", "r2", List.of(), null, null, new AnswerSpec.Single()).encode();
        assertThat(CosignatureWrite.is(WriteRecord.parse(write))).isFalse();
    }
}
