package dev.pools.cli;

import dev.pools.layout.LayoutException;

/** The CLI's exit statuses (CONTRACT.md §5). */
final class ExitStatus {
    static final int DONE = 0;
    static final int INTERNAL = 1;
    static final int BAD_INPUT = LayoutException.EXIT_STATUS;

    private ExitStatus() {}
}
