package dev.relay.verify;

import java.util.Collection;
import java.util.Map;

/**
 * Where a verifier reads the signature headers: a servlet's
 * {@code request::getHeader}, or {@link #of(Map)} for a map of headers.
 */
@FunctionalInterface
public interface HeaderLookup {
    /**
     * One header's value.
     *
     * @param name the header's name in lower case, such as {@code "webhook-id"}
     * @return its (first) value, or {@code null} when it is absent
     */
    String header(String name);

    /**
     * Headers held in a map: {@code com.sun.net.httpserver.Headers}, a
     * {@code Map<String, List<String>>} (the first value counts) or a
     * {@code Map<String, String>}. Names are matched case-insensitively.
     *
     * @param headers the map
     * @return a lookup into it
     */
    static HeaderLookup of(Map<String, ?> headers) {
        return name -> {
            Object value = headers.get(name);
            if (value == null) {
                for (Map.Entry<String, ?> entry : headers.entrySet()) {
                    if (entry.getKey() != null && entry.getKey().equalsIgnoreCase(name)) {
                        value = entry.getValue();
                        break;
                    }
                }
            }
            if (value instanceof Collection<?>) {
                Collection<?> values = (Collection<?>) value;
                value = values.isEmpty() ? null : values.iterator().next();
            } else if (value instanceof String[]) {
                String[] values = (String[]) value;
                value = values.length == 0 ? null : values[0];
            }
            return value instanceof String ? (String) value : null;
        };
    }
}
