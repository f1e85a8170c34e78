package io.trailproof.shipping;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sends the recorded events in the background (src/site/mcp-proxy.md#delivery-and-the-spool): in batches of up to
 * {@value #BATCH_EVENTS} events or {@value #BATCH_BYTES} bytes, at most {@code flushInterval} after
 * the first event of a batch, each batch written to the spool before it is sent and removed once the
 * service acknowledged it. Each batch has one {@code Idempotency-Key} for all its tries.
 *
 * <p>When the service cannot take a batch now (unreachable, busy, key refused), the proxy says so
 * once on standard error and stops sending: further batches only go to the spool, and a probe sends
 * the spool again, oldest first, after a back-off of 1 s doubling up to 30 s. Spooled batches of
 * earlier runs are sent first when the shipper starts. The recorded traffic (the MCP session, the
 * calls to the model) never waits for any of this: {@link #submit} only enqueues.
 *
 * <p>An event the service refuses (a 207 item error: content it cannot store as sent) is sent once
 * more with its content replaced by a summary giving the reason and the SHA-256 of what was left out;
 * if that is refused too, the proxy says so on standard error. A batch refused as a whole (400, 413,
 * 422) is set aside in the spool as {@code .rejected} and reported.
 */
public final class EventShipper {

    static final int BATCH_EVENTS = 1000;
    static final int BATCH_BYTES = 4 << 20;
    private static final Duration FIRST_PROBE = Duration.ofSeconds(1);
    private static final Duration LAST_PROBE = Duration.ofSeconds(30);
    private static final Object END = new Object();

    private final BatchSender sender;
    private final Spool spool;
    private final Origin origin;
    private final String runId;
    private final Clock clock;
    private final Duration flushInterval;
    private final Notices notices;
    private final ObjectMapper json;
    private final BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    /**
     * The rest of the last {@link #submitAll} taken from the queue: the shipper's thread takes from it
     * first, and {@link #close} spools what it still holds when that thread is stuck.
     */
    private final ConcurrentLinkedDeque<Object> handedOver = new ConcurrentLinkedDeque<>();
    /** Batches that could not be spooled (the directory is not writable) and are not stored yet. */
    private final Deque<Spool.Entry> unspooled = new ArrayDeque<>();
    private final AtomicLong batchNumber = new AtomicLong();
    private final CountDownLatch finished = new CountDownLatch(1);
    private final Thread thread;
    private volatile boolean closing;
    private boolean up = true;
    private Duration probeDelay = FIRST_PROBE;
    private long nextProbeNanos;
    private final AtomicLong stored = new AtomicLong();
    private long lastMillis;

    /**
     * Which capture path ships: {@code name} ({@code mcp-proxy}, {@code llm-gateway}) names the
     * thread, the batches' idempotency keys and spool files; {@code goesOn} says what is not held up
     * when the service is away ("the MCP session goes on").
     */
    public record Origin(String name, String goesOn) {
    }

    /** @param runId this run's unique id, part of every batch's idempotency key and spool file name */
    public EventShipper(BatchSender sender, Spool spool, Origin origin, String runId, Clock clock,
            Duration flushInterval, Notices notices, ObjectMapper json) {
        this.sender = sender;
        this.spool = spool;
        this.origin = origin;
        this.runId = runId;
        this.clock = clock;
        this.flushInterval = flushInterval;
        this.notices = notices;
        this.json = json;
        this.thread = new Thread(this::run, "trailproof-" + origin.name() + "-shipper");
        this.thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    /** Queues an event; never blocks. */
    public void submit(ObjectNode event) {
        queue.add(event);
    }

    /**
     * Queues {@code events} in order, as {@link #submit} each would, handed over at once: the
     * shipper's thread wakes once for them, not once for each.
     */
    public void submitAll(List<? extends ObjectNode> events) {
        if (!events.isEmpty()) {
            queue.add(List.copyOf(events));
        }
    }

    /** Events the service acknowledged as stored so far (by this run, spooled batches of earlier runs included). */
    public long storedEvents() {
        return stored.get();
    }

    /**
     * No more events: spools what is queued, tries to send it for up to {@code grace}, then returns.
     * What is not acknowledged by then stays in the spool for the next run.
     */
    public void close(Duration grace) throws InterruptedException {
        closing = true;
        queue.add(END);
        if (!finished.await(grace.toMillis(), TimeUnit.MILLISECONDS)) {
            // The shipper is stuck in a slow exchange: what it has not taken yet is spooled from here.
            List<JsonNode> rest = new ArrayList<>();
            for (Object o = handedOver.pollFirst(); o != null; o = handedOver.pollFirst()) {
                rest.add((JsonNode) o);
            }
            for (Object o = queue.poll(); o != null; o = queue.poll()) {
                if (o instanceof JsonNode n) {
                    rest.add(n);
                } else if (o instanceof List<?> events) {
                    for (Object e : events) {
                        rest.add((JsonNode) e);
                    }
                }
            }
            if (!rest.isEmpty()) {
                Spool.Entry entry = write(rest, null);
                if (entry != null) {
                    closeQuietly(entry);
                }
            }
        }
        synchronized (unspooled) {
            int lost = unspooled.stream().mapToInt(e -> e.events.size()).sum();
            if (lost > 0) {
                notices.always(lost + " recorded events could neither be stored nor spooled (" + spool.dir()
                        + " is not writable) and are lost");
            }
        }
    }

    private void run() {
        try {
            drain();
            Batch batch = new Batch();
            boolean ended = false;
            while (!ended) {
                Object first = next(waitNanos());
                if (first == END) {
                    ended = true;
                } else if (first != null) {
                    batch.add((JsonNode) first);
                    ended = fill(batch);
                    ship(batch);
                    batch.clear();
                }
                if (!up && System.nanoTime() - nextProbeNanos >= 0) {
                    drain();
                }
            }
            if (up) {
                drain(); // batches spooled while the service was away, if it is back
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            finished.countDown();
        }
    }

    /**
     * The next event queued, or {@link #END}, waiting up to {@code nanos} (0: not at all); null when
     * none came. The events of a {@link #submitAll} come one by one, in order.
     */
    private Object next(long nanos) throws InterruptedException {
        Object next = handedOver.pollFirst();
        if (next != null) {
            return next;
        }
        next = nanos > 0 ? queue.poll(nanos, TimeUnit.NANOSECONDS) : queue.poll();
        if (next instanceof List<?> events) {
            handedOver.addAll(events);
            return handedOver.pollFirst();
        }
        return next;
    }

    /** How long to wait for the next event: until the next probe while the service is away. */
    private long waitNanos() {
        if (up) {
            return TimeUnit.SECONDS.toNanos(3600);
        }
        return Math.max(0, nextProbeNanos - System.nanoTime());
    }

    /** Adds events to the batch until it is full or its time is up; true when the end marker was taken. */
    private boolean fill(Batch batch) throws InterruptedException {
        long deadline = System.nanoTime() + flushInterval.toNanos();
        while (batch.events.size() < BATCH_EVENTS) {
            long left = closing ? 0 : deadline - System.nanoTime();
            Object next = next(left);
            if (next == null) {
                return false;
            }
            if (next == END) {
                return true;
            }
            JsonNode event = (JsonNode) next;
            byte[] encoded = encode(event);
            if (batch.bytes + (encoded == null ? 0 : encoded.length) > BATCH_BYTES) {
                ship(batch);
                batch.clear();
            }
            batch.add(event, encoded);
        }
        return false;
    }

    /**
     * The events of the batch being filled, each with its JSON serialized once (null when it could
     * not be): what sizes the batch is what its spool file is made of.
     */
    private final class Batch {
        final List<JsonNode> events = new ArrayList<>();
        final List<byte[]> encoded = new ArrayList<>();
        long bytes;
        boolean allEncoded = true;

        void add(JsonNode event) {
            add(event, encode(event));
        }

        void add(JsonNode event, byte[] json) {
            events.add(event);
            encoded.add(json);
            if (json == null) {
                allEncoded = false;
            } else {
                bytes += json.length;
            }
        }

        void clear() {
            events.clear();
            encoded.clear();
            bytes = 0;
            allEncoded = true;
        }
    }

    private byte[] encode(JsonNode event) {
        try {
            return json.writeValueAsBytes(event);
        } catch (IOException e) {
            return null;
        }
    }

    private void ship(Batch batch) {
        if (batch.events.isEmpty()) {
            return;
        }
        ship(batch.events, batch.allEncoded ? batch.encoded : null);
    }

    /** Spools a new batch and, while the service is reachable, sends it. */
    private void ship(List<JsonNode> events) {
        ship(events, null);
    }

    /** {@link #ship(List)}, with the events' JSON when each was serialized already ({@code encoded}), or null. */
    private void ship(List<JsonNode> events, List<byte[]> encoded) {
        if (events.isEmpty()) {
            return;
        }
        Spool.Entry entry = write(events, encoded);
        if (entry == null) {
            return;
        }
        if (!up) {
            closeQuietly(entry); // stays spooled until the next probe
            return;
        }
        send(entry);
    }

    /** Writes a batch to the spool; when that fails, holds it in memory (and says so once). */
    private Spool.Entry write(List<JsonNode> events, List<byte[]> encoded) {
        long n = batchNumber.incrementAndGet();
        String key = "trailproof-" + origin.name() + ":" + runId + ":" + n;
        // Spool files are sent in name order: the time part never goes back, even when the clock does.
        lastMillis = Math.max(lastMillis, clock.millis());
        String name = String.format("%013d-%s-%s-%06d", lastMillis, origin.name(), runId, n);
        try {
            return encoded != null ? spool.writeEncoded(name, key, encoded) : spool.write(name, key, events);
        } catch (IOException e) {
            notices.once("spool", "cannot write the spool directory " + spool.dir() + " (" + e.getMessage()
                    + "); unsent events are held in memory only and are lost if this process ends first");
            Spool.Entry entry = spool.inMemory(key, events);
            if (!up) {
                synchronized (unspooled) {
                    unspooled.add(entry);
                }
                return null;
            }
            return entry;
        }
    }

    /** One try of one batch; false when the service cannot take it now. */
    private boolean send(Spool.Entry entry) {
        BatchSender.Outcome outcome;
        try {
            outcome = sender.send(entry.idempotencyKey, entry.body());
        } catch (IOException e) {
            outcome = new BatchSender.Refused("the batch could not be serialized: " + e.getMessage());
        }
        switch (outcome) {
            case BatchSender.Stored s -> {
                retryRefusedItems(entry, s.items());
                try {
                    entry.delete();
                } catch (IOException e) {
                    notices.once("delete", "cannot delete the sent batch " + entry.path() + " (" + e.getMessage()
                            + "); sending it again later stores nothing twice");
                }
                up = true;
                probeDelay = FIRST_PROBE;
                return true;
            }
            case BatchSender.NotNow n -> {
                if (!entry.spooled()) {
                    synchronized (unspooled) {
                        unspooled.addFirst(entry);
                    }
                }
                closeQuietly(entry);
                wentAway(n.reason());
                return false;
            }
            case BatchSender.Refused r -> {
                notices.always("the trailproof server refused a batch of " + entry.events.size() + " events: "
                        + r.reason() + (entry.spooled() ? "; kept as " + entry.path().getFileName()
                        + Spool.REJECTED_SUFFIX + " in " + spool.dir() : ""));
                try {
                    entry.reject();
                } catch (IOException e) {
                    closeQuietly(entry);
                }
                return true;
            }
        }
    }

    private void wentAway(String reason) {
        if (up) {
            up = false;
            probeDelay = FIRST_PROBE;
        } else {
            Duration doubled = probeDelay.multipliedBy(2);
            probeDelay = doubled.compareTo(LAST_PROBE) > 0 ? LAST_PROBE : doubled;
        }
        nextProbeNanos = System.nanoTime() + probeDelay.toNanos();
        notices.once("away", reason + "; " + origin.goesOn() + ", and recorded events are kept in " + spool.dir()
                + " and sent when the server takes them");
    }

    /**
     * Sends what waits, oldest first: batches held in memory, then every spool file nobody else holds
     * (this run's and earlier runs'). Stops at the first batch the service cannot take now.
     */
    private void drain() {
        while (true) {
            Spool.Entry held;
            synchronized (unspooled) {
                held = unspooled.pollFirst();
            }
            if (held == null) {
                break;
            }
            if (!send(held)) {
                return;
            }
        }
        List<Path> files;
        try {
            files = spool.list();
        } catch (IOException e) {
            return;
        }
        for (Path file : files) {
            Spool.Entry entry;
            try {
                entry = spool.claim(file);
            } catch (IOException e) {
                notices.always(e.getMessage());
                continue;
            }
            if (entry != null && !send(entry)) {
                return;
            }
        }
        up = true;
        probeDelay = FIRST_PROBE;
    }

    /**
     * Items of an acknowledged batch that the service refused: each is sent again at once with its
     * content summarised (the reason and the SHA-256 of what was left out), in the batch's order and
     * before any event queued after the batch; a summary refused again is reported, never dropped
     * silently.
     */
    private void retryRefusedItems(Spool.Entry entry, JsonNode items) {
        List<JsonNode> summaries = new ArrayList<>();
        for (JsonNode item : items) {
            if (item.has("event")) {
                stored.incrementAndGet();
                continue;
            }
            int index = item.path("index").asInt(-1);
            String reason = item.path("error").asText("refused");
            if (index < 0 || index >= entry.events.size()) {
                continue;
            }
            JsonNode event = entry.events.get(index);
            if (!event.isObject() || EventContent.isRefusedSummary(event)) {
                notices.always("the trailproof server refused an event (" + describe(event) + "): " + reason);
                continue;
            }
            summaries.add(EventContent.refused((ObjectNode) event, EventContent.SERVICE_REFUSED + reason));
        }
        ship(summaries);
    }

    private static String describe(JsonNode event) {
        return event.path(EventFields.ACTION_TYPE).asText("?") + " " + event.path(EventFields.ACTION_NAME).asText("")
                + " at " + event.path(EventFields.TIMESTAMP).asText("?");
    }

    private static void closeQuietly(Spool.Entry entry) {
        try {
            entry.close();
        } catch (IOException ignored) {
            // the lock goes with the process anyway
        }
    }
}
