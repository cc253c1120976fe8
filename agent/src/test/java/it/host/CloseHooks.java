package it.host;

import java.nio.Buffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The hooks {@code HostTransformerTest} adds to {@link Closable}: they record what they were given. */
public final class CloseHooks {

    public static final List<String> CALLS = new ArrayList<>();

    private CloseHooks() {}

    public static void closing(Buffer buffer, boolean closed) {
        CALLS.add("closing " + closed);
    }

    public static void closed(Buffer buffer, boolean closed) {
        CALLS.add("closed " + buffer.capacity() + " " + closed);
    }

    /** Passes the method's result through, and replaces it once the object is closed. */
    public static Optional<Buffer> bufferRef(Optional<Buffer> result, boolean closed) {
        CALLS.add("bufferRef " + result.isPresent() + " " + closed);
        return closed ? Optional.empty() : result;
    }
}
