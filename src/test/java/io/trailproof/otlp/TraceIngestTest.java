package io.trailproof.otlp;

import static io.trailproof.otlp.Spans.request;
import static io.trailproof.otlp.Spans.span;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.trailproof.ledger.DedupeKey;
import io.trailproof.ledger.DedupeRecord;
import io.trailproof.ledger.DedupeTable;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;
import io.trailproof.testing.HandClock;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TraceIngestTest {

    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    final HandClock clock = new HandClock("2026-11-25T10:00:00Z");

    Ledger open() throws Exception {
        return Ledger.open(dir, new LedgerOptions(1 << 20, 1000, false, 1024, Duration.ofHours(24), 1000), clock, new Random(1));
    }

    static List<JsonNode> events(Ledger ledger) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        if (ledger.size() > 0) {
            ledger.scan(0, ledger.size(), (i, payload) -> {
                try {
                    out.add(JSON.readTree(payload));
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        return out;
    }

    @Test
    void spansOfAnAgentAreChainedInStartOrderTiesInTheOrderSent() throws Exception {
        try (Ledger ledger = open()) {
            TraceIngest.Result r = new TraceIngest(ledger).ingest(request(
                    span("a", 1, 1, 30, "chat"),
                    span("b", 1, 2, 5, "chat"),
                    span("a", 1, 3, 10, "execute_tool"),
                    span("a", 1, 4, 10, "invoke_agent"),
                    span("b", 1, 5, 1, "chat")));
            assertThat(r.rejected()).isZero();
            List<String> order = events(ledger).stream()
                    .map(e -> e.get("agent_id").asText() + e.get("sequence").asInt() + ":"
                            + e.at("/metadata/otel/span_id").asText().substring(14)).toList();
            assertThat(order).containsExactly("b1:05", "b2:02", "a1:03", "a2:04", "a3:01");
            assertThat(ledger.verify("a").orElseThrow().valid()).isTrue();
        }
    }

    @Test
    void aRetriedExportStoresNothingTwiceAcrossARestartUntilRetentionEnds() throws Exception {
        ExportTraceServiceRequest export = request(span("a", 7, 1, 0, "chat"), span("a", 7, 2, 1, "chat"),
                span("a", 7, 1, 0, "chat"));   // span 1 twice in one request
        try (Ledger ledger = open()) {
            TraceIngest.Result r = new TraceIngest(ledger).ingest(export);
            assertThat(r.spans()).isEqualTo(3);
            assertThat(r.rejected()).isZero();
            assertThat(ledger.size()).isEqualTo(2);
            assertThat(new TraceIngest(ledger).ingest(export).rejected()).isZero();
            assertThat(ledger.size()).isEqualTo(2);
            assertThat(ledger.dedupe().table().size()).isEqualTo(2);
        }
        clock.now = clock.now.plus(Duration.ofHours(23));
        try (Ledger ledger = open()) {   // the marks are rebuilt from the log's side frames
            assertThat(ledger.dedupe().table().size()).isEqualTo(2);
            new TraceIngest(ledger).ingest(request(span("a", 7, 2, 1, "chat"), span("a", 7, 3, 2, "chat")));
            assertThat(ledger.size()).isEqualTo(3);
        }
        clock.now = clock.now.plus(Duration.ofHours(2));   // span 1 and 2 are past retention, span 3 is not
        try (Ledger ledger = open()) {
            new TraceIngest(ledger).ingest(export);
            new TraceIngest(ledger).ingest(request(span("a", 7, 3, 2, "chat")));
            assertThat(ledger.size()).isEqualTo(5);
            assertThat(ledger.verify("a").orElseThrow().valid()).isTrue();
        }
    }

    @Test
    void aBadSpanIsRefusedAloneWithTheReasonOfTheFirstSent() throws Exception {
        try (Ledger ledger = open()) {
            TraceIngest.Result r = new TraceIngest(ledger).ingest(request(
                    span("a", 1, 1, 50, "chat"),
                    span("a", 1, 2, 40, "chat").setTraceId(ByteString.copyFrom(new byte[16])),
                    span("x".repeat(300), 1, 3, 0, "chat"),   // agent_id over 256: the event rule refuses it
                    span("a", 1, 4, 10, "chat")));
            assertThat(r.rejected()).isEqualTo(2);
            assertThat(r.firstError()).startsWith("span 'chat a' (trace 00000000000000000000000000000000, span 4200000000000002)")
                    .contains("trace id is all zeros");
            assertThat(events(ledger)).extracting(e -> e.at("/metadata/otel/span_id").asText())
                    .containsExactly("4200000000000004", "4200000000000001");
        }
    }

    @Test
    void anEventOverOneMebibyteIsRefusedAtSealingAndLeavesNoMark() throws Exception {
        try (Ledger ledger = open()) {
            TraceIngest.Result r = new TraceIngest(ledger).ingest(request(
                    span("a", 1, 1, 0, "chat").addAttributes(Spans.kv("huge", "y".repeat(1 << 20))),
                    span("a", 1, 2, 1, "chat")));
            assertThat(r.rejected()).isEqualTo(1);
            assertThat(r.firstError()).contains("too large");
            assertThat(ledger.size()).isEqualTo(1);
            assertThat(ledger.dedupe().table().size()).isEqualTo(1);
            assertThat(ledger.dedupe().table().inFlight()).isZero();
        }
    }

    @Test
    void aSpanBeingStoredByAnotherRequestRefusesTheWholeRequestAndStoresNothing() throws Exception {
        try (Ledger ledger = open()) {
            DedupeKey key = DedupeKey.of(DedupeRecord.OTLP_SPAN, HexFormat.of().formatHex(Spans.id(16, 1)),
                    HexFormat.of().formatHex(Spans.id(8, 2)));
            DedupeTable.Claim other = ((DedupeTable.Fresh) ledger.dedupe().claimMark(key, new byte[32])).claim();
            ExportTraceServiceRequest export = request(span("a", 1, 1, 0, "chat"), span("a", 1, 2, 1, "chat"));
            assertThatThrownBy(() -> new TraceIngest(ledger).ingest(export))
                    .isInstanceOf(TraceIngest.SpansInFlight.class).hasMessageContaining("retry");
            assertThat(ledger.size()).isZero();
            assertThat(ledger.dedupe().table().inFlight()).isEqualTo(1);   // only the other request's claim
            other.release();
            assertThat(new TraceIngest(ledger).ingest(export).rejected()).isZero();
            assertThat(ledger.size()).isEqualTo(2);
        }
    }
}
