package ai.onnxruntime;

import java.nio.ByteBuffer;

/**
 * Not ONNX Runtime's class: a stand-in with the same name and another shape (its buffer field has
 * another name), as a future version might have, to prove that the release hooks skip a shape they
 * do not know.
 */
public class OnnxTensor implements AutoCloseable {

    private ByteBuffer data = ByteBuffer.allocateDirect(1024);
    private final boolean ownsBuffer = true;
    private boolean closed;

    public float first() {
        return data.getFloat(0);
    }

    public boolean ownsBuffer() {
        return ownsBuffer;
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
