package it.host;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.Optional;

/** A host class with a buffer, a close and a getter, for the release hooks' tests ({@code HostTransformerTest}). */
public class Closable {

    private Buffer buffer = ByteBuffer.allocateDirect(64);
    private boolean closed;

    /** Two returns, so that a hook runs before each. */
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
    }

    public Optional<Buffer> bufferRef() {
        return Optional.ofNullable(buffer);
    }
}
