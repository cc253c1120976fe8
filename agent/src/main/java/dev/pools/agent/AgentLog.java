package dev.pools.agent;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's voice: one line on stderr, prefixed {@code pools:}. Failures are said once per kind,
 * so a broken instrumentation cannot flood the host's logs.
 */
public final class AgentLog {

    private static final Set<String> SAID = ConcurrentHashMap.newKeySet();
    private static volatile boolean quiet = Boolean.getBoolean("pools.quiet");

    private AgentLog() {
    }

    public static void info(String message) {
        if (!quiet) {
            System.err.println("pools: " + message);
        }
    }

    /** Says {@code message} the first time {@code kind} happens; later ones are dropped. */
    public static void once(String kind, String message) {
        if (SAID.add(kind)) {
            System.err.println("pools: " + message);
        }
    }

    static void setQuiet(boolean q) {
        quiet = q;
    }
}
