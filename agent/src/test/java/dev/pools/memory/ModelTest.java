package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The pools against a model of what the program holds: every layout kind, buffers let go by
 * dropping them (the collector releases) or mostly by releasing them explicitly (as a host's close
 * does), on 1 and on 4 threads. Sizes and lifetimes are random (seeded). Every buffer must come
 * zero-filled; each carries a pattern checked when it is let go, so an overlap or a reuse while live
 * shows. After every round the worker threads have ended (no stack holds a dropped buffer), the
 * test collects and waits for the releases, and then the pools' count and bytes in use must equal
 * the model exactly, and every pool's structure must hold. Nothing here depends on timing: the
 * collection is a full one, and the wait is the allocator's own handshake.
 */
@ExtendWith(DirtyFreshPages.class) // fresh pages hold a pattern: a fresh buffer that missed its zeroing shows
class ModelTest {

    private static final int ROUNDS = 3;
    private static final int OPS_PER_ROUND = 1500;

    enum Release {
        GC,
        CLOSE
    }

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (Object[] layout : StressTest.layouts()) {
            for (Release release : Release.values()) {
                for (int threads : new int[] {1, 4}) {
                    out.add(Arguments.of(layout[0], layout[1], release, threads));
                }
            }
        }
        return out.stream();
    }

    /** One buffer the model holds: the pattern it was filled with, and whether a pool served it. */
    record Held(ByteBuffer buffer, long pattern, boolean pooled) {}

    @ParameterizedTest(name = "{0}, release {2}, {3} threads")
    @MethodSource("cases")
    void pools_in_use_equal_the_model_after_every_collection(
            String name, List<PoolSpec> layout, Release release, int threads) throws Exception {
        PoolAllocator pools = new PoolAllocator(layout);
        List<List<Held>> held = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            held.add(new ArrayList<>());
        }
        for (int round = 0; round < ROUNDS; round++) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                // Each thread takes over another thread's buffers from the last round: releases cross threads.
                List<Held> mine = held.get((t + round) % threads);
                long seed = 31L * round + t + name.hashCode() * 7L + release.ordinal();
                Thread w = new Thread(() -> {
                    try {
                        work(pools, mine, new Random(seed), release);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
                workers.add(w);
                w.start();
            }
            for (Thread w : workers) {
                w.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("round " + round + ": " + failure.get(), failure.get());
            }
            assertMatchesModel(pools, held, "after round " + round);
        }
        for (List<Held> h : held) {
            for (Held b : h) {
                check(b);
            }
            h.clear();
        }
        assertMatchesModel(pools, held, "after everything was dropped");
        assertEquals(0, pools.doubleReleases());
    }

    private static void work(PoolAllocator pools, List<Held> mine, Random random, Release release) {
        for (int op = 0; op < OPS_PER_ROUND; op++) {
            if (mine.isEmpty() || random.nextInt(100) < 55) {
                int size = (int) StressTest.sizeFor(random);
                ByteBuffer b = pools.allocate(size, 0);
                if (b.capacity() != size || b.position() != 0 || b.limit() != size) {
                    fail("asked " + size + " B, got " + b);
                }
                for (int i = 0; i < size; i++) {
                    if (b.get(i) != 0) {
                        fail("a new buffer of " + size + " B is not zero at byte " + i);
                    }
                }
                long pattern = random.nextLong();
                StressTest.fill(b, pattern);
                mine.add(new Held(b, pattern, pools.locate(b) != null));
            } else {
                Held h = mine.remove(random.nextInt(mine.size()));
                check(h);
                if (release == Release.CLOSE && h.pooled && random.nextInt(10) < 8) {
                    if (!pools.release(h.buffer)) {
                        fail("an explicit release of a live pool buffer was refused");
                    }
                }
            }
        }
    }

    private static void check(Held h) {
        ByteBuffer b = h.buffer;
        int i = 0;
        for (; i + 8 <= b.capacity(); i += 8) {
            if (b.getLong(i) != (h.pattern ^ i)) {
                fail("buffer of " + b.capacity() + " B was overwritten at byte " + i + " while held");
            }
        }
        for (; i < b.capacity(); i++) {
            if (b.get(i) != (byte) (h.pattern ^ i)) {
                fail("buffer of " + b.capacity() + " B was overwritten at byte " + i + " while held");
            }
        }
    }

    private static void assertMatchesModel(PoolAllocator pools, List<List<Held>> held, String when) {
        long count = 0;
        long bytes = 0;
        for (List<Held> h : held) {
            for (Held b : h) {
                if (b.pooled) {
                    count++;
                    bytes += b.buffer.capacity();
                }
            }
        }
        // A full collection finds every buffer the model dropped; cleanup waits until the collector
        // has queued them and every one is back in its pool.
        System.gc();
        pools.cleanup();
        Usage usage = pools.usage();
        assertEquals(count, usage.numberAllocs(), when + ": live allocations");
        assertEquals(bytes, usage.bytesInUse(), when + ": bytes in use");
        pools.checkInvariants();
    }
}
