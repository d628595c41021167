<?php

// Serve it with PHP's built-in server: php -S 127.0.0.1:8080 examples/receiver.php

declare(strict_types=1);

require __DIR__ . '/../vendor/autoload.php';

use Relay\Verify\DuplicateException;
use Relay\Verify\FileSeenStore;
use Relay\Verify\Verifier;
use Relay\Verify\VerifyException;

if ($_SERVER['REQUEST_METHOD'] !== 'POST' || parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) !== '/webhooks/relay') {
    http_response_code(404);
    return;
}

// One or more keys, space-separated: during a rotation, the new and the old.
$verifier = new Verifier(preg_split('/\s+/', trim((string) getenv('RELAY_WEBHOOK_KEYS'))));
// PHP forgets everything between requests: keep seen ids in files (one machine) or a database.
$seen = new FileSeenStore(sys_get_temp_dir() . '/relay-seen');

// The raw bytes, exactly as received: never a re-encoded json_decode().
$body = (string) file_get_contents('php://input');
try {
    $verifier->verifyOnce(getallheaders(), $body, $seen);
} catch (DuplicateException) {
    http_response_code(200); // already processed: a 2xx stops Relay's retries
    return;
} catch (VerifyException $e) {
    http_response_code(401); // Relay retries 401 (e.g. while a new key deploys)
    echo $e->code();
    return;
}
$event = json_decode($body, true, flags: JSON_THROW_ON_ERROR); // authentic: now parse it
error_log("{$event['type']} {$event['id']}");
http_response_code(204);
