package dev.pools.hosts.djl;

import dev.pools.memory.PoolAllocator;
import java.nio.ByteBuffer;

/**
 * Called by {@code PtNDArray.toByteBuffer(boolean)} before it returns (see {@link Djl}). With
 * {@code tryDirect}, DJL returns a buffer that libtorch's native code makes over the tensor's memory:
 * a buffer of its own, which holds nothing of the pool buffer the tensor was made from. An
 * application that kept only that buffer, once the array was closed and collected, would read and
 * write a slice the pools had handed to the next tensor. This returns instead the same bytes as a view
 * of the pool buffer, which keeps the slice.
 */
public final class PtBuffers {

    private PtBuffers() {}

    /**
     * {@code result} as a view of {@code dataRef} when it lies in {@code dataRef}'s pool memory; else
     * {@code result} itself. Same address, capacity, position, limit and byte order.
     */
    public static ByteBuffer toByteBuffer(ByteBuffer result, ByteBuffer dataRef) {
        try {
            if (result == null
                    || dataRef == null
                    || !result.isDirect()
                    || result.isReadOnly() != dataRef.isReadOnly()
                    || !PoolAllocator.isPoolMemory(dataRef)) {
                return result;
            }
            long offset = PoolAllocator.addressOf(result) - PoolAllocator.addressOf(dataRef);
            int capacity = result.capacity();
            if (offset < 0 || offset + capacity > dataRef.capacity()) {
                return result;
            }
            ByteBuffer view = dataRef.duplicate();
            view.limit((int) offset + capacity).position((int) offset);
            view = view.slice().order(result.order());
            view.limit(result.limit()).position(result.position());
            return view;
        } catch (RuntimeException e) {
            return result;
        }
    }
}
