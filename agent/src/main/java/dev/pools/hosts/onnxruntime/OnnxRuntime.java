package dev.pools.hosts.onnxruntime;

import dev.pools.hosts.HostClass;
import dev.pools.hosts.HostClass.Field;
import dev.pools.hosts.HostClass.ReturnHook;
import java.util.List;

/**
 * ONNX Runtime's Java API. {@code OrtUtil} copies Java arrays and heap buffers into direct buffers
 * it asks {@code ByteBuffer.allocateDirect} for; the call-site rewriting routes those to the pools.
 *
 * <p><b>Release at close.</b> {@code OnnxTensor} says whether it made its buffer itself:
 * {@code ownsBuffer} is true exactly for such a copy, and false for a direct buffer the caller
 * passed in (the caller may make several tensors over it, or keep using it). An owned buffer is
 * read by the native value that {@code close()} releases, and by Java code only through
 * {@code getBufferRef()}. So, under {@code release: close}:
 * <ul>
 *   <li>{@code close()}, when it returns normally with {@code closed} set and {@code ownsBuffer}
 *       true, releases the buffer ({@link OnnxTensorHooks#closed}); a second close finds it
 *       released and does nothing;</li>
 *   <li>{@code getBufferRef()} hands a view to the caller: the buffer is marked shared first, and
 *       from then on only the collector releases it ({@link OnnxTensorHooks#bufferRef}); asked after
 *       a close that released the buffer, it returns an empty {@code Optional}, as for a tensor that
 *       has no buffer, instead of a view of memory that is no longer the tensor's.</li>
 * </ul>
 * A close that throws releases nothing; the collector does, as for every buffer.
 */
public final class OnnxRuntime {

    /** The framework's root package. */
    public static final String PACKAGE = "ai.onnxruntime";

    private static final String HOOKS = "dev/pools/hosts/onnxruntime/OnnxTensorHooks";
    private static final Field BUFFER = new Field("buffer", "Ljava/nio/Buffer;");
    private static final Field OWNS_BUFFER = new Field("ownsBuffer", "Z");
    private static final Field CLOSED = new Field("closed", "Z");

    public static final List<HostClass> CLASSES = List.of(new HostClass(
            "ai/onnxruntime/OnnxTensor",
            List.of(BUFFER, OWNS_BUFFER, CLOSED),
            List.of(
                    new ReturnHook(
                            "close()V",
                            List.of(BUFFER, OWNS_BUFFER, CLOSED),
                            false,
                            HOOKS,
                            "closed",
                            "(Ljava/nio/Buffer;ZZ)V"),
                    new ReturnHook(
                            "getBufferRef()Ljava/util/Optional;",
                            List.of(BUFFER, CLOSED),
                            true,
                            HOOKS,
                            "bufferRef",
                            "(Ljava/util/Optional;Ljava/nio/Buffer;Z)Ljava/util/Optional;")),
            null));

    private OnnxRuntime() {}
}
