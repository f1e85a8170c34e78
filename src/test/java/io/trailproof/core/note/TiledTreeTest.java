package io.trailproof.core.note;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trailproof.core.merkle.InMemorySubtreeHashes;
import io.trailproof.core.merkle.Reference;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The root read through tiles alone equals the tree's root, at every size with small and partial tiles. */
class TiledTreeTest {
    private static final int LEAVES = 70_000;
    private static final List<byte[]> LEAF_HASHES = Reference.leafHashes(Reference.randomLeaves(new Random(3), LEAVES));
    private static final InMemorySubtreeHashes TREE = InMemorySubtreeHashes.ofLeafHashes(LEAF_HASHES);

    /** The tile's bytes as a log serves them: the hashes at height 8L, from index N*256, width of them. */
    static byte[] tileBytes(InMemorySubtreeHashes tree, TilePath t) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < t.width(); i++) {
            out.writeBytes(tree.get(TilePath.HEIGHT * t.level(), t.index() * TilePath.FULL_WIDTH + i));
        }
        return out.toByteArray();
    }

    @Test
    void rootFromTilesMatchesAtManySizes() throws Exception {
        long[] sizes = {1, 2, 3, 255, 256, 257, 511, 512, 65_535, 65_536, 65_537, 69_999, 70_000};
        for (long size : sizes) {
            assertThat(TiledTree.root(size, t -> tileBytes(TREE, t))).as("size " + size).isEqualTo(TREE.root(size));
        }
        Random r = new Random(5);
        for (int i = 0; i < 200; i++) {
            long size = 1 + r.nextInt(LEAVES);
            assertThat(TiledTree.root(size, t -> tileBytes(TREE, t))).as("size " + size).isEqualTo(TREE.root(size));
        }
    }

    @Test
    void aChangedByteInATileChangesTheRoot() throws Exception {
        long size = 70_000;
        byte[] want = TREE.root(size);
        for (String target : List.of("tile/0/273.p/112", "tile/1/001.p/17", "tile/2/000.p/1")) {
            byte[] root = TiledTree.root(size, t -> {
                byte[] b = tileBytes(TREE, t);
                if (t.path().equals(target)) {
                    b[b.length - 1] ^= 1;
                }
                return b;
            });
            assertThat(root).as(target).isNotEqualTo(want);
        }
    }

    @Test
    void aShortTileIsRefused() {
        assertThatThrownBy(() -> TiledTree.root(300, t -> new byte[31]))
                .isInstanceOfSatisfying(TlogRejection.class, e -> assertThat(e.kind()).isEqualTo(TlogRejection.Kind.PROOF_FAILED));
    }
}
