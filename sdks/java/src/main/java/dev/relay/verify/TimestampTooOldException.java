package dev.relay.verify;

/** {@code webhook-timestamp} is further in the past than the tolerance ({@code timestamp_too_old}). */
public final class TimestampTooOldException extends VerifyException {
    private static final long serialVersionUID = 1L;

    /** The timestamp sent, unix seconds. */
    private final long timestamp;
    /** The time it was compared with, unix seconds. */
    private final long now;

    TimestampTooOldException(long timestamp, long now) {
        super("timestamp_too_old", "webhook-timestamp " + timestamp + " is too old (now is " + now + ")");
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
