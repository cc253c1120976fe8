package dev.pools.log;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's voice, for every package of it: one line on stderr, prefixed {@code pools:}. Failures are said once per kind,
 * so a broken instrumentation cannot flood the host's logs.
 */
public final class Log {

    private static final Set<String> SAID = ConcurrentHashMap.newKeySet();
    /** {@code -Dpools.quiet=true}, in any case: no informational lines; failures are still said once. */
    private static final boolean QUIET = quiet();

    private Log() {}

    /**
     * Nothing, but this class is initialised by then: the agent calls it at its start, so that a
     * failure first said at a full heap does not leave this class unusable for the run.
     */
    public static void ready() {}

    private static boolean quiet() {
        try {
            return "true".equalsIgnoreCase(System.getProperty("pools.quiet"));
        } catch (RuntimeException e) {
            return false; // a security manager that refuses the property
        }
    }

    /** An informational line, unless {@code -Dpools.quiet=true}; a failure is said with {@link #once}. */
    public static void info(String message) {
        if (!QUIET) {
            System.err.println("pools: " + message);
        }
    }

    /** Says {@code message} the first time {@code kind} happens; later ones are dropped. */
    public static void once(String kind, String message) {
        if (SAID.add(kind)) {
            try {
                System.err.println("pools: " + message);
            } catch (RuntimeException | Error e) {
                SAID.remove(kind); // not said (a full heap): a later try says it
                throw e;
            }
        }
    }

    /**
     * As {@link #once}, with {@code cause} after {@code message}. A failure to say it (a full heap,
     * which made the line itself) is swallowed: an agent's thread does not end on its own voice.
     */
    public static void onceIfItCan(String kind, String message, Throwable cause) {
        try {
            once(kind, message + cause);
        } catch (Throwable t) {
            // Nothing more can be said.
        }
    }
}
