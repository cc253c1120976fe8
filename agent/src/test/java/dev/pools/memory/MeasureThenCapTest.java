package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The loop the product exists for: run a workload on growable pools, cap each pool at the
 * {@code pagesPeak} it reached, and run the same workload again: it fits, with no spill and no
 * refusal, because placement is deterministic. One page less on a used pool, and it does not.
 */
class MeasureThenCapTest {

    static final int KIB = 1024;
    static final int MIB = 1024 * KIB;

    /** A script of operations: a positive size allocates, a negative number releases that earlier allocation. */
    static int[] script(long seed, int length) {
        Random random = new Random(seed);
        int[] ops = new int[length];
        List<Integer> live = new ArrayList<>();
        int allocations = 0;
        for (int i = 0; i < length; i++) {
            if (live.isEmpty() || random.nextInt(100) < 52) {
                ops[i] = size(random);
                live.add(allocations++);
            } else {
                ops[i] = -1 - live.remove(random.nextInt(live.size()));
            }
        }
        return ops;
    }

    /**
     * Sizes for three pools, including those in the near-page band of the earlier pools (above 51.2
     * KiB for pool 0, above 409.6 KiB for pool 1): the later pools take them by size class, whether
     * the layout is capped or not.
     */
    static int size(Random random) {
        switch (random.nextInt(3)) {
            case 0:
                return 1 + random.nextInt(4 * KIB);
            case 1:
                return 4 * KIB + 1 + random.nextInt(60 * KIB);
            default:
                return 64 * KIB + 1 + random.nextInt(192 * KIB);
        }
    }

    static List<PoolSpec> layout(long cap0, long cap1, long cap2) {
        return List.of(
                new PoolSpec.Sliced(64 * KIB, 4 * KIB, cap0),
                new PoolSpec.Sliced(512 * KIB, 64 * KIB, cap1),
                new PoolSpec.Sliced(2 * MIB, 512 * KIB, cap2));
    }

    /** Runs the script; returns the pool each allocation landed in (-1: refused). */
    static int[] run(PoolAllocator pools, int[] script, int[] refusals) {
        List<ByteBuffer> buffers = new ArrayList<>();
        List<Integer> where = new ArrayList<>();
        for (int op : script) {
            if (op > 0) {
                ByteBuffer b;
                try {
                    b = pools.allocate(op, 0);
                } catch (OutOfMemoryError e) {
                    refusals[0]++;
                    b = null;
                }
                buffers.add(b);
                where.add(b == null ? -1 : pools.locate(b).pool());
            } else {
                ByteBuffer b = buffers.get(-1 - op);
                if (b != null) {
                    pools.release(b);
                }
            }
        }
        return where.stream().mapToInt(Integer::intValue).toArray();
    }

    static PoolAllocator failing(List<PoolSpec> layout) {
        return new PoolAllocator(
                layout, new PoolAllocator.Options(false, true), AllocationListener.NONE, new CallSites());
    }

    @Test
    void a_layout_capped_at_the_measured_peaks_serves_the_same_workload_with_no_spill_and_no_refusal() {
        for (long seed = 1; seed <= 5; seed++) {
            int[] script = script(seed, 4000);
            PoolAllocator growable = failing(layout(PoolSpec.UNCAPPED, PoolSpec.UNCAPPED, PoolSpec.UNCAPPED));
            int[] refused = new int[1];
            int[] measured = run(growable, script, refused);
            assertEquals(0, refused[0]);
            List<PoolReport> reports = growable.reports();
            long[] peaks = reports.stream().mapToLong(PoolReport::pagesPeak).toArray();
            for (long peak : peaks) {
                assertTrue(peak >= 1, "every pool was used (seed " + seed + ")");
            }

            PoolAllocator capped = failing(layout(peaks[0], peaks[1], peaks[2]));
            int[] replayed = run(capped, script, refused);
            assertEquals(0, refused[0], "no refusal under the measured caps (seed " + seed + ")");
            org.junit.jupiter.api.Assertions.assertArrayEquals(
                    measured, replayed, "no spill: every allocation lands where it did");
            List<PoolReport> after = capped.reports();
            for (int p = 0; p < 3; p++) {
                assertEquals(peaks[p], after.get(p).pagesPeak(), "pool " + p + " reaches its cap exactly");
            }

            for (int tight = 0; tight < 3; tight++) {
                if (peaks[tight] < 2) {
                    continue;
                }
                long[] caps = peaks.clone();
                caps[tight]--;
                PoolAllocator tooTight = failing(layout(caps[0], caps[1], caps[2]));
                int[] tightRefused = new int[1];
                int[] placed = run(tooTight, script, tightRefused);
                boolean moved = !Arrays.equals(measured, placed);
                assertTrue(
                        moved || tightRefused[0] > 0,
                        "one page less on pool " + tight + " must spill or refuse (seed " + seed + ")");
            }
        }
    }
}
