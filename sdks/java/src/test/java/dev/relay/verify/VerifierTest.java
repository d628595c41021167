package dev.relay.verify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The API beyond the vectors: errors, tolerance, header shapes, dedup. */
class VerifierTest {
    private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    private static final Map<String, String> HEADERS = Map.of(
            "webhook-id", "msg_p5jXN8AQM9LWM0D4loKWxJek",
            "webhook-timestamp", "1614265330",
            "webhook-signature", "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    private static final byte[] BODY = "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8);
    private static final long NOW = 1614265330;

    private static Map<String, String> with(String name, String value) {
        Map<String, String> headers = new HashMap<>(HEADERS);
        if (value == null) {
            headers.remove(name);
        } else {
            headers.put(name, value);
        }
        return headers;
    }

    @Test
    void errorsAreTypedAndCarryCodes() throws VerifyException {
        Verifier v = new Verifier(List.of(SECRET));
        assertEquals(Duration.ofSeconds(300), v.tolerance());
        assertEquals(Verifier.DEFAULT_TOLERANCE, v.tolerance());
        v.verify(HEADERS, BODY, NOW);
        MissingHeaderException missing =
                assertThrows(MissingHeaderException.class, () -> v.verify(with("webhook-id", null), BODY, NOW));
        assertEquals("webhook-id", missing.header());
        assertEquals("missing_header", missing.code());
        assertEquals("the webhook-id header is missing or empty", missing.getMessage());
        TimestampTooOldException old =
                assertThrows(TimestampTooOldException.class, () -> v.verify(HEADERS, BODY, NOW + 301));
        assertEquals(NOW, old.timestamp());
        assertEquals(NOW + 301, old.now());
        assertEquals("timestamp_too_old", old.code());
        assertThrows(TimestampTooNewException.class, () -> v.verify(HEADERS, BODY, NOW - 301));
        for (String ts : new String[] {"0".repeat(5000) + "1x", "9".repeat(5000), "-1", "+1614265330", "1e9"}) {
            assertThrows(InvalidTimestampException.class, () -> v.verify(with("webhook-timestamp", ts), BODY, NOW), ts);
        }
        // Leading zeros are part of the signed string, not of the value.
        String padded = "0".repeat(5000) + "1614265330";
        assertThrows(NoMatchingSignatureException.class, () -> v.verify(with("webhook-timestamp", padded), BODY, NOW));
        VerifyException forged = assertThrows(VerifyException.class, () -> v.verify(HEADERS, "{}".getBytes(StandardCharsets.UTF_8), NOW));
        assertEquals("no_matching_signature", forged.code());
        // The system clock is long past 2021.
        assertThrows(TimestampTooOldException.class, () -> v.verify(HEADERS, BODY));
        assertThrows(NullPointerException.class, () -> v.verify(HEADERS, null, NOW));
    }

    @Test
    void toleranceIsConfigurable() throws VerifyException {
        Verifier v = new Verifier(List.of(SECRET), Duration.ofHours(1));
        v.verify(HEADERS, BODY, NOW + 3600);
        assertThrows(TimestampTooOldException.class, () -> v.verify(HEADERS, BODY, NOW + 3601));
        Verifier strict = new Verifier(List.of(SECRET), Duration.ZERO);
        strict.verify(HEADERS, BODY, NOW);
        assertThrows(TimestampTooNewException.class, () -> strict.verify(HEADERS, BODY, NOW - 1));
        assertThrows(IllegalArgumentException.class, () -> new Verifier(List.of(SECRET), Duration.ofSeconds(-1)));
        // The largest tolerance and the largest timestamp do not overflow.
        Verifier huge = new Verifier(List.of(SECRET), Duration.ofSeconds(Long.MAX_VALUE));
        assertThrows(NoMatchingSignatureException.class,
                () -> huge.verify(with("webhook-timestamp", "9223372036854775807"), BODY, NOW));
        assertThrows(NoMatchingSignatureException.class, () -> huge.verify(with("webhook-timestamp", "0"), BODY, NOW));
        assertThrows(TimestampTooNewException.class,
                () -> v.verify(with("webhook-timestamp", "9223372036854775807"), BODY, Long.MAX_VALUE - 3601));
    }

