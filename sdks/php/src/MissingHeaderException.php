<?php

declare(strict_types=1);

namespace Relay\Verify;

/** A signature header is absent or empty (missing_header). */
final class MissingHeaderException extends VerifyException
{
    public function __construct(public readonly string $header)
    {
        parent::__construct('missing_header', "the {$header} header is missing or empty");
    }
}
