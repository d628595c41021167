package dev.relay.verify;

/**
 * A key string that cannot be used to verify ({@code invalid_key}); the message
 * says why. Thrown when a {@link Verifier} is built.
 */
public final class InvalidKeyException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    InvalidKeyException(String reason) {
        super(reason);
    }

    /**
     * The error's code, as in Relay's other SDKs.
     *
     * @return {@code "invalid_key"}
     */
    public String code() {
        return "invalid_key";
    }
}
