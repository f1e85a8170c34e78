package io.trailproof.otlp;

import static io.trailproof.otlp.Spans.request;
import static io.trailproof.otlp.Spans.span;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.ledger.Ledger;
import io.trailproof.testing.InProcessServer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The malformed-input table: every case is answered 400 (with a google.rpc.Status in
 * the request's encoding) or 200 with the bad spans counted in partial_success, and what is stored
 * is exactly the good spans, each a valid stored event.
 */
class TraceMalformedIT {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String PB = "application/x-protobuf";
    static final String JS = "application/json";

    @TempDir
    static Path dir;
    static InProcessServer server;
    static OtlpClient client;

    @BeforeAll
    static void start() throws Exception {
        server = InProcessServer.start(dir.resolve("data"));
        client = new OtlpClient(server.server().port(), null);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    /** A case: body and type, and what must come of it (status; for a 200 the spans refused and stored). */
    record Case(String name, byte[] body, String type, int status, int rejected, int stored, String message) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Case bad(String name, byte[] body, String type, String message) {
        return new Case(name, body, type, 400, 0, 0, message);
    }

    static Case partial(String name, byte[] body, String type, int rejected, int stored, String message) {
        return new Case(name, body, type, 200, rejected, stored, message);
    }

    static byte[] json(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static int n = 1000;

    /** A fresh good span (its own ids, so no case dedupes against another). */
    static Span.Builder good() {
        n++;
        return span("malformed", n, n, n, "chat");
    }

    static String jsonSpan(String traceId, String spanId, String extra) {
        return "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"" + traceId + "\",\"spanId\":\"" + spanId
                + "\",\"name\":\"s\",\"startTimeUnixNano\":\"1764086400000000000\"" + extra + "}]}]}]}";
    }

    static String jsonId(int bytes) {
        n++;
        return HexFormat.of().formatHex(Spans.id(bytes, n));
    }

    /** A length-delimited protobuf field, written by hand so that it can hold what the classes would not build. */
    static byte[] field(int number, byte[]... parts) throws Exception {
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            content.write(p);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CodedOutputStream c = CodedOutputStream.newInstance(out);
        c.writeByteArray(number, content.toByteArray());
        c.flush();
        return out.toByteArray();
    }

    /** An export of one span given as raw bytes. */
    static byte[] rawSpan(byte[] span) throws Exception {
        return field(1, field(2, field(2, span)));
    }

    static AnyValue nested(int depth) {
        AnyValue v = AnyValue.newBuilder().setStringValue("leaf").build();
        for (int i = 0; i < depth; i++) {
            v = AnyValue.newBuilder().setArrayValue(ArrayValue.newBuilder().addValues(v)).build();
        }
        return v;
    }

    static Stream<Case> cases() throws Exception {
        byte[] whole = request(good(), good()).toByteArray();
        byte[] noStart = good().clearStartTimeUnixNano().build().toByteArray();
        byte[] startAsVarint = Arrays.copyOf(noStart, noStart.length + 2);
        startAsVarint[noStart.length] = 7 << 3;   // field 7 (start_time_unix_nano, fixed64) sent as a varint
        startAsVarint[noStart.length + 1] = 5;
        byte[] badUtf8Name = field(3, new byte[] {(byte) 0xC3, (byte) 0x28});
        return Stream.of(
                bad("truncated protobuf", Arrays.copyOf(whole, whole.length - 5), PB, "protobuf"),
                bad("protobuf that is not protobuf", json("{\"resourceSpans\":[]}"), PB, "protobuf"),
                bad("a string field holding invalid UTF-8", rawSpan(concat(good().build().toByteArray(), badUtf8Name)), PB,
                        "UTF-8"),
                partial("a fixed64 field sent as a varint (skipped as unknown: no start time)", rawSpan(startAsVarint), PB,
                        1, 0, "no start time"),
                bad("JSON: spans is a string", json("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":\"x\"}]}]}"), JS, "OTLP/JSON"),
                bad("JSON: a name that is an object", json(jsonSpan(jsonId(16), jsonId(8), ",\"name\":{}").replace(
                        "\"name\":\"s\",", "")), JS, "OTLP/JSON"),
                bad("JSON: an int64 out of range", json(jsonSpan(jsonId(16), jsonId(8), ",\"endTimeUnixNano\":\"99999999999999999999999\"")),
                        JS, "OTLP/JSON"),
                bad("JSON: a trace id that is not hex", json(jsonSpan("zz" + jsonId(15), jsonId(8), "")), JS, "is not hex"),
                bad("JSON: a span id of an odd number of digits", json(jsonSpan(jsonId(16), "abc", "")), JS, "is not hex"),
                bad("JSON: a duplicate key", json("{\"resourceSpans\":[],\"resourceSpans\":[]}"), JS, "not valid JSON"),
                partial("JSON: a trace id of 15 bytes", json(jsonSpan(jsonId(15), jsonId(8), "")), JS, 1, 0, "trace id is 15 bytes"),
                partial("JSON: a span id of 16 bytes", json(jsonSpan(jsonId(16), jsonId(16), "")), JS, 1, 0, "span id is 16 bytes"),
                partial("JSON: a trace id of zeros", json(jsonSpan("0".repeat(32), jsonId(8), "")), JS, 1, 0, "all zeros"),
                partial("JSON: a lone surrogate", json(jsonSpan(jsonId(16), jsonId(8),
                        ",\"attributes\":[{\"key\":\"k\",\"value\":{\"stringValue\":\"\\ud800\"}}]")), JS, 1, 0, "lone UTF-16 surrogate"),
                partial("JSON: an unknown enum value is kept", json(jsonSpan(jsonId(16), jsonId(8), ",\"kind\":42,\"status\":{\"code\":9}")),
                        JS, 0, 1, null),
                partial("protobuf: ids of the wrong length and of zeros beside a good span", request(
                        good().setTraceId(ByteString.copyFrom(new byte[17])), good().setSpanId(ByteString.copyFrom(new byte[8])),
                        good()).toByteArray(), PB, 2, 1, "trace id is 17 bytes"),
                partial("protobuf: unknown kind and status values", request(good().setKindValue(77)
                        .setStatus(Status.newBuilder().setCodeValue(5))).toByteArray(), PB, 0, 1, null),
                bad("protobuf: AnyValue nested past the recursion limit", request(good().addAttributes(
                        KeyValue.newBuilder().setKey("deep").setValue(nested(60)))).toByteArray(), PB, "nest"),
                partial("protobuf: AnyValue nested within the limit", request(good().addAttributes(
                        KeyValue.newBuilder().setKey("deep").setValue(nested(30)))).toByteArray(), PB, 0, 1, null),
                partial("protobuf: a 2 MiB attribute makes an event over 1 MiB", request(good().addAttributes(
                        Spans.kv("huge", "x".repeat(2 << 20))), good()).toByteArray(), PB, 1, 1, "too large"),
                partial("protobuf: a status message over 64 KiB breaks the error_message rule", request(good().setStatus(
                        Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_ERROR).setMessage("e".repeat(70_000)))).toByteArray(),
                        PB, 1, 0, "error_message"));
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void answeredAndNothingWrongStored(Case c) throws Exception {
        Ledger ledger = server.server().ledger();
        long before = ledger.size();
        OtlpClient.Answer a = client.post(c.body(), c.type(), null);
        assertThat(a.status()).as(c.name() + ": " + a.text()).isEqualTo(c.status());
        assertThat(a.contentType()).isEqualTo(c.type());
        boolean json = c.type().equals(JS);
        if (c.status() == 400) {
            String message = json ? JSON.readTree(a.body()).get("message").asText() : statusMessage(a.body());
            assertThat(message).contains(c.message());
            assertThat(ledger.size()).isEqualTo(before);
            return;
        }
        long rejected;
        String error;
        if (json) {
            JsonNode p = JSON.readTree(a.body()).path("partialSuccess");
            rejected = p.path("rejectedSpans").asLong(0);
            error = p.path("errorMessage").asText("");
        } else {
            ExportTraceServiceResponse r = ExportTraceServiceResponse.parseFrom(a.body());
            rejected = r.getPartialSuccess().getRejectedSpans();
            error = r.getPartialSuccess().getErrorMessage();
        }
        assertThat(rejected).isEqualTo(c.rejected());
        if (c.message() != null) {
            assertThat(error).contains(c.message());
        }
        assertThat(ledger.size()).isEqualTo(before + c.stored());
        for (long i = before; i < ledger.size(); i++) {
            StoredEvent e = StoredEvent.parse(ledger.payloadAt(i));
            assertThat(e.recomputeHash()).isEqualTo(e.hashBytes());
        }
    }

    static String statusMessage(byte[] body) throws Exception {
        CodedInputStream in = CodedInputStream.newInstance(body);
        in.readTag();
        in.readInt32();
        in.readTag();
        return in.readString();
    }
}
