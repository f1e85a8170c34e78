package io.trailproof.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.trailproof.shipping.BatchSender;
import io.trailproof.shipping.EventShipper;
import io.trailproof.shipping.Notices;
import io.trailproof.shipping.Spool;
import io.trailproof.mcp.ToolCallRecorder.Direction;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * {@code trailproof mcp-proxy}: runs an MCP server over stdio as a child process and sits between
 * it and the client (src/site/mcp-proxy.md). Every byte passes through unchanged and in order both
 * ways; each message is numbered by the one {@link Sequencer} of both directions before its bytes are
 * passed on, and a copy goes to the recorder on its own thread, in that order, whose events the
 * shipper sends in the background. The child's standard error is passed on to the proxy's, and its exit code is
 * the proxy's.
 */
public final class McpProxy {

    /** Exit code when the MCP server command cannot be started (as shells use for a missing command). */
    public static final int CANNOT_START = 127;

    /** Starts each of the proxy's own lines on standard error. */
    static final String NOTICE_PREFIX = "trailproof mcp-proxy: ";

    private static final EventShipper.Origin ORIGIN = new EventShipper.Origin(ToolCallRecorder.SOURCE,
            "the MCP session goes on");

    /** Longest message kept for recording; a longer message is passed on unread. */
    static final int MAX_RECORDED_MESSAGE = 32 << 20;
    /** Bytes of messages waiting for the recorder; past it the pumps wait (see the page's limits). */
    private static final int RECORDING_BACKLOG = 64 << 20;
    /**
     * How long the output of an exited child may still be read (a grandchild may hold the pipe open);
     * what was read by then is recorded, nothing read later is passed on.
     */
    private static final Duration OUTPUT_AFTER_EXIT = Duration.ofSeconds(5);

    /**
     * What to run and where to record.
     *
     * @param command the MCP server command and its arguments
     * @param server the trailproof server's base URL
     * @param apiKey the API key, or null
     * @param agentId the agent id, or null for {@code mcp:<server name>}
     * @param spoolDir where unsent batches are kept
     * @param recording false to pass through only (TRAILPROOF_ENABLED=false)
     * @param flushInterval longest time an event waits for its batch to fill
     * @param sendGrace how long the proxy may still try to send after the session ended
     * @param gate whether tool calls are decided before they are forwarded, and how
     */
    public record Options(List<String> command, URI server, String apiKey, String agentId, Path spoolDir,
            boolean recording, Duration flushInterval, Duration sendGrace, Gate gate) {
        public Options {
            command = List.copyOf(command);
            Objects.requireNonNull(gate);
            if (command.isEmpty()) {
                throw new IllegalArgumentException("no MCP server command");
            }
            Objects.requireNonNull(server);
            Objects.requireNonNull(spoolDir);
        }
    }

    /**
     * The gate's settings (src/site/mcp-proxy.md#gate).
     *
     * @param on whether each {@code tools/call} is decided before it is forwarded
     * @param askWait how long an {@code ask} is waited for before the call is refused
     * @param failOpen whether calls are forwarded unchecked when the gate cannot be asked
     */
    public record Gate(boolean on, Duration askWait, boolean failOpen) {
        /** The default wait for a person's answer. */
        public static final Duration DEFAULT_ASK_WAIT = Duration.ofSeconds(60);
        /** No gate: every message passes through. */
        public static final Gate OFF = new Gate(false, DEFAULT_ASK_WAIT, false);

        public Gate {
            Objects.requireNonNull(askWait);
            if (askWait.isNegative()) {
                throw new IllegalArgumentException("the ask wait must not be negative");
            }
        }
    }

    /**
     * One message for the recorder (with how the gate let it through, if it did), or a question for
     * it: {@code agentId} is completed with the recorder's agent id when the recorder reaches it (every
     * message queued before it has then been read).
     */
    private record Message(Direction direction, byte[] bytes, Sequencer.Stamp stamp, ToolCallRecorder.GateMark mark,
            CompletableFuture<String> agentId) {
    }

    private static final Message END = new Message(null, null, null, null, null);
    /** How long the service has to answer one decision request. */
    private static final Duration DECISION_TIMEOUT = Duration.ofSeconds(10);

