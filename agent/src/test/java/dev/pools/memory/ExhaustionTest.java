package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A capped pool that is full only of unreachable buffers must serve, never refuse or fall back:
 * the exhausted path collects and waits until every buffer the collection found is back in its
 * pool (the release thread's batch included). One page that holds one buffer; each buffer is
 * dropped before the next is asked for, so every request after the first needs the collector.
 */
class ExhaustionTest {

    private static final int MIB = 1 << 20;
    private static final int RUNS = 10;
    private static final int BUFFERS = 20;

    @ParameterizedTest(name = "on_exhausted fail = {0}")
    @ValueSource(booleans = {true, false})
    void a_full_pool_of_unreachable_buffers_serves_every_request(boolean fail) {
        for (int run = 0; run < RUNS; run++) {
            PoolAllocator pools = new PoolAllocator(
                    List.of(new PoolSpec.Sliced(32 * MIB, 32 * MIB, 1)),
                    new PoolAllocator.Options(false, fail),
                    AllocationListener.NONE,
                    new CallSites());
            for (int i = 0; i < BUFFERS; i++) {
                ByteBuffer b = pools.allocate(30 * MIB, 0);
                b.put(0, (byte) 1); // used, then dropped
            }
            Usage usage = pools.usage();
            assertEquals(0, usage.fallbackAllocs(), "run " + run + ": fallbacks");
            // Every request after the first found the page full of the buffer just dropped and had the
            // pools collect, unless the collector happened to run in between.
            assertTrue(pools.collections() >= 1 && pools.collections() <= BUFFERS - 1, "run " + run + ": collections");
            assertTrue(pools.collectionNanos() > 0, "run " + run + ": time in collections");
            pools.cleanup();
        }
    }

    /**
     * Two requests that find the same capped pool full of live buffers wait for one collection, not
     * one each: the second to take the collection's lock finds that a collection began after its
     * request ran out, and is over, and refuses after it. Both reach the point of collecting before
     * either begins (a barrier in the test hook), so the order cannot hide a second collection.
     */
    @Test
    void requests_that_run_out_together_share_one_collection() throws Exception {
        PoolAllocator pools = new PoolAllocator(
                List.of(new PoolSpec.Sliced(32 * MIB, 32 * MIB, 1)),
                new PoolAllocator.Options(false, true),
                AllocationListener.NONE,
                new CallSites());
        ByteBuffer held = pools.allocate(30 * MIB, 0);
        CyclicBarrier bothRanOut = new CyclicBarrier(2);
        pools.beforeCollecting = () -> {
            try {
                bothRanOut.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                throw new IllegalStateException(e);
            }
        };
        List<Throwable> outcomes = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            Thread thread = new Thread(() -> {
                try {
                    pools.allocate(30 * MIB, 0);
                    outcomes.add(new AssertionError("served from a full pool"));
                } catch (Throwable e) {
                    outcomes.add(e);
                }
            });
            threads.add(thread);
            thread.start();
        }
        for (Thread thread : threads) {
            thread.join(60_000);
        }
        assertEquals(2, outcomes.size(), "both requests came back");
        for (Throwable outcome : outcomes) {
            assertInstanceOf(OutOfMemoryError.class, outcome, "a refusal under fail");
        }
        assertEquals(1, pools.collections(), "collections for two requests that ran out together");
        assertEquals(30 * MIB, pools.usage().bytesInUse(), "the live buffer is still held");
        pools.release(held);
        pools.cleanup();
    }

    /**
     * A request that finds its pool full of buffers the collector has queued is served after the
     * first batch it releases, not after all of them: one collection can queue millions, and the
     * release thread takes the rest. The test holds the queue, so that the release thread cannot
     * take any first, and counts what the request released itself.
     */
    @Test
    void a_request_is_served_after_the_first_batch_of_queued_releases() throws Exception {
        PoolAllocator pools = onePageOfOneMib();
        int slices = MIB / 64;
        Releaser.holdQueue();
        ByteBuffer served;
        long queued;
        long after;
        try {
            fillAndDrop(pools, slices);
            System.gc();
            NativeAccess.awaitReferenceProcessing();
            queued = pools.usage().numberAllocs();
            assertEquals(slices, queued, "dropped buffers still held while the queue is held");
            served = pools.allocate(64, 0);
            after = pools.usage().numberAllocs();
        } finally {
            Releaser.letGoOfQueue();
        }
        assertEquals(0, pools.usage().fallbackAllocs(), "fallbacks");
        assertTrue(after >= queued - 256 + 1 && after < queued, "held after one request: " + after + " of " + queued);
        pools.release(served);
        awaitAllBack(pools);
        assertEquals(0, pools.usage().numberAllocs(), "the release thread took the rest");
        pools.cleanup();
    }

    /**
     * A request that finds its pool full of queued leases releases them itself, beside the release
     * thread: it does not wait for the batch the release thread is working on. The test stops the
     * release thread inside a batch (uninterruptibly) until the request is served.
     */
    @Test
    void a_request_does_not_wait_for_the_release_threads_batch() throws Exception {
        PoolAllocator pools = onePageOfOneMib();
        int slices = MIB / 64;
        CountDownLatch inBatch = new CountDownLatch(1);
        CountDownLatch served = new CountDownLatch(1);
        Releaser.beforeReleasingBatch = () -> {
            inBatch.countDown();
            boolean interrupted = false;
            while (served.getCount() > 0) {
                try {
                    served.await();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        };
        ByteBuffer buffer;
        try {
            fillAndDrop(pools, slices);
            System.gc();
            NativeAccess.awaitReferenceProcessing();
            assertTrue(inBatch.await(60, TimeUnit.SECONDS), "the release thread took a batch");
            long held = pools.usage().numberAllocs();
            assertTrue(held > slices - 256, "still held while the release thread is stopped: " + held);
            buffer = pools.allocate(64, 0);
            assertEquals(1, served.getCount(), "served while the release thread is stopped in its batch");
        } finally {
            served.countDown();
            Releaser.beforeReleasingBatch = null;
        }
        assertEquals(0, pools.usage().fallbackAllocs(), "fallbacks");
        assertEquals(0, pools.collections(), "collections: the queued leases served the request");
        pools.release(buffer);
        awaitAllBack(pools);
        assertEquals(0, pools.usage().numberAllocs(), "every lease is back");
        pools.cleanup();
    }

    /** Sixteen slices of 64 KiB: one page of 1 MiB, capped, {@code on_exhausted: fail}. */
    private static final int SLICE = 64 * 1024;

    /**
     * What another thread does between a request's collections, played by the collection hook on
     * the request's own thread, so that the order is fixed: it drops what it held, has the collector
     * bring all of it back, then takes the whole pool again ({@code takeAgain}), and drops that too
     * unless {@code keepLast} (after which it only holds).
     */
    private static final class Competitor implements Runnable {
        final PoolAllocator pools;
        final int takeAgain;
        final boolean keepLast;
        List<ByteBuffer> held = new ArrayList<>();
        int calls;

        Competitor(PoolAllocator pools, int takeAgain, boolean keepLast) {
            this.pools = pools;
            this.takeAgain = takeAgain;
            this.keepLast = keepLast;
        }

        void fill() {
            for (int i = 0; i < MIB / SLICE; i++) {
                held.add(pools.allocate(SLICE, 0));
            }
        }

        @Override
        public void run() {
            calls++;
            if (calls > takeAgain && keepLast) {
                return;
            }
            held = new ArrayList<>();
            if (calls > takeAgain) {
                return; // dropped: the request's own collection finds it
            }
            System.gc();
            NativeAccess.awaitReferenceProcessing();
            Releaser.drainNow();
            fill();
        }
    }

    /**
     * A request under {@code fail} that finds its pool full of buffers other threads keep dropping
     * and taking again: each collection gives back room that another thread takes before the request
     * can. It is not refused while its collections give something back (up to 8): here the other
     * thread takes the room after the first and drops it, and the second collection serves the
     * request. Refused after one collection before: 16 slices, 4 threads holding at most 12 and
     * dropping the rest, refused hundreds of times in 5 s, where the JDK alone never refused.
     */
    @Test
    void a_request_whose_room_other_threads_took_first_goes_through_another_collection() {
        PoolAllocator pools = onePageOfOneMib();
        Competitor other = new Competitor(pools, 1, false);
        other.fill();
        pools.beforeCollecting = other;
        ByteBuffer served = pools.allocate(SLICE, 0);
        assertEquals(SLICE, served.capacity());
        assertEquals(2, pools.collections(), "collections of the request");
        pools.beforeCollecting = null;
        pools.cleanup();
    }

    /**
     * The same, when the other thread keeps what it took the second time: the second collection
     * gives nothing back, the room is held, and the refusal says only that the pool is full.
     */
    @Test
    void a_request_is_refused_once_a_collection_gives_nothing_back() {
        PoolAllocator pools = onePageOfOneMib();
        Competitor other = new Competitor(pools, 1, true);
        other.fill();
        pools.beforeCollecting = other;
        OutOfMemoryError refused = assertThrows(OutOfMemoryError.class, () -> pools.allocate(SLICE, 0));
        assertEquals(2, pools.collections(), "collections of the request");
        assertTrue(refused.getMessage().endsWith("1 MiB in use of 1 MiB reserved"), refused.getMessage());
        pools.beforeCollecting = null;
        pools.cleanup();
    }

    /**
     * And when the other thread takes the room again after every collection, the request is refused
     * after 8, and the refusal says why: the room was there, and was taken first.
     */
    @Test
    void a_request_outrun_at_every_collection_is_refused_after_eight_and_says_why() {
        PoolAllocator pools = onePageOfOneMib();
        Competitor other = new Competitor(pools, Integer.MAX_VALUE, true);
        other.fill();
        pools.beforeCollecting = other;
        OutOfMemoryError refused = assertThrows(OutOfMemoryError.class, () -> pools.allocate(SLICE, 0));
        assertEquals(8, pools.collections(), "collections of the request");
        assertTrue(
                refused.getMessage()
                        .endsWith("; 8 collections each gave these pools back at least the bytes asked for, and"
                                + " the request still found no room (other threads may have taken it first: buffers"
                                + " dropped, not released, faster than collections find them)"),
                refused.getMessage());
        pools.beforeCollecting = null;
        pools.cleanup();
    }

    /**
     * Small buffers dropped beside live ones are no room for the request: a pool full of live 64 KiB
     * buffers but for a 24 KiB gap, where another thread drops buffers of 100 B at every collection,
     * refuses a 64 KiB request after one collection, and says only that it is full. Before, each
     * of those small releases sent the request through another collection, 8 in all, and the
     * refusal said that other threads had taken its room (a review; 1 GB of live heap made it 2 s).
     */
    @Test
    void small_buffers_freed_beside_live_ones_send_no_request_through_another_collection() {
        PoolAllocator pools = onePageOfOneMib();
        List<ByteBuffer> live = new ArrayList<>();
        for (int i = 0; i < MIB / SLICE - 1; i++) {
            live.add(pools.allocate(SLICE, 0));
        }
        live.add(pools.allocate(40 << 10, 0));
        pools.beforeCollecting = () -> {
            for (int i = 0; i < 10; i++) {
                pools.allocate(100, 0).put(0, (byte) 1); // dropped
            }
            System.gc();
            NativeAccess.awaitReferenceProcessing();
            Releaser.drainNow();
        };
        OutOfMemoryError refused = assertThrows(OutOfMemoryError.class, () -> pools.allocate(SLICE, 0));
        assertEquals(1, pools.collections(), "collections of the request");
        assertFalse(refused.getMessage().contains("collection"), refused.getMessage());
        pools.beforeCollecting = null;
        live.forEach(pools::release);
        pools.cleanup();
    }

    /**
     * A capped page with room enough for the request, in holes between live slices too small for it:
     * the refusal says so. Before, it read as a pool without room ("55.6 KiB in use of 64 KiB
     * reserved", a review), and nothing said why.
     */
    @Test
    void a_refusal_at_a_cap_with_the_room_in_small_holes_says_so() {
        PoolAllocator pools = onePageOfOneMib();
        List<ByteBuffer> live = new ArrayList<>();
        for (int i = 0; i < MIB / SLICE; i++) {
            live.add(pools.allocate(SLICE, 0));
        }
        for (int i = 0; i < live.size(); i += 2) {
            pools.release(live.set(i, null));
        }
        OutOfMemoryError refused = assertThrows(OutOfMemoryError.class, () -> pools.allocate(2 * SLICE, 0));
        assertTrue(
                refused.getMessage()
                        .endsWith("512 KiB in use of 1 MiB reserved; its 512 KiB free are in pieces smaller than the"
                                + " request (first fit leaves holes between live slices)"),
                refused.getMessage());
        // A request no larger than a hole is served; one larger than all the free room is said as before.
        live.set(0, pools.allocate(SLICE, 0));
        for (int i = 2; i < live.size(); i += 2) {
            live.set(i, pools.allocate(SLICE, 0));
        }
        refused = assertThrows(OutOfMemoryError.class, () -> pools.allocate(SLICE, 0));
        assertTrue(refused.getMessage().endsWith("1 MiB in use of 1 MiB reserved"), refused.getMessage());
        live.forEach(pools::release);
        pools.cleanup();
    }

    /** A capped pool of one 1 MiB page that refuses when full. */
    private static PoolAllocator onePageOfOneMib() {
        return new PoolAllocator(
                List.of(new PoolSpec.Sliced(MIB, MIB, 1)),
                new PoolAllocator.Options(false, true),
                AllocationListener.NONE,
                new CallSites());
    }

    /** Waits (at most a minute) until the release thread has brought every dropped buffer back. */
    private static void awaitAllBack(PoolAllocator pools) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (pools.usage().numberAllocs() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    private static void fillAndDrop(PoolAllocator pools, int buffers) {
        for (int i = 0; i < buffers; i++) {
            pools.allocate(64, 0).put(0, (byte) 1);
        }
    }
}
