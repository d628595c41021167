<?php

declare(strict_types=1);

namespace Relay\Verify;

/** webhook-timestamp is not a whole, non-negative number of unix seconds (invalid_timestamp). */
final class InvalidTimestampException extends VerifyException
{
    public function __construct()
    {
        parent::__construct('invalid_timestamp', 'webhook-timestamp is not a whole number of unix seconds');
    }
}
