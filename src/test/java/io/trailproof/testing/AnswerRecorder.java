package io.trailproof.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Records the answers a test receives at the HTTP level (method, path, status, content type,
 * headers, body), so that they can be checked afterwards against the OpenAPI document
 * (OpenApiContractIT). Enabled per client: {@link Api#recordingTo}. Answers read by other clients
 * (an SSE stream, a WebSocket upgrade) are added with {@link #record}. Thread-safe.
 *
 * <p>With {@code -Dtrailproof.answers.file=FILE}, every {@link Api} of every test records into one
 * recorder that also appends each answer to FILE as a JSON line; RecordedAnswersIT then checks them
 * all against the OpenAPI document (src/site/testing.md#checking-answers-against-the-openapi-document).
 */
public final class AnswerRecorder {

    /** The system property naming the file that collects the answers of every test's {@link Api}. */
    public static final String FILE_PROPERTY = "trailproof.answers.file";

    private static volatile AnswerRecorder global;

    private final Path file;

    public AnswerRecorder() {
        this(null);
    }

    private AnswerRecorder(Path file) {
        this.file = file;
    }

    /** The recorder every {@link Api} uses when {@value #FILE_PROPERTY} is set; null otherwise. */
    static AnswerRecorder global() {
        String name = System.getProperty(FILE_PROPERTY);
        if (name == null || name.isBlank()) {
            return null;
        }
        if (global == null) {
            synchronized (AnswerRecorder.class) {
                if (global == null) {
                    global = new AnswerRecorder(Path.of(name));
                }
            }
        }
        return global;
    }

    /** One answer; {@code path} without the query, {@code contentType} null when the answer had none. */
    public record Answer(String method, String path, String query, int status, String contentType,
                         Map<String, List<String>> headers, String body) {

        public String header(String name) {
            List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
            return values == null || values.isEmpty() ? null : values.get(0);
        }

        @Override
        public String toString() {
            return method + " " + path + (query == null ? "" : "?" + query) + " -> " + status;
        }
    }

    private final List<Answer> answers = new ArrayList<>();

    public synchronized void record(String method, String path, String query, int status, HttpHeaders headers,
                                    String body) {
        Map<String, List<String>> lower = new TreeMap<>();
        headers.map().forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), List.copyOf(v)));
        Answer a = new Answer(method, path, query, status, headers.firstValue("Content-Type").orElse(null), lower, body);
        if (file != null) {
            // Appended, not kept: a whole IT run's answers need not fit in memory.
            try {
                Files.writeString(file, Api.JSON.writeValueAsString(a) + "\n", StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return;
        }
        answers.add(a);
    }

    /** Reads the answers a run appended to {@code file} (see {@value #FILE_PROPERTY}). */
    public static List<Answer> read(Path file) throws IOException {
        List<Answer> all = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (!line.isBlank()) {
                all.add(Api.JSON.readValue(line, Answer.class));
            }
        }
        return all;
    }

    public synchronized List<Answer> answers() {
        return List.copyOf(answers);
    }
}
