package io.trailproof.http;

import io.trailproof.config.ApiKey;
import io.trailproof.signin.Person;
import io.trailproof.signin.Sessions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * What admitting a request costs the service (src/site/sign-in.md#signing-in-people): with an API key
 * (the key's digest compared with each of 4 configured keys, and its name looked up, as
 * {@code ApiHandler} does) against with a sign-in session (the session looked up among 10,000 held,
 * its idle time moved, the person's name for the records, and, for a request that changes
 * something, the CSRF token compared). Neither calls the provider: the goal is that a signed-in
 * request costs at most 50 µs more than a keyed one.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class SignedInRequestBench {

    private Authenticator authenticator;
    private String header;
    private Sessions sessions;
    private final List<String> ids = new ArrayList<>();
    private int next;
    private byte[] token;

    @Setup
    public void setUp() {
        List<ApiKey> keys = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            keys.add(new ApiKey("key-" + i, "bench-key-" + i + "-0123456789abcdef0123456789abcdef", Set.of(ApiKey.Role.READ)));
        }
        authenticator = new Authenticator(keys);
        header = "Bearer bench-key-3-0123456789abcdef0123456789abcdef";
        sessions = new Sessions(Duration.ofMinutes(30), Duration.ofHours(12), 10_000, Clock.systemUTC(), new SecureRandom());
        for (int i = 0; i < 10_000; i++) {
            ids.add(sessions.open(new Person("sub-" + i, "person" + i + "@example.com", "Person " + i,
                    Set.of(ApiKey.Role.READ)), null).id());
        }
        token = sessions.find(ids.get(0)).orElseThrow().csrfToken().getBytes(StandardCharsets.UTF_8);
    }

    @Benchmark
    public String keyed() throws ApiException {
        Set<ApiKey.Role> roles = authenticator.authenticate(header);
        return roles.isEmpty() ? null : authenticator.keyName(header);
    }

    @Benchmark
    public String signedIn() {
        String id = ids.get(next++ & 8191);
        Sessions.Session s = sessions.find(id).orElseThrow();
        return s.person().roles().isEmpty() ? null : s.person().recordedName();
    }

    @Benchmark
    public boolean signedInChange() {
        String id = ids.get(next++ & 8191);
        Sessions.Session s = sessions.find(id).orElseThrow();
        return MessageDigest.isEqual(token, s.csrfToken().getBytes(StandardCharsets.UTF_8))
                && !s.person().recordedName().isEmpty();
    }
}