    private final Options options;
    private final InputStream clientIn;
    private final OutputStream clientOut;
    private final PrintStream err;
    private final Clock clock;
    private final String sessionId;
    private final Notices notices;
    private final Sequencer sequencer;
    private final BlockingQueue<Message> messages = new LinkedBlockingQueue<>();
    private final Semaphore backlog = new Semaphore(RECORDING_BACKLOG);
    private volatile Process child;
    private volatile String agentId;

    /**
     * @param sessionId this run's session id (a random UUID per run)
     */
    public McpProxy(Options options, InputStream clientIn, OutputStream clientOut, PrintStream err, Clock clock,
            String sessionId) {
        this.options = options;
        this.clientIn = clientIn;
        this.clientOut = clientOut;
        this.err = err;
        this.clock = clock;
        this.sessionId = sessionId;
        this.notices = new Notices(err, NOTICE_PREFIX);
        this.sequencer = new Sequencer(clock, System::nanoTime);
    }

    /** Runs the session to its end and returns the MCP server's exit code. */
    public int run() throws InterruptedException {
        // Both on the way to the first forwarded message, each about a tenth of a second of a start: the
        // JDK's ProcessBuilder.start asks for a System.Logger, whose first lookup reads every jar of the
        // class path for a logging backend, and Jackson's first mapper initializes its classes. They
        // are made side by side.
        FutureTask<ObjectMapper> mapper = new FutureTask<>(ObjectMapper::new);
        Thread making = new Thread(mapper, "trailproof-mcp-json");
        making.setDaemon(true);
        making.start();
        ProcessBuilder builder = new ProcessBuilder(options.command());
        // The audited server gets no credential to write audit events of its own.
        builder.environment().remove("TRAILPROOF_API_KEY");
        Process p;
        try {
            p = builder.start();
        } catch (IOException e) {
            notices.always("cannot start the MCP server " + options.command().get(0) + ": " + e.getMessage());
            return CANNOT_START;
        }
        child = p;

        ObjectMapper json = made(mapper);
        EventShipper shipper = null;
        Thread recorderThread = null;
        if (options.recording()) {
            shipper = new EventShipper(new BatchSender(options.server(), options.apiKey(), Duration.ofSeconds(10), json),
                    new Spool(options.spoolDir(), json), ORIGIN, sessionId, clock, options.flushInterval(), notices, json);
            shipper.start();
            ToolCallRecorder recorder = new ToolCallRecorder(options.agentId(), options.command().get(0), sessionId,
                    shipper::submit);
            recorderThread = new Thread(() -> record(recorder), "trailproof-mcp-recorder");
            recorderThread.setDaemon(true);
            recorderThread.start();
        }

        Passage toServer;
        OutputStream toClientOut = clientOut;
        if (options.gate().on() && options.recording()) {
            ClientOutput answers = new ClientOutput(clientOut);
            toClientOut = answers;
            ToolCallGate gate = new ToolCallGate(new DecisionClient(options.server(), options.apiKey(),
                    DECISION_TIMEOUT, json), this::agentId, sessionId, clock, options.gate(), notices);
            toServer = new GatedInput(clientIn, p.getOutputStream(), answers, gate,
                    (bytes, mark) -> enqueue(Direction.CLIENT_TO_SERVER, bytes, mark), notices, MAX_RECORDED_MESSAGE);
        } else {
            if (options.gate().on()) {
                notices.always("TRAILPROOF_ENABLED=false: nothing is recorded, and --gate is off too");
            }
            toServer = new Pump(clientIn, p.getOutputStream(), framer(Direction.CLIENT_TO_SERVER), true);
        }
        Pump toClient = new Pump(p.getInputStream(), toClientOut, framer(Direction.SERVER_TO_CLIENT), false);
        Pump errors = new Pump(p.getErrorStream(), err, null, false);
        // The client's side may block on a read for ever after the server ended: a daemon, never joined.
        thread(toServer, "trailproof-mcp-client-to-server");
        Thread out = thread(toClient, "trailproof-mcp-server-to-client");
        Thread errs = thread(errors, "trailproof-mcp-server-stderr");

        int exit = p.waitFor();
        long deadline = System.nanoTime() + OUTPUT_AFTER_EXIT.toNanos();
        out.join(OUTPUT_AFTER_EXIT.toMillis());
        errs.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        // Whatever either direction has read is framed and queued before the end marker; nothing read
        // later is passed on unrecorded.
        toClient.stop();
        toServer.stop();
        if (recorderThread != null) {
            messages.add(END);
            recorderThread.join();
            shipper.close(options.sendGrace());
        }
        return exit;
    }

