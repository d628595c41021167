package dev.relay.verify;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** One parsed verification key: an HMAC secret (v1) or an Ed25519 public key (v1a). */
abstract class Key {
    /** The DER header of an X.509 SubjectPublicKeyInfo for a raw Ed25519 key. */
    private static final byte[] ED25519_SPKI_PREFIX = {
        0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00
    };

    abstract String version();

    abstract boolean verify(byte[] content, byte[] signature);

    /** Canonical standard base64 with padding, or null. */
    static byte[] decodeStrict(String text) {
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
        return Base64.getEncoder().encodeToString(raw).equals(text) ? raw : null;
    }

    static Key parse(String input) {
        if (input == null) {
            throw new InvalidKeyException("a key is a string, not null");
        }
        String text = input.strip();
        if (text.startsWith("whsec_")) {
            byte[] raw = decodeStrict(text.substring("whsec_".length()));
            if (raw == null) {
                throw new InvalidKeyException("the key is not valid base64");
            }
            if (raw.length < 24 || raw.length > 64) {
                throw new InvalidKeyException(
                        "the key has " + raw.length + " bytes; an HMAC secret has 24 to 64 bytes");
            }
            return new Hmac(raw);
        }
        if (text.startsWith("whpk_")) {
            byte[] raw = decodeStrict(text.substring("whpk_".length()));
            if (raw == null) {
                throw new InvalidKeyException("the key is not valid base64");
            }
            if (raw.length != 32) {
                throw new InvalidKeyException(
                        "the key has " + raw.length + " bytes; an Ed25519 public key has 32 bytes");
            }
            return new Ed25519(text, raw);
        }
        if (text.startsWith("whsk_")) {
            throw new InvalidKeyException(
                    "this is an Ed25519 signing key (whsk_); verify with its public key (whpk_) "
                            + "and keep the signing key out of consumers");
        }
        throw new InvalidKeyException("a verification key starts with whsec_ (v1) or whpk_ (v1a)");
    }

    private static final class Hmac extends Key {
        private final SecretKeySpec secret;

        Hmac(byte[] secret) {
            this.secret = new SecretKeySpec(secret, "HmacSHA256");
        }

        @Override
        String version() {
            return "v1";
        }

        @Override
        boolean verify(byte[] content, byte[] signature) {
            try {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(secret);
                // MessageDigest.isEqual takes the same time wherever the bytes differ.
                return MessageDigest.isEqual(mac.doFinal(content), signature);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("HmacSHA256 is unavailable", e);
            }
        }

        @Override
        public String toString() {
            return "HmacKey(<redacted>)";
        }
    }

    private static final class Ed25519 extends Key {
        private final String text;
        private final PublicKey key;

        Ed25519(String text, byte[] raw) {
            this.text = text;
            byte[] der = new byte[ED25519_SPKI_PREFIX.length + raw.length];
            System.arraycopy(ED25519_SPKI_PREFIX, 0, der, 0, ED25519_SPKI_PREFIX.length);
            System.arraycopy(raw, 0, der, ED25519_SPKI_PREFIX.length, raw.length);
            try {
                this.key = KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(der));
            } catch (GeneralSecurityException | RuntimeException e) {
                throw new InvalidKeyException("the public key is not a valid Ed25519 key");
            }
        }

        @Override
        String version() {
            return "v1a";
        }

        @Override
        boolean verify(byte[] content, byte[] signature) {
            if (signature.length != 64) {
                return false;
            }
            try {
                Signature verifier = Signature.getInstance("Ed25519");
                verifier.initVerify(key);
                verifier.update(content);
                return verifier.verify(signature);
            } catch (GeneralSecurityException | RuntimeException e) {
                return false;
            }
        }

        @Override
        public String toString() {
            return "Ed25519Key(" + text + ")";
        }
    }
}
