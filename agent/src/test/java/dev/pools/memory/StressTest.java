package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.layout.Layouts;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random allocations and releases on several threads at once, under every layout kind. Each live
 * buffer is filled with a pattern of its own and checked when it is released, so two live slices
 * that overlap, or a slice reused while live, show as a corrupted pattern. At quiet points the
 * test compares the pools' accounting with what it counted itself, checks that live buffers do not
 * overlap, and checks each pool's structure.
 */
@ExtendWith(DirtyFreshPages.class) // fresh pages hold a pattern: a fresh buffer that missed its zeroing shows
class StressTest {

    static final int KIB = 1024;
    static final int MIB = 1024 * KIB;

    static List<Object[]> layouts() {
        return List.of(
                new Object[] {
                    "sliced",
                    List.of(
                            new PoolSpec.Sliced(256 * KIB, 4 * KIB, 8),
                            new PoolSpec.Sliced(MIB, 64 * KIB, PoolSpec.UNCAPPED),
                            new PoolSpec.Sliced(4 * MIB, 4 * MIB, PoolSpec.UNCAPPED))
                },
                new Object[] {"direct", List.of(new PoolSpec.Direct())},
                new Object[] {"host", Layouts.host(64 * MIB)},
                new Object[] {"sub-slices", Layouts.subSlices(64 * MIB)},
                new Object[] {"exclusive-pages", Layouts.exclusivePages(4 * MIB)});
    }

    /** What the test itself knows about one live buffer. */
    record Live(ByteBuffer buffer, long pattern, boolean pooled) {}

    static long sizeFor(Random random) {
        // log-uniform from 1 B to 512 KiB, with some exact multiples of 64
        int bits = random.nextInt(20);
        long size = 1L + (random.nextLong() & ((1L << bits) - 1));
        return random.nextInt(8) == 0 ? Sizes.roundUp(size) : size;
    }

    static void fill(ByteBuffer b, long pattern) {
        int i = 0;
        for (; i + 8 <= b.capacity(); i += 8) {
            b.putLong(i, pattern ^ i);
        }
        for (; i < b.capacity(); i++) {
            b.put(i, (byte) (pattern ^ i));
        }
    }

    static void check(ByteBuffer b, long pattern) {
        int i = 0;
        for (; i + 8 <= b.capacity(); i += 8) {
            if (b.getLong(i) != (pattern ^ i)) {
                throw new AssertionError(
                        "pattern " + Long.toHexString(pattern) + " broken at byte " + i + " of " + b.capacity());
            }
        }
        for (; i < b.capacity(); i++) {
            if (b.get(i) != (byte) (pattern ^ i)) {
                throw new AssertionError("pattern broken at byte " + i);
            }
        }
    }

