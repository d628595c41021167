# frozen_string_literal: true

require_relative "lib/relay/verify/version"

Gem::Specification.new do |spec|
  spec.name = "relay-verify"
  spec.version = Relay::Verify::VERSION
  spec.summary = "Verify Relay webhooks (Standard Webhooks v1a Ed25519 and v1 HMAC-SHA256) over the raw body."
  spec.description = "Checks Relay's webhook-id, webhook-timestamp and webhook-signature headers over the raw " \
                     "request body, with Ruby's OpenSSL only: both signature schemes, several keys during a " \
                     "rotation, a 5-minute tolerance and an optional replay guard."
  spec.authors = ["Relay"]
  spec.license = "Apache-2.0"
  spec.homepage = "https://www.standardwebhooks.com/"
  spec.required_ruby_version = ">= 3.1"
  spec.files = Dir.glob("lib/**/*.rb", base: __dir__).sort + %w[README.md LICENSE]
  spec.require_paths = ["lib"]
  spec.extra_rdoc_files = %w[README.md LICENSE]
  spec.metadata["rubygems_mfa_required"] = "true"
  # The tests' tools, all shipped with Ruby (Debian: ruby, whose libruby
  # brings minitest, rake and webrick); the library itself needs only openssl.
  spec.add_development_dependency "minitest", ">= 5.15"
  spec.add_development_dependency "rake", ">= 13"
  spec.add_development_dependency "webrick", ">= 1.7"
end
