package io.trailproof.core.merkle;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Published RFC 6962 / RFC 9162 test vectors of the Certificate Transparency reference
 * implementation (merkle_tree_test.cc; transparency-dev/merkle testonly): eight raw leaves, the root
 * of every prefix, and some audit paths and consistency proofs. They pin both the production code
 * and the test {@link Reference}.
 */
class KnownAnswerTest {
    private static final HexFormat HEX = HexFormat.of();

    private static final String[] LEAVES = {
        "", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f",
    };

    /** ROOTS[n] is the root of the first n leaves. */
    private static final String[] ROOTS = {
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
        "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
    };

    private record Inclusion(int leafIndex, int treeSize, String... path) {}

    private record Consistency(int m, int n, String... proof) {}

    private static final List<Inclusion> INCLUSIONS = List.of(
            new Inclusion(0, 1),
            new Inclusion(0, 8,
                    "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                    "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
            new Inclusion(5, 8,
                    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
                    "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
            new Inclusion(2, 3, "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"),
            new Inclusion(1, 5,
                    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
                    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"));

    private static final List<Consistency> CONSISTENCIES = List.of(
            new Consistency(1, 1),
            new Consistency(1, 8,
                    "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                    "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"),
            new Consistency(6, 8,
                    "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
                    "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
            new Consistency(2, 5,
                    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
            new Consistency(6, 7,
                    "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
                    "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
                    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"));

    @Test
    void emptyRootIsSha256OfNothing() {
        assertThat(HEX.formatHex(Rfc9162.emptyRoot())).isEqualTo(ROOTS[0]);
    }

    @Test
    void rootsOfEveryPrefixMatchTheVectors() {
        List<byte[]> leaves = leaves();
        InMemorySubtreeHashes tree = new InMemorySubtreeHashes();
        assertThat(HEX.formatHex(tree.root())).isEqualTo(ROOTS[0]);
        for (int n = 1; n <= leaves.size(); n++) {
            tree.append(Rfc9162.leafHash(leaves.get(n - 1)));
            assertThat(HEX.formatHex(tree.root())).as("root of %d leaves", n).isEqualTo(ROOTS[n]);
            assertThat(HEX.formatHex(Reference.mth(leaves.subList(0, n)))).as("reference, n=%d", n)
                    .isEqualTo(ROOTS[n]);
        }
        for (int n = 0; n <= leaves.size(); n++) {
            assertThat(HEX.formatHex(tree.root(n))).as("earlier root %d from the full tree", n).isEqualTo(ROOTS[n]);
        }
    }

    @Test
    void auditPathsMatchTheVectorsAndVerify() {
        List<byte[]> leaves = leaves();
        InMemorySubtreeHashes tree = tree(leaves);
        for (Inclusion v : INCLUSIONS) {
            List<byte[]> path = tree.inclusionProof(v.leafIndex(), v.treeSize());
            assertThat(hex(path)).as("%s", v).containsExactly(v.path());
            assertThat(hex(Reference.path(v.leafIndex(), leaves.subList(0, v.treeSize())))).containsExactly(v.path());
            assertThat(MerkleProofs.verifyInclusion(Rfc9162.leafHash(leaves.get(v.leafIndex())), v.leafIndex(),
                    v.treeSize(), unhex(v.path()), HEX.parseHex(ROOTS[v.treeSize()]))).as("%s", v).isTrue();
        }
    }

    @Test
    void consistencyProofsMatchTheVectorsAndVerify() {
        List<byte[]> leaves = leaves();
        InMemorySubtreeHashes tree = tree(leaves);
        for (Consistency v : CONSISTENCIES) {
            assertThat(hex(tree.consistencyProof(v.m(), v.n()))).as("%s", v).containsExactly(v.proof());
            assertThat(hex(Reference.proof(v.m(), leaves.subList(0, v.n())))).containsExactly(v.proof());
            assertThat(MerkleProofs.verifyConsistency(v.m(), v.n(), HEX.parseHex(ROOTS[v.m()]),
                    HEX.parseHex(ROOTS[v.n()]), unhex(v.proof()))).as("%s", v).isTrue();
        }
    }

    private static List<byte[]> leaves() {
        List<byte[]> out = new ArrayList<>();
        for (String leaf : LEAVES) {
            out.add(HEX.parseHex(leaf));
        }
        return out;
    }

    private static InMemorySubtreeHashes tree(List<byte[]> leaves) {
        InMemorySubtreeHashes tree = new InMemorySubtreeHashes();
        leaves.forEach(leaf -> tree.append(Rfc9162.leafHash(leaf)));
        return tree;
    }

    private static List<String> hex(List<byte[]> hashes) {
        return hashes.stream().map(HEX::formatHex).toList();
    }

    private static List<byte[]> unhex(String... hashes) {
        List<byte[]> out = new ArrayList<>();
        for (String h : hashes) {
            out.add(HEX.parseHex(h));
        }
        return out;
    }
}
