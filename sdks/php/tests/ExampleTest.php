<?php

declare(strict_types=1);

namespace Relay\Verify\Tests;

use PHPUnit\Framework\TestCase;

/**
 * The README's example (examples/receiver.php, shown verbatim in README.md),
 * served by `php -S`, verifies real signed requests over the raw body.
 */
final class ExampleTest extends TestCase
{
    private const BODY = '{"specversion":"1.0","id":"evt_1","type":"order.paid"}';

    /** @var resource|null */
    private $server = null;
    /** @var array<int, resource> */
    private array $pipes = [];
    private string $tmp = '';
    private string $url = '';

    private function start(): void
    {
        [, $public, $other] = Fixtures::signer();
        $this->tmp = sys_get_temp_dir() . '/relay-example-' . bin2hex(random_bytes(6));
        mkdir($this->tmp);
        // A free port: the kernel picks one, which php -S then takes.
        $probe = stream_socket_server('tcp://127.0.0.1:0');
        $address = stream_socket_get_name($probe, false);
        fclose($probe);
        $this->server = proc_open(
            [PHP_BINARY, '-S', $address, Fixtures::ROOT . '/examples/receiver.php'],
            [1 => ['pipe', 'w'], 2 => ['pipe', 'w']],
            $this->pipes,
            Fixtures::ROOT,
            ['RELAY_WEBHOOK_KEYS' => "{$public} {$other}", 'TMPDIR' => $this->tmp, 'PATH' => getenv('PATH')],
        );
        // php -S says on stderr when it listens.
        while (($line = fgets($this->pipes[2])) !== false && !str_contains($line, 'started')) {
        }
        self::assertIsString($line, 'php -S did not start');
        $this->url = "http://{$address}/webhooks/relay";
    }

    protected function tearDown(): void
    {
        if ($this->server === null) {
            return;
        }
        proc_terminate($this->server);
        proc_close($this->server);
        foreach (glob($this->tmp . '/relay-seen/{,.}*', GLOB_BRACE) ?: [] as $path) {
            if (is_file($path)) {
                unlink($path);
            }
        }
        @rmdir($this->tmp . '/relay-seen');
        @rmdir($this->tmp);
    }

    /**
     * @param array<string, string> $headers
     * @return array{int, string}
     */
    private function post(string $body, array $headers, string $type = 'application/cloudevents+json'): array
    {
        $lines = ["content-type: {$type}"];
        foreach ($headers as $name => $value) {
            $lines[] = "{$name}: {$value}";
        }
        $context = stream_context_create(['http' => [
            'method' => 'POST',
            'header' => implode("\r\n", $lines),
            'content' => $body,
            'ignore_errors' => true,
        ]]);
        $text = file_get_contents($this->url, false, $context);
        preg_match('{^HTTP/\S+ (\d+)}', $http_response_header[0], $m);
        return [(int) $m[1], (string) $text];
    }

    public function testTheExampleVerifiesRejectsAndDeduplicates(): void
    {
        $this->start();
        [$secret] = Fixtures::signer();
        $good = Fixtures::sign($secret, 'evt_1', self::BODY);
        self::assertSame([401, 'no_matching_signature'], $this->post(str_replace('evt_1', 'evt_2', self::BODY), $good));
        $unsigned = $good;
        unset($unsigned['webhook-signature']);
        self::assertSame([401, 'missing_header'], $this->post(self::BODY, $unsigned));
        self::assertSame(204, $this->post(self::BODY, $good)[0]);
        self::assertSame(200, $this->post(self::BODY, $good)[0]); // a replay: acknowledged, not processed
        $stale = Fixtures::sign($secret, 'evt_3', self::BODY, 1_600_000_000);
        self::assertSame([401, 'timestamp_too_old'], $this->post(self::BODY, $stale));
        // Any content type reaches the verifier as raw bytes.
        $fourth = str_replace('evt_1', 'evt_4', self::BODY);
        self::assertSame(204, $this->post($fourth, Fixtures::sign($secret, 'evt_4', $fourth), 'text/plain')[0]);
        proc_terminate($this->server);
        $log = stream_get_contents($this->pipes[2]);
        self::assertSame(1, substr_count($log, 'order.paid evt_1'), $log);
        self::assertSame(1, substr_count($log, 'order.paid evt_4'), $log);
    }

    public function testTheReadmeShowsTheExampleVerbatim(): void
    {
        $readme = (string) file_get_contents(Fixtures::ROOT . '/README.md');
        $example = (string) file_get_contents(Fixtures::ROOT . '/examples/receiver.php');
        self::assertStringContainsString("```php\n{$example}```", $readme);
    }
}
