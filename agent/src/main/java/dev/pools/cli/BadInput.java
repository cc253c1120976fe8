package dev.pools.cli;

/** A user's input the CLI cannot use; its message is the one line printed, and the exit status is 2. */
final class BadInput extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadInput(String message) {
        super(message, null, false, false);
    }
}
