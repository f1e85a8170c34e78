package io.trailproof.http;

import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code Expect: 100-continue} (RFC 9110 10.1.1), as curl sends for large bodies: an accepted request
 * gets its 100 before the client sends the body, so the client never waits out its expect timeout;
 * a refused one gets its final answer without the body ever being sent.
 */
class ExpectContinueIT {

    @TempDir
    Path dir;

    private static String send(int port, String head, String body, boolean waitForContinue) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
            out.write(head.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            String first = in.readLine();
            if (!waitForContinue) {
                return first;
            }
            assertThat(first).as("the server must ask for the body").isEqualTo("HTTP/1.1 100 Continue");
            assertThat(in.readLine()).isEmpty();
            out.write(body.getBytes(StandardCharsets.UTF_8));
            out.flush();
            return in.readLine();
        }
    }

    @Test
    void anAcceptedBodyIsAskedForWithA100AndStored() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"))) {
            String body = "[{\"agent_id\":\"expect\"},{\"agent_id\":\"expect\"}]";
            String head = "POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n"
                    + "Content-Length: " + body.length() + "\r\n\r\n";
            assertThat(send(s.server().port(), head, body, true)).isEqualTo("HTTP/1.1 201 Created");
            assertThat(s.api().get("/v1/events?agent_id=expect").header("X-Total-Count")).isEqualTo("2");
        }
    }

    @Test
    void aBodyOverTheLimitIsRefusedWithoutBeingAskedFor() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"), "limits.max-body-bytes", "2000")) {
            String head = "POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n"
                    + "Content-Length: 5000\r\n\r\n";
            assertThat(send(s.server().port(), head, null, false)).isEqualTo("HTTP/1.1 413 Request Entity Too Large");
        }
    }

    @Test
    void anUnauthenticatedRequestIsRefusedWithoutBeingAskedFor() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"), "auth.api-keys", "k1")) {
            String head = "POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n"
                    + "Content-Length: 20\r\n\r\n";
            assertThat(send(s.server().port(), head, null, false)).isEqualTo("HTTP/1.1 401 Unauthorized");
        }
    }
}
