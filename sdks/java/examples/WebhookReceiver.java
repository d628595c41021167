import com.sun.net.httpserver.HttpServer;
import dev.relay.verify.DuplicateException;
import dev.relay.verify.MemorySeenStore;
import dev.relay.verify.Verifier;
import dev.relay.verify.VerifyException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;

public final class WebhookReceiver {
    public static void main(String[] args) throws IOException {
        // One or more keys, space-separated: during a rotation, the new and the old.
        List<String> keys = List.of(System.getenv("RELAY_WEBHOOK_KEYS").trim().split("\\s+"));
        Consumer<byte[]> handle = event -> System.out.println(new String(event, StandardCharsets.UTF_8));
        start(new InetSocketAddress("127.0.0.1", 8080), new Verifier(keys), handle);
    }

    /** Serves POST /webhooks/relay; hands each verified, new event's body to handle. */
    public static HttpServer start(InetSocketAddress address, Verifier verifier, Consumer<byte[]> handle)
            throws IOException {
        MemorySeenStore seen = new MemorySeenStore(); // one process; use a shared SeenStore with several
        HttpServer server = HttpServer.create(address, 0);
        server.createContext("/webhooks/relay", exchange -> {
            try (exchange) {
                if (!exchange.getRequestMethod().equals("POST")) {
                    exchange.sendResponseHeaders(405, -1);
                    return;
                }
                // The raw bytes, exactly as received: never re-serialized JSON.
                byte[] body = exchange.getRequestBody().readAllBytes();
                try {
                    verifier.verifyOnce(exchange.getRequestHeaders(), body, seen);
                } catch (DuplicateException e) {
                    exchange.sendResponseHeaders(200, -1); // already processed: a 2xx stops Relay's retries
                    return;
                } catch (VerifyException e) {
                    byte[] code = e.code().getBytes(StandardCharsets.UTF_8);
                    exchange.sendResponseHeaders(401, code.length); // Relay retries 401 (e.g. while a new key deploys)
                    exchange.getResponseBody().write(code);
                    return;
                }
                handle.accept(body); // authentic: now parse it with your JSON library
                exchange.sendResponseHeaders(204, -1);
            }
        });
        server.start();
        return server;
    }
}
