<?php

declare(strict_types=1);

namespace Relay\Verify;

/**
 * Checks Relay's signature headers over the raw request body, with one or more
 * keys, using PHP's sodium (Ed25519) and hash (HMAC-SHA256) only.
 *
 * Relay signs every delivery with the Standard Webhooks profile: webhook-id,
 * webhook-timestamp (unix seconds) and webhook-signature, a space-separated
 * list of "<version>,<base64>" entries over
 * "{webhook-id}.{webhook-timestamp}.{raw body}": v1a is Ed25519, verified with
 * the endpoint's public key "whpk_…"; v1 is HMAC-SHA256, verified with its
 * secret "whsec_…".
 */
final class Verifier
{
    /** This package's version, the same as Relay's other verifier SDKs'. */
    public const VERSION = '0.1.0';

    /** Five minutes, either side, inclusive. */
    public const DEFAULT_TOLERANCE_SECONDS = 300;

    public const WEBHOOK_ID = 'webhook-id';
    public const WEBHOOK_TIMESTAMP = 'webhook-timestamp';
    public const WEBHOOK_SIGNATURE = 'webhook-signature';

    private const I64_MAX = '9223372036854775807';

    /** @var list<Key> */
    private readonly array $keys;

    public readonly int $tolerance;

    /**
     * @param string|iterable<mixed> $keys one "whsec_…"/"whpk_…" string or
     *     several (during a rotation, the new and the old)
     * @param int $tolerance seconds, either side, inclusive
     * @throws InvalidKeyException for a key that cannot be used (a whsk_ signing
     *     key included: consumers need only the public key), or none
     * @throws \InvalidArgumentException for a negative tolerance
     */
    public function __construct(string|iterable $keys, int $tolerance = self::DEFAULT_TOLERANCE_SECONDS)
    {
        $parsed = [];
        foreach (is_string($keys) ? [$keys] : $keys as $key) {
            $parsed[] = Key::parse($key);
        }
        if ($parsed === []) {
            throw new InvalidKeyException('a verifier needs at least one key');
        }
        if ($tolerance < 0) {
            throw new \InvalidArgumentException('the tolerance must not be negative');
        }
        $this->keys = $parsed;
        $this->tolerance = $tolerance;
    }

    /**
     * Verifies a request; returns, or throws a VerifyException.
     *
     * Checks, in order: the three headers are present and non-empty
     * (MissingHeaderException); webhook-timestamp is ASCII digits
     * (InvalidTimestampException) within the tolerance of now
     * (TimestampTooOldException, TimestampTooNewException); an entry of
     * webhook-signature verifies with one key of its version
     * (NoMatchingSignatureException). Entries of unknown versions and malformed
     * entries are skipped; HMAC tags are compared in constant time; only
     * canonical, padded base64 is accepted.
     *
     * @param mixed $headers getallheaders(), $_SERVER (HTTP_WEBHOOK_ID), an
     *     array (names matched case-insensitively), a PSR-7 request or a
     *     Symfony/Laravel HeaderBag ($request->headers)
     * @param string $body the raw body exactly as received
     *     (file_get_contents('php://input')), never re-encoded JSON
     * @param int|null $now unix seconds, for tests (default: the clock)
     * @throws VerifyException
     */
    public function verify(mixed $headers, string $body, ?int $now = null): void
    {
        $id = self::required($headers, self::WEBHOOK_ID);
        $timestamp = self::required($headers, self::WEBHOOK_TIMESTAMP);
        $signature = self::required($headers, self::WEBHOOK_SIGNATURE);
        $sent = self::parseTimestamp($timestamp);
        $now ??= time();
        // Written so that no sum can overflow.
        if ($now - $sent > $this->tolerance) {
            throw new TimestampTooOldException($sent, $now);
        }
        if ($sent - $now > $this->tolerance) {
            throw new TimestampTooNewException($sent, $now);
        }
        $content = "{$id}.{$timestamp}.{$body}";
        foreach (explode(' ', $signature) as $entry) {
            $comma = strpos($entry, ',');
            if ($comma === false) {
                continue;
            }
            $version = substr($entry, 0, $comma);
            if (!$this->hasVersion($version)) {
                continue;
            }
            $raw = Key::decodeStrict(substr($entry, $comma + 1));
            if ($raw === null) {
                continue;
            }
            foreach ($this->keys as $key) {
                if ($key->version === $version && $key->verify($content, $raw)) {
                    return;
                }
            }
        }
        throw new NoMatchingSignatureException();
    }

    /**
     * verify(), then records the webhook-id in $store. Only a request that
     * verifies is recorded.
     *
     * @throws DuplicateException when it was already there: reply 2xx
     * @throws VerifyException
     */
    public function verifyOnce(mixed $headers, string $body, SeenStore $store, ?int $now = null): void
    {
        $now ??= time();
        $this->verify($headers, $body, $now);
        $id = self::required($headers, self::WEBHOOK_ID);
        if (!$store->checkAndInsert($id, $now)) {
            throw new DuplicateException($id);
        }
    }

    /** Shows the public keys and the tolerance, never a secret. */
    public function __toString(): string
    {
        return 'Verifier([' . implode(', ', array_map('strval', $this->keys)) . "], tolerance={$this->tolerance})";
    }

    /** @return array<string, mixed> */
    public function __debugInfo(): array
    {
        return ['keys' => array_map('strval', $this->keys), 'tolerance' => $this->tolerance];
    }

    private function hasVersion(string $version): bool
    {
        foreach ($this->keys as $key) {
            if ($key->version === $version) {
                return true;
            }
        }
        return false;
    }

    /** ASCII digits (leading zeros allowed) up to 2^63-1. */
    private static function parseTimestamp(string $timestamp): int
    {
        if (preg_match('/\A[0-9]+\z/', $timestamp) !== 1) {
            throw new InvalidTimestampException();
        }
        $significant = ltrim($timestamp, '0');
        if ($significant === '') {
            return 0;
        }
        if (strlen($significant) > strlen(self::I64_MAX)
            || (strlen($significant) === strlen(self::I64_MAX) && strcmp($significant, self::I64_MAX) > 0)) {
            throw new InvalidTimestampException();
        }
        return (int) $significant;
    }

    /** @throws MissingHeaderException */
    private static function required(mixed $headers, string $name): string
    {
        $value = self::header($headers, $name);
        if ($value === null || $value === '') {
            throw new MissingHeaderException($name);
        }
        return $value;
    }

    private static function header(mixed $headers, string $name): ?string
    {
        $value = null;
        if (is_array($headers)) {
            $value = $headers[$name] ?? null;
            if ($value === null) {
                foreach ($headers as $key => $v) {
                    if (is_string($key) && strcasecmp($key, $name) === 0) {
                        $value = $v;
                        break;
                    }
                }
            }
            $value ??= $headers['HTTP_' . strtoupper(str_replace('-', '_', $name))] ?? null;
        } elseif (is_object($headers)) {
            if (method_exists($headers, 'getHeaderLine')) {
                $value = $headers->getHeaderLine($name); // PSR-7
            } elseif ($headers instanceof \ArrayAccess) {
                $value = $headers[$name] ?? null;
            } elseif (method_exists($headers, 'get')) {
                $value = $headers->get($name); // Symfony's and Laravel's HeaderBag
            }
        }
        if (is_array($value)) {
            $value = $value === [] ? null : reset($value);
        }
        return is_string($value) ? $value : null;
    }
}
