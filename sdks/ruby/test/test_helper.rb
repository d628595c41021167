# frozen_string_literal: true

# Shared helpers: the vector files and a signer for fresh requests.

require "json"
require "minitest/autorun"
require "openssl"
require "relay/verify"

module Fixtures
  ROOT = File.expand_path("..", __dir__)
  RELAY_VECTORS = File.expand_path("../vectors.json", ROOT)
  STANDARD_VECTORS = File.expand_path("../../testdata/standard-webhooks.json", ROOT)

  def self.load(path)
    JSON.parse(File.read(path, encoding: "UTF-8"))
  end

  # Signs like Relay, with the vectors' ed_a test key (v1a).
  class Signer
    # The DER header of a PKCS#8 Ed25519 private key, before its 32-byte seed.
    PKCS8_PREFIX = ["302e020100300506032b657004220420"].pack("H*")

    attr_reader :public_key, :other_public_key

    def initialize
      keys = Fixtures.load(RELAY_VECTORS)["signing_keys"]
      raw = keys["ed_a"]["signing_key"].delete_prefix("whsk_").unpack1("m0")
      @key = OpenSSL::PKey.read(PKCS8_PREFIX + raw.byteslice(0, 32))
      @public_key = keys["ed_a"]["verification_key"]
      @other_public_key = keys["ed_b"]["verification_key"]
    end

    def headers(webhook_id, body, timestamp = Time.now.to_i)
      signature = @key.sign(nil, "#{webhook_id}.#{timestamp}.".b + body.b)
      {
        "webhook-id" => webhook_id,
        "webhook-timestamp" => timestamp.to_s,
        "webhook-signature" => "v1a,#{[signature].pack("m0")}"
      }
    end
  end
end
