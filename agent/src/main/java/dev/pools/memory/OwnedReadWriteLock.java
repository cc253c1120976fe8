package dev.pools.memory;

import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;

/**
 * A fair read-write lock whose write hold its waiters can find let go of for ever, as {@link
 * OwnedLock}'s: {@link Locks#acquireRead} looks at the writer while it waits. Readers are not known
 * by thread, so a read hold left so is not found; a writer takes the lock only for a time ({@link
 * Locks#tryAcquireWrite}).
 */
final class OwnedReadWriteLock extends ReentrantReadWriteLock {

    private static final long serialVersionUID = 1L;

    final transient Abandonment watch;

    private final CountingWriteLock writeLock;

    OwnedReadWriteLock(Consumer<AbandonedLockException> onAbandoned, Class<?>... holders) {
        super(true);
        this.watch = new Abandonment(onAbandoned, holders);
        this.writeLock = new CountingWriteLock(this);
    }

    @Override
    public WriteLock writeLock() {
        return writeLock;
    }

    /** See {@link Abandonment#look}: at the writer. */
    void look() {
        watch.look(this::getOwner);
    }

    /** The write lock, whose releases are counted for {@link Abandonment}. */
    static final class CountingWriteLock extends WriteLock {

        private static final long serialVersionUID = 1L;

        private final transient Abandonment watch;

        CountingWriteLock(OwnedReadWriteLock lock) {
            super(lock);
            this.watch = lock.watch;
        }

        @Override
        public void unlock() {
            watch.released();
            super.unlock();
        }
    }
}
