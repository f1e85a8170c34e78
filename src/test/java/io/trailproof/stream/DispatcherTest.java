package io.trailproof.stream;

import io.trailproof.index.EventFilter;
import io.trailproof.index.EventMatcher;
import org.junit.jupiter.api.Test;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.EventValidator;
import io.trailproof.core.event.StoredEvent;

import java.time.Instant;
import java.util.UUID;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The dispatcher's cursor, catch-up, live and overflow rules, stepped by hand over an in-memory log. */
class DispatcherTest {

    /** An append-only list of events as the ledger would serve them. */
    private static final ObjectMapper JSON = new ObjectMapper();

    static final class MemoryLog implements EventSource {
        final List<byte[]> events = new ArrayList<>();
        int scanned;

        void append(String agent) {
            int i = events.size();
            try {
                ObjectNode fields = EventValidator.validate(JSON.createObjectNode().put("agent_id", agent));
                events.add(StoredEvent.seal(fields, UUID.randomUUID().toString(),
                        EventTime.formatRecordedAt(Instant.EPOCH.plusMillis(i)), i + 1, EventFields.GENESIS_PREV_HASH, i)
                        .payload());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }

        @Override
        public long size() {
            return events.size();
        }

        @Override
        public void scan(long from, long to, Visitor visitor) {
            for (long i = from; i < to; i++) {
                scanned++;
                visitor.accept(i, events.get((int) i));
            }
        }

        @Override
        public void onSizeAdvanced(Runnable listener) {
        }
    }

    private static Subscription subscription(EventMatcher matcher, long from, int capacity) {
        Subscription s = new Subscription(matcher, from, capacity, () -> { }, () -> { });
        s.attach(new Transport() {
            @Override
            public void wake() {
            }

            @Override
            public void abort() {
            }
        });
        return s;
    }

    private static EventMatcher all() throws Exception {
        return EventMatcher.of(null, EventFilter.none());
    }

    private static List<Long> drain(Subscription s) {
        return s.buffer().take(Integer.MAX_VALUE).stream().map(Delivery::logIndex).toList();
    }

    @Test
    void aLiveStreamGetsEachNewEventOnceInOrder() throws Exception {
        MemoryLog log = new MemoryLog();
        log.append("a");
        Dispatcher d = new Dispatcher(log);
        Subscription s = subscription(all(), 1, 100);
        d.add(s);
        d.step();
        for (int i = 0; i < 5; i++) {
            log.append("a");
        }
        d.step();
        d.step();
        assertThat(drain(s)).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(s.buffer().ending()).isNull();
    }

