package it.host;

import java.nio.ByteBuffer;
import java.util.function.IntFunction;

/** Stands in for a host class with a lambda: the lambda's class is a hidden class of package {@code it.host}. */
public final class Lambdas {

    private Lambdas() {}

    public static IntFunction<ByteBuffer> allocator() {
        return bytes -> ByteBuffer.allocateDirect(bytes);
    }
}
