package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A lock's call that ends in a {@code StackOverflowError} after it took the lock (the JVM throws the
 * error it delayed while the lock's critical section ran in the stack's reserved zone) leaves the
 * lock as it was. Before, such a call left a pool's lock held by a thread that went on: the next
 * report, the recording's batches and the JVM's end waited for ever (a review's deep recursion).
 */
class LocksTest {

    /** A lock whose calls take it, then end as a delayed overflow does. */
    private static final class OverflowingLock extends ReentrantLock {
        private static final long serialVersionUID = 1L;
        boolean armed = true;

        @Override
        public void lock() {
            super.lock();
            overflow();
        }

        @Override
        public boolean tryLock() {
            super.tryLock();
            overflow();
            return true;
        }

        @Override
        public boolean tryLock(long timeout, TimeUnit unit) throws InterruptedException {
            super.tryLock(timeout, unit);
            overflow();
            return true;
        }

        private void overflow() {
            if (armed) {
                throw new StackOverflowError();
            }
        }
    }

    @Test
    void a_lock_call_that_overflows_after_taking_the_lock_leaves_it_free() throws Exception {
        OverflowingLock lock = new OverflowingLock();
        assertThrows(StackOverflowError.class, () -> Locks.acquire(lock));
        assertFalse(lock.isLocked());
        assertThrows(StackOverflowError.class, () -> Locks.tryAcquire(lock));
        assertFalse(lock.isLocked());
        assertThrows(StackOverflowError.class, () -> Locks.tryAcquire(lock, 1, TimeUnit.MILLISECONDS));
        assertFalse(lock.isLocked());
    }

    @Test
    void a_lock_held_before_stays_held_once() {
        OverflowingLock lock = new OverflowingLock();
        lock.armed = false;
        lock.lock();
        lock.armed = true;
        assertThrows(StackOverflowError.class, () -> Locks.acquire(lock));
        assertTrue(lock.isHeldByCurrentThread());
        assertEquals(1, lock.getHoldCount());
        lock.unlock();
        assertFalse(lock.isLocked());
    }

    /** Every lock of the agent is taken through {@link Locks}, where an overflow cannot leave it held. */
    @Test
    void the_agent_takes_its_locks_through_locks() throws Exception {
        List<String> plain = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
                if (f.getFileName().toString().equals("Locks.java")) {
                    continue;
                }
                List<String> lines = Files.readAllLines(f);
                for (int i = 0; i < lines.size(); i++) {
                    String line = lines.get(i);
                    if (line.matches(".*\\b(?!channel\\b|c\\b)\\w+\\.(lock|tryLock|lockInterruptibly)\\(.*")) {
                        plain.add(f + ":" + (i + 1) + ": " + line.strip());
                    }
                }
            }
        }
        assertTrue(plain.isEmpty(), String.join("\n", plain));
    }
}
