package io.trailproof.ledger;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.ledger.LedgerViews.AgentSummary;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Readers never see a size the tree (or the agents' state) does not have.
 * The tree append is slowed down so that the log's sync thread makes a group durable long before its
 * leaves are in the tree; readers hammer every read at {@code size()} meanwhile.
 */
class ReadableSizeTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void everyReadAtTheCurrentSizeSucceedsWhileTheTreeLagsTheLog() throws Exception {
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(1 << 20, 500), Clock.systemUTC(), new Random(3),
                tree -> leaf -> {
                    LockSupport.parkNanos(30_000); // widens the window between the log write and the tree
                    tree.append(leaf);
                })) {
            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            ConcurrentLinkedQueue<String> ids = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                int writer = w;
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (int b = 0; b < 12; b++) {
                            List<ObjectNode> batch = new ArrayList<>();
                            for (int i = 0; i < 100; i++) {
                                batch.add(JSON.createObjectNode().put("agent_id", "agent-" + ((writer + i) % 5)));
                            }
                            List<AppendOutcome> out = ledger.append(batch);
                            ids.add(out.get(out.size() - 1).event().id());
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }));
            }
            List<Thread> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                readers.add(Thread.ofPlatform().start(() -> {
                    Random random = new Random(7);
                    try {
                        while (writing.get() && failure.get() == null) {
                            long size = ledger.size();
                            ledger.root(size);
                            if (size > 1) {
                                ledger.consistencyProof(1 + random.nextInt((int) size - 1), size);
                            }
                            String id = ids.peek();
                            if (id != null) {
                                ledger.inclusionProof(id, ledger.size());
                            }
                            ledger.stats();
                            for (AgentSummary a : ledger.agents()) {
                                // Only readable events: the head is the event_count-th event of the chain.
                                assertThat(a.headSequence()).as("head of " + a.agentId()).isEqualTo(a.eventCount());
                                assertThat(a.chainValid()).as("chain of " + a.agentId()).isTrue();
                            }
                            ledger.slice("agent-" + random.nextInt(5), null, null);
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            writing.set(false);
            for (Thread t : readers) {
                t.join();
            }
            assertThat(failure.get()).as("a read at the current size failed").isNull();
            assertThat(ledger.size()).isEqualTo(4 * 12 * 100);
        }
    }
}
