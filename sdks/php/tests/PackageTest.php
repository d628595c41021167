<?php

declare(strict_types=1);

namespace Relay\Verify\Tests;

use PHPUnit\Framework\TestCase;
use Relay\Verify\Verifier;

/**
 * The Composer package: composer.json is valid and complete, `composer
 * archive` makes its dist zip (the library, README, LICENSE, composer.json),
 * and a project installs that zip from an artifact repository and verifies
 * with it, all without the network.
 */
final class PackageTest extends TestCase
{
    private string $tmp = '';

    protected function setUp(): void
    {
        $this->tmp = sys_get_temp_dir() . '/relay-package-' . bin2hex(random_bytes(6));
        mkdir($this->tmp);
    }

    protected function tearDown(): void
    {
        exec('rm -rf ' . escapeshellarg($this->tmp));
    }

    /**
     * @param list<string> $args
     * @return string its output
     */
    private function composer(array $args, string $cwd): string
    {
        $composer = getenv('COMPOSER_BINARY') ?: 'composer';
        $command = array_merge([$composer, '--no-interaction', '--no-ansi'], $args);
        $env = [
            'PATH' => (string) getenv('PATH'),
            'COMPOSER_HOME' => $this->tmp . '/composer-home',
            'COMPOSER_CACHE_DIR' => $this->tmp . '/composer-cache',
            'COMPOSER_ALLOW_SUPERUSER' => '1',
            'COMPOSER_DISABLE_NETWORK' => '1',
        ];
        $process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, $cwd, $env);
        $out = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
        fclose($pipes[1]);
        fclose($pipes[2]);
        self::assertSame(0, proc_close($process), implode(' ', $args) . ":\n" . $out);
        return $out;
    }

    public function testComposerJsonIsComplete(): void
    {
        $json = Fixtures::load(Fixtures::ROOT . '/composer.json');
        self::assertSame('relay/verify', $json['name']);
        self::assertSame('library', $json['type']);
        self::assertSame(Verifier::VERSION, $json['version']);
        self::assertSame('Apache-2.0', $json['license']);
        self::assertSame('README.md', $json['readme']);
        self::assertStringContainsString('Relay webhooks', $json['description']);
        // Nothing beyond PHP's own sodium.
        self::assertSame(['php', 'ext-sodium'], array_keys($json['require']));
        self::assertStringContainsString('Apache License', (string) file_get_contents(Fixtures::ROOT . '/LICENSE'));
        $out = $this->composer(['validate', '--no-check-lock'], Fixtures::ROOT);
        // Its one warning: Packagist derives versions from tags, but an artifact repository needs the field.
        preg_match_all('/^- (.*)$/m', $out, $warnings);
        self::assertSame(
            ['The version field is present, it is recommended to leave it out if the package is published on Packagist.'],
            $warnings[1],
            $out,
        );
    }

    public function testTheVersionIsTheOtherSDKs(): void
    {
        self::assertSame(Fixtures::load(Fixtures::ROOT . '/../typescript/package.json')['version'], Verifier::VERSION);
    }

    public function testTheArchiveInstallsAndVerifies(): void
    {
        $dist = $this->tmp . '/dist';
        $name = 'relay-verify-' . Verifier::VERSION;
        $this->composer(['archive', '--format=zip', "--dir={$dist}", "--file={$name}"], Fixtures::ROOT);
        $zip = new \PharData("{$dist}/{$name}.zip");
        $files = [];
        foreach (new \RecursiveIteratorIterator($zip) as $file) {
            $files[] = substr($file->getPathname(), strlen("phar://{$dist}/{$name}.zip/"));
        }
        sort($files);
        $sources = array_map(fn (string $f): string => 'src/' . basename($f), glob(Fixtures::ROOT . '/src/*.php'));
        sort($sources);
        self::assertSame(['LICENSE', 'README.md', 'composer.json', ...$sources], $files);

        // A project that requires it from the zip alone.
        $project = $this->tmp . '/project';
        mkdir($project);
        file_put_contents("{$project}/composer.json", json_encode([
            'repositories' => [['type' => 'artifact', 'url' => $dist], ['packagist.org' => false]],
            'require' => ['relay/verify' => Verifier::VERSION],
        ]));
        $this->composer(['install', '--no-progress'], $project);
        $script = <<<'PHP'
            require 'vendor/autoload.php';
            $v = new Relay\Verify\Verifier('whpk_1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4=');
            $v->verify([
                'webhook-id' => 'msg_p5jXN8AQM9LWM0D4loKWxJek',
                'webhook-timestamp' => '1614265330',
                'webhook-signature' => 'v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw/enGzPCXe5BdqzCInXqYXFymVJaA7AZdpXwVLPo3mNl8EM+m7TBAg==',
            ], '{"test": 2432232314}', 1614265330);
            echo (new ReflectionClass($v))->getFileName(), ' ', Relay\Verify\Verifier::VERSION;
            PHP;
        $out = shell_exec('cd ' . escapeshellarg($project) . ' && ' . escapeshellarg(PHP_BINARY) . ' -r ' . escapeshellarg($script));
        self::assertSame(realpath($project) . '/vendor/relay/verify/src/Verifier.php ' . Verifier::VERSION, $out);
    }
}
