<?php

declare(strict_types=1);

namespace Relay\Verify;

/** webhook-timestamp is further in the past than the tolerance (timestamp_too_old). */
final class TimestampTooOldException extends VerifyException
{
    public function __construct(public readonly int $timestamp, public readonly int $now)
    {
        parent::__construct('timestamp_too_old', "webhook-timestamp {$timestamp} is too old (now is {$now})");
    }
}
