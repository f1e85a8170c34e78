package io.trailproof.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.EventValidator;
import io.trailproof.core.json.StrictJson;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * What reading an event's {@code timestamp} costs in validation, which the service runs on every
 * event and the capture paths (the LLM gateway's recorder, the MCP proxy) on every event they make:
 * the common form ({@code ...Z}, read digit by digit) against the same instant with an offset
 * ({@code +00:00}, read by the formatter), in the same run; and one whole validation of a ~500-byte
 * event with each. Run: {@code java -jar bench/target/trailproof-bench.jar EventTimeBenchmarks}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class EventTimeBenchmarks {

    private static final String COMMON = "2026-12-02T03:41:07.123456Z";
    private static final String OFFSET = "2026-12-02T03:41:07.123456+00:00";

    private ObjectNode commonEvent;
    private ObjectNode offsetEvent;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        ObjectNode event = (ObjectNode) StrictJson.parse(SampleEvents.event(0, "bench-agent")
                .getBytes(StandardCharsets.UTF_8), 64);
        commonEvent = event.deepCopy().put("timestamp", COMMON);
        offsetEvent = event.deepCopy().put("timestamp", OFFSET);
    }

    @Benchmark
    public Instant parseCommonForm() {
        return EventTime.parseTimestamp(COMMON);
    }

    @Benchmark
    public Instant parseWithOffset() {
        return EventTime.parseTimestamp(OFFSET);
    }

    @Benchmark
    public ObjectNode validateCommonForm() throws Exception {
        return EventValidator.validate(commonEvent);
    }

    @Benchmark
    public ObjectNode validateWithOffset() throws Exception {
        return EventValidator.validate(offsetEvent);
    }
}
