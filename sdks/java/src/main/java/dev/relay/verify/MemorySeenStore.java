package dev.relay.verify;

import java.util.HashMap;
import java.util.Map;

/**
 * A {@link SeenStore} in process memory (one process; forgotten on restart).
 * Keeps each id for its retention (96 hours by default; less is raised to 96
 * hours) and drops older ones, sweeping at most once a minute. Thread-safe.
 */
public final class MemorySeenStore implements SeenStore {
    /** 96 hours: longer than Relay's retry window (about 76 hours). */
    public static final long MIN_RETENTION_SECONDS = 96 * 3600;

    private static final long SWEEP_EVERY_SECONDS = 60;

    private final long retentionSeconds;
    private final Map<String, Long> seen = new HashMap<>();
    private long nextSweep;

    /** A store that keeps ids for 96 hours. */
    public MemorySeenStore() {
        this(MIN_RETENTION_SECONDS);
    }

    /**
     * A store that keeps ids for {@code retentionSeconds}.
     *
     * @param retentionSeconds how long; values under 96 hours are raised to it
     */
    public MemorySeenStore(long retentionSeconds) {
        this.retentionSeconds = Math.max(retentionSeconds, MIN_RETENTION_SECONDS);
    }

    /**
     * How long ids are kept.
     *
     * @return seconds
     */
    public long retentionSeconds() {
        return retentionSeconds;
    }

    /**
     * How many ids are held.
     *
     * @return the count
     */
    public synchronized int size() {
        return seen.size();
    }

    @Override
    public synchronized boolean checkAndInsert(String webhookId, long now) {
        if (now >= nextSweep) {
            seen.values().removeIf(at -> now - at > retentionSeconds);
            nextSweep = now + SWEEP_EVERY_SECONDS;
        }
        Long at = seen.get(webhookId);
        if (at != null && now - at <= retentionSeconds) {
            return false;
        }
        seen.put(webhookId, now);
        return true;
    }
}
