package io.trailproof.access;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventTime;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The trail of who looked (src/site/sign-in.md#the-trail-of-who-looked): each read of trail content
 * becomes an {@code ACCESS} event of agent {@value EventFields#ACCESS_AGENT}, written like any event
 * (chained, in the tree). {@link #record} only queues (it runs on the connection's I/O thread when
 * the answer completes); one background thread writes what is queued as one batch every
 * {@link #FLUSH_EVERY}, so a read is durable in the trail within a second of its answer, and a busy
 * server pays one write per interval, not one per read.
 *
 * <p>Bounded: at most {@link #MAX_QUEUED} records wait. A record that finds the queue full, or whose
 * batch the ledger cannot store, is counted and reported in the log at {@code WARNING} with the number
 * lost; it never delays or fails the read it records.
 */
public final class AccessTrail implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(AccessTrail.class.getName());
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** How often queued records are written: well within the promised second. */
    static final Duration FLUSH_EVERY = Duration.ofMillis(200);
    /** Records that may wait at once (a few seconds of a very busy server's reads). */
    static final int MAX_QUEUED = 100_000;
    /** Records written in one batch. */
    static final int MAX_BATCH = 1_000;

    /** Members of an ACCESS event's {@code action_input} and {@code action_output}. */
    public static final String WHO = "who";
    public static final String METHOD = "method";
    public static final String PATH = "path";
    public static final String QUERY = "query";
    public static final String STATUS = "status";
    public static final String RESULTS = "results";

    /**
     * One read, as the HTTP layer saw it.
     *
     * @param route the route as registered, with its method ({@code GET /v1/search}): the event's {@code action_name}
     * @param who the reader: a signed-in person's subject or the API key's name, never a secret
     * @param path the request's path as sent
     * @param query the URL's query string, empty when it had none
     * @param status the HTTP status answered
     * @param results how many events (or items) the answer held, or -1 when it does not count any
     */
    public record Read(String route, String who, String method, String path, String query, int status, long results) {
    }

    /** Where the batches go: the ledger in the embedded mode, the topic in cluster mode. */
    @FunctionalInterface
    public interface Writes {
        /** Stores {@code events} (valid, composed by the service) in order; durable on return, else throws. */
        void write(List<ObjectNode> events) throws Exception;
    }

    private final Writes writes;
    private final Clock clock;
    private final BlockingQueue<ObjectNode> queue = new ArrayBlockingQueue<>(MAX_QUEUED);
    private final AtomicLong lost = new AtomicLong();
    /**
     * Never interrupted: a write of the ledger interrupted while it waits for its force fails the
     * ledger's writes, so {@link #close} lets a write in flight finish instead.
     */
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "trailproof-access-trail");
        t.setDaemon(true);
        return t;
    });
    private final Object writing = new Object();

    public AccessTrail(Writes writes, Clock clock) {
        this.writes = writes;
        this.clock = clock;
    }

    /** Starts writing every {@link #FLUSH_EVERY}. */
    public void start() {
        long every = FLUSH_EVERY.toMillis();
        thread.scheduleWithFixedDelay(this::flush, every, every, TimeUnit.MILLISECONDS);
    }

    /** Queues one read, stamped with the time of its answer; never blocks. */
    public void record(Read read) {
        if (!queue.offer(event(read))) {
            lost.incrementAndGet();
        }
    }

    private ObjectNode event(Read read) {
        ObjectNode e = NODES.objectNode();
        e.put(EventFields.AGENT_ID, EventFields.ACCESS_AGENT);
        e.put(EventFields.ACTION_TYPE, EventFields.ACCESS_ACTION_TYPE);
        e.put(EventFields.ACTION_NAME, read.route());
        e.put(EventFields.ACTION_STATUS, read.status() < 400 ? "success" : "error");
        e.put(EventFields.TIMESTAMP, EventTime.formatRecordedAt(clock.instant()));
        ObjectNode input = e.putObject(EventFields.ACTION_INPUT);
        input.put(WHO, read.who());
        input.put(METHOD, read.method());
        input.put(PATH, read.path());
        input.put(QUERY, read.query());
        ObjectNode output = e.putObject(EventFields.ACTION_OUTPUT);
        output.put(STATUS, read.status());
        if (read.results() >= 0) {
            output.put(RESULTS, read.results());
        } else {
            output.putNull(RESULTS);
        }
        return e;
    }

    /** Writes everything queued now, in batches; on a failure the batch is counted as lost and logged. */
    void flush() {
        synchronized (writing) {
            List<ObjectNode> batch = new ArrayList<>();
            while (queue.drainTo(batch, MAX_BATCH) > 0) {
                try {
                    writes.write(batch);
                } catch (Exception e) {
                    lost.addAndGet(batch.size());
                    LOG.log(System.Logger.Level.WARNING, "could not write " + batch.size()
                            + " records of who read the trail: " + e);
                }
                batch.clear();
            }
            long n = lost.getAndSet(0);
            if (n > 0) {
                LOG.log(System.Logger.Level.WARNING, n + " records of who read the trail were lost (queue full or "
                        + "the ledger could not write); the access log still names those requests");
            }
        }
    }

    /** How long {@link #close} waits for a write in flight. */
    private static final long CLOSE_WAIT_SECONDS = 30;

    /**
     * Stops the schedule, waits for a write in flight to finish (without interrupting it), then writes
     * what is still queued: call before the ledger closes.
     */
    @Override
    public void close() {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                LOG.log(System.Logger.Level.WARNING, "a write of the access trail did not finish in "
                        + CLOSE_WAIT_SECONDS + " s; the records still queued are written now");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        flush();
    }
}
