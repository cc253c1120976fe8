package dev.pools.cli;

/** A user's input the CLI cannot use; its message is the one line printed, and the exit status is 2. */
final class BadInput extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Whether the file can be left out when others are read with it: empty, missing, unreadable or
     * damaged (a JVM that recorded nothing, or was killed while writing), not a foreign file.
     */
    final boolean leftOutWithOthers;

    BadInput(String message) {
        this(message, false);
    }

    BadInput(String message, boolean leftOutWithOthers) {
        super(message, null, false, false);
        this.leftOutWithOthers = leftOutWithOthers;
    }
}
