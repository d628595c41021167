<?php

declare(strict_types=1);

namespace Relay\Verify\Tests;

use PHPUnit\Framework\TestCase;
use Relay\Verify\FileSeenStore;
use Relay\Verify\MemorySeenStore;

/** FileSeenStore: the retention rules, sharing between processes, sweeping. */
final class FileSeenStoreTest extends TestCase
{
    private string $dir;

    protected function setUp(): void
    {
        $this->dir = sys_get_temp_dir() . '/relay-seen-test-' . bin2hex(random_bytes(6));
    }

    protected function tearDown(): void
    {
        foreach (glob($this->dir . '/{,.}*', GLOB_BRACE) ?: [] as $path) {
            if (is_file($path)) {
                unlink($path);
            }
        }
        @rmdir($this->dir);
    }

    /** @return list<string> the id files */
    private function files(): array
    {
        return glob($this->dir . '/' . str_repeat('[0-9a-f]', 64)) ?: [];
    }

    public function testItKeeps96HoursThenForgets(): void
    {
        VerifierTest::assertStoreKeeps96HoursThenForgets(
            new FileSeenStore($this->dir . '/a', 60),
            new FileSeenStore($this->dir . '/b', 7 * 86400),
        );
        foreach (['a', 'b'] as $sub) {
            foreach (glob("{$this->dir}/{$sub}/{,.}*", GLOB_BRACE) ?: [] as $path) {
                if (is_file($path)) {
                    unlink($path);
                }
            }
            rmdir("{$this->dir}/{$sub}");
        }
    }

    public function testInstancesShareTheDirectoryAndSweepExpiredIds(): void
    {
        $t0 = 1_700_000_000;
        $one = new FileSeenStore($this->dir);
        $two = new FileSeenStore($this->dir);
        self::assertSame(0700, fileperms($this->dir) & 0777);
        self::assertTrue($one->checkAndInsert('evt_1', $t0));
        self::assertFalse($two->checkAndInsert('evt_1', $t0 + 5));
        self::assertTrue($two->checkAndInsert('evt_2', $t0 + 30));
        self::assertCount(2, $this->files());
        // Within the minute no sweep runs; after the retention both expire, and
        // the next call past the minute deletes them.
        $later = $t0 + 30 + MemorySeenStore::MIN_RETENTION_SECONDS + 1;
        self::assertTrue($one->checkAndInsert('evt_3', $later));
        self::assertCount(1, $this->files());
        self::assertTrue($two->checkAndInsert('evt_1', $later));
        self::assertCount(2, $this->files());
    }

    public function testOneWinnerAcrossProcesses(): void
    {
        mkdir($this->dir, 0700);
        $gate = fopen($this->dir . '/.gate', 'c');
        self::assertTrue(flock($gate, LOCK_EX));
        $script = 'require $argv[1]; $g = fopen($argv[2], "r"); flock($g, LOCK_SH);'
            . ' echo (new Relay\Verify\FileSeenStore($argv[3]))->checkAndInsert("m", 1700000000) ? "won" : "lost";';
        $children = [];
        for ($i = 0; $i < 8; $i++) {
            $process = proc_open(
                [PHP_BINARY, '-r', $script, Fixtures::ROOT . '/vendor/autoload.php', $this->dir . '/.gate', $this->dir],
                [1 => ['pipe', 'w'], 2 => ['pipe', 'w']],
                $pipes,
            );
            self::assertIsResource($process);
            $children[] = [$process, $pipes];
        }
        // Every child waits on the gate (or has not reached it yet); open it.
        flock($gate, LOCK_UN);
        fclose($gate);
        $results = [];
        foreach ($children as [$process, $pipes]) {
            $results[] = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
            fclose($pipes[1]);
            fclose($pipes[2]);
            self::assertSame(0, proc_close($process));
        }
        sort($results);
        self::assertSame(['lost', 'lost', 'lost', 'lost', 'lost', 'lost', 'lost', 'won'], $results);
    }
}
