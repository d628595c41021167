<?php

declare(strict_types=1);

namespace Relay\Verify\Tests;

use PHPUnit\Framework\TestCase;
use Relay\Verify\DuplicateException;
use Relay\Verify\InvalidKeyException;
use Relay\Verify\InvalidTimestampException;
use Relay\Verify\MemorySeenStore;
use Relay\Verify\MissingHeaderException;
use Relay\Verify\NoMatchingSignatureException;
use Relay\Verify\SeenStore;
use Relay\Verify\TimestampTooNewException;
use Relay\Verify\TimestampTooOldException;
use Relay\Verify\Verifier;
use Relay\Verify\VerifyException;

/** The API beyond the vectors: errors, tolerance, header shapes, dedup. */
final class VerifierTest extends TestCase
{
    private const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    private const HEADERS = [
        'webhook-id' => 'msg_p5jXN8AQM9LWM0D4loKWxJek',
        'webhook-timestamp' => '1614265330',
        'webhook-signature' => 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    ];
    private const BODY = '{"test": 2432232314}';
    private const NOW = 1614265330;

    /** @return array<string, string> */
    private static function with(string $name, ?string $value): array
    {
        $headers = self::HEADERS;
        if ($value === null) {
            unset($headers[$name]);
        } else {
            $headers[$name] = $value;
        }
        return $headers;
    }

    /** @param class-string<\Throwable> $class */
    private static function throws(string $class, callable $f): \Throwable
    {
        try {
            $f();
        } catch (\Throwable $e) {
            self::assertInstanceOf($class, $e, $e->getMessage());
            return $e;
        }
        self::fail("no {$class}");
    }

    public function testErrorsAreTypedAndCarryCodes(): void
    {
        $v = new Verifier(self::SECRET);
        self::assertSame(300, $v->tolerance);
        self::assertSame(Verifier::DEFAULT_TOLERANCE_SECONDS, $v->tolerance);
        $v->verify(self::HEADERS, self::BODY, self::NOW);
        $e = self::throws(MissingHeaderException::class, fn () => $v->verify(self::with('webhook-id', null), self::BODY, self::NOW));
        self::assertSame(['webhook-id', 'missing_header'], [$e->header, $e->code()]);
        self::assertSame('the webhook-id header is missing or empty', $e->getMessage());
        $old = self::throws(TimestampTooOldException::class, fn () => $v->verify(self::HEADERS, self::BODY, self::NOW + 301));
        self::assertSame([self::NOW, self::NOW + 301, 'timestamp_too_old'], [$old->timestamp, $old->now, $old->code()]);
        self::throws(TimestampTooNewException::class, fn () => $v->verify(self::HEADERS, self::BODY, self::NOW - 301));
        foreach ([str_repeat('0', 5000) . '1x', str_repeat('9', 5000), '-1', '+1614265330', '1e9', "1614265330\n", '9223372036854775808'] as $ts) {
            self::throws(InvalidTimestampException::class, fn () => $v->verify(self::with('webhook-timestamp', $ts), self::BODY, self::NOW));
        }
        // Leading zeros are part of the signed string, not of the value.
        $padded = str_repeat('0', 5000) . '1614265330';
        self::throws(NoMatchingSignatureException::class, fn () => $v->verify(self::with('webhook-timestamp', $padded), self::BODY, self::NOW));
        $e = self::throws(VerifyException::class, fn () => $v->verify(self::HEADERS, '{}', self::NOW));
        self::assertSame('no_matching_signature', $e->code());
        // The system clock is long past 2021.
        self::throws(TimestampTooOldException::class, fn () => $v->verify(self::HEADERS, self::BODY));
        // A parsed body is refused loudly.
        self::throws(\TypeError::class, fn () => $v->verify(self::HEADERS, json_decode(self::BODY, true), self::NOW));
    }

    public function testToleranceIsConfigurable(): void
    {
        $v = new Verifier([self::SECRET], 3600);
        $v->verify(self::HEADERS, self::BODY, self::NOW + 3600);
        self::throws(TimestampTooOldException::class, fn () => $v->verify(self::HEADERS, self::BODY, self::NOW + 3601));
        $strict = new Verifier([self::SECRET], tolerance: 0);
        $strict->verify(self::HEADERS, self::BODY, self::NOW);
        self::throws(TimestampTooNewException::class, fn () => $strict->verify(self::HEADERS, self::BODY, self::NOW - 1));
        self::throws(\InvalidArgumentException::class, fn () => new Verifier([self::SECRET], -1));
        // The largest tolerance and the largest timestamp do not overflow.
        $huge = new Verifier([self::SECRET], PHP_INT_MAX);
        self::throws(NoMatchingSignatureException::class, fn () => $huge->verify(self::with('webhook-timestamp', (string) PHP_INT_MAX), self::BODY, self::NOW));
        self::throws(NoMatchingSignatureException::class, fn () => $huge->verify(self::with('webhook-timestamp', '0'), self::BODY, self::NOW));
        self::throws(TimestampTooNewException::class, fn () => $v->verify(self::with('webhook-timestamp', (string) PHP_INT_MAX), self::BODY, self::NOW));
    }

