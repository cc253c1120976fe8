package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/**
 * Releases claimed while the Java heap is full for a moment (a host that catches its {@code
 * OutOfMemoryError} goes on) reach their pools. A review lost 2 to 4 MiB of a pool for good: the
 * release thread claimed a batch, then the wait for the pool's lock threw (its place in the lock's
 * queue is an object), or a trace's line did, and the rest of the batch was never given back.
 */
class FullHeapReleaseTest {

    /** A lock whose queue refuses a waiter, as a full heap does: its timed try throws. */
    private static final class QueueRefused extends ReentrantLock {
        private static final long serialVersionUID = 1L;
        final transient CountDownLatch refused = new CountDownLatch(1);

        @Override
        public boolean tryLock(long timeout, TimeUnit unit) {
            if (tryLock()) {
                return true;
            }
            refused.countDown();
            throw new OutOfMemoryError("test: no room for a place in the queue");
        }
    }

    @Test
    void a_wait_whose_place_in_the_queue_the_heap_refuses_still_takes_the_lock() throws Exception {
        QueueRefused lock = new QueueRefused();
        lock.lock();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        CountDownLatch taken = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            try {
                Locks.acquire(lock);
                taken.countDown();
                lock.unlock();
            } catch (Throwable t) {
                failed.set(t);
            }
        });
        waiter.start();
        lock.refused.await(); // the waiter has been refused a place in the queue
        assertEquals(1, taken.getCount(), "not taken while held");
        lock.unlock();
        waiter.join();
        assertEquals(null, failed.get(), "the wait threw");
        assertEquals(0, taken.getCount(), "taken once let go of");
    }

    /** A trace that a full heap refuses every line. */
    private static final class HeapFullTrace implements AllocationTrace {
        private long next;

        @Override
        public synchronized long allocated(int size, int site) {
            return ++next;
        }

        @Override
        public void released(long id, boolean byCollector) {
            throw new OutOfMemoryError("test: no room for the trace's line");
        }

        @Override
        public void fellBack(int size, int site) {}
    }

    @Test
    void a_trace_line_the_heap_refuses_loses_no_release_of_the_collectors_batch() throws Exception {
        PoolAllocator pools = new PoolAllocator(
                List.of(new PoolSpec.Sliced(64 * 1024, 4 * 1024, PoolSpec.UNCAPPED)),
                new PoolAllocator.Options(false, false, new HeapFullTrace()),
                AllocationListener.NONE,
                new CallSites());
        List<ByteBuffer> dropped = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            dropped.add(pools.allocate(1024, 0));
        }
        assertEquals(50, pools.usage().numberAllocs());
        dropped.clear();
        // Generous: a loaded machine's collections only make it slower; a lost release never comes back.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (pools.usage().numberAllocs() > 0 && System.nanoTime() < deadline) {
            System.gc();
            Releaser.drainNow();
            Thread.sleep(10);
        }
        assertEquals(0, pools.usage().numberAllocs(), "every dropped buffer back in its pool");
        pools.checkInvariants();
    }

    /**
     * The sentinel that tells the release thread of a collection is made again as it takes the last one
     * from the queue, while the leases it took before wait in a batch. A heap that refused it lost them
     * for good, and no collection was seen again. Now none is lost, and the sentinel is armed again
     * once the heap has room.
     */
    @Test
    void a_sentinel_the_heap_refuses_loses_no_release_and_is_armed_again() throws Exception {
        PoolAllocator pools = new PoolAllocator(
                List.of(new PoolSpec.Sliced(64 * 1024, 4 * 1024, PoolSpec.UNCAPPED)),
                new PoolAllocator.Options(false, false, null),
                AllocationListener.NONE,
                new CallSites());
        List<ByteBuffer> dropped = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            dropped.add(pools.allocate(1024, 0));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Releaser.refuseSentinels = true;
        try {
            dropped.clear();
            while ((Releaser.armed() || pools.usage().numberAllocs() > 0) && System.nanoTime() < deadline) {
                System.gc();
                Releaser.drainNow();
                Thread.sleep(10);
            }
            assertFalse(Releaser.armed(), "a collection took the sentinel, and none could be made again");
            assertEquals(0, pools.usage().numberAllocs(), "every dropped buffer back in its pool");
        } finally {
            Releaser.refuseSentinels = false;
        }
        long seen = Releaser.collectionsSeen();
        while (Releaser.collectionsSeen() == seen && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(10);
        }
        assertTrue(Releaser.armed(), "armed again once the heap has room");
        assertTrue(Releaser.collectionsSeen() > seen, "a collection seen again");
        pools.checkInvariants();
    }

    /**
     * Leases taken from the queue and then lost, as a release cut short loses them (a frame the JVM
     * unwinds without its handlers at a full heap), stayed in use for good: {@code cleanup()} finds them
     * (live, their anchors cleared, none queued) and gives them back, once.
     */
    @Test
    void leases_lost_after_they_left_the_queue_are_found_by_cleanup() throws Exception {
        PoolAllocator pools = new PoolAllocator(
                List.of(new PoolSpec.Sliced(64 * 1024, 4 * 1024, PoolSpec.UNCAPPED)),
                new PoolAllocator.Options(false, false, null),
                AllocationListener.NONE,
                new CallSites());
        allocateDropAndLose(pools, 200);
        pools.cleanup();
        assertEquals(0, pools.usage().numberAllocs(), "found and given back");
        assertEquals(200, pools.recoveredLeases());
        pools.cleanup();
        assertEquals(200, pools.recoveredLeases(), "given back once");
        pools.checkInvariants();
    }

    /** Allocates {@code count} buffers of 1 KiB, drops them, and loses their leases as they leave the queue. */
    private static void allocateDropAndLose(PoolAllocator pools, int count) throws Exception {
        List<ByteBuffer> dropped = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            dropped.add(pools.allocate(1024, 0));
        }
        dropped.clear();
        int lost = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Releaser.holdQueue();
        try {
            while (lost < count && System.nanoTime() < deadline) {
                System.gc();
                NativeAccess.awaitReferenceProcessing();
                lost += Releaser.loseQueuedForTest(pools);
            }
        } finally {
            Releaser.letGoOfQueue();
        }
        assertEquals(count, lost, "every dropped buffer's lease taken and lost");
        assertEquals(count, pools.usage().numberAllocs(), "lost: still in use");
    }

    /** A capped pool under {@code fail}, full of room whose releases were lost, serves instead of refusing. */
    @Test
    void a_capped_pool_full_of_lost_releases_serves_instead_of_refusing() throws Exception {
        PoolAllocator pools = new PoolAllocator(
                List.of(new PoolSpec.Sliced(64 * 1024, 4 * 1024, 1)),
                new PoolAllocator.Options(false, true, null),
                AllocationListener.NONE,
                new CallSites());
        allocateDropAndLose(pools, 64);
        ByteBuffer served = pools.allocate(1024, 0);
        assertEquals(1024, served.capacity());
        assertEquals(64, pools.recoveredLeases());
        assertEquals(1, pools.usage().numberAllocs());
        pools.checkInvariants();
    }
}
