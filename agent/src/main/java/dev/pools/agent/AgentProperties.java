package dev.pools.agent;

import dev.pools.log.Log;
import java.util.Properties;

/**
 * The system properties the agent reads ({@code -Dpools.quiet}, {@code -Dpools.mallocHint}), checked
 * at its start: a value that is neither {@code true} nor {@code false} (in any case), or a name
 * under {@code pools.} that the agent does not know (a misspelling), is said in one line, and the
 * property keeps its default. The agent's own ({@code pools.agent}, {@code pools.agent.refused}) and
 * the tests' ({@code pools.test.}) are known.
 */
final class AgentProperties {

    static final String QUIET = "pools.quiet";

    private AgentProperties() {}

    /** Says what is wrong with the {@code pools.} properties; never throws. */
    static void check() {
        try {
            Properties all = System.getProperties();
            for (String name : all.stringPropertyNames()) {
                if (!name.startsWith("pools.") || name.startsWith("pools.test.")) {
                    continue;
                }
                String value = all.getProperty(name);
                if (name.equals(QUIET) || name.equals(PoolsAgent.MALLOC_HINT_PROPERTY)) {
                    if (!"true".equalsIgnoreCase(value) && !"false".equalsIgnoreCase(value)) {
                        Log.once(
                                "property:" + name,
                                "-D" + name + "=" + value + " is neither true nor false; it keeps its default, "
                                        + (name.equals(QUIET) ? "false" : "true"));
                    }
                } else if (!name.equals(PoolsAgent.RUNNING_PROPERTY) && !name.equals(PoolsAgent.REFUSED_PROPERTY)) {
                    Log.once(
                            "property:" + name,
                            "-D" + name + " is not a property of the agent's (it reads -D" + QUIET + " and -D"
                                    + PoolsAgent.MALLOC_HINT_PROPERTY + "); ignored");
                }
            }
        } catch (RuntimeException e) {
            // A security manager that hides the properties: nothing to check.
        }
    }

    /** Whether the agent gives glibc's malloc its threshold hint: unless {@code -Dpools.mallocHint=false}, in any case. */
    static boolean mallocHint() {
        try {
            return !"false".equalsIgnoreCase(System.getProperty(PoolsAgent.MALLOC_HINT_PROPERTY));
        } catch (RuntimeException e) {
            return true;
        }
    }
}
