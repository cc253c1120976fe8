package dev.pools.it.apps;

import dev.pools.api.MemoryPools;
import it.host.Unusual;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.function.IntFunction;

/**
 * The host's less usual calls of allocateDirect, each said with whether the pools served it and
 * whether the buffer keeps allocateDirect's contract: a method reference, the call named through
 * MappedByteBuffer, and a class its loader defined without giving its name.
 */
public final class UnusualCalls {

    public static void main(String[] args) throws Exception {
        check("method reference", Unusual::byReference, 24);
        check("through MappedByteBuffer", Unusual::throughMapped, 40);
        Class<?> unnamed = new Unnamed().define();
        Method allocate = unnamed.getMethod("allocate", int.class);
        check(
                "defined without a name",
                bytes -> {
                    try {
                        return (ByteBuffer) allocate.invoke(null, bytes);
                    } catch (ReflectiveOperationException e) {
                        throw new IllegalStateException(e);
                    }
                },
                56);
    }

    private static void check(String what, IntFunction<ByteBuffer> call, int bytes) {
        long before = MemoryPools.usage().numberAllocs();
        ByteBuffer b = call.apply(bytes);
        boolean zero = true;
        for (int i = 0; i < b.capacity(); i++) {
            zero &= b.get(i) == 0;
        }
        System.out.println(what + ": pooled " + (MemoryPools.usage().numberAllocs() - before) + ", capacity "
                + b.capacity() + ", position " + b.position() + ", zero " + zero + ", direct " + b.isDirect());
    }

    /** Defines its own copy of {@code it.host.Tensors} with {@code defineClass(null, ...)}, as some loaders do. */
    private static final class Unnamed extends ClassLoader {
        Unnamed() {
            super(UnusualCalls.class.getClassLoader());
        }

        Class<?> define() throws Exception {
            try (InputStream in = getParent().getResourceAsStream("it/host/Tensors.class")) {
                byte[] b = in.readAllBytes();
                return defineClass(null, b, 0, b.length);
            }
        }
    }
}
