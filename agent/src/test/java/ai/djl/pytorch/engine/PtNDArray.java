package ai.djl.pytorch.engine;

import java.nio.ByteBuffer;

/**
 * Not DJL's class: a stand-in with the same name and another shape (no {@code dataRef} field), as a
 * future DJL version might have, to prove that the close hooks skip a shape they do not know.
 */
public class PtNDArray implements AutoCloseable {

    private ByteBuffer data = ByteBuffer.allocateDirect(1024);
    private boolean closed;

    public float first() {
        return data.getFloat(0);
    }

    @Override
    public void close() {
        closed = true;
        data = null;
    }

    public boolean isClosed() {
        return closed;
    }
}
