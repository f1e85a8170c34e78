package io.trailproof.llmgateway;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.shipping.EventContent;
import io.trailproof.shipping.Notices;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventLimits;
import io.trailproof.core.event.EventTime;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Turns the calls the gateway passes through into events (src/site/llm-gateway.md#what-is-recorded):
 * an {@code LLM_CALL} when a request arrives and an {@code LLM_RESULT} when its answer has ended.
 *
 * <p>Each event's {@code capture_seq} is taken from its agent's stream when the event is created
 * (the request's arrival, the answer's end), and its work is queued in the same step, so the events of
 * one stream reach the shipper in number order. Reading the request and the answer into the events'
 * content happens on the recorder's own thread, after the bytes went on, so it never delays a call.
 * Bytes waiting for that thread are bounded ({@link #BACKLOG_BYTES}); past it, a call waits at its
 * end for the recorder rather than the gateway's memory growing.
 *
 * <p>The recorder works in rounds at most every {@link #ROUND}: it takes all the work queued since
 * its last round, makes the events and hands them to the shipper together, then waits out the rest
 * of the round. So its thread and the shipper's wake a few times a second, not twice each per call,
 * and do not take turns with the calls for the cores; the shipper sends a batch at most a second
 * after its first event anyway, so the events are not held back in effect.
 */
final class CallRecorder {

    static final String PATH = "llm-gateway";
    static final String LLM_CALL = "LLM_CALL";
    static final String LLM_RESULT = "LLM_RESULT";
    static final String SUCCESS = "success";
    static final String ERROR = "error";

    static final int BACKLOG_BYTES = 64 << 20;
    /** Shortest time between the starts of two of the recorder's rounds of work. */
    static final Duration ROUND = Duration.ofMillis(50);
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final Runnable END = () -> { };

    /** A call in flight: who made it, its request, when it arrived and its {@code LLM_CALL}'s number. */
    record Call(ApiKind kind, String agentId, String sessionId, CaptureStreams.Stream capture, long seq,
            Instant at, long startNanos, byte[] body, AtomicReference<String> model) {
    }

    /**
     * How a call ended.
     *
     * @param status the status the client got (502 when the gateway answered for an unreachable upstream)
     * @param contentType the answer's {@code Content-Type}, or null
     * @param contentEncoding the answer's {@code Content-Encoding}, or null
     * @param copy what passed through to the client (null when the gateway answered itself)
     * @param requestId the upstream's request id header, or null
     * @param failure what went wrong in passing the call through, or null when it passed whole
     */
    record Ending(int status, String contentType, String contentEncoding, BodyCopy copy, String requestId,
            String failure, Instant at, long nanos) {
    }

    private final CaptureStreams streams;
    /** Takes each round's events at once, in order. */
    private final Consumer<List<ObjectNode>> events;
    private final Clock clock;
    private final Notices notices;
    private final BlockingQueue<Runnable> work = new LinkedBlockingQueue<>();
    private final Semaphore backlog = new Semaphore(BACKLOG_BYTES);
    private final Thread thread;
    /** The events of the recorder's current round, in order; used by its thread only. */
    private final List<ObjectNode> made = new ArrayList<>();

    CallRecorder(CaptureStreams streams, Consumer<List<ObjectNode>> events, Clock clock, Notices notices) {
        this.streams = streams;
        this.events = events;
        this.clock = clock;
        this.notices = notices;
        this.thread = new Thread(this::run, "trailproof-llm-recorder");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** A request arrived: takes its {@code LLM_CALL}'s number and queues the event. */
    Call begin(ApiKind kind, String agentId, String sessionId, byte[] body, Instant at, long nanos) {
        CaptureStreams.Stream capture = streams.of(agentId);
        int cost = Math.min(body.length, BACKLOG_BYTES);
        backlog.acquireUninterruptibly(cost);
        synchronized (capture) {
            Call call = new Call(kind, agentId, sessionId, capture, capture.next(), capture.notBefore(at), nanos, body,
                    new AtomicReference<>());
            work.add(() -> {
                try {
                    made.add(callEvent(call));
                } finally {
                    backlog.release(cost);
                }
            });
            return call;
        }
    }

    /** The call's answer ended (or failed): takes its {@code LLM_RESULT}'s number and queues the event. */
    void end(Call call, Ending ending) {
        int cost = Math.min(ending.copy() == null ? 0 : ending.copy().heldBytes(), BACKLOG_BYTES);
        backlog.acquireUninterruptibly(cost);
        synchronized (call.capture()) {
            long seq = call.capture().next();
            Instant at = call.capture().notBefore(ending.at());
            work.add(() -> {
                try {
                    made.add(resultEvent(call, seq, at, ending));
                } finally {
                    backlog.release(cost);
                }
            });
        }
    }

    /**
     * No more calls: records what is queued, then one {@code CAPTURE_END} event with
     * {@code capture_last: true} for each agent's stream, so the service can tell that nothing after
     * it is missing.
     */
    void close() throws InterruptedException {
        work.add(END);
        thread.join();
        for (CaptureStreams.Stream s : streams.all()) {
            ObjectNode e;
            synchronized (s) {
                e = base(s.agentId, null, EventFields.CAPTURE_END_ACTION_TYPE, s.notBefore(clock.instant()), s, s.next());
            }
            e.put(EventFields.ACTION_NAME, PATH);
            e.put(EventFields.CAPTURE_LAST, true);
            events.accept(List.of(e));
        }
    }

    private void run() {
        List<Runnable> tasks = new ArrayList<>();
        while (true) {
            long start;
            try {
                tasks.add(work.take());
                start = System.nanoTime();
            } catch (InterruptedException e) {
                return;
            }
            work.drainTo(tasks);
            boolean ended = false;
            for (Runnable task : tasks) {
                if (task == END) {
                    ended = true;
                    break; // close() queues END after the last call's work
                }
                try {
                    task.run();
                } catch (RuntimeException e) {
                    // A bug in recording must never end the gateway: the call was passed on already.
                    notices.once("recorder", "a call could not be recorded (" + e + ")");
                }
            }
            tasks.clear();
            if (!made.isEmpty()) {
                events.accept(List.copyOf(made)); // one hand-over a round: the shipper wakes once for it
                made.clear();
            }
            if (ended) {
                return;
            }
            long rest = ROUND.toNanos() - (System.nanoTime() - start);
            if (rest > 0) {
                try {
                    Thread.sleep(Duration.ofNanos(rest));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private ObjectNode callEvent(Call call) {
        CallInput.Parsed parsed = CallInput.read(call.kind(), call.body());
        call.model().set(parsed.model());
        ObjectNode e = base(call.agentId(), call.sessionId(), LLM_CALL, call.at(), call.capture(), call.seq());
        e.put(EventFields.ACTION_NAME, name(parsed.model(), call.kind()));
        e.set(EventFields.ACTION_INPUT, parsed.input());
        ObjectNode metadata = metadata(e, call);
        metadata.put("stream", parsed.stream());
        return EventContent.fitStorable(e);
    }

    private ObjectNode resultEvent(Call call, long seq, Instant at, Ending ending) {
        ObjectNode e = base(call.agentId(), call.sessionId(), LLM_RESULT, at, call.capture(), seq);
        ResultReader.Result result = read(call.kind(), ending);
        String model = result.model() != null ? result.model() : call.model().get();
        e.put(EventFields.ACTION_NAME, name(model, call.kind()));
        String error = ending.failure() != null ? ending.failure() : result.errorMessage();
        e.put(EventFields.ACTION_STATUS, error == null ? SUCCESS : ERROR);
        if (error != null) {
            e.put(EventFields.ERROR_MESSAGE, EventContent.clip(error, EventLimits.ERROR_MESSAGE_MAX_LENGTH));
        }
        if (result.output() != null) {
            e.set(EventFields.ACTION_OUTPUT, result.output());
        }
        e.put(EventFields.DURATION_MS, Math.max(0, (ending.nanos() - call.startNanos()) / 1_000_000));
        ObjectNode metadata = metadata(e, call);
        metadata.put("http_status", ending.status());
        metadata.put("call_capture_seq", call.seq());
        if (ending.copy() != null) {
            metadata.put("answer_bytes", ending.copy().size());
        }
        if (ending.requestId() != null) {
            metadata.put("upstream_request_id", EventContent.clip(ending.requestId(), EventLimits.STRING_MAX_LENGTH));
        }
        return EventContent.fitStorable(e);
    }

    /** The answer's content; nothing when the gateway answered itself or nothing came through. */
    private static ResultReader.Result read(ApiKind kind, Ending ending) {
        BodyCopy copy = ending.copy();
        if (copy == null) {
            return new ResultReader.Result(null, null, null);
        }
        byte[] kept = copy.bytes();
        if (kept == null) {
            ObjectNode summary = NODES.objectNode();
            summary.put("omitted", "the answer is larger than the gateway reads for recording ("
                    + (BodyCopy.MAX_KEPT >> 20) + " MiB)");
            summary.put("answer_bytes", copy.size());
            summary.put("answer_sha256", copy.sha256Hex());
            return new ResultReader.Result(null, null, summary);
        }
        byte[] decoded;
        try {
            decoded = BodyCopy.decode(kept, ending.contentEncoding());
        } catch (IOException e) {
            return new ResultReader.Result(null, null, EventContent.unreadable(kept, e.getMessage()));
        }
        if (ending.failure() != null && decoded.length == 0) {
            return new ResultReader.Result(null, null, null);
        }
        return ResultReader.read(kind, ending.status(), ending.contentType(), decoded);
    }

    private static String name(String model, ApiKind kind) {
        return EventContent.clip(model != null && !model.isEmpty() ? model : kind.label, EventLimits.STRING_MAX_LENGTH);
    }

    private static ObjectNode metadata(ObjectNode e, Call call) {
        ObjectNode metadata = e.putObject(EventFields.METADATA);
        metadata.put("api", call.kind().label);
        return metadata;
    }

    private static ObjectNode base(String agentId, String sessionId, String type, Instant at,
            CaptureStreams.Stream capture, long seq) {
        ObjectNode e = NODES.objectNode();
        e.put(EventFields.AGENT_ID, agentId);
        if (sessionId != null) {
            e.put(EventFields.SESSION_ID, sessionId);
        }
        e.put(EventFields.SOURCE, PATH);
        e.put(EventFields.CAPTURE_METHOD, PATH);
        e.put(EventFields.ACTION_TYPE, type);
        e.put(EventFields.TIMESTAMP, EventTime.formatRecordedAt(at));
        e.put(EventFields.CAPTURE_ID, capture.captureId);
        e.put(EventFields.CAPTURE_SEQ, seq);
        return e;
    }
}
