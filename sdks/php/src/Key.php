<?php

declare(strict_types=1);

namespace Relay\Verify;

/**
 * One parsed verification key: an HMAC secret (v1) or an Ed25519 public key
 * (v1a).
 *
 * @internal
 */
final class Key
{
    private function __construct(
        public readonly string $version,
        private readonly string $raw,
        private readonly string $text,
    ) {
    }

    /** Canonical standard base64 with padding, or null. */
    public static function decodeStrict(string $text): ?string
    {
        $raw = base64_decode($text, true);
        if ($raw === false || base64_encode($raw) !== $text) {
            return null;
        }
        return $raw;
    }

    public static function parse(mixed $input): self
    {
        if (!is_string($input)) {
            throw new InvalidKeyException('a key is a string');
        }
        $text = trim($input);
        if (str_starts_with($text, 'whsec_')) {
            $raw = self::decodeStrict(substr($text, strlen('whsec_')));
            if ($raw === null) {
                throw new InvalidKeyException('the key is not valid base64');
            }
            if (strlen($raw) < 24 || strlen($raw) > 64) {
                throw new InvalidKeyException(
                    'the key has ' . strlen($raw) . ' bytes; an HMAC secret has 24 to 64 bytes',
                );
            }
            return new self('v1', $raw, '');
        }
        if (str_starts_with($text, 'whpk_')) {
            $raw = self::decodeStrict(substr($text, strlen('whpk_')));
            if ($raw === null) {
                throw new InvalidKeyException('the key is not valid base64');
            }
            if (strlen($raw) !== SODIUM_CRYPTO_SIGN_PUBLICKEYBYTES) {
                throw new InvalidKeyException(
                    'the key has ' . strlen($raw) . ' bytes; an Ed25519 public key has 32 bytes',
                );
            }
            return new self('v1a', $raw, $text);
        }
        if (str_starts_with($text, 'whsk_')) {
            throw new InvalidKeyException(
                'this is an Ed25519 signing key (whsk_); verify with its public key (whpk_) '
                . 'and keep the signing key out of consumers',
            );
        }
        throw new InvalidKeyException('a verification key starts with whsec_ (v1) or whpk_ (v1a)');
    }

    public function verify(string $content, string $signature): bool
    {
        if ($this->version === 'v1') {
            // hash_equals takes the same time wherever the bytes differ.
            return hash_equals(hash_hmac('sha256', $content, $this->raw, true), $signature);
        }
        if (strlen($signature) !== SODIUM_CRYPTO_SIGN_BYTES) {
            return false;
        }
        try {
            return sodium_crypto_sign_verify_detached($signature, $content, $this->raw);
        } catch (\SodiumException) {
            return false;
        }
    }

    public function __toString(): string
    {
        return $this->version === 'v1' ? 'HmacKey(<redacted>)' : "Ed25519Key({$this->text})";
    }

    /** @return array<string, string> the secret stays out of var_dump and print_r */
    public function __debugInfo(): array
    {
        return ['key' => (string) $this];
    }
}
