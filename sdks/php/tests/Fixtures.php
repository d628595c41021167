<?php

declare(strict_types=1);

namespace Relay\Verify\Tests;

/** The vector files, and a signer for fresh requests. */
final class Fixtures
{
    public const ROOT = __DIR__ . '/..';
    public const RELAY_VECTORS = self::ROOT . '/../vectors.json';
    public const STANDARD_VECTORS = self::ROOT . '/../../testdata/standard-webhooks.json';

    /** @return array<string, mixed> */
    public static function load(string $path): array
    {
        return json_decode((string) file_get_contents($path), true, flags: JSON_THROW_ON_ERROR);
    }

    /** The vectors' ed_a test key pair (v1a): [sodium secret key, whpk_, the other whpk_]. */
    public static function signer(): array
    {
        $keys = self::load(self::RELAY_VECTORS)['signing_keys'];
        // A whsk_ key is seed || public key: sodium's own secret-key layout.
        $secret = base64_decode(substr($keys['ed_a']['signing_key'], strlen('whsk_')), true);
        return [$secret, $keys['ed_a']['verification_key'], $keys['ed_b']['verification_key']];
    }

    /** @return array<string, string> the signature headers, like Relay's */
    public static function sign(string $secret, string $id, string $body, ?int $timestamp = null): array
    {
        $timestamp ??= time();
        $signature = sodium_crypto_sign_detached("{$id}.{$timestamp}.{$body}", $secret);
        return [
            'webhook-id' => $id,
            'webhook-timestamp' => (string) $timestamp,
            'webhook-signature' => 'v1a,' . base64_encode($signature),
        ];
    }
}
