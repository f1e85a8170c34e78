package io.trailproof.checkpoint;

import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.core.note.TilePath;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;

/**
 * The tlog-tiles resources of the log (src/site/checkpoints.md): Merkle tiles read straight from the node store
 * (a tile at level L is a run of stored nodes at tree level 8L: nothing is hashed per request) and
 * entry bundles read from the log.
 *
 * <p>Only what the latest signed checkpoint covers is served: a client may only ask for tiles a
 * checkpoint implies, and a tile past it would show leaves no checkpoint commits to yet. Any width up
 * to the one at that size is served (a tile's content is fixed by its path), which covers every
 * partial tile of every earlier checkpoint.
 */
public final class Tiles {
    private final LogTree tree;
    private final CheckpointService checkpoints;

    public Tiles(LogTree tree, CheckpointService checkpoints) {
        this.tree = tree;
        this.checkpoints = checkpoints;
    }

    /** The tile's bytes, or empty when the latest checkpoint does not cover it. */
    public Optional<byte[]> read(TilePath tile) throws IOException {
        long covered = checkpoints.latest().map(SignedCheckpoint::size).orElse(0L);
        if (TilePath.widthInTree(tile.level(), tile.index(), covered) < tile.width()) {
            return Optional.empty();
        }
        long first = tile.index() * TilePath.FULL_WIDTH;
        if (!tile.entries()) {
            return Optional.of(tree.nodes(TilePath.HEIGHT * tile.level(), first, tile.width()));
        }
        List<byte[]> leaves = tree.leaves(first, tile.width());
        ByteBuffer out = ByteBuffer.allocate(tile.width() * (TilePath.ENTRY_LENGTH_PREFIX + Rfc9162.HASH_LENGTH));
        for (byte[] leaf : leaves) {
            out.putShort((short) leaf.length).put(leaf);
        }
        return Optional.of(out.array());
    }
}
