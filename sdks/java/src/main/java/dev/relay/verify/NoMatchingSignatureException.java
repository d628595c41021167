package dev.relay.verify;

/**
 * No entry of {@code webhook-signature} verifies with any of the keys
 * ({@code no_matching_signature}).
 */
public final class NoMatchingSignatureException extends VerifyException {
    private static final long serialVersionUID = 1L;

    NoMatchingSignatureException() {
        super("no_matching_signature", "no signature matched any key");
    }
}
