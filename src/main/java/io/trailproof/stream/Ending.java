package io.trailproof.stream;

/** Why a stream ends; once set it never changes. */
sealed interface Ending {

    /**
     * The connection's buffer was full (src/site/live-stream.md): every matching event below {@code resumeFrom}
     * was handed to the connection, none at or after it will be.
     */
    record Overflow(long resumeFrom) implements Ending {
    }

    /** The server is stopping: SSE ends the response, a WebSocket closes with 1001. */
    record Shutdown() implements Ending {
    }

    /** The client went away or the connection failed; nothing more can be written. */
    record Gone() implements Ending {
    }
}
