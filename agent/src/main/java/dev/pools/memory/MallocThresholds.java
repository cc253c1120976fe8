package dev.pools.memory;

/**
 * Gives glibc's {@code malloc} the signal that the host's own direct buffers used to give it.
 *
 * <p>glibc maps blocks of 128 KiB and more with {@code mmap} and unmaps them at {@code free}, until
 * it sees such a mapped block freed: then it raises its mmap threshold to that block's size (if at
 * most 32 MiB) and its trim threshold to twice that, and later blocks up to that size stay in its
 * heaps. Without the agent, the direct buffers of DJL and ONNX Runtime, malloc'd and freed by the
 * JDK at every step, make glibc raise both early in a run. With the agent those buffers are slices
 * of pool pages that are not freed, glibc keeps its defaults, and a native library's own
 * temporaries (libtorch's, for one) are mapped, faulted in page by page and unmapped at every step:
 * the sample app took twice as long (BENCHMARKS.md, B3).
 *
 * <p>So the agent mallocs one block the size of the layout's largest slice (at most
 * {@link #LARGEST}) and frees it at once, untouched: the signal the host's largest buffer would
 * have given. On other C libraries it is one {@code malloc} and one {@code free}. Turned off with
 * {@code -Dpools.mallocHint=false}.
 */
public final class MallocThresholds {

    /** glibc's {@code DEFAULT_MMAP_THRESHOLD_MAX} on 64-bit is 32 MiB, the block's header included. */
    static final long LARGEST = 31L << 20;
    /** glibc's default mmap threshold: a smaller block is not mapped, and its free says nothing. */
    static final long GLIBC_DEFAULT = 128L << 10;

    private MallocThresholds() {}

    /** The block to free for a layout whose largest slice is {@code largestSlice} bytes; 0 for none. */
    public static long hintSize(long largestSlice) {
        long size = Math.min(largestSlice, LARGEST);
        return size > GLIBC_DEFAULT ? size : 0;
    }

    /** Mallocs and frees the block for {@code largestSlice}; returns its size, 0 when none was needed. */
    public static long hint(long largestSlice) {
        long size = hintSize(largestSlice);
        if (size == 0) {
            return 0;
        }
        NativeAccess.requireAvailable();
        NativeAccess.mallocAndFree(size);
        return size;
    }
}
