package dev.relay.verify;

/**
 * {@code webhook-timestamp} is not a whole, non-negative number of unix seconds
 * ({@code invalid_timestamp}).
 */
public final class InvalidTimestampException extends VerifyException {
    private static final long serialVersionUID = 1L;

    InvalidTimestampException() {
        super("invalid_timestamp", "webhook-timestamp is not a whole number of unix seconds");
    }
}
