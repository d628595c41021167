<?php

declare(strict_types=1);

namespace Relay\Verify;

/**
 * Where verified webhook-ids are remembered. Back it with what your requests
 * share (a table with a unique key, Redis SET NX EX, FileSeenStore on one
 * machine) and keep ids at least MemorySeenStore::MIN_RETENTION_SECONDS.
 */
interface SeenStore
{
    /**
     * Records $webhookId as seen at $now (unix seconds): true the first time,
     * false when it was already seen within the retention. Must be atomic: of
     * two concurrent calls with one id, at most one returns true.
     */
    public function checkAndInsert(string $webhookId, int $now): bool;
}
