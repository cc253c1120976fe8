package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.api.InstallMemoryPoolsException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A pool's lock that its holder left without letting go of it (the JVM pops compiled frames without
 * their handlers when it cannot deoptimize them at a full heap) stops the pools, and the request that
 * waited for it gets the error instead of waiting for ever. Before, every later request of the pool,
 * the release thread and the JVM's end waited for ever (a {@code suggest --fit} whose replay filled
 * its heap hung so, the lock held by a thread that had ended). Here a test thread takes the lock and
 * leaves it held, as the unwound frame did; no test waits for a time, only for events.
 */
class AbandonedLockTest {

    private static final int KIB = 1024;

    /** {@code task} on a new thread of its own (a fresh thread has no cache of any pool). */
    private static <T> FutureTask<T> onThread(Callable<T> task) {
        FutureTask<T> f = new FutureTask<>(task);
        new Thread(f, "taker").start();
        return f;
    }

    @Test
    void a_lock_left_held_by_a_thread_that_ended_stops_the_pools_and_the_jdk_serves_after() throws Exception {
        PoolAllocator pools = StoppedPoolsTest.pools();
        ByteBuffer held = pools.allocate(KIB, 0);
        held.putLong(0, 0x1234_5678_9ABC_DEF0L);
        OwnedLock lock = pools.lockOf(0);
        Stops.abandonLock(pools);

        // A new thread has no cache of the pool yet: its request goes through the lock, and the JDK serves it.
        ByteBuffer waited = onThread(() -> pools.allocate(KIB, 0)).get();
        assertFalse(PoolAllocator.isPoolMemory(waited), "served by the JDK");
        assertEquals(KIB, waited.capacity());
        Throwable e = pools.stoppedBy();
        assertInstanceOf(AbandonedLockException.class, e);
        assertTrue(
                e.getMessage().startsWith("thread leaver ended in the pools' code without letting go of a lock"),
                e.getMessage());

        ByteBuffer after = pools.allocate(KIB, 0);
        assertFalse(PoolAllocator.isPoolMemory(after), "served by the JDK once the pools stopped");
        assertEquals(2, pools.usage().fallbackAllocs(), "both counted as fallbacks");
        assertEquals(KIB, pools.usage().bytesInUse(), "read without the lock: the buffer still held");
        assertFalse(pools.release(held), "nothing is given back to stopped pools");
        assertEquals(0x1234_5678_9ABC_DEF0L, held.getLong(0));
        // Every later taker gets the error at once, without a look of its own.
        long looks = lock.watch.looks;
        assertSame(e, assertThrows(IllegalStateException.class, () -> Locks.acquire(lock)));
        assertEquals(looks, lock.watch.looks);
    }

    @Test
    void a_lock_left_held_by_a_thread_that_went_on_is_found_so() throws Exception {
        PoolAllocator pools = StoppedPoolsTest.pools();
        OwnedLock lock = pools.lockOf(0);
        CountDownLatch taken = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        Thread leaver = new Thread(
                () -> {
                    lock.lock();
                    taken.countDown();
                    try {
                        end.await(); // alive, outside the pools' code, the lock still held
                    } catch (InterruptedException ignored) {
                        Thread.currentThread().interrupt();
                    }
                },
                "leaver");
        leaver.start();
        try {
            taken.await();
            assertFalse(PoolAllocator.isPoolMemory(pools.allocate(KIB, 0)), "served by the JDK");
            Throwable e = pools.stoppedBy();
            assertInstanceOf(AbandonedLockException.class, e);
            assertTrue(
                    e.getMessage().startsWith("thread leaver left the pools' code without letting go of a lock"),
                    e.getMessage());
            assertTrue(pools.stopReason().startsWith(PoolAllocator.STOPPED), pools.stopReason());
        } finally {
            end.countDown();
            leaver.join();
        }
    }

