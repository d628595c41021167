<?php

declare(strict_types=1);

namespace Relay\Verify;

/** webhook-timestamp is further in the future than the tolerance (timestamp_too_new). */
final class TimestampTooNewException extends VerifyException
{
    public function __construct(public readonly int $timestamp, public readonly int $now)
    {
        parent::__construct(
            'timestamp_too_new',
            "webhook-timestamp {$timestamp} is too far in the future (now is {$now})",
        );
    }
}
