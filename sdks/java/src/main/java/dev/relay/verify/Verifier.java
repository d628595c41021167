package dev.relay.verify;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Checks Relay's signature headers over the raw request body, with one or more
 * keys, using the JDK's own Ed25519 (Java 15 and later) and HMAC-SHA256.
 *
 * <p>Relay signs every delivery with the Standard Webhooks profile:
 * {@code webhook-id}, {@code webhook-timestamp} (unix seconds) and
 * {@code webhook-signature}, a space-separated list of
 * {@code <version>,<base64>} entries over
 * {@code {webhook-id}.{webhook-timestamp}.{raw body}}: {@code v1a} is Ed25519,
 * verified with the endpoint's public key {@code whpk_…}; {@code v1} is
 * HMAC-SHA256, verified with its secret {@code whsec_…}.
 *
 * <p>A verifier is immutable and thread-safe.
 */
public final class Verifier {
    /** This library's version, the same as Relay's other verifier SDKs'. */
    public static final String VERSION = "0.1.0";

    /** Five minutes, either side, inclusive. */
    public static final Duration DEFAULT_TOLERANCE = Duration.ofSeconds(300);

    private final List<Key> keys;
    private final long toleranceSeconds;

    /**
     * A verifier with the default tolerance of five minutes.
     *
     * @param keys {@code whsec_…} and/or {@code whpk_…} strings: one, or during a
     *     rotation the new and the old
     * @throws InvalidKeyException for a key that cannot be used (a {@code whsk_}
     *     signing key included: consumers need only the public key), or none
     */
    public Verifier(List<String> keys) {
        this(keys, DEFAULT_TOLERANCE);
    }

    /**
     * A verifier with a tolerance of its own.
     *
     * @param keys {@code whsec_…} and/or {@code whpk_…} strings
     * @param tolerance how far {@code webhook-timestamp} may be from now, either
     *     side, inclusive; whole seconds count
     * @throws InvalidKeyException for a key that cannot be used, or none
     * @throws IllegalArgumentException for a negative tolerance
     */
    public Verifier(List<String> keys, Duration tolerance) {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(tolerance, "tolerance");
        List<Key> parsed = new ArrayList<>();
        for (String key : keys) {
            parsed.add(Key.parse(key));
        }
        if (parsed.isEmpty()) {
            throw new InvalidKeyException("a verifier needs at least one key");
        }
        if (tolerance.isNegative()) {
            throw new IllegalArgumentException("the tolerance must not be negative");
        }
        this.keys = List.copyOf(parsed);
        this.toleranceSeconds = tolerance.getSeconds();
    }

    /**
     * The timestamp tolerance.
     *
     * @return the tolerance in whole seconds
     */
    public Duration tolerance() {
        return Duration.ofSeconds(toleranceSeconds);
    }

    /**
     * Verifies a request against the system clock.
     *
     * @param headers the request's headers ({@code exchange.getRequestHeaders()},
     *     a map; names matched case-insensitively)
     * @param body the raw body exactly as received
     * @throws VerifyException when it does not verify
     * @see #verify(HeaderLookup, byte[], long)
     */
    public void verify(Map<String, ?> headers, byte[] body) throws VerifyException {
        verify(HeaderLookup.of(headers), body, nowSeconds());
    }

    /**
     * Verifies a request as of {@code now}.
     *
     * @param headers the request's headers
     * @param body the raw body exactly as received
     * @param now unix seconds
     * @throws VerifyException when it does not verify
     * @see #verify(HeaderLookup, byte[], long)
     */
    public void verify(Map<String, ?> headers, byte[] body, long now) throws VerifyException {
        verify(HeaderLookup.of(headers), body, now);
    }

    /**
     * Verifies a request against the system clock.
     *
     * @param headers the request's headers, such as a servlet's {@code request::getHeader}
     * @param body the raw body exactly as received
     * @throws VerifyException when it does not verify
     * @see #verify(HeaderLookup, byte[], long)
     */
    public void verify(HeaderLookup headers, byte[] body) throws VerifyException {
        verify(headers, body, nowSeconds());
    }

