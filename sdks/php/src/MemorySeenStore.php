<?php

declare(strict_types=1);

namespace Relay\Verify;

/**
 * A SeenStore in the memory of one PHP process: for long-running workers
 * (RoadRunner, Swoole, a queue consumer) and tests. PHP-FPM and `php -S`
 * forget it after each request: use FileSeenStore or a database there.
 *
 * Keeps each id for its retention (96 hours by default; less is raised to 96
 * hours) and drops older ones, sweeping at most once a minute.
 */
final class MemorySeenStore implements SeenStore
{
    /** 96 hours: longer than Relay's retry window (about 76 hours). */
    public const MIN_RETENTION_SECONDS = 96 * 3600;

    private const SWEEP_EVERY_SECONDS = 60;

    public readonly int $retentionSeconds;

    /** @var array<string, int> */
    private array $seen = [];

    private int $nextSweep = 0;

    public function __construct(int $retentionSeconds = self::MIN_RETENTION_SECONDS)
    {
        $this->retentionSeconds = max($retentionSeconds, self::MIN_RETENTION_SECONDS);
    }

    /** How many ids are held. */
    public function count(): int
    {
        return count($this->seen);
    }

    public function checkAndInsert(string $webhookId, int $now): bool
    {
        if ($now >= $this->nextSweep) {
            $this->seen = array_filter($this->seen, fn (int $at): bool => $now - $at <= $this->retentionSeconds);
            $this->nextSweep = $now + self::SWEEP_EVERY_SECONDS;
        }
        $at = $this->seen[$webhookId] ?? null;
        if ($at !== null && $now - $at <= $this->retentionSeconds) {
            return false;
        }
        $this->seen[$webhookId] = $now;
        return true;
    }
}
