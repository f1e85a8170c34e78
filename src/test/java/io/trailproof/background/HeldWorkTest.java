package io.trailproof.background;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class HeldWorkTest {

    @Test
    void workIsHeldUntilReleasedAndLaterWorkRunsAtOnce() throws Exception {
        HeldWork work = new HeldWork(Duration.ofHours(1));
        CountDownLatch first = new CountDownLatch(1);
        work.execute(first::countDown);
        assertThat(first.await(200, TimeUnit.MILLISECONDS)).isFalse();
        work.release();
        assertThat(first.await(30, TimeUnit.SECONDS)).isTrue();
        CountDownLatch later = new CountDownLatch(1);
        work.execute(later::countDown);
        assertThat(later.await(30, TimeUnit.SECONDS)).isTrue();
        work.release();   // a second release changes nothing
    }

    @Test
    void heldWorkRunsAfterTheLimitWhenNothingReleasesIt() throws Exception {
        HeldWork work = new HeldWork(Duration.ofMillis(100));
        CountDownLatch ran = new CountDownLatch(1);
        work.execute(ran::countDown);
        assertThat(ran.await(30, TimeUnit.SECONDS)).isTrue();
    }
}
