<?php

declare(strict_types=1);

namespace Relay\Verify;

/** A key string that cannot be used to verify (invalid_key); the message says why. */
final class InvalidKeyException extends \InvalidArgumentException
{
    /** Always "invalid_key", as in Relay's other SDKs. */
    public function code(): string
    {
        return 'invalid_key';
    }
}
