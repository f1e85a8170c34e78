package io.trailproof.core.note;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import java.util.Random;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.junit.jupiter.api.Test;

class Ed25519Test {

    private static final HexFormat HEX = HexFormat.of();

    /** RFC 8032 7.1, TEST 1, 2, 3 and 1024: secret key, public key, message, signature. */
    private static final String[][] RFC_8032 = {
        {"9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"},
        {"4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
            "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"},
        {"c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
            "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
            "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"},
    };

    @Test
    void knownAnswersOfRfc8032() {
        for (String[] v : RFC_8032) {
            byte[] seed = HEX.parseHex(v[0]);
            byte[] message = HEX.parseHex(v[2]);
            assertThat(HEX.formatHex(Ed25519.publicKey(seed))).isEqualTo(v[1]);
            assertThat(HEX.formatHex(Ed25519.sign(seed, message))).isEqualTo(v[3]);
            assertThat(Ed25519.verify(HEX.parseHex(v[1]), message, HEX.parseHex(v[3]))).isTrue();
        }
    }

    /** The public key of random seeds is the reference implementation's (BouncyCastle's lightweight API). */
    @Test
    void publicKeysMatchTheReferenceForRandomSeeds() {
        Random random = new Random(8032);
        for (int i = 0; i < 200; i++) {
            byte[] seed = new byte[Ed25519.KEY_LENGTH];
            random.nextBytes(seed);
            byte[] reference = new Ed25519PrivateKeyParameters(seed, 0).generatePublicKey().getEncoded();
            assertThat(Ed25519.publicKey(seed)).as("seed %s", HEX.formatHex(seed)).isEqualTo(reference);
        }
    }

    @Test
    void theSeedGivenIsNotChanged() {
        byte[] seed = HEX.parseHex(RFC_8032[0][0]);
        byte[] copy = seed.clone();
        Ed25519.publicKey(seed);
        assertThat(seed).isEqualTo(copy);
    }

    @Test
    void aSeedOfAnotherLengthIsRefused() {
        assertThatThrownBy(() -> Ed25519.publicKey(new byte[31])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("32 bytes");
        assertThatThrownBy(() -> Ed25519.publicKey(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