    /** The mapper made beside the server's start; a failure to make one is the JVM's own (an Error) and ends the proxy. */
    private static ObjectMapper made(FutureTask<ObjectMapper> mapper) throws InterruptedException {
        try {
            return mapper.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException("cannot make the JSON mapper", e.getCause());
        }
    }

    /**
     * Passes a signal the proxy received on to the MCP server: TERM through its {@link ProcessHandle},
     * INT and HUP with {@code kill -s}. Only the signal: the server's standard input and output stay
     * open, so a server that handles the signal can still answer, and one that ignores it goes on.
     * ({@link Process#destroy()} would also close the proxy's ends of the server's pipes, and the server
     * would see its input end, often before the signal.) Nothing happens when the server has not
     * started or has ended.
     */
    public void forward(String signal) {
        Process p = child;
        if (p == null || !p.isAlive()) {
            return;
        }
        if ("TERM".equals(signal)) {
            p.toHandle().destroy();
            return;
        }
        try {
            Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(p.pid()))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (kill.waitFor(5, TimeUnit.SECONDS) && kill.exitValue() == 0) {
                return;
            }
        } catch (IOException e) {
            // no kill command here: terminate instead
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        p.toHandle().destroy();
    }

    private MessageFramer framer(Direction direction) {
        if (!options.recording()) {
            return null;
        }
        return new MessageFramer(MAX_RECORDED_MESSAGE, (bytes, length) -> enqueue(direction, bytes, null));
    }

    /** Numbers a message and queues it for the recorder (see {@link Sequencer}). */
    private void enqueue(Direction direction, byte[] bytes, ToolCallRecorder.GateMark mark) {
        int cost = bytes == null ? 0 : Math.min(bytes.length, RECORDING_BACKLOG);
        backlog.acquireUninterruptibly(cost);
        sequencer.next(stamp -> messages.add(new Message(direction, bytes, stamp, mark, null)));
    }

    /**
     * The agent id the recorder records this session under: the explicit one, or the recorder's own
     * once it has read every message queued so far (among them the server's answer to
     * {@code initialize}, which the client read before it could call a tool). The gate asks for
     * decisions under it, so a decision and the call it allows are in the same chain.
     */
    private String agentId() {
        String known = options.agentId() != null ? options.agentId() : agentId;
        if (known != null) {
            return known;
        }
        CompletableFuture<String> asked = new CompletableFuture<>();
        messages.add(new Message(null, null, null, null, asked));
        known = asked.join();
        agentId = known;
        return known;
    }

    private void record(ToolCallRecorder recorder) {
        while (true) {
            Message message;
            try {
                message = messages.take();
            } catch (InterruptedException e) {
                return;
            }
            if (message == END) {
                break;
            }
            if (message.agentId() != null) {
                message.agentId().complete(recorder.agentId());
                continue;
            }
            try {
                recorder.message(message.direction(), message.bytes(), message.stamp(), message.mark());
            } catch (RuntimeException e) {
                // A bug in recording must never end the session: the message was passed on already.
                notices.once("recorder", "a message could not be recorded (" + e + ")");
            } finally {
                if (message.bytes() != null) {
                    backlog.release(Math.min(message.bytes().length, RECORDING_BACKLOG));
                }
            }
        }
        recorder.finish(sequencer.next());
        recorder.end(sequencer.next());
        if (recorder.oversizedMessages() > 0) {
            notices.always(recorder.oversizedMessages() + " messages longer than " + (MAX_RECORDED_MESSAGE >> 20)
                    + " MiB were passed on without being read for recording");
        }
    }

    private static Thread thread(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
