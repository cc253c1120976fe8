package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.junit.jupiter.api.Test;

class OwnedReadWriteLockTest {

    private static final int CYCLES = 10_000;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private static OwnedReadWriteLock lock() {
        return new OwnedReadWriteLock(e -> {}, OwnedReadWriteLockTest.class);
    }

    /** Runs {@code body} in a thread of its own and waits for it; its error, if any, is thrown here. */
    private static void inThread(ThrowingRunnable body) throws Exception {
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failed.set(e);
            }
        });
        t.start();
        t.join();
        if (failed.get() != null) {
            throw new AssertionError(failed.get());
        }
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** Bytes this thread made running {@code cycles} twice, the first time to warm up. */
    private static long allocatedBy(Runnable cycles) {
        cycles.run();
        long before = THREADS.getCurrentThreadAllocatedBytes();
        cycles.run();
        return THREADS.getCurrentThreadAllocatedBytes() - before;
    }

    /**
     * The root of a review's hang: the JDK's read lock, taken while another reader holds it, makes an
     * object after it counted the hold; a full heap refused it, and the hold stayed for ever. The
     * control shows the JDK's lock making objects in the same run; this lock makes none.
     */
    @Test
    void a_read_hold_beside_another_reader_makes_no_object() throws Exception {
        assertTrue(THREADS.isThreadAllocatedMemorySupported() && THREADS.isThreadAllocatedMemoryEnabled());
        OwnedReadWriteLock rw = lock();
        ReentrantReadWriteLock jdk = new ReentrantReadWriteLock(true);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread other = new Thread(() -> {
            assertTrue(rw.tryRead());
            jdk.readLock().lock();
            held.countDown();
            try {
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            jdk.readLock().unlock();
            rw.unlockRead();
        });
        other.start();
        held.await();
        try {
            long jdkBytes = allocatedBy(() -> {
                for (int i = 0; i < CYCLES; i++) {
                    jdk.readLock().lock();
                    jdk.readLock().unlock();
                }
            });
            long ownBytes = allocatedBy(() -> {
                for (int i = 0; i < CYCLES; i++) {
                    if (rw.acquireRead()) {
                        Thread.currentThread().interrupt();
                    }
                    rw.unlockRead();
                }
            });
            assertTrue(jdkBytes >= CYCLES, "control: the JDK's read lock makes objects here: " + jdkBytes + " B");
            assertEquals(0, ownBytes, "bytes made by " + CYCLES + " read holds");
            assertEquals(1, rw.readHolds(), "the other reader's");
        } finally {
            done.countDown();
            other.join();
        }
        assertEquals(0, rw.readHolds());
    }

    @Test
    void a_write_hold_excludes_everyone_else_and_its_holder_may_read_and_write_again() throws Exception {
        OwnedReadWriteLock rw = lock();
        assertTrue(rw.tryWrite());
        assertTrue(rw.tryWrite(), "reentrant");
        assertFalse(rw.acquireRead(), "the writer reads");
        inThread(() -> {
            assertFalse(rw.tryRead());
            assertFalse(rw.tryWrite());
            assertFalse(rw.tryWrite(TimeUnit.MILLISECONDS.toNanos(5), () -> {}));
        });
        rw.unlockRead();
        rw.unlockWrite();
        inThread(() -> assertFalse(rw.tryRead(), "one write hold left"));
        rw.unlockWrite();
        assertFalse(rw.writeHeld());
        inThread(() -> {
            assertTrue(rw.tryRead());
            rw.unlockRead();
            assertTrue(rw.tryWrite());
            rw.unlockWrite();
        });
        assertThrows(IllegalMonitorStateException.class, rw::unlockWrite);
        assertThrows(IllegalMonitorStateException.class, rw::unlockRead);
    }

    /**
     * A writer that waits stops new readers (the release thread takes the read lock again as soon as it
     * let go of it) and asks the readers in place to let go ({@code nudge}); it takes the lock once they did.
     */
    @Test
    void a_waiting_writer_stops_new_readers_and_takes_the_lock_when_the_readers_let_go() throws Exception {
        OwnedReadWriteLock rw = lock();
        assertTrue(rw.tryRead());
        CountDownLatch nudged = new CountDownLatch(1);
        AtomicBoolean taken = new AtomicBoolean();
        Thread writer = new Thread(() -> {
            try {
                taken.set(rw.tryWrite(TimeUnit.MINUTES.toNanos(5), nudged::countDown));
                rw.unlockWrite();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        writer.start();
        nudged.await();
        inThread(() -> assertFalse(rw.tryRead(), "a new reader while a writer waits"));
        rw.unlockRead();
        writer.join();
        assertTrue(taken.get());
        assertTrue(rw.tryRead(), "no writer waits any more");
        rw.unlockRead();
    }

    private static void aNewReaderTakesIt(OwnedReadWriteLock rw) throws Exception {
        inThread(() -> {
            assertTrue(rw.tryRead(), "no writer waits any more");
            rw.unlockRead();
        });
    }

    @Test
    void a_writer_gives_up_after_its_time_and_no_longer_stops_readers() throws Exception {
        OwnedReadWriteLock rw = lock();
        assertTrue(rw.tryRead());
        inThread(() -> assertFalse(rw.tryWrite(TimeUnit.MILLISECONDS.toNanos(20), () -> {})));
        aNewReaderTakesIt(rw);
        rw.unlockRead();
    }

    @Test
    void an_interrupted_writer_throws_and_no_longer_stops_readers() throws Exception {
        OwnedReadWriteLock rw = lock();
        assertTrue(rw.tryRead());
        inThread(() -> {
            Thread.currentThread().interrupt();
            assertThrows(InterruptedException.class, () -> rw.tryWrite(TimeUnit.MINUTES.toNanos(5), () -> {}));
            assertFalse(Thread.currentThread().isInterrupted());
        });
        aNewReaderTakesIt(rw);
        rw.unlockRead();
    }

    /** An interrupt while a reader waits is given back to it, to set again once it holds the lock. */
    @Test
    void an_interrupt_while_a_reader_waits_is_given_back() throws Exception {
        OwnedReadWriteLock rw = lock();
        assertTrue(rw.tryWrite());
        AtomicBoolean given = new AtomicBoolean();
        AtomicBoolean setMeanwhile = new AtomicBoolean(true);
        CountDownLatch started = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            Thread.currentThread().interrupt();
            started.countDown();
            given.set(rw.acquireRead());
            setMeanwhile.set(Thread.currentThread().isInterrupted());
            rw.unlockRead();
        });
        reader.start();
        started.await();
        while (reader.isInterrupted()) {
            Thread.onSpinWait(); // until the waiting reader took its interrupt
        }
        rw.unlockWrite();
        reader.join();
        assertTrue(given.get());
        assertFalse(setMeanwhile.get(), "cleared, so that the wait could sleep");
    }

    /** Sleeps far longer than any test: a waiter of such a lock that returns was woken. */
    private static OwnedReadWriteLock sleepingForAnHour() {
        long hour = TimeUnit.HOURS.toNanos(1);
        return new OwnedReadWriteLock(hour, hour, e -> {}, OwnedReadWriteLockTest.class);
    }

    private static void awaitSleeping(Thread t) {
        while (t.getState() != Thread.State.TIMED_WAITING) {
            Thread.onSpinWait();
        }
    }

    /** Every reader asleep (the release thread and allocating threads that drain) is woken, not the last only. */
    @Test
    void the_sleeping_readers_are_woken_when_the_writer_lets_go() throws Exception {
        OwnedReadWriteLock rw = sleepingForAnHour();
        assertTrue(rw.tryWrite());
        Thread[] readers = new Thread[3];
        for (int i = 0; i < readers.length; i++) {
            readers[i] = new Thread(() -> {
                rw.acquireRead();
                rw.unlockRead();
            });
            readers[i].start();
        }
        for (Thread reader : readers) {
            awaitSleeping(reader);
        }
        rw.unlockWrite();
        for (Thread reader : readers) {
            reader.join(TimeUnit.MINUTES.toMillis(10));
            assertFalse(reader.isAlive(), "woken");
        }
    }

    @Test
    void a_sleeping_writer_is_woken_when_the_last_reader_lets_go() throws Exception {
        OwnedReadWriteLock rw = sleepingForAnHour();
        assertTrue(rw.tryRead());
        assertTrue(rw.tryRead());
        AtomicBoolean taken = new AtomicBoolean();
        Thread writer = new Thread(() -> {
            try {
                taken.set(rw.tryWrite(TimeUnit.HOURS.toNanos(2), () -> {}));
                rw.unlockWrite();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        writer.start();
        awaitSleeping(writer);
        rw.unlockRead();
        rw.unlockRead();
        writer.join(TimeUnit.MINUTES.toMillis(10));
        assertFalse(writer.isAlive(), "woken");
        assertTrue(taken.get());
    }
}