    static void checkZero(ByteBuffer b) {
        for (int i = 0; i < b.capacity(); i++) {
            if (b.get(i) != 0) {
                throw new AssertionError("fresh buffer of " + b.capacity() + " B is not zero at byte " + i);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("layouts")
    void concurrent_random_allocations_never_overlap_and_are_accounted_exactly(String name, List<PoolSpec> layout)
            throws Exception {
        run(name, layout, false);
    }

    /**
     * The same with a third of the releases left to the collector: the release thread gives the room
     * back (a sliced pool's longer slices unzeroed, for the allocation that takes them to zero), while
     * four threads allocate, fill and check.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("layouts")
    void with_releases_left_to_the_collector_too(String name, List<PoolSpec> layout) throws Exception {
        run(name, layout, true);
    }

    private static void run(String name, List<PoolSpec> layout, boolean dropSome) throws Exception {
        PoolAllocator pools = new PoolAllocator(layout);
        int threads = 4;
        int rounds = 3;
        int opsPerRound = 3000;
        Map<Long, Live> live = new ConcurrentHashMap<>();
        AtomicLong liveBytes = new AtomicLong();
        AtomicLong pooledCount = new AtomicLong();
        CyclicBarrier barrier = new CyclicBarrier(threads + 1);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        AtomicLong ids = new AtomicLong();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long seed = 1000 + t;
            Thread w = new Thread(
                    () -> {
                        Random random = new Random(seed);
                        List<Long> mine = new ArrayList<>();
                        try {
                            for (int round = 0; round < rounds; round++) {
                                for (int op = 0; op < opsPerRound; op++) {
                                    if (mine.isEmpty() || (mine.size() < 64 && random.nextInt(100) < 55)) {
                                        int size = (int) sizeFor(random);
                                        ByteBuffer b = pools.allocate(size, 0);
                                        assertEquals(size, b.capacity());
                                        assertEquals(0, PoolAllocator.addressOf(b) % 64);
                                        checkZero(b);
                                        long id = ids.incrementAndGet();
                                        long pattern = id * 0x9E3779B97F4A7C15L;
                                        fill(b, pattern);
                                        boolean pooled = pools.locate(b) != null;
                                        live.put(id, new Live(b, pattern, pooled));
                                        if (pooled) {
                                            liveBytes.addAndGet(size);
                                            pooledCount.incrementAndGet();
                                        }
                                        mine.add(id);
                                    } else {
                                        Long id = mine.remove(random.nextInt(mine.size()));
                                        Live l = live.remove(id);
                                        check(l.buffer, l.pattern);
                                        if (l.pooled) {
                                            liveBytes.addAndGet(-l.buffer.capacity());
                                            pooledCount.decrementAndGet();
                                            if (!dropSome || random.nextInt(3) != 0) {
                                                assertTrue(pools.release(l.buffer));
                                            } // else dropped: the collector releases it
                                        }
                                    }
                                }
                                barrier.await(); // quiet point: the main thread checks
                                barrier.await();
                            }
                            for (Long id : mine) {
                                Live l = live.remove(id);
                                check(l.buffer, l.pattern);
                                if (l.pooled) {
                                    liveBytes.addAndGet(-l.buffer.capacity());
                                    pooledCount.decrementAndGet();
                                    pools.release(l.buffer);
                                }
                            }
                        } catch (Throwable x) {
                            failures.add(x);
                            barrier.reset();
                        }
                    },
                    "stress-" + t);
            workers.add(w);
            w.start();
        }
        try {
            quietPoints(pools, rounds, barrier, dropSome, pooledCount, liveBytes, live);
        } catch (BrokenBarrierException e) {
            // A worker failed and broke the barrier: its failure, below, says what went wrong.
        }
        for (Thread w : workers) {
            w.join();
        }
        if (!failures.isEmpty()) {
            AssertionError e = new AssertionError("a worker failed under " + name, failures.get(0));
            failures.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }
        if (dropSome) {
            awaitCollected(pools, 0);
            assertTrue(pools.collectorReleases() > 0, "the collector released some");
        }
        assertEquals(0, pools.usage().numberAllocs());
        assertEquals(0, pools.usage().bytesInUse());
        assertEquals(0, pools.doubleReleases());
        pools.checkInvariants();
        pools.cleanup();
        assertEquals(0, pools.usage().bytesReserved(), "everything goes back after a cleanup");
    }

    /** At each round's quiet point (the workers wait): the accounting, no overlap, the pools' structure. */
    private static void quietPoints(
            PoolAllocator pools,
            int rounds,
            CyclicBarrier barrier,
            boolean dropSome,
            AtomicLong pooledCount,
            AtomicLong liveBytes,
            Map<Long, Live> live)
            throws Exception {
        for (int round = 0; round < rounds; round++) {
            barrier.await();
            if (dropSome) {
                awaitCollected(pools, pooledCount.get());
            }
            Usage usage = pools.usage();
            assertEquals(pooledCount.get(), usage.numberAllocs(), "live allocations");
            assertEquals(liveBytes.get(), usage.bytesInUse(), "bytes in use");
            assertTrue(usage.bytesReserved() >= usage.bytesInUse() + usage.bytesPadding());
            assertNoOverlap(live.values());
            pools.checkInvariants();
            pools.cleanup();
            pools.checkInvariants();
            barrier.await();
        }
    }

    /** Collects until the pools hold {@code live} allocations, the dropped ones released (at most 60 s). */
    private static void awaitCollected(PoolAllocator pools, long live) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (pools.usage().numberAllocs() > live && System.nanoTime() < deadline) {
            System.gc();
            Releaser.drainNow();
            Thread.sleep(10);
        }
    }

    static void assertNoOverlap(Iterable<Live> buffers) {
        TreeMap<Long, Integer> byAddress = new TreeMap<>();
        for (Live l : buffers) {
            if (l.buffer.capacity() > 0) {
                Integer clash = byAddress.put(PoolAllocator.addressOf(l.buffer), l.buffer.capacity());
                if (clash != null) {
                    throw new AssertionError("two live buffers start at the same address");
                }
            }
        }
        long end = Long.MIN_VALUE;
        for (Map.Entry<Long, Integer> e : byAddress.entrySet()) {
            if (e.getKey() < end) {
                throw new AssertionError("live buffers overlap at address " + e.getKey());
            }
            end = e.getKey() + e.getValue();
        }
    }
}
