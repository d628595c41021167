<?php

declare(strict_types=1);

namespace Relay\Verify;

/**
 * A SeenStore in a directory of one machine's local filesystem, shared by
 * every PHP process there (PHP-FPM workers, `php -S`): one small file per id,
 * named by its SHA-256, holding when it was seen. flock() makes each check
 * atomic. Ids older than the retention are deleted, at most once a minute.
 * With several machines, use a database table with a unique key instead.
 */
final class FileSeenStore implements SeenStore
{
    private const SWEEP_EVERY_SECONDS = 60;

    public readonly int $retentionSeconds;

    /**
     * @param string $directory made (0700) when it does not exist
     * @param int $retentionSeconds at least 96 hours (less is raised to it)
     */
    public function __construct(
        private readonly string $directory,
        int $retentionSeconds = MemorySeenStore::MIN_RETENTION_SECONDS,
    ) {
        $this->retentionSeconds = max($retentionSeconds, MemorySeenStore::MIN_RETENTION_SECONDS);
        if (!is_dir($directory) && !@mkdir($directory, 0700, true) && !is_dir($directory)) {
            throw new \RuntimeException("cannot make the directory {$directory}");
        }
    }

    public function checkAndInsert(string $webhookId, int $now): bool
    {
        $this->sweep($now);
        $path = $this->directory . '/' . hash('sha256', $webhookId);
        while (true) {
            $handle = $this->lock($path, 'c+', LOCK_EX);
            if ($handle === null) {
                continue; // the sweeper deleted it meanwhile: take the new file
            }
            try {
                $seenAt = stream_get_contents($handle);
                if (is_string($seenAt) && preg_match('/\A[0-9]+\z/', $seenAt) === 1
                    && $now - (int) $seenAt <= $this->retentionSeconds) {
                    return false;
                }
                ftruncate($handle, 0);
                rewind($handle);
                if (fwrite($handle, (string) $now) === false || !fflush($handle)) {
                    throw new \RuntimeException("cannot write {$path}");
                }
                return true;
            } finally {
                flock($handle, LOCK_UN);
                fclose($handle);
            }
        }
    }

    /**
     * Opens and locks $path; null when the file was replaced or deleted before
     * the lock was held (the caller tries again).
     *
     * @return resource|null
     */
    private function lock(string $path, string $mode, int $operation)
    {
        $handle = @fopen($path, $mode);
        if ($handle === false) {
            if ($mode === 'r+') {
                return null;
            }
            throw new \RuntimeException("cannot open {$path}");
        }
        if (!flock($handle, $operation)) {
            fclose($handle);
            if ($operation & LOCK_NB) {
                return null;
            }
            throw new \RuntimeException("cannot lock {$path}");
        }
        clearstatcache(true, $path);
        $onDisk = @stat($path);
        $held = fstat($handle);
        if ($onDisk === false || $held === false || $onDisk['ino'] !== $held['ino'] || $onDisk['dev'] !== $held['dev']) {
            flock($handle, LOCK_UN);
            fclose($handle);
            return null;
        }
        return $handle;
    }

    /** Deletes expired ids, at most once a minute across processes. */
    private function sweep(int $now): void
    {
        $marker = $this->directory . '/.swept';
        $last = @file_get_contents($marker);
        if (is_string($last) && preg_match('/\A[0-9]+\z/', $last) === 1
            && $now >= (int) $last && $now - (int) $last < self::SWEEP_EVERY_SECONDS) {
            return;
        }
        @file_put_contents($marker, (string) $now, LOCK_EX);
        foreach (glob($this->directory . '/' . str_repeat('[0-9a-f]', 64)) ?: [] as $path) {
            $handle = $this->lock($path, 'r+', LOCK_EX | LOCK_NB);
            if ($handle === null) {
                continue; // in use or gone: another time
            }
            $seenAt = stream_get_contents($handle);
            if (is_string($seenAt) && preg_match('/\A[0-9]+\z/', $seenAt) === 1
                && $now - (int) $seenAt > $this->retentionSeconds) {
                unlink($path);
            }
            flock($handle, LOCK_UN);
            fclose($handle);
        }
    }
}
