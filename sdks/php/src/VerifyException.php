<?php

declare(strict_types=1);

namespace Relay\Verify;

/**
 * A request did not verify. code() is stable across Relay's SDKs:
 * missing_header, invalid_timestamp, timestamp_too_old, timestamp_too_new,
 * no_matching_signature or duplicate; each has its subclass.
 */
class VerifyException extends \Exception
{
    public function __construct(private readonly string $errorCode, string $message)
    {
        parent::__construct($message);
    }

    /** The error's code, the same in Relay's other verifiers. */
    public function code(): string
    {
        return $this->errorCode;
    }
}
