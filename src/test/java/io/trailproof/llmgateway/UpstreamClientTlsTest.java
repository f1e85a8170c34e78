package io.trailproof.llmgateway;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.FileInputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The upstream client over TLS against the fake model API behind a certificate for {@code localhost}
 * made by the JDK's keytool: an answer arrives whole when the certificate is trusted and names the host;
 * an untrusted certificate, or a host name the certificate does not name, is refused before anything is sent.
 */
class UpstreamClientTlsTest {

    private static final byte[] BODY = "{\"model\":\"fake-plain\",\"messages\":[]}".getBytes(StandardCharsets.UTF_8);
    private static final List<Map.Entry<String, String>> HEADERS = List.of(Map.entry("Content-Type", "application/json"));

    @TempDir
    static Path tmp;

    private static FakeModelApi upstream;
    private static SSLContext tls;

    @BeforeAll
    static void start() throws Exception {
        Path store = tmp.resolve("localhost.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "upstream", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "SAN=dns:localhost", "-validity", "2", "-keystore", store.toString(), "-storetype", "PKCS12",
                "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true).start();
        String out = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(keytool.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(keytool.exitValue()).as(out).isZero();
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(store.toFile())) {
            keys.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory km = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        km.init(keys, "changeit".toCharArray());
        TrustManagerFactory tm = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tm.init(keys);
        tls = SSLContext.getInstance("TLS");
        tls.init(km.getKeyManagers(), tm.getTrustManagers(), null);
        SSLServerSocket server = (SSLServerSocket) tls.getServerSocketFactory()
                .createServerSocket(0, 50, InetAddress.getLoopbackAddress());
        upstream = new FakeModelApi(server);
    }

    @AfterAll
    static void stop() throws Exception {
        upstream.close();
    }

    private static UpstreamClient client(String host, SSLSocketFactory sockets) {
        return new UpstreamClient(URI.create("https://" + host + ":" + upstream.port()), Duration.ofSeconds(30), sockets);
    }

    @Test
    void anAnswerArrivesWholeOverTlsFromATrustedUpstreamAndTheConnectionIsReused() throws Exception {
        try (UpstreamClient client = client("localhost", tls.getSocketFactory())) {
            for (int i = 0; i < 2; i++) {
                try (UpstreamClient.Answer answer = client.send("POST", "/v1/chat/completions", HEADERS, BODY, true)) {
                    assertThat(answer.status).isEqualTo(200);
                    assertThat(answer.header("content-type")).isEqualTo("application/json");
                    assertThat(new String(answer.body.readAllBytes(), StandardCharsets.UTF_8))
                            .isEqualTo(FakeAnswers.chatPlain());
                }
            }
        }
    }

    @Test
    void anUntrustedCertificateOrAHostItDoesNotNameIsRefusedBeforeAnythingIsSent() {
        int before = upstream.received.size();
        try (UpstreamClient untrusted = client("localhost", (SSLSocketFactory) SSLSocketFactory.getDefault())) {
            assertThatThrownBy(() -> untrusted.send("POST", "/v1/chat/completions", HEADERS, BODY, true))
                    .isInstanceOf(UpstreamClient.Unreachable.class).hasMessageContaining("SSLHandshakeException");
        }
        try (UpstreamClient wrongName = client("127.0.0.1", tls.getSocketFactory())) {
            assertThatThrownBy(() -> wrongName.send("POST", "/v1/chat/completions", HEADERS, BODY, true))
                    .isInstanceOf(UpstreamClient.Unreachable.class);
        }
        assertThat(upstream.received).hasSize(before);
    }
}
