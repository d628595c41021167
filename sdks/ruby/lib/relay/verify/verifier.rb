# frozen_string_literal: true

module Relay
  module Verify
    # Five minutes, either side, inclusive.
    DEFAULT_TOLERANCE_SECONDS = 300

    WEBHOOK_ID = "webhook-id"
    WEBHOOK_TIMESTAMP = "webhook-timestamp"
    WEBHOOK_SIGNATURE = "webhook-signature"

    I64_MAX = (2**63) - 1
    private_constant :I64_MAX

    # Checks Relay's signature headers with one or more keys.
    #
    # +keys+ is one "whsec_..."/"whpk_..." string or several (during a
    # rotation, the new and the old). Raises InvalidKeyError for a key that
    # cannot be used, or when there is none. +tolerance+ is in seconds.
    # A verifier is immutable and thread-safe.
    class Verifier
      attr_reader :tolerance

      def initialize(keys, tolerance: DEFAULT_TOLERANCE_SECONDS)
        keys = [keys] unless keys.respond_to?(:to_ary)
        @keys = keys.to_ary.map { |k| Keys.parse(k) }.freeze
        raise InvalidKeyError, "a verifier needs at least one key" if @keys.empty?
        raise ArgumentError, "tolerance must not be negative" if Integer(tolerance).negative?

        @tolerance = Integer(tolerance)
        @versions = @keys.map(&:version).uniq.freeze
      end

      def inspect
        "#<#{self.class.name} keys=[#{@keys.map(&:inspect).join(", ")}] tolerance=#{@tolerance}>"
      end
      alias to_s inspect

      # Verifies a request; returns nil or raises a VerifyError.
      #
      # +headers+: a Hash (names matched case-insensitively; a Rack env's
      # +HTTP_WEBHOOK_ID+ form too), an Array of [name, value] pairs, or
      # anything with +[]+ such as Rails' +request.headers+ or a WEBrick
      # request. +body+: the raw bytes received, as a String. +now+: unix
      # seconds, for tests.
      #
      # Checks, in order: the three headers are present and non-empty; the
      # timestamp is ASCII digits and within the tolerance of now; one entry of
      # +webhook-signature+ verifies with one key of its version.
      def verify(headers, body, now: nil)
        raise TypeError, "body must be the raw request body as a String, not a parsed object" unless body.is_a?(String)

        webhook_id = Verify.required(headers, WEBHOOK_ID)
        timestamp = Verify.required(headers, WEBHOOK_TIMESTAMP)
        signature = Verify.required(headers, WEBHOOK_SIGNATURE)
        raise InvalidTimestampError unless timestamp.b.match?(/\A[0-9]+\z/n)

        sent = Integer(timestamp, 10)
        raise InvalidTimestampError if sent > I64_MAX

        now = Time.now.to_i if now.nil?
        raise TimestampTooOldError.new(sent, now) if sent + @tolerance < now
        raise TimestampTooNewError.new(sent, now) if sent > now + @tolerance

        content = String.new(encoding: Encoding::BINARY)
        content << webhook_id.b << "." << timestamp.b << "." << body.b
        signature.split(/ /, -1).each do |entry|
          version, comma, encoded = entry.partition(",")
          next if comma.empty? || !@versions.include?(version)

          raw = Keys.decode_strict(encoded)
          next if raw.nil?
          return nil if @keys.any? { |k| k.version == version && k.verify(content, raw) }
        end
        raise NoMatchingSignatureError
      end

      # #verify, then records the +webhook-id+ in +store+ (see
      # MemorySeenStore); raises DuplicateError when it was already there.
      # Only a request that verifies is recorded.
      def verify_once(headers, body, store, now: nil)
        now = Time.now.to_i if now.nil?
        verify(headers, body, now: now)
        webhook_id = Verify.required(headers, WEBHOOK_ID)
        raise DuplicateError, webhook_id unless store.check_and_insert(webhook_id, now)

        nil
      end
    end

    class << self
      # The header's value, or raises MissingHeaderError when it is absent or
      # empty.
      def required(headers, name)
        value = header(headers, name)
        raise MissingHeaderError, name if value.nil? || value.empty?

        value
      end

      private

      def header(headers, name)
        value =
          if headers.is_a?(Hash)
            from_pairs(headers, name) || headers["HTTP_#{name.upcase.tr("-", "_")}"]
          elsif headers.is_a?(Array)
            from_pairs(headers, name)
          elsif headers.respond_to?(:[])
            headers[name]
          end
        value = value.first if value.is_a?(Array)
        value.is_a?(String) ? value : nil
      end

      def from_pairs(pairs, name)
        return pairs[name] if pairs.is_a?(Hash) && pairs.key?(name)

        pairs.each do |key, value|
          return value if key.is_a?(String) && key.casecmp?(name)
        end
        nil
      end
    end
  end
end