    public function testHeaderShapes(): void
    {
        $v = new Verifier([self::SECRET]);
        $v->verify(array_change_key_case(self::HEADERS, CASE_UPPER), self::BODY, self::NOW);
        $v->verify(array_map(fn (string $x): array => [$x], self::HEADERS), self::BODY, self::NOW);
        $server = [];
        foreach (self::HEADERS as $name => $value) {
            $server['HTTP_' . strtoupper(str_replace('-', '_', $name))] = $value;
        }
        $v->verify($server, self::BODY, self::NOW);
        // A PSR-7 request, and a Symfony/Laravel HeaderBag.
        $psr7 = new class (self::HEADERS) {
            /** @param array<string, string> $h */
            public function __construct(private array $h)
            {
            }

            public function getHeaderLine(string $name): string
            {
                return $this->h[strtolower($name)] ?? '';
            }
        };
        $v->verify($psr7, self::BODY, self::NOW);
        $bag = new class (self::HEADERS) {
            /** @param array<string, string> $h */
            public function __construct(private array $h)
            {
            }

            public function get(string $name): ?string
            {
                return $this->h[strtolower($name)] ?? null;
            }
        };
        $v->verify($bag, self::BODY, self::NOW);
        $v->verify(new \ArrayObject(self::HEADERS), self::BODY, self::NOW);
        self::throws(MissingHeaderException::class, fn () => $v->verify(self::with('webhook-signature', ''), self::BODY, self::NOW));
        self::throws(MissingHeaderException::class, fn () => $v->verify(['webhook-signature' => []] + self::HEADERS, self::BODY, self::NOW));
        self::throws(MissingHeaderException::class, fn () => $v->verify(null, self::BODY, self::NOW));
    }

    public function testKeyErrors(): void
    {
        self::throws(InvalidKeyException::class, fn () => new Verifier([]));
        $e = self::throws(InvalidKeyException::class, fn () => new Verifier('whsk_VEVTVFNJR05JTkdLRVlET05PVFVTRVRISVNGT1JBTlk='));
        self::assertStringContainsString('public key', $e->getMessage());
        self::assertSame('invalid_key', $e->code());
        self::assertInstanceOf(\InvalidArgumentException::class, $e);
        self::throws(InvalidKeyException::class, fn () => new Verifier([self::SECRET, 42]));
        $v = new Verifier([self::SECRET, 'whpk_1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4=']);
        ob_start();
        var_dump($v);
        $dumped = (string) ob_get_clean();
        foreach ([(string) $v, print_r($v, true), $dumped] as $shown) {
            self::assertStringNotContainsString('MfKQ9r8G', $shown);
            self::assertStringContainsString('whpk_1SiA4o9', $shown);
        }
    }

    public function testVerifyOnceAndMemoryStore(): void
    {
        $v = new Verifier(self::SECRET);
        $store = new MemorySeenStore();
        self::throws(NoMatchingSignatureException::class, fn () => $v->verifyOnce(self::HEADERS, 'forged', $store, self::NOW));
        self::assertSame(0, $store->count());
        $v->verifyOnce(self::HEADERS, self::BODY, $store, self::NOW);
        $e = self::throws(DuplicateException::class, fn () => $v->verifyOnce(self::HEADERS, self::BODY, $store, self::NOW + 1));
        self::assertSame(['duplicate', self::HEADERS['webhook-id']], [$e->code(), $e->webhookId]);
    }

    public function testMemoryStoreKeeps96HoursThenForgets(): void
    {
        self::assertStoreKeeps96HoursThenForgets(new MemorySeenStore(60), new MemorySeenStore(7 * 86400));
    }

    /** The retention rules every bundled store follows. */
    public static function assertStoreKeeps96HoursThenForgets(SeenStore $store, SeenStore $week): void
    {
        self::assertSame(96 * 3600, $store->retentionSeconds);
        self::assertSame(96 * 3600, MemorySeenStore::MIN_RETENTION_SECONDS);
        $t0 = 1_700_000_000;
        $r = MemorySeenStore::MIN_RETENTION_SECONDS;
        self::assertTrue($store->checkAndInsert('a', $t0));
        self::assertFalse($store->checkAndInsert('a', $t0));
        self::assertTrue($store->checkAndInsert('b', $t0 + 10));
        self::assertFalse($store->checkAndInsert('a', $t0 + $r));
        self::assertTrue($store->checkAndInsert('a', $t0 + $r + 1));
        self::assertFalse($store->checkAndInsert('b', $t0 + $r + 1));
        self::assertTrue($store->checkAndInsert('123', $t0 + 10 * $r));
        self::assertFalse($store->checkAndInsert('123', $t0 + 10 * $r));
        self::assertTrue($week->checkAndInsert('x', 0));
        self::assertFalse($week->checkAndInsert('x', 7 * 86400));
        self::assertTrue($week->checkAndInsert('x', 7 * 86400 + 1));
    }

    public function testCustomStore(): void
    {
        $table = new class () implements SeenStore {
            /** @var array<string, true> */
            private array $rows = [];

            public function checkAndInsert(string $webhookId, int $now): bool
            {
                if (isset($this->rows[$webhookId])) {
                    return false;
                }
                $this->rows[$webhookId] = true;
                return true;
            }
        };
        $v = new Verifier(self::SECRET);
        $v->verifyOnce(self::HEADERS, self::BODY, $table, self::NOW);
        self::throws(DuplicateException::class, fn () => $v->verifyOnce(self::HEADERS, self::BODY, $table, self::NOW));
    }
}
