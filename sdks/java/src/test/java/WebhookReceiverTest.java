import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.relay.verify.Fixtures;
import dev.relay.verify.Verifier;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;

/**
 * The README's example (examples/WebhookReceiver.java, shown verbatim in
 * README.md) verifies real signed requests over the raw body.
 */
class WebhookReceiverTest {
    private static final Fixtures.Signer SIGNER = new Fixtures.Signer();
    private static final byte[] BODY =
            "{\"specversion\":\"1.0\",\"id\":\"evt_1\",\"type\":\"order.paid\"}".getBytes(StandardCharsets.UTF_8);

    @Test
    void theExampleVerifiesRejectsAndDeduplicates() throws Exception {
        List<String> handled = Collections.synchronizedList(new ArrayList<>());
        Verifier verifier = new Verifier(List.of(SIGNER.publicKey, SIGNER.otherPublicKey));
        HttpServer server = WebhookReceiver.start(new InetSocketAddress("127.0.0.1", 0), verifier,
                body -> handled.add(new String(body, StandardCharsets.UTF_8)));
        try {
            URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/webhooks/relay");
            HttpClient client = HttpClient.newHttpClient();
            class Post {
                List<Object> send(byte[] body, Map<String, String> headers, String type) throws Exception {
                    HttpRequest.Builder request = HttpRequest.newBuilder(url)
                            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                            .header("content-type", type);
                    headers.forEach(request::header);
                    HttpResponse<String> r = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
                    return List.of(r.statusCode(), r.body());
                }
            }
            Post post = new Post();
            String ce = "application/cloudevents+json";
            long now = System.currentTimeMillis() / 1000;
            Map<String, String> good = SIGNER.headers("evt_1", BODY, now);
            byte[] other = new String(BODY, StandardCharsets.UTF_8).replace("evt_1", "evt_2").getBytes(StandardCharsets.UTF_8);
            assertEquals(List.of(401, "no_matching_signature"), post.send(other, good, ce));
            Map<String, String> unsigned = new java.util.HashMap<>(good);
            unsigned.remove("webhook-signature");
            assertEquals(List.of(401, "missing_header"), post.send(BODY, unsigned, ce));
            assertEquals(204, post.send(BODY, good, ce).get(0));
            assertEquals(List.of(new String(BODY, StandardCharsets.UTF_8)), handled);
            assertEquals(200, post.send(BODY, good, ce).get(0)); // a replay: acknowledged, not processed
            assertEquals(1, handled.size());
            Map<String, String> stale = SIGNER.headers("evt_3", BODY, 1_600_000_000L);
            assertEquals(List.of(401, "timestamp_too_old"), post.send(BODY, stale, ce));
            // Any content type reaches the verifier as raw bytes.
            assertEquals(204, post.send(BODY, SIGNER.headers("evt_4", BODY, now), "text/plain").get(0));
        } finally {
            server.stop(0);
        }
    }

    @Test
    void theReadmeShowsTheExampleVerbatim() throws Exception {
        String readme = Files.readString(Fixtures.ROOT.resolve("README.md"));
        String example = Files.readString(Fixtures.ROOT.resolve("examples/WebhookReceiver.java"));
        assertTrue(readme.contains("```java\n" + example + "```"), "README.md must show examples/WebhookReceiver.java verbatim");
    }
}
