package dev.relay.verify;

/**
 * A request did not verify. {@link #code()} is stable across Relay's SDKs:
 * {@code missing_header}, {@code invalid_timestamp}, {@code timestamp_too_old},
 * {@code timestamp_too_new}, {@code no_matching_signature} or {@code duplicate};
 * each has its subclass.
 */
public class VerifyException extends Exception {
    private static final long serialVersionUID = 1L;

    /** The stable code. */
    private final String code;

    VerifyException(String code, String message) {
        super(message);
        this.code = code;
    }

    /**
     * The error's code, the same in Relay's Rust, Python, TypeScript, Go, Ruby
     * and PHP verifiers.
     *
     * @return the code, such as {@code "no_matching_signature"}
     */
    public String code() {
        return code;
    }
}
