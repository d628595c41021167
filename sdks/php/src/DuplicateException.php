<?php

declare(strict_types=1);

namespace Relay\Verify;

/**
 * The request verified, but its webhook-id was already seen (duplicate); only
 * from Verifier::verifyOnce(). Reply 2xx: it is a retry or a replay.
 */
final class DuplicateException extends VerifyException
{
    public function __construct(public readonly string $webhookId)
    {
        parent::__construct('duplicate', 'webhook-id ' . json_encode($webhookId) . ' was already seen');
    }
}