    @Test
    void nothingIsReadWhileNobodyListens() {
        MemoryLog log = new MemoryLog();
        Dispatcher d = new Dispatcher(log);
        for (int i = 0; i < 5000; i++) {
            log.append("a");
        }
        while (true) {
            try {
                if (!d.step()) {
                    break;
                }
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }
        assertThat(log.scanned).isZero();
    }

    @Test
    void catchUpFillsHalfTheBufferAtATimeAndTurnsLiveWithoutAGapOrADuplicate() throws Exception {
        Random rnd = new Random(12);
        MemoryLog log = new MemoryLog();
        for (int i = 0; i < 3000; i++) {
            log.append(i % 3 == 0 ? "x" : "y");
        }
        Dispatcher d = new Dispatcher(log);
        EventMatcher onlyX = EventMatcher.of(null, new EventFilter("x", null, null, null, Map.of()));
        Subscription caughtUp = subscription(onlyX, 0, 100);
        Subscription everything = subscription(all(), 500, 100);
        d.add(caughtUp);
        d.add(everything);
        List<Long> gotX = new ArrayList<>();
        List<Long> gotAll = new ArrayList<>();
        for (int round = 0; round < 2000; round++) {
            for (int i = rnd.nextInt(4); i > 0; i--) {
                log.append(rnd.nextBoolean() ? "x" : "y");
            }
            d.step();
            assertThat(caughtUp.buffer().size()).isLessThanOrEqualTo(100);
            assertThat(caughtUp.buffer().ending()).isNull();
            assertThat(everything.buffer().ending()).isNull();
            gotX.addAll(drain(caughtUp));
            gotAll.addAll(drain(everything));
        }
        d.step();
        gotX.addAll(drain(caughtUp));
        gotAll.addAll(drain(everything));
        List<Long> expectedX = new ArrayList<>();
        List<Long> expectedAll = new ArrayList<>();
        for (int i = 0; i < log.events.size(); i++) {
            if (new String(log.events.get(i), StandardCharsets.UTF_8).contains("\"agent_id\":\"x\"")) {
                expectedX.add((long) i);
            }
            if (i >= 500) {
                expectedAll.add((long) i);
            }
        }
        assertThat(gotX).isEqualTo(expectedX);
        assertThat(gotAll).isEqualTo(expectedAll);
    }

    @Test
    void catchUpNeverOverflowsASlowStream() throws Exception {
        MemoryLog log = new MemoryLog();
        for (int i = 0; i < 1000; i++) {
            log.append("a");
        }
        Dispatcher d = new Dispatcher(log);
        Subscription s = subscription(all(), 0, 10);
        d.add(s);
        for (int i = 0; i < 50; i++) {
            d.step();
        }
        assertThat(s.buffer().ending()).isNull();
        assertThat(s.buffer().size()).isEqualTo(5);
        assertThat(drain(s)).containsExactly(0L, 1L, 2L, 3L, 4L);
        d.step();
        assertThat(drain(s)).containsExactly(5L, 6L, 7L, 8L, 9L);
    }

    @Test
    void aFullBufferEndsTheStreamWithTheOldestUndeliveredEventAsResumePoint() throws Exception {
        MemoryLog log = new MemoryLog();
        Dispatcher d = new Dispatcher(log);
        EventMatcher onlyX = EventMatcher.of(null, new EventFilter("x", null, null, null, Map.of()));
        Subscription slow = subscription(onlyX, 0, 3);
        Subscription fast = subscription(all(), 0, 1000);
        d.add(slow);
        d.add(fast);
        d.step();
        String[] agents = {"x", "y", "x", "y", "y", "x"};
        for (String a : agents) {
            log.append(a);
        }
        d.step();
        assertThat(slow.buffer().take(1).get(0).logIndex()).isZero(); // delivered: index 0
        log.append("y"); // does not count toward the limit
        log.append("x"); // index 7: 2, 5, 7 queued, full
        log.append("x"); // index 8: overflow
        log.append("x");
        d.step();
        Ending ending = slow.buffer().ending();
        assertThat(ending).isEqualTo(new Ending.Overflow(2));
        assertThat(slow.buffer().size()).isZero();
        assertThat(fast.buffer().ending()).isNull();
        assertThat(drain(fast)).hasSize(10);
        d.step();
        assertThat(d.subscriptionCount()).isEqualTo(1);
    }

    @Test
    void anOverflowWithNothingQueuedResumesAtTheRefusedEvent() {
        EventBuffer b = new EventBuffer(1);
        assertThat(b.overflow(42)).isEqualTo(new Ending.Overflow(42));
        assertThat(b.offer(new Delivery(43, new byte[] {'{', '}'}))).isFalse();
    }

    @Test
    void theSseFrameIsTheContractsFraming() {
        Delivery d = new Delivery(7, "{\"a\":1}".getBytes(StandardCharsets.UTF_8));
        ByteBuffer frame = d.sseFrame();
        byte[] bytes = new byte[frame.remaining()];
        frame.get(bytes);
        assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("id: 7\nevent: event\ndata: {\"a\":1}\n\n");
        assertThat(d.sseFrame().remaining()).as("every caller gets a fresh view").isEqualTo(bytes.length);
    }
}
