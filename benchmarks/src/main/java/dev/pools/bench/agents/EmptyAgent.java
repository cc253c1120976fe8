package dev.pools.bench.agents;

import java.lang.instrument.Instrumentation;

/** B4's floor: an agent that does nothing, to tell the JVM's cost of any agent from pools' own. */
public final class EmptyAgent {

    private EmptyAgent() {}

    public static void premain(String args, Instrumentation inst) {
        // Nothing: the point is what loading an agent costs by itself.
    }
}