    @Test
    void headerShapes() throws VerifyException {
        Verifier v = new Verifier(List.of(SECRET));
        Map<String, List<String>> upper = new HashMap<>();
        HEADERS.forEach((k, x) -> upper.put(k.toUpperCase(java.util.Locale.ROOT), List.of(x)));
        v.verify(upper, BODY, NOW);
        Map<String, String[]> arrays = new HashMap<>();
        HEADERS.forEach((k, x) -> arrays.put(k, new String[] {x}));
        v.verify(arrays, BODY, NOW);
        v.verify(HEADERS::get, BODY, NOW); // a servlet's request::getHeader
        assertThrows(MissingHeaderException.class, () -> v.verify(with("webhook-signature", ""), BODY, NOW));
        assertThrows(MissingHeaderException.class, () -> v.verify(name -> null, BODY, NOW));
        Map<String, List<String>> empty = new HashMap<>(upper);
        empty.put("WEBHOOK-ID", List.of());
        assertThrows(MissingHeaderException.class, () -> v.verify(empty, BODY, NOW));
    }

    @Test
    void keyErrors() {
        assertThrows(InvalidKeyException.class, () -> new Verifier(List.of()));
        InvalidKeyException e = assertThrows(InvalidKeyException.class,
                () -> new Verifier(List.of("whsk_VEVTVFNJR05JTkdLRVlET05PVFVTRVRISVNGT1JBTlk=")));
        assertTrue(e.getMessage().contains("public key"), e.getMessage());
        assertEquals("invalid_key", e.code());
        assertThrows(InvalidKeyException.class, () -> new Verifier(java.util.Arrays.asList(SECRET, null)));
        String shown = new Verifier(List.of(SECRET, "whpk_1SiA4o9hyqTCpIqC5V9HUakiiaeACeqfZTInDBbOir4=")).toString();
        assertFalse(shown.contains("MfKQ9r8G"), shown);
        assertTrue(shown.contains("whpk_1SiA4o9"), shown);
    }

    @Test
    void verifyOnceAndMemoryStore() throws VerifyException {
        Verifier v = new Verifier(List.of(SECRET));
        MemorySeenStore store = new MemorySeenStore();
        assertThrows(NoMatchingSignatureException.class,
                () -> v.verifyOnce(HeaderLookup.of(HEADERS), "forged".getBytes(StandardCharsets.UTF_8), store, NOW));
        assertEquals(0, store.size());
        v.verifyOnce(HeaderLookup.of(HEADERS), BODY, store, NOW);
        DuplicateException dup =
                assertThrows(DuplicateException.class, () -> v.verifyOnce(HeaderLookup.of(HEADERS), BODY, store, NOW + 1));
        assertEquals("duplicate", dup.code());
        assertEquals(HEADERS.get("webhook-id"), dup.webhookId());
    }

    @Test
    void memoryStoreKeeps96HoursThenForgets() {
        MemorySeenStore store = new MemorySeenStore(60);
        assertEquals(96 * 3600, store.retentionSeconds());
        assertEquals(96 * 3600, MemorySeenStore.MIN_RETENTION_SECONDS);
        long t0 = 1_700_000_000L;
        long r = MemorySeenStore.MIN_RETENTION_SECONDS;
        assertTrue(store.checkAndInsert("a", t0));
        assertFalse(store.checkAndInsert("a", t0));
        assertTrue(store.checkAndInsert("b", t0 + 10));
        assertFalse(store.checkAndInsert("a", t0 + r));
        assertTrue(store.checkAndInsert("a", t0 + r + 1));
        assertFalse(store.checkAndInsert("b", t0 + r + 1));
        assertTrue(store.checkAndInsert("c", t0 + 10 * r));
        assertEquals(1, store.size());
        MemorySeenStore week = new MemorySeenStore(7 * 86400);
        assertTrue(week.checkAndInsert("x", 0));
        assertFalse(week.checkAndInsert("x", 7 * 86400));
    }

    @Test
    void memoryStoreOneWinnerAcrossThreads() throws InterruptedException {
        MemorySeenStore store = new MemorySeenStore();
        AtomicInteger wins = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        long now = System.currentTimeMillis() / 1000;
        Thread[] threads = new Thread[16];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                if (store.checkAndInsert("m", now)) {
                    wins.incrementAndGet();
                }
            });
            threads[i].start();
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(1, wins.get());
    }

    @Test
    void customStore() throws VerifyException {
        Set<String> rows = new HashSet<>();
        SeenStore table = (id, now) -> rows.add(id);
        Verifier v = new Verifier(List.of(SECRET));
        v.verifyOnce(HeaderLookup.of(HEADERS), BODY, table, NOW);
        assertThrows(DuplicateException.class, () -> v.verifyOnce(HeaderLookup.of(HEADERS), BODY, table, NOW));
    }
}
