package io.trailproof.core.note;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * tlog-tiles path encoding and parsing, with the vectors of tessera's {@code api/layout/paths_test.go}
 * (tessera's "size 2^64 - 1" is {@link Long#MAX_VALUE} here: the tiles named are full in both).
 */
class TilePathTest {

    @ParameterizedTest(name = "entries for leaf {0} at size {1}")
    @CsvSource({
        "0, 256, tile/entries/000",
        "255, 256, tile/entries/000",
        "251, 255, tile/entries/000.p/255",
        "256, 512, tile/entries/001",
        "256, 257, tile/entries/001.p/1",
        "31604937984, 31604938240, tile/entries/x123/x456/789"})
    void entriesPathForLogIndex(long seq, long logSize, String want) {
        assertThat(TilePath.inTree(true, 0, seq / TilePath.FULL_WIDTH, logSize).orElseThrow().path()).isEqualTo(want);
    }

    @ParameterizedTest(name = "entries bundle {0} at size {1}")
    @CsvSource({
        "0, 289, tile/entries/000",
        "0, 8, tile/entries/000.p/8",
        "255, 65536, tile/entries/255",
        "256, 65792, tile/entries/256",
        "123456789000, 9223372036854775807, tile/entries/x123/x456/x789/000"})
    void entriesPath(long n, long logSize, String want) {
        assertThat(TilePath.inTree(true, 0, n, logSize).orElseThrow().path()).isEqualTo(want);
    }

    @Test
    void tesserasBundleBeyondItsTreeIsStillEncodedAsIts() {
        // tessera's vector N=255 at size 255*256-3 names a bundle its tree does not reach yet (its
        // width comes from size mod 256); the encoding is what it checks.
        assertThat(new TilePath(true, 0, 255, 253).path()).isEqualTo("tile/entries/255.p/253");
        assertThat(TilePath.inTree(true, 0, 255, 255 * 256 - 3)).isEmpty();
    }

    @ParameterizedTest(name = "tile {0}/{1} at size {2}")
    @CsvSource({
        "0, 0, 256, tile/0/000",
        "0, 0, 255, tile/0/000.p/255",
        "1, 0, 9223372036854775807, tile/1/000",
        "1, 0, 256, tile/1/000.p/1",
        "1, 0, 1024, tile/1/000.p/4",
        "15, 455667, 9223372036854775807, tile/15/x455/667",
        "3, 1234567, 9223372036854775807, tile/3/x001/x234/567",
        "15, 123456789, 9223372036854775807, tile/15/x123/x456/789"})
    void tilePath(int level, long index, long logSize, String want) {
        // Tessera encodes levels 15 and 3 for sizes whose tiles there are absent in a real tree: the
        // encoding is what is tested, so build the full tile directly when the tree has none.
        TilePath t = TilePath.inTree(false, level, index, logSize)
                .orElse(new TilePath(false, level, index, TilePath.FULL_WIDTH));
        assertThat(t.path()).isEqualTo(want);
    }

    @Test
    void anEmptyTreeHasNoTiles() {
        // tessera names tile/0/000 for size 0; such a tile has no hashes, and tlog-tiles says empty
        // tiles must not be served, so there is none.
        assertThat(TilePath.inTree(false, 0, 0, 0)).isEmpty();
    }

    @Test
    void theSpecExampleOfSize70000() {
        long size = 70_000;
        assertThat(TilePath.widthInTree(0, 272, size)).isEqualTo(256);
        assertThat(TilePath.widthInTree(0, 273, size)).isEqualTo(112);
        assertThat(TilePath.widthInTree(1, 0, size)).isEqualTo(256);
        assertThat(TilePath.widthInTree(1, 1, size)).isEqualTo(17);
        assertThat(TilePath.widthInTree(2, 0, size)).isEqualTo(1);
        assertThat(TilePath.widthInTree(3, 0, size)).isZero();
        assertThat(TilePath.widthInTree(63, 0, Long.MAX_VALUE)).isZero();
        assertThat(TilePath.widthInTree(7, 0, Long.MAX_VALUE)).isEqualTo(127);
    }

    @ParameterizedTest(name = "parse {0}/{1}")
    @CsvSource({
        "0, x001/x234/067, 0, 1234067, 256",
        "0, x001/x234/067.p/89, 0, 1234067, 89",
        "63, x999/x999/x999/x999/x999/999.p/255, 63, 999999999999999999, 255",
        "0, 001, 0, 1, 256"})
    void parses(String level, String index, int wantLevel, long wantIndex, int wantWidth) throws TlogRejection {
        TilePath t = TilePath.parse("tile/" + level + "/" + index);
        assertThat(t).isEqualTo(new TilePath(false, wantLevel, wantIndex, wantWidth));
        assertThat(t.path()).isEqualTo("tile/" + level + "/" + index);
        assertThat(TilePath.parse("tile/entries/" + index)).isEqualTo(new TilePath(true, 0, wantIndex, wantWidth));
    }

    @ParameterizedTest(name = "refuse {0}/{1}")
    @CsvSource({
        "0, x001/x234/067.p/",
        "0, x001/x234/067.p",
        "0, x001/x234/",
        "0, x001/x234",
        "0, x001/",
        "0, x001",
        "1, x001/.p/abc",
        "64, x001/002",
        "-1, x001/002",
        "abc, x001/002",
        "8, 001/002",
        "8, x001/0002",
        "8, x001/-002",
        "8, x001/002.p/256",
        "63, x999/x999/x999/x999/x999/x999/999.p/255",
        // beyond tessera's table: leading zeros in level and width, a zero width
        "00, 001",
        "0, 001.p/089",
        "0, 001.p/0"})
    void refuses(String level, String index) {
        assertThatThrownBy(() -> TilePath.parse("tile/" + level + "/" + index))
                .isInstanceOfSatisfying(TlogRejection.class,
                        e -> assertThat(e.kind()).isEqualTo(TlogRejection.Kind.MALFORMED_TILE_PATH));
    }

    @Test
    void encodesIndexesAsTheSpecShows() {
        assertThat(TilePath.encodeIndex(0)).isEqualTo("000");
        assertThat(TilePath.encodeIndex(999)).isEqualTo("999");
        assertThat(TilePath.encodeIndex(1000)).isEqualTo("x001/000");
        assertThat(TilePath.encodeIndex(1234067)).isEqualTo("x001/x234/067");
    }
}
