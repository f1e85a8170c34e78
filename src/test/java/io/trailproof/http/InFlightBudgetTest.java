package io.trailproof.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;

class InFlightBudgetTest {

    private static final InetAddress ONE = address(1);
    private static final InetAddress TWO = address(2);

    private static InetAddress address(int last) {
        try {
            return InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) last});
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void theAutomaticBudgetIsAShareOfTheHeapInRequestBytes() {
        assertThat(InFlightBudget.fromHeap(256L << 20)).isEqualTo(6L << 20);
        assertThat(InFlightBudget.fromHeap(1L << 30)).isEqualTo(24L << 20);
        assertThat(InFlightBudget.fromHeap(16L << 20)).as("never below 1 MiB").isEqualTo(1L << 20);
        assertThat(InFlightBudget.defaultShare(24L << 20)).as("3/4 to one address").isEqualTo(18L << 20);
    }

    @Test
    void weightIsTakenUpToTheCapacityAndGivenBack() throws Exception {
        InFlightBudget budget = new InFlightBudget(100, 100);
        assertThat(budget.fits(100)).isTrue();
        assertThat(budget.fits(101)).isFalse();
        assertThat(budget.tryTake(ONE, 60)).isTrue();
        assertThat(budget.tryTake(ONE, 41)).isFalse();
        assertThat(budget.take(ONE, 41, 1)).as("no room comes: the wait ends").isFalse();
        assertThat(budget.tryTake(ONE, 40)).isTrue();
        budget.give(ONE, 60);
        assertThat(budget.held()).isEqualTo(40);
        assertThat(budget.take(ONE, 60, 1)).isTrue();
        budget.give(ONE, 100);
        assertThat(budget.held()).isZero();
        assertThat(budget.heldBy(ONE)).isZero();
    }

    @Test
    void oneAddressHoldsAtMostItsShareAndTheRestStaysForOthers() throws Exception {
        InFlightBudget budget = new InFlightBudget(100, 75);
        assertThat(budget.fits(75)).isTrue();
        assertThat(budget.fits(76)).as("larger than one address may ever hold: a 413").isFalse();
        for (int i = 0; i < 75; i++) {
            assertThat(budget.tryTake(ONE, 1)).isTrue();
        }
        assertThat(budget.tryTake(ONE, 1)).as("the address's share is taken").isFalse();
        assertThat(budget.take(ONE, 1, 1)).isFalse();
        assertThat(budget.tryTake(TWO, 25)).as("the rest is another address's").isTrue();
        assertThat(budget.tryTake(TWO, 1)).as("the budget itself is taken").isFalse();
        assertThat(budget.heldBy(ONE)).isEqualTo(75);
        assertThat(budget.heldBy(TWO)).isEqualTo(25);
        budget.give(ONE, 10);
        assertThat(budget.tryTake(TWO, 10)).as("room one address gave back is anybody's").isTrue();
        assertThat(budget.tryTake(ONE, 1)).isFalse();
    }

    @Test
    void aShareLargerThanTheBudgetIsTheBudget() {
        InFlightBudget budget = new InFlightBudget(100, 1_000);
        assertThat(budget.perAddress()).isEqualTo(100);
        assertThat(budget.fits(101)).isFalse();
    }

    @Test
    void aWaiterIsAdmittedWhenRoomIsGiven() throws Exception {
        InFlightBudget budget = new InFlightBudget(10, 10);
        assertThat(budget.tryTake(ONE, 10)).isTrue();
        Thread giver = new Thread(() -> budget.give(ONE, 10));
        giver.start();
        assertThat(budget.take(TWO, 10, 30_000)).isTrue();
        giver.join();
    }
}
