package io.trailproof.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InFlightBudgetTest {

    @Test
    void theAutomaticBudgetIsAShareOfTheHeapInRequestBytes() {
        assertThat(InFlightBudget.fromHeap(256L << 20)).isEqualTo(6L << 20);
        assertThat(InFlightBudget.fromHeap(1L << 30)).isEqualTo(24L << 20);
        assertThat(InFlightBudget.fromHeap(16L << 20)).as("never below 1 MiB").isEqualTo(1L << 20);
    }

    @Test
    void weightIsTakenUpToTheCapacityAndGivenBack() throws Exception {
        InFlightBudget budget = new InFlightBudget(100);
        assertThat(budget.fits(100)).isTrue();
        assertThat(budget.fits(101)).isFalse();
        assertThat(budget.tryTake(60)).isTrue();
        assertThat(budget.tryTake(41)).isFalse();
        assertThat(budget.take(41, 1)).as("no room comes: the wait ends").isFalse();
        assertThat(budget.tryTake(40)).isTrue();
        budget.give(60);
        assertThat(budget.held()).isEqualTo(40);
        assertThat(budget.take(60, 1)).isTrue();
        budget.give(100);
        assertThat(budget.held()).isZero();
    }

    @Test
    void aWaiterIsAdmittedWhenRoomIsGiven() throws Exception {
        InFlightBudget budget = new InFlightBudget(10);
        assertThat(budget.tryTake(10)).isTrue();
        Thread giver = new Thread(() -> budget.give(10));
        giver.start();
        assertThat(budget.take(10, 30_000)).isTrue();
        giver.join();
    }
}
