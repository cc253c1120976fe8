package it.host;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Stands in for a host framework in tests: a class of an intercepted package ({@code it.host})
 * that asks for direct memory the way DJL's managers do.
 */
public final class Tensors {

    private Tensors() {}

    public static ByteBuffer allocate(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
    }
}
