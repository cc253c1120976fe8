package dev.pools.hosts.onnxruntime;

import dev.pools.log.Log;
import dev.pools.memory.PoolAllocator;
import java.nio.Buffer;
import java.util.Optional;

/**
 * The static methods that {@code OnnxTensor}'s hooks call (see {@link OnnxRuntime}). They never
 * throw into the host: a failure is said once and the buffer is left to the collector.
 */
public final class OnnxTensorHooks {

    private OnnxTensorHooks() {}

    /** End of {@code OnnxTensor.close()}: releases a buffer the tensor made itself, unless shared or released. */
    public static void closed(Buffer buffer, boolean ownsBuffer, boolean closed) {
        if (!ownsBuffer || !closed || buffer == null) {
            return;
        }
        try {
            PoolAllocator.releaseUnshared(buffer);
        } catch (Throwable t) {
            failedOnce(t);
        }
    }

    /**
     * End of {@code OnnxTensor.getBufferRef()}: the caller now holds a view, so the buffer is the
     * collector's to release; after a close that released it, no view at all.
     */
    public static Optional<Buffer> bufferRef(Optional<Buffer> result, Buffer buffer, boolean closed) {
        try {
            if (buffer == null || PoolAllocator.share(buffer)) {
                return result;
            }
            return closed && PoolAllocator.isReleased(buffer) ? Optional.empty() : result;
        } catch (Throwable t) {
            failedOnce(t);
            return result;
        }
    }

    private static void failedOnce(Throwable t) {
        Log.once(
                "onnxtensor-hooks",
                "release at close failed for an OnnxTensor; its buffers are left to the collector: " + t);
    }
}
