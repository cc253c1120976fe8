package dev.pools.memory;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A lock of the pools that its waiters can find let go of for ever. At a full Java heap, the JVM may
 * unwind compiled frames without running their handlers: when it deoptimizes a frame whose objects
 * the compiler had kept in registers and cannot make them again on the heap, it throws an {@code
 * OutOfMemoryError} from that frame and pops it, {@code finally} blocks included. A frame that held
 * the lock then never lets go of it, and every later taker waited for ever (measured: a replay of
 * {@code suggest --fit} that filled its heap hung in about one run of two on JDK 25, the lock
 * {@code Locked by thread replay-2}, a thread that had ended; none hung in ten runs with the
 * compiler's scalar replacement off).
 *
 * <p>{@link Locks#acquire} looks, every {@link Abandonment#LOOK_NANOS} of waiting, whether the holder has left
 * the code that takes the lock while it still holds it, or has ended: then no one
 * will ever let go of it. The look is exact, not a guess from how long it waited: the holder's stack
 * is read between two reads of the count of releases ({@link #unlock}), and a hold that spans both
 * reads with no frame of the holders' code on its stack was abandoned. The change it was making may
 * be half made, so its owner stops the pools (see {@link PoolAllocator#stoppedBy}), and
 * every waiter, then and later, gets the error instead of the lock.
 */
public final class OwnedLock extends ReentrantLock {

    private static final long serialVersionUID = 1L;

    final transient Abandonment watch;

    /** {@code holders}: the classes whose code takes the lock; {@code onAbandoned}: told once, first. */
    OwnedLock(Consumer<AbandonedLockException> onAbandoned, Class<?>... holders) {
        this.watch = new Abandonment(onAbandoned, holders);
    }

    @Override
    public void unlock() {
        watch.released();
        super.unlock();
    }

    /** See {@link Abandonment#look}. */
    void look() {
        watch.look(this::getOwner);
    }

    /** The thread that abandoned the hold in place, or null (see {@link Abandonment#abandonedBy}). */
    Thread abandonedBy() {
        return watch.abandonedBy(this::getOwner);
    }
}
