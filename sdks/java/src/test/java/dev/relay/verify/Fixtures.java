package dev.relay.verify;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/** The vector files, and a signer for fresh requests. */
public final class Fixtures {
    /** sdks/java; the build runs the tests from there. */
    public static final Path ROOT = Path.of(System.getProperty("relay.sdk.root", ".")).toAbsolutePath().normalize();

    public static final Path RELAY_VECTORS = ROOT.resolve("../vectors.json").normalize();
    public static final Path STANDARD_VECTORS = ROOT.resolve("../../testdata/standard-webhooks.json").normalize();

    private Fixtures() {}

    public static Map<String, Object> load(Path path) {
        try {
            return Json.object(Json.parse(Files.readString(path, StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Signs like Relay, with the vectors' {@code ed_a} test key (v1a). */
    public static final class Signer {
        /** The DER header of a PKCS#8 Ed25519 private key, before its 32-byte seed. */
        private static final byte[] PKCS8_PREFIX = {
            0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20
        };

        public final String publicKey;
        public final String otherPublicKey;
        private final PrivateKey key;

        public Signer() {
            Map<String, Object> keys = Json.object(load(RELAY_VECTORS).get("signing_keys"));
            Map<String, Object> a = Json.object(keys.get("ed_a"));
            byte[] raw = Base64.getDecoder().decode(((String) a.get("signing_key")).substring("whsk_".length()));
            byte[] der = new byte[PKCS8_PREFIX.length + 32];
            System.arraycopy(PKCS8_PREFIX, 0, der, 0, PKCS8_PREFIX.length);
            System.arraycopy(raw, 0, der, PKCS8_PREFIX.length, 32);
            try {
                key = KeyFactory.getInstance("Ed25519").generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
            publicKey = (String) a.get("verification_key");
            otherPublicKey = (String) Json.object(keys.get("ed_b")).get("verification_key");
        }

        public Map<String, String> headers(String id, byte[] body, long timestamp) {
            byte[] prefix = (id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8);
            try {
                Signature signature = Signature.getInstance("Ed25519");
                signature.initSign(key);
                signature.update(prefix);
                signature.update(body);
                Map<String, String> headers = new LinkedHashMap<>();
                headers.put("webhook-id", id);
                headers.put("webhook-timestamp", Long.toString(timestamp));
                headers.put("webhook-signature", "v1a," + Base64.getEncoder().encodeToString(signature.sign()));
                return headers;
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
