package dev.pools.cli;

/** A user's input the CLI cannot use; its message is the one line printed, and the exit status is 2. */
final class BadInput extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Whether the file is a recording of a JVM that recorded nothing (ended or killed before its first flush). */
    final boolean nothingRecorded;

    BadInput(String message) {
        this(message, false);
    }

    BadInput(String message, boolean nothingRecorded) {
        super(message, null, false, false);
        this.nothingRecorded = nothingRecorded;
    }
}
