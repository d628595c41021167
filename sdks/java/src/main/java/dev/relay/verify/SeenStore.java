package dev.relay.verify;

/**
 * Where verified {@code webhook-id}s are remembered. Back it with what your
 * processes share (a table with a unique key, Redis {@code SET NX EX}, …) and
 * keep ids at least {@link MemorySeenStore#MIN_RETENTION_SECONDS}.
 */
@FunctionalInterface
public interface SeenStore {
    /**
     * Records {@code webhookId} as seen at {@code now}. Must be atomic: of two
     * concurrent calls with one id, at most one returns {@code true}.
     *
     * @param webhookId the verified request's {@code webhook-id}
     * @param now unix seconds
     * @return {@code true} the first time, {@code false} when it was already
     *     seen within the retention
     */
    boolean checkAndInsert(String webhookId, long now);
}
