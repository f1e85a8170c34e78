package io.trailproof.mcp;

import io.trailproof.testing.Await;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

class PumpTest {

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void everyByteIsPassedOnAndTheLinesAChunkEndsAreFramedBeforeItsBytesAre() {
        ByteArrayOutputStream to = new ByteArrayOutputStream();
        List<String> lines = new ArrayList<>();
        List<Integer> passedOnBefore = new ArrayList<>();
        MessageFramer framer = new MessageFramer(1024, (bytes, length) -> {
            lines.add(new String(bytes, StandardCharsets.UTF_8));
            passedOnBefore.add(to.size());
        });
        byte[] input = utf8("{\"id\":1}\n{\"id\":2}\n{\"id\"");
        new Pump(new ByteArrayInputStream(input), to, framer, true).run();
        assertThat(to.toByteArray()).isEqualTo(input);
        assertThat(lines).containsExactly("{\"id\":1}", "{\"id\":2}", "{\"id\"");
        // One chunk: both of its lines were queued before any of its bytes reached the other side.
        assertThat(passedOnBefore.subList(0, 2)).containsOnly(0);
    }

    @Test
    void aDestinationThatFailsStillHasEveryLineFramed() {
        OutputStream broken = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("the reader went away");
            }
        };
        List<String> lines = new ArrayList<>();
        MessageFramer framer = new MessageFramer(1024, (bytes, length) -> lines.add(new String(bytes, StandardCharsets.UTF_8)));
        Pump pump = new Pump(new ByteArrayInputStream(utf8("a\nb\nc\n")), broken, framer, false);
        pump.run();
        assertThat(pump.destinationFailed()).isTrue();
        assertThat(lines).containsExactly("a", "b", "c");
    }

    /**
     * A pump that stalls at its framing (as a thread descheduled on a busy machine does) still queues
     * the answer the peer read before the peer's reply to it: the reply cannot exist before the answer's
     * bytes were passed on, and they are passed on only after the answer was queued.
     */
    @Test
    void aReplyToAMessageIsNeverQueuedBeforeTheMessageEvenWhenItsPumpStalls() throws Exception {
        List<String> queue = new CopyOnWriteArrayList<>();
        PipedOutputStream serverWrites = new PipedOutputStream();
        PipedInputStream serverOut = new PipedInputStream(serverWrites, 1 << 16);
        PipedOutputStream toClient = new PipedOutputStream();
        PipedInputStream clientIn = new PipedInputStream(toClient, 1 << 16);
        PipedOutputStream clientWrites = new PipedOutputStream();
        PipedInputStream clientOut = new PipedInputStream(clientWrites, 1 << 16);
        ByteArrayOutputStream serverIn = new ByteArrayOutputStream();

        MessageFramer stalling = new MessageFramer(1024, (bytes, length) -> {
            try {
                Await.pace(Duration.ofMillis(300), "the pump is descheduled here");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            queue.add("server: " + new String(bytes, StandardCharsets.UTF_8));
        });
        MessageFramer quick = new MessageFramer(1024, (bytes, length) -> queue.add("client: " + new String(bytes, StandardCharsets.UTF_8)));
        Thread toClientPump = new Thread(new Pump(serverOut, toClient, stalling, true));
        Thread toServerPump = new Thread(new Pump(clientOut, serverIn, quick, true));
        Thread client = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(clientIn, StandardCharsets.UTF_8))) {
                String result = in.readLine();
                clientWrites.write(utf8("next call after " + result + "\n"));
                clientWrites.close();
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        toClientPump.start();
        toServerPump.start();
        client.start();
        serverWrites.write(utf8("result\n"));
        serverWrites.close();
        client.join(10_000);
        toClientPump.join(10_000);
        toServerPump.join(10_000);

        assertThat(queue).containsExactly("server: result", "client: next call after result");
        assertThat(serverIn.toString(StandardCharsets.UTF_8)).isEqualTo("next call after result\n");
    }

    /**
     * A source that never ends (a grandchild of the MCP server holding its output open): stopping the
     * pump reports the message it holds unfinished, and what it reads afterwards is not passed on, so
     * every byte passed on was framed.
     */
    @Test
    void aStoppedPumpReportsWhatItHoldsAndPassesNothingOnAfterwards() throws Exception {
        PipedOutputStream source = new PipedOutputStream();
        PipedInputStream from = new PipedInputStream(source, 1 << 16);
        ByteArrayOutputStream to = new ByteArrayOutputStream();
        List<String> messages = new CopyOnWriteArrayList<>();
        MessageFramer framer = new MessageFramer(1024, (bytes, length) -> messages.add(new String(bytes, StandardCharsets.UTF_8)));
        Pump pump = new Pump(from, to, framer, false);
        Thread thread = new Thread(pump);
        thread.start();
        byte[] first = utf8("{\"id\":1}\n{\"id\"");
        source.write(first);
        source.flush();
        Await.untilTrue("the first bytes were passed on", Duration.ofSeconds(30), () -> to.size() == first.length);
        pump.stop();
        assertThat(messages).containsExactly("{\"id\":1}", "{\"id\"");
        source.write(utf8(":2}\n"));
        source.flush();
        thread.join(30_000);
        assertThat(thread.isAlive()).as("the pump ended at the chunk it read after the stop").isFalse();
        assertThat(to.toByteArray()).isEqualTo(first);
        assertThat(messages).hasSize(2);
    }
}
