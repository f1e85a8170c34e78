package io.trailproof.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The recorder sees lines in the order their bytes were passed on, not the order they were framed: an
 * answer the client read comes before the call it sent next, even when the call was framed first.
 */
class PassOnOrderTest {

    @Test
    void anAnswerPassedOnBeforeACallIsTakenFirstThoughTheCallWasFramedFirst() throws Exception {
        PassOnOrder<String> order = new PassOnOrder<>(TimeUnit.SECONDS.toNanos(60));
        PassOnOrder<String>.Side toServer = order.side(0);
        PassOnOrder<String>.Side toClient = order.side(1);
        toClient.begin();           // the answer's last chunk is passed on to the client ...
        toServer.begin();           // ... which reads it and sends its next call, framed at once
        toServer.add("call 2");
        toServer.end();
        CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> {
            try {
                return order.take();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(200);
        assertThat(first.isDone()).as("the call waits while the answer is being framed").isFalse();
        toClient.add("answer 1");   // the answer's framing ends only now
        toClient.end();
        assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("answer 1");
        assertThat(order.take()).isEqualTo("call 2");
        order.end();
        assertThat(order.take()).isNull();
    }

    @Test
    void linesOfOneChunkKeepTheirOrderAndChunksTheirs() throws Exception {
        PassOnOrder<String> order = new PassOnOrder<>();
        PassOnOrder<String>.Side s = order.side(1);
        for (int chunk = 0; chunk < 3; chunk++) {
            s.begin();
            for (int line = 0; line < 4; line++) {
                s.add(chunk + "." + line);
            }
            s.end();
        }
        order.end();
        for (int chunk = 0; chunk < 3; chunk++) {
            for (int line = 0; line < 4; line++) {
                assertThat(order.take()).isEqualTo(chunk + "." + line);
            }
        }
        assertThat(order.take()).isNull();
    }

    @Test
    void aChunkThatIsNeverPassedOnHoldsTheRecorderUpOnlyOnce() throws Exception {
        PassOnOrder<String> order = new PassOnOrder<>();
        PassOnOrder<String>.Side toServer = order.side(0);
        order.side(1).begin();      // a write to a client that does not read: blocked for good
        for (int i = 0; i < 10; i++) {
            toServer.begin();
            toServer.add("call " + i);
            toServer.end();
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < 10; i++) {
            assertThat(order.take()).isEqualTo("call " + i);
        }
        long waited = System.nanoTime() - t0;
        // once, not once per line (which would be ten times as long)
        assertThat(waited).isGreaterThanOrEqualTo(PassOnOrder.MAX_WAIT_NANOS)
                .isLessThan(PassOnOrder.MAX_WAIT_NANOS * 5);
    }
}
