package dev.pools.memory;

/**
 * A lock of the pools that its holder will never let go of (see {@link OwnedLock}): thrown to its
 * takers instead of the lock. The pools stopped when it was found.
 */
final class AbandonedLockException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    AbandonedLockException(String message) {
        super(message);
    }
}
