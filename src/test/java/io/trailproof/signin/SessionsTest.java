package io.trailproof.signin;

import io.trailproof.config.ApiKey;
import io.trailproof.testing.HandClock;
import org.junit.jupiter.api.Test;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Server-held sessions: idle and absolute time-outs on an injected clock, the bound, sign-out, unguessable ids. */
class SessionsTest {

    private static final Person ALICE = new Person("alice-sub", "alice@example.com", null, Set.of(ApiKey.Role.READ));

    private final HandClock clock = new HandClock("2026-03-02T10:00:00Z");
    private final Sessions sessions = new Sessions(Duration.ofMinutes(30), Duration.ofHours(12), 3, clock,
            new SecureRandom(new byte[] {1}));

    @Test
    void aSessionLivesWhileUsedAndEndsAfterTheIdleTimeOut() {
        Sessions.Session s = sessions.open(ALICE, "id-token");
        clock.advance(Duration.ofMinutes(29));
        assertThat(sessions.find(s.id())).containsSame(s);
        clock.advance(Duration.ofMinutes(29)); // 58 minutes after sign-in, 29 after the last request
        assertThat(sessions.find(s.id())).containsSame(s);
        clock.advance(Duration.ofMinutes(30));
        assertThat(sessions.find(s.id())).isEmpty();
        clock.advance(Duration.ofMinutes(-30));
        assertThat(sessions.find(s.id())).as("an ended session stays ended").isEmpty();
    }

    @Test
    void aSessionEndsAtItsMaximumAgeHoweverBusy() {
        Sessions.Session s = sessions.open(ALICE, null);
        for (int i = 0; i < 47; i++) {
            clock.advance(Duration.ofMinutes(15));
            assertThat(sessions.find(s.id())).isPresent();
        }
        clock.advance(Duration.ofMinutes(15)); // 12 hours
        assertThat(sessions.find(s.id())).isEmpty();
    }

    @Test
    void signOutEndsTheSessionAndUnknownIdsFindNothing() {
        Sessions.Session s = sessions.open(ALICE, null);
        assertThat(sessions.end(s.id())).containsSame(s);
        assertThat(sessions.find(s.id())).isEmpty();
        assertThat(sessions.end(s.id())).isEmpty();
        assertThat(sessions.find(null)).isEmpty();
        assertThat(sessions.find("")).isEmpty();
        assertThat(sessions.find(s.id() + "x")).isEmpty();
    }

    @Test
    void atTheBoundTheOldestSessionEnds() {
        Sessions.Session first = sessions.open(ALICE, null);
        clock.advance(Duration.ofSeconds(1));
        Sessions.Session second = sessions.open(ALICE, null);
        Sessions.Session third = sessions.open(ALICE, null);
        Sessions.Session fourth = sessions.open(ALICE, null);
        assertThat(sessions.size()).isEqualTo(3);
        assertThat(sessions.find(first.id())).isEmpty();
        assertThat(sessions.find(second.id())).isPresent();
        assertThat(sessions.find(third.id())).isPresent();
        assertThat(sessions.find(fourth.id())).isPresent();
    }

    @Test
    void expiredSessionsAreDroppedAtTheNextSignInRatherThanEvictingLiveOnes() {
        Sessions.Session old = sessions.open(ALICE, null);
        sessions.open(ALICE, null);
        clock.advance(Duration.ofMinutes(31));
        Sessions.Session live = sessions.open(ALICE, null);
        sessions.open(ALICE, null);
        sessions.open(ALICE, null);
        assertThat(sessions.find(live.id())).isPresent();
        assertThat(sessions.find(old.id())).isEmpty();
    }

    @Test
    void identifiersAndCsrfTokensAre256RandomBitsEachDistinct() {
        Sessions many = new Sessions(Duration.ofMinutes(30), Duration.ofHours(12), 10_000, clock, new SecureRandom());
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            Sessions.Session s = many.open(ALICE, null);
            assertThat(s.id()).matches("[A-Za-z0-9_-]{43}");
            assertThat(s.csrfToken()).matches("[A-Za-z0-9_-]{43}").isNotEqualTo(s.id());
            assertThat(seen.add(s.id())).isTrue();
            assertThat(seen.add(s.csrfToken())).isTrue();
        }
    }

    @Test
    void aPersonIsRecordedByEmailOrNameWithTheSubject() {
        assertThat(ALICE.recordedName()).isEqualTo("alice@example.com (alice-sub)");
        assertThat(new Person("s-1", null, "Bob Builder", Set.of()).recordedName()).isEqualTo("Bob Builder (s-1)");
        assertThat(new Person("s-2", " ", null, Set.of()).recordedName()).isEqualTo("s-2");
    }
}
