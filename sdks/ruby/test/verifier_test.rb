# frozen_string_literal: true

# The API beyond the vectors: errors, tolerance, header shapes, dedup.

require "test_helper"

class VerifierTest < Minitest::Test
  include Relay::Verify

  SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
  HEADERS = {
    "webhook-id" => "msg_p5jXN8AQM9LWM0D4loKWxJek",
    "webhook-timestamp" => "1614265330",
    "webhook-signature" => "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
  }.freeze
  BODY = '{"test": 2432232314}'
  NOW = 1_614_265_330

  def with(name, value)
    HEADERS.merge(name => value)
  end

  def test_errors_are_typed_and_carry_codes
    v = Verifier.new(SECRET)
    assert_equal 300, v.tolerance
    assert_equal DEFAULT_TOLERANCE_SECONDS, v.tolerance
    assert_nil v.verify(HEADERS, BODY, now: NOW)
    assert_nil v.verify(HEADERS, BODY.b, now: NOW)
    e = assert_raises(MissingHeaderError) { v.verify(HEADERS.except("webhook-id"), BODY, now: NOW) }
    assert_equal ["webhook-id", "missing_header"], [e.header, e.code]
    assert_equal "the webhook-id header is missing or empty", e.message
    old = assert_raises(TimestampTooOldError) { v.verify(HEADERS, BODY, now: NOW + 301) }
    assert_equal [NOW, NOW + 301, "timestamp_too_old"], [old.timestamp, old.now, old.code]
    assert_raises(TimestampTooNewError) { v.verify(HEADERS, BODY, now: NOW - 301) }
    ["#{"0" * 5000}1x", "9" * 5000, "-1", "+1614265330", "1_614_265_330", "0x10", "1614265330\n"].each do |ts|
      assert_raises(InvalidTimestampError, ts) { v.verify(with("webhook-timestamp", ts), BODY, now: NOW) }
    end
    # Invalid UTF-8 in a header is no crash.
    assert_raises(InvalidTimestampError) { v.verify(with("webhook-timestamp", "\xff1".b), BODY, now: NOW) }
    # Leading zeros are part of the signed string, not of the value.
    padded = "#{"0" * 5000}1614265330"
    assert_raises(NoMatchingSignatureError) { v.verify(with("webhook-timestamp", padded), BODY, now: NOW) }
    assert_raises(VerifyError) { v.verify(HEADERS, "{}", now: NOW) }
    # Tabs do not separate entries: only single spaces do.
    tabbed = with("webhook-signature", "v2,AAAA\t#{HEADERS["webhook-signature"]}")
    assert_raises(NoMatchingSignatureError) { v.verify(tabbed, BODY, now: NOW) }
    # The system clock is long past 2021.
    assert_raises(TimestampTooOldError) { v.verify(HEADERS, BODY) }
    # A parsed body is refused loudly.
    assert_raises(TypeError) { v.verify(HEADERS, { "test" => 2_432_232_314 }, now: NOW) }
  end

  def test_tolerance_is_configurable
    v = Verifier.new([SECRET], tolerance: 3600)
    assert_nil v.verify(HEADERS, BODY, now: NOW + 3600)
    assert_raises(TimestampTooOldError) { v.verify(HEADERS, BODY, now: NOW + 3601) }
    strict = Verifier.new([SECRET], tolerance: 0)
    assert_nil strict.verify(HEADERS, BODY, now: NOW)
    assert_raises(TimestampTooNewError) { strict.verify(HEADERS, BODY, now: NOW - 1) }
    assert_raises(ArgumentError) { Verifier.new([SECRET], tolerance: -1) }
  end

  # What WEBrick's and Rails' request objects offer: [] with any-case names.
  class CaseInsensitive
    def initialize(headers)
      @headers = headers
    end

    def [](name)
      @headers.find { |k, _| k.casecmp?(name) }&.last
    end
  end

  def test_header_shapes
    v = Verifier.new([SECRET])
    assert_nil v.verify(HEADERS.transform_keys(&:upcase), BODY, now: NOW)
    assert_nil v.verify(HEADERS.to_a, BODY, now: NOW)
    assert_nil v.verify(HEADERS.transform_values { |x| [x] }, BODY, now: NOW)
    assert_nil v.verify(HEADERS.to_h { |k, x| ["HTTP_#{k.upcase.tr("-", "_")}", x] }, BODY, now: NOW)
    assert_nil v.verify(CaseInsensitive.new(HEADERS.transform_keys(&:upcase)), BODY, now: NOW)
    assert_raises(MissingHeaderError) { v.verify(with("webhook-signature", nil), BODY, now: NOW) }
    assert_raises(MissingHeaderError) { v.verify(with("webhook-signature", []), BODY, now: NOW) }
    assert_raises(MissingHeaderError) { v.verify(nil, BODY, now: NOW) }
  end

  def test_key_errors
    assert_raises(InvalidKeyError) { Verifier.new([]) }
    e = assert_raises(InvalidKeyError) { Verifier.new("whsk_VEVTVFNJR05JTkdLRVlET05PVFVTRVRISVNGT1JBTlk=") }
    assert_includes e.message, "public key"
    assert_equal "invalid_key", e.code
    assert_kind_of ArgumentError, e
    assert_raises(InvalidKeyError) { Verifier.new([SECRET, 42]) }
    shown = Verifier.new([SECRET, "whpk_1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4="]).inspect
    refute_includes shown, "MfKQ9r8G"
    assert_includes shown, "whpk_1SiA4o9"
  end

  def test_verify_once_and_memory_store
    v = Verifier.new(SECRET)
    store = MemorySeenStore.new
    assert_raises(NoMatchingSignatureError) { v.verify_once(HEADERS, "forged", store, now: NOW) }
    assert_equal 0, store.size
    assert_nil v.verify_once(HEADERS, BODY, store, now: NOW)
    e = assert_raises(DuplicateError) { v.verify_once(HEADERS, BODY, store, now: NOW + 1) }
    assert_equal ["duplicate", HEADERS["webhook-id"]], [e.code, e.webhook_id]
  end

  def test_memory_store_keeps_96_hours_then_forgets
    store = MemorySeenStore.new(retention_seconds: 60)
    assert_equal 96 * 3600, store.retention_seconds
    assert_equal 96 * 3600, MIN_RETENTION_SECONDS
    t0 = 1_700_000_000
    r = MIN_RETENTION_SECONDS
    assert store.check_and_insert("a", t0)
    refute store.check_and_insert("a", t0)
    assert store.check_and_insert("b", t0 + 10)
    refute store.check_and_insert("a", t0 + r)
    assert store.check_and_insert("a", t0 + r + 1)
    refute store.check_and_insert("b", t0 + r + 1)
    assert store.check_and_insert("c", t0 + (10 * r))
    assert_equal 1, store.size
    week = MemorySeenStore.new(retention_seconds: 7 * 86_400)
    assert week.check_and_insert("x", 0)
    refute week.check_and_insert("x", 7 * 86_400)
  end

  def test_memory_store_one_winner_across_threads
    store = MemorySeenStore.new
    now = Time.now.to_i
    gate = Queue.new
    threads = Array.new(16) do
      Thread.new do
        gate.pop
        store.check_and_insert("m", now)
      end
    end
    16.times { gate << :go }
    assert_equal 1, threads.map(&:value).count(true)
  end

  def test_custom_store
    table = Class.new do
      def initialize
        @rows = {}
      end

      def check_and_insert(webhook_id, _now)
        return false if @rows.key?(webhook_id)

        @rows[webhook_id] = true
      end
    end.new
    v = Verifier.new(SECRET)
    assert_nil v.verify_once(HEADERS, BODY, table, now: NOW)
    assert_raises(DuplicateError) { v.verify_once(HEADERS, BODY, table, now: NOW) }
  end
end
