# frozen_string_literal: true

module Relay
  module Verify
    # This gem's version, the same as Relay's other verifier SDKs'.
    VERSION = "0.1.0"
  end
end
