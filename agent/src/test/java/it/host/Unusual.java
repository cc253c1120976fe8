package it.host;

import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.util.function.IntFunction;

/** Stands in for a host class that asks for direct memory in the less usual ways javac compiles. */
public final class Unusual {

    private Unusual() {}

    /** A method reference: an invokedynamic whose implementation is allocateDirect itself. */
    public static ByteBuffer byReference(int bytes) {
        IntFunction<ByteBuffer> allocate = ByteBuffer::allocateDirect;
        return allocate.apply(bytes);
    }

    /** The static method named through the subclass: compiled with MappedByteBuffer as its owner. */
    public static ByteBuffer throughMapped(int bytes) {
        return MappedByteBuffer.allocateDirect(bytes);
    }
}
