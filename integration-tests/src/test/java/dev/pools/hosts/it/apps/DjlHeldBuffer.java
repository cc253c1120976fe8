package dev.pools.hosts.it.apps;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.pools.memory.PoolAllocator;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An application that keeps only the buffer {@code PtNDArray.toByteBuffer(true)} gave it (libtorch's
 * own buffer over the array's memory), closes the array and lets it be collected, then makes new
 * arrays of the same size. Prints whether the kept buffer still reads its values, how many new arrays
 * landed on its memory, and the usage once the kept buffer is dropped too.
 */
public final class DjlHeldBuffer {

    public static void main(String[] args) throws Exception {
        int n = 256;
        float[] values = new float[n];
        for (int i = 0; i < n; i++) {
            values[i] = i + 0.5f;
        }
        ByteBuffer kept;
        long keptAddress;
        try (NDManager manager = NDManager.newBaseManager("PyTorch")) {
            NDArray array = manager.create(values, new Shape(n));
            Probe.print("array-pooled", Probe.pooled((ByteBuffer) Probe.field(array, "dataRef")));
            kept = array.toByteBuffer(true);
            Probe.print("kept-direct", kept.isDirect());
            Probe.print("kept-order-native", kept.order() == ByteOrder.nativeOrder());
            Probe.print("kept-capacity", kept.capacity());
            keptAddress = PoolAllocator.addressOf(kept);
            Probe.print(
                    "kept-at-array",
                    keptAddress == PoolAllocator.addressOf((ByteBuffer) Probe.field(array, "dataRef")));
        }
        // The array is closed and unreachable: only the kept buffer points into its memory.
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(20);
        }
        float[] other = new float[n];
        Arrays.fill(other, 1234.5f);
        int landed = 0;
        List<NDArray> made = new ArrayList<>();
        try (NDManager manager = NDManager.newBaseManager("PyTorch")) {
            for (int i = 0; i < 64; i++) {
                NDArray a = manager.create(other, new Shape(n));
                made.add(a);
                long at = PoolAllocator.addressOf((ByteBuffer) Probe.field(a, "dataRef"));
                if (at < keptAddress + 4L * n && keptAddress < at + 4L * n) {
                    landed++;
                }
            }
            Probe.print("landed-on-kept", landed);
            boolean same = true;
            for (int i = 0; i < n; i++) {
                same &= kept.getFloat(4 * i) == values[i];
            }
            Probe.print("kept-reads-its-values", same);
            made.clear();
        }
        kept = null;
        Probe.print("drained-ms", Probe.drain());
        Probe.printUsage("usage-end");
    }
}
