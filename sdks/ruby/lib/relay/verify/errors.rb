# frozen_string_literal: true

module Relay
  module Verify
    # A request did not verify. +code+ is stable across Relay's SDKs.
    class VerifyError < StandardError
      # The error's code, such as "no_matching_signature".
      def code
        "verify_error"
      end
    end

    # A signature header is absent or empty.
    class MissingHeaderError < VerifyError
      attr_reader :header

      def initialize(header)
        @header = header
        super("the #{header} header is missing or empty")
      end

      def code
        "missing_header"
      end
    end

    # +webhook-timestamp+ is not a whole, non-negative number of unix seconds.
    class InvalidTimestampError < VerifyError
      def initialize
        super("webhook-timestamp is not a whole number of unix seconds")
      end

      def code
        "invalid_timestamp"
      end
    end

    # +webhook-timestamp+ is further in the past than the tolerance.
    class TimestampTooOldError < VerifyError
      attr_reader :timestamp, :now

      def initialize(timestamp, now)
        @timestamp = timestamp
        @now = now
        super("webhook-timestamp #{timestamp} is too old (now is #{now})")
      end

      def code
        "timestamp_too_old"
      end
    end

    # +webhook-timestamp+ is further in the future than the tolerance.
    class TimestampTooNewError < VerifyError
      attr_reader :timestamp, :now

      def initialize(timestamp, now)
        @timestamp = timestamp
        @now = now
        super("webhook-timestamp #{timestamp} is too far in the future (now is #{now})")
      end

      def code
        "timestamp_too_new"
      end
    end

    # No entry of +webhook-signature+ verifies with any of the keys.
    class NoMatchingSignatureError < VerifyError
      def initialize
        super("no signature matched any key")
      end

      def code
        "no_matching_signature"
      end
    end

    # The request verified, but its +webhook-id+ was already seen (only from
    # Verifier#verify_once). Reply 2xx: it is a retry or a replay.
    class DuplicateError < VerifyError
      attr_reader :webhook_id

      def initialize(webhook_id)
        @webhook_id = webhook_id
        super("webhook-id #{webhook_id.inspect} was already seen")
      end

      def code
        "duplicate"
      end
    end

    # A key string that cannot be used to verify; the message says why.
    class InvalidKeyError < ArgumentError
      def code
        "invalid_key"
      end
    end
  end
end