    /**
     * A holder inside the pools' code is waited for, however long it holds the lock: the look is at
     * where its stack is, not at how long the taker waited.
     */
    @Test
    void a_holder_inside_the_pools_code_is_waited_for() throws Exception {
        PoolAllocator pools = StoppedPoolsTest.pools();
        OwnedLock lock = pools.lockOf(0);
        assertTrue(pools.release(pools.allocate(KIB, 0)), "into this thread's cache: a drain has one to look at");
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch goOn = new CountDownLatch(1);
        SlicingPool.afterOwnersLooked = () -> {
            SlicingPool.afterOwnersLooked = null;
            inside.countDown();
            try {
                goOn.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        try {
            FutureTask<Integer> drain = onThread(pools::cleanup);
            inside.await(); // the drain holds the lock, inside the pool's code
            FutureTask<ByteBuffer> waiter = onThread(() -> pools.allocate(KIB, 0));
            while (lock.watch.looks < 3) {
                Thread.onSpinWait(); // the waiter looked at the holder three times, and waits on
            }
            assertFalse(waiter.isDone());
            goOn.countDown();
            drain.get();
            assertTrue(PoolAllocator.isPoolMemory(waiter.get()));
            assertNull(pools.stoppedBy());
        } finally {
            SlicingPool.afterOwnersLooked = null;
            goOn.countDown();
        }
    }

    /** The count of releases changes with every hold let go of: a look spans one hold or sees a change. */
    @Test
    void no_holder_is_abandoned_while_no_one_holds_the_lock() {
        PoolAllocator pools = StoppedPoolsTest.pools();
        OwnedLock lock = pools.lockOf(0);
        assertNull(lock.abandonedBy());
        Locks.acquire(lock);
        try {
            assertNull(lock.abandonedBy(), "this thread's own hold");
        } finally {
            lock.unlock();
        }
    }

    @Test
    void a_write_hold_left_by_a_thread_that_ended_is_found_by_a_reader() throws Exception {
        AtomicReference<AbandonedLockException> told = new AtomicReference<>();
        OwnedReadWriteLock rw = new OwnedReadWriteLock(told::set, Releaser.class);
        Thread leaver = new Thread(rw::tryWrite, "leaver");
        leaver.start();
        leaver.join();
        AbandonedLockException e = assertThrows(AbandonedLockException.class, rw::acquireRead);
        assertSame(e, told.get());
        assertTrue(e.getMessage().startsWith("thread leaver ended in the pools' code"), e.getMessage());
        assertEquals(0, rw.readHolds());
    }

    /** A writer in the code that takes the lock (here, this test's) is waited for, and its release counted. */
    @Test
    void a_writer_inside_the_holders_code_is_waited_for_by_a_reader() throws Exception {
        AtomicReference<AbandonedLockException> told = new AtomicReference<>();
        OwnedReadWriteLock rw = new OwnedReadWriteLock(told::set, AbandonedLockTest.class);
        CountDownLatch taken = new CountDownLatch(1);
        Thread writer = new Thread(
                () -> {
                    assertTrue(rw.tryWrite());
                    taken.countDown();
                    while (rw.watch.looks < 3) {
                        Thread.onSpinWait(); // a reader looked at this writer three times
                    }
                    rw.unlockWrite();
                },
                "writer");
        writer.start();
        taken.await();
        assertFalse(rw.acquireRead());
        rw.unlockRead();
        writer.join();
        assertNull(told.get());
    }

    /** An install that is the first to meet the abandoned lock is refused as any install after a stop. */
    @Test
    void an_install_that_meets_an_abandoned_lock_is_refused_as_unavailable() throws Exception {
        PoolAllocator pools = StoppedPoolsTest.pools();
        Stops.abandonLock(pools);
        InstallMemoryPoolsException e = assertThrows(
                InstallMemoryPoolsException.class,
                () -> pools.install(List.of(new PoolSpec.Sliced(64 * KIB, 4 * KIB, PoolSpec.UNCAPPED))));
        assertEquals(InstallMemoryPoolsException.Kind.UNAVAILABLE, e.kind());
        assertTrue(
                e.getMessage().startsWith(PoolAllocator.STOPPED + AbandonedLockException.class.getName()),
                e.getMessage());
        assertInstanceOf(AbandonedLockException.class, pools.stoppedBy());
    }

    /**
     * A test that holds the release queue outside the release code, on purpose (Releaser#holdQueue), is
     * not a writer that left it: the release thread looks and waits on. Before, it stopped every pool
     * of the JVM and ended (a review: ExhaustionTest failed alone).
     */
    @Test
    void a_test_that_holds_the_release_queue_is_waited_for() throws Exception {
        PoolAllocator pools = StoppedPoolsTest.pools();
        Thread releaseThread = Releaser.thread();
        long looks = Releaser.queueLock().watch.looks;
        Releaser.holdQueue();
        try {
            while (Releaser.queueLock().watch.looks < looks + 2 && releaseThread.isAlive()) {
                Thread.onSpinWait(); // the release thread looked at this hold twice, or ended
            }
        } finally {
            Releaser.letGoOfQueue();
        }
        assertTrue(releaseThread.isAlive(), "the release thread goes on");
        assertNull(pools.stoppedBy());
    }

    /** A stack cut to a limit set below the default may hide the holding frame: no hold is called left on it. */
    @Test
    void a_stack_cut_to_a_low_limit_may_be_inside() {
        Class<?>[] holders = {Pool.class};
        StackTraceElement elsewhere = new StackTraceElement("host.App", "run", "App.java", 1);
        StackTraceElement[] twenty = new StackTraceElement[20];
        Arrays.fill(twenty, elsewhere);
        assertTrue(Abandonment.inside(twenty, holders, 20), "cut: cannot tell");
        assertFalse(Abandonment.inside(Arrays.copyOf(twenty, 19), holders, 20), "whole, outside");
        StackTraceElement[] deep = new StackTraceElement[Abandonment.DEFAULT_STACK_DEPTH];
        Arrays.fill(deep, elsewhere);
        assertFalse(
                Abandonment.inside(deep, holders, Abandonment.DEFAULT_STACK_DEPTH),
                "the default: no lock held that deep");
        deep[5] = new StackTraceElement(Pool.class.getName(), "reserve", "Pool.java", 1);
        assertTrue(Abandonment.inside(deep, holders, Abandonment.DEFAULT_STACK_DEPTH));
        assertTrue(Abandonment.inside(new StackTraceElement[0], holders, 20), "an unread stack");
    }
}
