# frozen_string_literal: true

# The README's WEBrick example (examples/webrick_app.rb, shown verbatim in
# README.md) verifies real signed requests over the raw body.

require "logger"
require "net/http"
require "stringio"
require "test_helper"
require "webrick"

class ExampleTest < Minitest::Test
  SIGNER = Fixtures::Signer.new
  BODY = JSON.generate({ "specversion" => "1.0", "id" => "evt_1", "type" => "order.paid" })
  EXAMPLE = File.join(Fixtures::ROOT, "examples", "webrick_app.rb")

  # Serves the example on a free port until the block returns.
  def serving
    ENV["RELAY_WEBHOOK_KEYS"] = "#{SIGNER.public_key} #{SIGNER.other_public_key}"
    load EXAMPLE unless defined?(RELAY_WEBHOOK)
    running = Queue.new
    server = WEBrick::HTTPServer.new(
      BindAddress: "127.0.0.1", Port: 0, Logger: WEBrick::Log.new(StringIO.new), AccessLog: [],
      StartCallback: -> { running << true }
    )
    server.mount_proc("/webhooks/relay", &RELAY_WEBHOOK)
    thread = Thread.new do
      server.start
    ensure
      running << false # a server that failed to start ends the wait too
    end
    # Shutting down a server that has not started yet would not stop it.
    running.pop
    Net::HTTP.start("127.0.0.1", server.listeners.first.addr[1]) { |http| yield http }
  ensure
    server&.shutdown
    thread&.join
  end

  def post(body, headers, type = "application/cloudevents+json")
    response = @http.post("/webhooks/relay", body, headers.merge("content-type" => type))
    [response.code.to_i, response.body.to_s]
  end

  def test_the_example_verifies_rejects_and_deduplicates
    serving do |http|
      @http = http
      exercise
    end
  end

  def exercise
    good = SIGNER.headers("evt_1", BODY)
    assert_equal [401, "no_matching_signature"], post(BODY.sub("evt_1", "evt_2"), good)
    assert_equal [401, "missing_header"], post(BODY, good.except("webhook-signature"))
    out, = capture_io do
      assert_equal 204, post(BODY, good)[0]
      assert_equal 200, post(BODY, good)[0] # a replay: acknowledged, not processed
    end
    assert_equal "order.paid evt_1\n", out
    stale = SIGNER.headers("evt_3", BODY, 1_600_000_000)
    assert_equal [401, "timestamp_too_old"], post(BODY, stale)
    # Any content type reaches the verifier as raw bytes.
    capture_io { assert_equal 204, post(BODY, SIGNER.headers("evt_4", BODY), "text/plain")[0] }
  end

  def test_the_readme_shows_the_example_verbatim
    readme = File.read(File.join(Fixtures::ROOT, "README.md"))
    assert_includes readme, "```ruby\n#{File.read(EXAMPLE)}```"
  end
end
