package io.trailproof.logging;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Sends everything the service prints through one formatter ({@code log.format}, src/site/operations.md).
 *
 * <p>Our classes log through {@link System.Logger}, Undertow and XNIO through JBoss Logging, the Kafka
 * client through SLF4J (bound to java.util.logging by {@code slf4j-jdk14}); all of them end in
 * java.util.logging, whose root gets one handler writing to standard error. With {@code json},
 * standard output and standard error themselves are replaced by streams that turn each printed line
 * into a JSON record (logger {@code stdout} or {@code stderr}), on the stream it was printed to, and
 * an exception no thread caught is logged instead of printed: nothing printed after this call
 * reaches either stream except as a JSON line.
 */
public final class ServiceLogging {

    private ServiceLogging() {
    }

    /** Lucene's choice of vectorized code, and its notes about the vector module. */
    static final String LUCENE_VECTORIZATION = "org.apache.lucene.internal.vectorization";

    /**
     * Loggers kept at a level above INFO unless the java.util.logging configuration names a level for
     * them (src/site/operations.md#logs). The Kafka client logs its whole configuration (hundreds of
     * lines, one record each for every producer, consumer and admin client) and routine connection
     * changes at INFO; its warnings and errors are what an operator acts on. Lucene's vectorization
     * says at WARNING that the JDK's incubating vector module is not added, which the launcher leaves
     * out on purpose (src/site/operations.md#start-output): only its errors are printed.
     */
    static final Map<String, Level> QUIET_LIBRARIES = Map.of(
            "org.apache.kafka", Level.WARNING,
            LUCENE_VECTORIZATION, Level.SEVERE);

    /** Strong references: java.util.logging holds loggers weakly, and a collected one forgets its level. */
    private static final List<Logger> KEPT = new ArrayList<>();

    /** The property that names the class java.util.logging reads its configuration from when it starts. */
    static final String CONFIG_CLASS = "java.util.logging.config.class";

    /**
     * For the command-line tools (every command but {@code serve}): a command's output is its own
     * messages; the libraries' and the service's INFO records (the index's memory) belong in the
     * server's log, so only warnings and errors are printed (and of Lucene's vectorization, errors). Set up for
     * when java.util.logging starts ({@link CommandLogConfiguration}), not by starting it: its start
     * looks for a logging backend in every jar of the class path (a tenth of a second or more), which
     * a command that logs nothing never needs.
     */
    public static void quietForCommands() {
        if (!configuredByUser()) {
            System.setProperty(CONFIG_CLASS, CommandLogConfiguration.class.getName());
        }
    }

    /**
     * True when java.util.logging was given a configuration of the operator's own
     * ({@code -Djava.util.logging.config.file} or {@code .class}, e.g. in {@code TRAILPROOF_JAVA_OPTS}):
     * the levels it names are kept. Otherwise the JDK's default configuration, or the commands' own, is
     * in force, whose root level is no choice of anyone's.
     */
    private static boolean configuredByUser() {
        String configClass = System.getProperty(CONFIG_CLASS);
        return System.getProperty("java.util.logging.config.file") != null
                || (configClass != null && !configClass.equals(CommandLogConfiguration.class.getName()));
    }

    /** Installs the format for the rest of the process; call once, before the service starts. */
    public static void install(boolean json) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        Formatter formatter = json ? new JsonLogFormatter() : new TextLogFormatter();
        Logger root = LogManager.getLogManager().getLogger("");
        for (Handler old : root.getHandlers()) {
            root.removeHandler(old);
        }
        if (!configuredByUser()) {
            root.setLevel(Level.INFO); // a command's WARNING (quietForCommands) does not apply to the service
        }
        for (Map.Entry<String, Level> library : QUIET_LIBRARIES.entrySet()) {
            if (LogManager.getLogManager().getProperty(library.getKey() + ".level") == null) {
                Logger quiet = Logger.getLogger(library.getKey());
                quiet.setLevel(library.getValue());
                synchronized (KEPT) {
                    KEPT.add(quiet);
                }
            }
        }
        root.addHandler(new LineHandler(err, formatter));
        if (json) {
            System.setOut(new PrintStream(new LineRecords(out, formatter, "stdout", Level.INFO), true,
                    StandardCharsets.UTF_8));
            System.setErr(new PrintStream(new LineRecords(err, formatter, "stderr", Level.WARNING), true,
                    StandardCharsets.UTF_8));
            Thread.setDefaultUncaughtExceptionHandler((thread, e) -> Logger.getLogger("uncaught")
                    .log(Level.SEVERE, "exception not caught in thread " + thread.getName(), e));
        }
    }

    /** Writes each record, whole, to one stream, and flushes it (a crash loses no line). */
    static final class LineHandler extends Handler {
        private final PrintStream target;

        LineHandler(PrintStream target, Formatter formatter) {
            this.target = target;
            setFormatter(formatter);
            setLevel(Level.ALL);
        }

        @Override
        public synchronized void publish(LogRecord record) {
            if (!isLoggable(record)) {
                return;
            }
            target.print(getFormatter().format(record));
            target.flush();
        }

        @Override
        public void flush() {
            target.flush();
        }

        @Override
        public void close() {
            flush();
        }
    }

    /** An output stream that formats each line written to it as one record and writes that to {@code target}. */
    static final class LineRecords extends OutputStream {
        private final PrintStream target;
        private final Formatter formatter;
        private final String logger;
        private final Level level;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        LineRecords(PrintStream target, Formatter formatter, String logger, Level level) {
            this.target = target;
            this.formatter = formatter;
            this.logger = logger;
            this.level = level;
        }

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                emit();
            } else {
                line.write(b);
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            for (int i = off; i < off + len; i++) {
                write(b[i]);
            }
        }

        /** A partial line stays buffered until its end arrives; flushing does not cut it in two. */
        @Override
        public void flush() {
        }

        private void emit() {
            String text = line.toString(StandardCharsets.UTF_8);
            line.reset();
            if (text.endsWith("\r")) {
                text = text.substring(0, text.length() - 1);
            }
            LogRecord r = new LogRecord(level, text);
            r.setLoggerName(logger);
            synchronized (target) {
                target.print(formatter.format(r));
                target.flush();
            }
        }
    }
}
