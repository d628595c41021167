# frozen_string_literal: true

module Relay
  module Verify
    # 96 hours: longer than Relay's retry window (about 76 hours).
    MIN_RETENTION_SECONDS = 96 * 3600

    # A seen-store in process memory (one process; forgotten on restart).
    #
    # Any object with +check_and_insert(webhook_id, now)+ is a seen-store:
    # record +webhook_id+ as seen at +now+ (unix seconds), return true the first
    # time and false when it was already seen within the retention, atomically.
    # Back it with what your processes share (a table with a unique key, Redis
    # +SET NX EX+, ...) and keep ids at least MIN_RETENTION_SECONDS.
    #
    # This one keeps each id for +retention_seconds+ (96 hours by default;
    # smaller values are raised to 96 hours) and drops older ones, sweeping at
    # most once a minute. Thread-safe.
    class MemorySeenStore
      SWEEP_EVERY_SECONDS = 60
      private_constant :SWEEP_EVERY_SECONDS

      attr_reader :retention_seconds

      def initialize(retention_seconds: MIN_RETENTION_SECONDS)
        @retention_seconds = [Integer(retention_seconds), MIN_RETENTION_SECONDS].max
        @seen = {}
        @next_sweep = 0
        @lock = Mutex.new
      end

      # How many ids are held.
      def size
        @lock.synchronize { @seen.size }
      end

      def check_and_insert(webhook_id, now)
        @lock.synchronize do
          if now >= @next_sweep
            @seen.delete_if { |_, at| now - at > @retention_seconds }
            @next_sweep = now + SWEEP_EVERY_SECONDS
          end
          at = @seen[webhook_id]
          return false if at && now - at <= @retention_seconds

          @seen[webhook_id] = now
          true
        end
      end
    end
  end
end
