require "json"
require "relay/verify"
require "webrick"

# One or more keys, space-separated: during a rotation, the new and the old.
VERIFIER = Relay::Verify::Verifier.new(ENV.fetch("RELAY_WEBHOOK_KEYS").split)
SEEN = Relay::Verify::MemorySeenStore.new # one process; use a shared store with several

# POST /webhooks/relay
RELAY_WEBHOOK = lambda do |req, res|
  return res.status = 405 unless req.request_method == "POST"

  # The raw bytes, exactly as received: never a re-serialized JSON.parse.
  body = req.body || ""
  begin
    VERIFIER.verify_once(req, body, SEEN)
  rescue Relay::Verify::DuplicateError
    return res.status = 200 # already processed: a 2xx stops Relay's retries
  rescue Relay::Verify::VerifyError => e
    res.body = e.code
    return res.status = 401 # Relay retries 401 (e.g. while a new key deploys)
  end
  event = JSON.parse(body) # authentic: now parse it
  puts "#{event["type"]} #{event["id"]}"
  res.status = 204
end

if $PROGRAM_NAME == __FILE__
  server = WEBrick::HTTPServer.new(BindAddress: "127.0.0.1", Port: 8080)
  server.mount_proc("/webhooks/relay", &RELAY_WEBHOOK)
  trap("INT") { server.shutdown }
  server.start
end
