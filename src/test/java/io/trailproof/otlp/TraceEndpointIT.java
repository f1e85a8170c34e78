package io.trailproof.otlp;

import static io.trailproof.otlp.Spans.request;
import static io.trailproof.otlp.Spans.span;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.CodedInputStream;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code POST /v1/traces} against the real server: encodings, answers, refusals, dedupe over a restart. */
class TraceEndpointIT {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String INGEST = "otlp-ingest-secret-1";
    static final String READ = "otlp-read-secret-2";

    @TempDir
    Path dir;

    InProcessServer start() throws Exception {
        return InProcessServer.start(dir.resolve("data"), "auth.api-keys", INGEST + ":ingest," + READ + ":read");
    }

    static JsonNode get(InProcessServer s, String path) throws Exception {
        return JSON.readTree(new Api(s.server().port()).send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + s.server().port() + path))
                .header("Authorization", "Bearer " + READ).GET()).body());
    }

    @Test
    void protobufAndJsonExportsAreStoredAndAnsweredInTheirEncoding() throws Exception {
        try (InProcessServer s = start()) {
            OtlpClient c = new OtlpClient(s.server().port(), INGEST);
            OtlpClient.Answer pb = c.protobuf(request(span("a", 1, 1, 0, "chat")).toByteArray());
            assertThat(pb.status()).isEqualTo(200);
            assertThat(pb.contentType()).isEqualTo("application/x-protobuf");
            assertThat(ExportTraceServiceResponse.parseFrom(pb.body()).hasPartialSuccess()).isFalse();

            String json = """
                    {"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},
                     "scopeSpans":[{"scope":{"name":"s"},"spans":[
                      {"traceId":"42000000000000000000000000000001","spanId":"4200000000000002","name":"execute_tool",
                       "startTimeUnixNano":"1764086400005000000","endTimeUnixNano":"1764086400007000000",
                       "attributes":[{"key":"gen_ai.agent.id","value":{"stringValue":"a"}},
                                     {"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}}]},
                      {"traceId":"42000000000000000000000000000001","spanId":"0000000000000000","name":"bad",
                       "startTimeUnixNano":"1764086400005000000"}]}]}]}
                    """;
            OtlpClient.Answer js = c.json(json);
            assertThat(js.status()).isEqualTo(200);
            assertThat(js.contentType()).isEqualTo("application/json");
            JsonNode partial = JSON.readTree(js.body()).get("partialSuccess");
            assertThat(partial.get("rejectedSpans").asText()).isEqualTo("1");
            assertThat(partial.get("errorMessage").asText()).contains("span 'bad'").contains("span id is all zeros");

            JsonNode verify = get(s, "/v1/verify?agent_id=a");
            assertThat(verify.get("valid").asBoolean()).isTrue();
            assertThat(verify.get("events_verified").asInt()).isEqualTo(2);
            JsonNode events = get(s, "/v1/events?agent_id=a&order=asc");
            assertThat(events.get(1).get("action_type").asText()).isEqualTo("TOOL_CALL");
            assertThat(events.get(1).at("/labels/service").asText()).isEqualTo("svc");
        }
    }

    @Test
    void aRetriedExportIsStoredOnceAlsoAfterARestart() throws Exception {
        byte[] export = request(span("r", 9, 1, 0, "chat"), span("r", 9, 2, 1, "chat")).toByteArray();
        try (InProcessServer s = start()) {
            OtlpClient c = new OtlpClient(s.server().port(), INGEST);
            assertThat(c.protobuf(export).status()).isEqualTo(200);
            assertThat(c.protobuf(export).status()).isEqualTo(200);
            assertThat(s.server().ledger().size()).isEqualTo(2);
        }
        try (InProcessServer s = start()) {
            OtlpClient c = new OtlpClient(s.server().port(), INGEST);
            OtlpClient.Answer again = c.post(OtlpCodecTest.gzip(export), "application/x-protobuf", "gzip");
            assertThat(again.status()).isEqualTo(200);
            assertThat(ExportTraceServiceResponse.parseFrom(again.body()).hasPartialSuccess()).isFalse();
            assertThat(s.server().ledger().size()).isEqualTo(2);
            assertThat(get(s, "/v1/verify?agent_id=r").get("events_verified").asInt()).isEqualTo(2);
        }
    }

    @Test
    void refusals() throws Exception {
        try (InProcessServer s = start()) {
            OtlpClient c = new OtlpClient(s.server().port(), INGEST);
            byte[] ok = request(span("a", 1, 1, 0, "chat")).toByteArray();

            OtlpClient.Answer type = c.post(ok, "text/plain", null);
            assertThat(type.status()).isEqualTo(415);
            assertThat(JSON.readTree(type.body()).get("error").asText()).contains("application/x-protobuf");
            assertThat(c.post(ok, "application/x-protobuf", "br").status()).isEqualTo(415);

            OtlpClient.Answer pb = c.protobuf(new byte[] {0x0a, 0x05, 0x01});
            assertThat(pb.status()).isEqualTo(400);
            assertThat(pb.contentType()).isEqualTo("application/x-protobuf");
            CodedInputStream status = CodedInputStream.newInstance(pb.body());
            assertThat(status.readTag()).isEqualTo(8);
            assertThat(status.readInt32()).isEqualTo(3);
            status.readTag();
            assertThat(status.readString()).contains("protobuf");

            OtlpClient.Answer js = c.json("{\"resourceSpans\": [");
            assertThat(js.status()).isEqualTo(400);
            assertThat(JSON.readTree(js.body()).get("code").asInt()).isEqualTo(3);
            assertThat(JSON.readTree(js.body()).get("message").asText()).contains("not valid JSON");

            assertThat(c.post(new byte[] {1, 2, 3}, "application/x-protobuf", "gzip").status()).isEqualTo(400);

            assertThat(new OtlpClient(s.server().port(), READ).protobuf(ok).status()).isEqualTo(403);
            assertThat(new OtlpClient(s.server().port(), null).protobuf(ok).status()).isEqualTo(401);
            assertThat(s.server().ledger().size()).isZero();
        }
    }

    @Test
    void aGzipBombIsA413() throws Exception {
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            byte[] zeros = new byte[1 << 20];
            for (int i = 0; i < 64; i++) {   // 64 MiB of zeros in about 64 KB, four times the 16 MiB limit
                out.write(zeros);
            }
        }
        try (InProcessServer s = start()) {
            OtlpClient.Answer a = new OtlpClient(s.server().port(), INGEST).post(gz.toByteArray(), "application/x-protobuf", "gzip");
            assertThat(a.status()).isEqualTo(413);
            assertThat(JSON.readTree(a.body()).get("error").asText()).contains("decompresses to more than");
            assertThat(s.server().ledger().size()).isZero();
        }
    }
}
