package io.trailproof.core.merkle;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class StreamingRootTest {

    @Test
    void emptyIsTheEmptyRoot() {
        assertThat(new StreamingRoot().root()).isEqualTo(Rfc9162.emptyRoot());
    }

    @Test
    void equalsTheStoredTreeRootAtEverySize() {
        Random random = new Random(20261122);
        StreamingRoot streaming = new StreamingRoot();
        InMemorySubtreeHashes tree = new InMemorySubtreeHashes();
        for (int i = 0; i < 600; i++) {
            byte[] leaf = new byte[32];
            random.nextBytes(leaf);
            byte[] leafHash = Rfc9162.leafHash(leaf);
            streaming.add(leafHash);
            tree.append(leafHash);
            assertThat(streaming.root()).as("size %d", i + 1).isEqualTo(tree.root());
        }
        assertThat(streaming.size()).isEqualTo(600);
    }
}