    /**
     * Verifies a request as of {@code now}: returns, or throws a
     * {@link VerifyException}.
     *
     * <p>Checks, in order: the three headers are present and non-empty
     * ({@link MissingHeaderException}); {@code webhook-timestamp} is ASCII digits
     * ({@link InvalidTimestampException}) within the tolerance of now
     * ({@link TimestampTooOldException}, {@link TimestampTooNewException}); an
     * entry of {@code webhook-signature} verifies with one key of its version
     * ({@link NoMatchingSignatureException}). Entries of unknown versions and
     * malformed entries are skipped; HMAC tags are compared in constant time;
     * only canonical, padded base64 is accepted.
     *
     * @param headers the request's headers
     * @param body the raw body exactly as received, never re-serialized JSON
     * @param now unix seconds
     * @throws VerifyException when it does not verify
     */
    public void verify(HeaderLookup headers, byte[] body, long now) throws VerifyException {
        Objects.requireNonNull(body, "body: the raw request body");
        String id = required(headers, "webhook-id");
        String timestamp = required(headers, "webhook-timestamp");
        String signature = required(headers, "webhook-signature");
        long sent = parseTimestamp(timestamp);
        if (sent < subtractSaturating(now, toleranceSeconds)) {
            throw new TimestampTooOldException(sent, now);
        }
        if (sent > addSaturating(now, toleranceSeconds)) {
            throw new TimestampTooNewException(sent, now);
        }
        byte[] prefix = (id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8);
        byte[] content = new byte[prefix.length + body.length];
        System.arraycopy(prefix, 0, content, 0, prefix.length);
        System.arraycopy(body, 0, content, prefix.length, body.length);
        for (String entry : signature.split(" ", -1)) {
            int comma = entry.indexOf(',');
            if (comma < 0) {
                continue;
            }
            String version = entry.substring(0, comma);
            if (keys.stream().noneMatch(k -> k.version().equals(version))) {
                continue;
            }
            byte[] raw = Key.decodeStrict(entry.substring(comma + 1));
            if (raw == null) {
                continue;
            }
            for (Key key : keys) {
                if (key.version().equals(version) && key.verify(content, raw)) {
                    return;
                }
            }
        }
        throw new NoMatchingSignatureException();
    }

    /**
     * {@link #verify(HeaderLookup, byte[], long)} against the system clock, then
     * records the {@code webhook-id} in {@code store}.
     *
     * @param headers the request's headers
     * @param body the raw body exactly as received
     * @param store where verified ids are remembered
     * @throws DuplicateException when the id was already there
     * @throws VerifyException when it does not verify
     */
    public void verifyOnce(Map<String, ?> headers, byte[] body, SeenStore store) throws VerifyException {
        verifyOnce(HeaderLookup.of(headers), body, store, nowSeconds());
    }

    /**
     * {@link #verify(HeaderLookup, byte[], long)} against the system clock, then
     * records the {@code webhook-id} in {@code store}.
     *
     * @param headers the request's headers
     * @param body the raw body exactly as received
     * @param store where verified ids are remembered
     * @throws DuplicateException when the id was already there
     * @throws VerifyException when it does not verify
     */
    public void verifyOnce(HeaderLookup headers, byte[] body, SeenStore store) throws VerifyException {
        verifyOnce(headers, body, store, nowSeconds());
    }

    /**
     * {@link #verify(HeaderLookup, byte[], long)}, then records the
     * {@code webhook-id} in {@code store}. Only a request that verifies is
     * recorded.
     *
     * @param headers the request's headers
     * @param body the raw body exactly as received
     * @param store where verified ids are remembered
     * @param now unix seconds
     * @throws DuplicateException when the id was already there: reply 2xx
     * @throws VerifyException when it does not verify
     */
    public void verifyOnce(HeaderLookup headers, byte[] body, SeenStore store, long now)
            throws VerifyException {
        verify(headers, body, now);
        String id = required(headers, "webhook-id");
        if (!store.checkAndInsert(id, now)) {
            throw new DuplicateException(id);
        }
    }

    /** Shows the public keys and the tolerance, never a secret. */
    @Override
    public String toString() {
        return "Verifier(" + keys + ", tolerance=" + toleranceSeconds + "s)";
    }

    private static String required(HeaderLookup headers, String name) throws MissingHeaderException {
        String value = headers == null ? null : headers.header(name);
        if (value == null || value.isEmpty()) {
            throw new MissingHeaderException(name);
        }
        return value;
    }

    /** ASCII digits (leading zeros allowed) up to 2^63-1. */
    private static long parseTimestamp(String text) throws InvalidTimestampException {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                throw new InvalidTimestampException();
            }
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new InvalidTimestampException();
        }
    }

    private static long addSaturating(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    private static long subtractSaturating(long a, long b) {
        long difference = a - b;
        return ((a ^ b) & (a ^ difference)) < 0 ? Long.MIN_VALUE : difference;
    }

    private static long nowSeconds() {
        return System.currentTimeMillis() / 1000;
    }
}
