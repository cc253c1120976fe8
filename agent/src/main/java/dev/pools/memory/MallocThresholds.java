package dev.pools.memory;

import java.util.function.Consumer;

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
 * <p>So when the pools serve a request larger than any hinted before, the allocator mallocs one
 * block of that size (at most {@link #LARGEST}) and frees it at once, untouched: the signal the
 * host's own buffer would have given when freed. Thresholds follow the workload's requests, not the
 * layout's largest slice: a workload of small buffers leaves glibc at its defaults, as it would
 * without the agent (raised to a slice size it never asked for, glibc kept more in its heaps and a
 * Spark job ran slower, BENCHMARKS.md, B8). Each hint is at least 1/8 above the one before, so a run
 * makes at most a few dozen. On other C libraries a hint is one {@code malloc} and one {@code free}.
 * Turned off with {@code -Dpools.mallocHint=false}.
 */
public final class MallocThresholds {

    /** glibc's {@code DEFAULT_MMAP_THRESHOLD_MAX} on 64-bit is 32 MiB, the block's header included. */
    static final long LARGEST = 31L << 20;
    /** glibc's default mmap threshold: a smaller block is not mapped, and its free says nothing. */
    static final long GLIBC_DEFAULT = 128L << 10;

    /** Requests up to this size need no hint; {@code Long.MAX_VALUE} while hints are off or after the largest. */
    private static volatile long hinted = Long.MAX_VALUE;

    private static Consumer<Throwable> onFailure;

    private MallocThresholds() {}

    /** Turns the hints on: from now on the pools' requests raise glibc's thresholds as the host's buffers would. */
    public static synchronized void follow(Consumer<Throwable> whenFailed) {
        onFailure = whenFailed;
        hinted = GLIBC_DEFAULT;
    }

    /** Turns the hints off (tests). */
    static synchronized void stop() {
        hinted = Long.MAX_VALUE;
    }

    /** Called for each request the pools served; one volatile read unless {@code size} is a new largest. */
    static void served(int size) {
        if (size > hinted) {
            hintFor(size);
        }
    }

    /** The block to free after serving {@code size} bytes when requests up to {@code hinted} were hinted. */
    static long blockFor(long size, long hinted) {
        return Math.min(LARGEST, Math.max(size, hinted + hinted / 8));
    }

    private static synchronized void hintFor(int size) {
        long before = hinted;
        if (size <= before) {
            return;
        }
        long block = blockFor(size, before);
        hinted = block >= LARGEST ? Long.MAX_VALUE : block;
        try {
            NativeAccess.mallocAndFree(block);
        } catch (Throwable t) {
            hinted = Long.MAX_VALUE;
            if (onFailure != null) {
                onFailure.accept(t);
            }
        }
    }

    /** Requests up to this size need no hint now (tests). */
    static long hinted() {
        return hinted;
    }
}
