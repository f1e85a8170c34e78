package io.trailproof.stream;

import java.time.Duration;

/**
 * Limits of the live stream (src/site/live-stream.md).
 *
 * @param maxSubscribers streams open at once; one more is refused (503)
 * @param maxBufferedEvents matching events queued for one connection; one more ends it (the overflow rule)
 * @param heartbeat an SSE stream on which nothing was written this long gets a {@code : keep-alive}
 *     comment; a WebSocket gets a ping this often
 */
public record StreamOptions(int maxSubscribers, int maxBufferedEvents, Duration heartbeat) {

    public StreamOptions {
        if (maxSubscribers < 1 || maxBufferedEvents < 1 || heartbeat.isNegative() || heartbeat.isZero()) {
            throw new IllegalArgumentException("stream limits must be positive");
        }
    }

    public static StreamOptions defaults() {
        return new StreamOptions(1000, 10_000, Duration.ofSeconds(15));
    }
}
