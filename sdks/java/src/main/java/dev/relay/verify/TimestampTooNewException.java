package dev.relay.verify;

/** {@code webhook-timestamp} is further in the future than the tolerance ({@code timestamp_too_new}). */
public final class TimestampTooNewException extends VerifyException {
    private static final long serialVersionUID = 1L;

    /** The timestamp sent, unix seconds. */
    private final long timestamp;
    /** The time it was compared with, unix seconds. */
    private final long now;

    TimestampTooNewException(long timestamp, long now) {
        super("timestamp_too_new", "webhook-timestamp " + timestamp + " is too far in the future (now is " + now + ")");
        this.timestamp = timestamp;
        this.now = now;
    }

    /**
     * The timestamp sent.
     *
     * @return unix seconds
     */
    public long timestamp() {
        return timestamp;
    }

    /**
     * The time it was compared with.
     *
     * @return unix seconds
     */
    public long now() {
        return now;
    }
}
