# frozen_string_literal: true

# The gem is the artifact: `gem build` makes it with its name, version,
# licence, README and files, and it installs and loads on its own.

require "rbconfig"
require "rubygems/package"
require "test_helper"
require "tmpdir"

class PackageTest < Minitest::Test
  def build(dir)
    path = File.join(dir, "relay-verify.gem")
    Dir.chdir(Fixtures::ROOT) do
      assert system("gem", "build", "relay-verify.gemspec", "--output", path, "--silent",
                    out: File::NULL), "gem build failed"
    end
    path
  end

  def test_the_gem_is_publishable
    Dir.mktmpdir do |dir|
      gem = Gem::Package.new(build(dir))
      spec = gem.spec
      assert_equal "relay-verify", spec.name
      assert_equal Relay::Verify::VERSION, spec.version.to_s
      assert_equal ["Apache-2.0"], spec.licenses
      assert_empty spec.runtime_dependencies, "no dependency beyond Ruby's openssl"
      assert_equal Gem::Requirement.new(">= 3.1"), spec.required_ruby_version
      files = gem.contents
      %w[README.md LICENSE lib/relay/verify.rb lib/relay/verify/verifier.rb].each do |f|
        assert_includes files, f
      end
      assert files.all? { |f| f.start_with?("lib/") || %w[README.md LICENSE].include?(f) }, files.inspect
      assert_includes File.read(File.join(Fixtures::ROOT, "LICENSE")), "Apache License"

      # Installed alone, it loads and verifies a Standard Webhooks vector.
      home = File.join(dir, "home")
      assert system("gem", "install", "--local", "--no-document", "--ignore-dependencies",
                    "--install-dir", home, File.join(dir, "relay-verify.gem"),
                    out: File::NULL), "gem install failed"
      script = <<~RUBY
        require "relay/verify"
        v = Relay::Verify::Verifier.new("whpk_1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4=")
        v.verify({ "webhook-id" => "msg_p5jXN8AQM9LWM0D4loKWxJek", "webhook-timestamp" => "1614265330",
                   "webhook-signature" => "v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw/enGzPCXe5BdqzCInXqYXFymVJaA7AZdpXwVLPo3mNl8EM+m7TBAg==" },
                 '{"test": 2432232314}', now: 1614265330)
        print Gem.loaded_specs["relay-verify"].full_gem_path.start_with?(ENV["GEM_HOME"]), " ", Relay::Verify::VERSION
      RUBY
      out = IO.popen({ "GEM_HOME" => home, "GEM_PATH" => home, "RUBYLIB" => nil },
                     [RbConfig.ruby, "-e", script], &:read)
      assert_equal "true #{Relay::Verify::VERSION}", out
    end
  end

  def test_the_version_is_the_other_sdks
    package = JSON.parse(File.read(File.join(Fixtures::ROOT, "..", "typescript", "package.json")))
    assert_equal package["version"], Relay::Verify::VERSION
  end
end
