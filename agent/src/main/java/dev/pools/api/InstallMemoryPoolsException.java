package dev.pools.api;

/**
 * Why installing a pool layout did not take effect. The previous layout stays in place.
 *
 * <p>The distinction a caller needs is <b>transient or permanent</b>: a refused rebuild is worth
 * retrying once whatever holds the pools drains, while a JVM without the agent refuses forever.
 */
public final class InstallMemoryPoolsException extends Exception {

    private static final long serialVersionUID = 1L;

    /** The kinds of refusal. */
    public enum Kind {
        /** The pools still hold live allocations ({@link #bytesInUse()}). Transient: retry once they drain. */
        POOLS_IN_USE,
        /**
         * The pools are shutting down with the JVM, or stopped after an error inside them
         * ({@link #getMessage()} says which). Permanent: there is no later moment to retry at.
         */
        UNAVAILABLE,
        /** No pools agent is attached to this JVM. Permanent. */
        UNSUPPORTED,
        /** The layout cannot be honoured ({@link #getMessage()} says why). Permanent: change the layout. */
        INVALID_LAYOUT
    }

    private final Kind kind;
    private final long bytesInUse;

    private InstallMemoryPoolsException(Kind kind, long bytesInUse, String message) {
        super(message);
        this.kind = kind;
        this.bytesInUse = bytesInUse;
    }

    public static InstallMemoryPoolsException poolsInUse(long bytesInUse) {
        return new InstallMemoryPoolsException(
                Kind.POOLS_IN_USE, bytesInUse, bytesInUse + " B still live in the pools");
    }

    public static InstallMemoryPoolsException unavailable() {
        return new InstallMemoryPoolsException(Kind.UNAVAILABLE, 0, "the pools are shutting down");
    }

    /** The pools stopped after an error inside them, {@code why}; nothing is installed in this JVM any more. */
    public static InstallMemoryPoolsException stopped(String why) {
        return new InstallMemoryPoolsException(Kind.UNAVAILABLE, 0, why);
    }

    public static InstallMemoryPoolsException unsupported() {
        return new InstallMemoryPoolsException(
                Kind.UNSUPPORTED, 0, "no pools agent is attached to this JVM (start it with -javaagent:pools.jar)");
    }

    public static InstallMemoryPoolsException invalidLayout(String reason) {
        return new InstallMemoryPoolsException(Kind.INVALID_LAYOUT, 0, "the pool layout cannot be honoured: " + reason);
    }

    public Kind kind() {
        return kind;
    }

    /** Bytes still live in the pools, for {@link Kind#POOLS_IN_USE}; 0 otherwise. */
    public long bytesInUse() {
        return bytesInUse;
    }

    /** Whether the same install may succeed later. */
    public boolean isTransient() {
        return kind == Kind.POOLS_IN_USE;
    }
}
