# frozen_string_literal: true

# Verify webhooks from Relay over the raw request body, with Ruby's OpenSSL
# only.
#
# Relay signs every delivery with the Standard Webhooks profile: +webhook-id+,
# +webhook-timestamp+ (unix seconds) and +webhook-signature+, a
# space-separated list of "<version>,<base64>" entries over
# "{webhook-id}.{webhook-timestamp}.{raw body}":
#
# - +v1a+: Ed25519 (Relay's default), verified with the endpoint's public key
#   "whpk_...";
# - +v1+: HMAC-SHA256, verified with the endpoint's secret "whsec_...".
#
#   verifier = Relay::Verify::Verifier.new(["whpk_..."])
#   verifier.verify(headers, raw_body) # raises Relay::Verify::VerifyError
require_relative "verify/version"
require_relative "verify/errors"
require_relative "verify/keys"
require_relative "verify/seen_store"
require_relative "verify/verifier"
