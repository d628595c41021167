<?php

declare(strict_types=1);

namespace Relay\Verify;

/** No entry of webhook-signature verifies with any of the keys (no_matching_signature). */
final class NoMatchingSignatureException extends VerifyException
{
    public function __construct()
    {
        parent::__construct('no_matching_signature', 'no signature matched any key');
    }
}
