package dev.relay.verify;

/**
 * The request verified, but its {@code webhook-id} was already seen
 * ({@code duplicate}); only from {@link Verifier#verifyOnce}. Reply 2xx: it is a
 * retry or a replay of something already processed.
 */
public final class DuplicateException extends VerifyException {
    private static final long serialVersionUID = 1L;

    /** The id already seen. */
    private final String webhookId;

    DuplicateException(String webhookId) {
        super("duplicate", "webhook-id \"" + webhookId + "\" was already seen");
        this.webhookId = webhookId;
    }

    /**
     * The id already seen.
     *
     * @return the {@code webhook-id}
     */
    public String webhookId() {
        return webhookId;
    }
}
