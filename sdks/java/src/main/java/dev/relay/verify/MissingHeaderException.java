package dev.relay.verify;

/** A signature header is absent or empty ({@code missing_header}). */
public final class MissingHeaderException extends VerifyException {
    private static final long serialVersionUID = 1L;

    /** The header that is missing or empty. */
    private final String header;

    MissingHeaderException(String header) {
        super("missing_header", "the " + header + " header is missing or empty");
        this.header = header;
    }

    /**
     * The header that is missing or empty.
     *
     * @return its name, such as {@code "webhook-id"}
     */
    public String header() {
        return header;
    }
}
