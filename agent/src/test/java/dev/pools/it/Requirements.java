package dev.pools.it;

import org.junit.jupiter.api.Assumptions;

/**
 * Tests that need a program from outside Maven (Chromium, a Docker engine). Where it is missing
 * they are skipped with the reason, unless {@code POOLS_REQUIRE_ALL=1} (set by the test script and
 * CI): then a missing program fails the test.
 */
public final class Requirements {

    private Requirements() {}

    public static void require(boolean present, String what) {
        if (present) {
            return;
        }
        String reason = what + " is not available here; ./test.sh installs it (as root), or install it yourself";
        if ("1".equals(System.getenv("POOLS_REQUIRE_ALL"))) {
            throw new AssertionError(reason + " (POOLS_REQUIRE_ALL=1: nothing may be skipped)");
        }
        Assumptions.abort(reason);
    }
}
