package dev.pools.log;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's voice, for every package of it: one line on stderr, prefixed {@code pools:}. Failures are said once per kind,
 * so a broken instrumentation cannot flood the host's logs.
 */
public final class Log {

    private static final Set<String> SAID = ConcurrentHashMap.newKeySet();
    private static final boolean QUIET = Boolean.getBoolean("pools.quiet");

    private Log() {}

    public static void info(String message) {
        if (!QUIET) {
            System.err.println("pools: " + message);
        }
    }

    /** Says {@code message} the first time {@code kind} happens; later ones are dropped. */
    public static void once(String kind, String message) {
        if (SAID.add(kind)) {
            System.err.println("pools: " + message);
        }
    }
}
