package dev.pools.memory;

import java.util.ArrayList;
import java.util.List;

/**
 * The packages of {@code java.base} the pools reach into (see {@link NativeAccess} for why each):
 * the one list. The agent opens them to itself at start; tests, benchmarks and scripts that run
 * the pools without the agent pass {@link #commandLineFlags()}, and a test checks that the build
 * files and scripts pass exactly these.
 */
public final class JdkInternals {

    /** Opened: private members are reached by reflection. */
    public static final List<String> OPENED = List.of("java.nio");

    /** Exported: public members of internal packages. */
    public static final List<String> EXPORTED =
            List.of("jdk.internal.misc", "jdk.internal.access", "jdk.internal.ref", "sun.nio.ch");

    private JdkInternals() {}

    /** The same access as command-line flags, for code running without the agent. */
    public static List<String> commandLineFlags() {
        List<String> flags = new ArrayList<>();
        for (String p : OPENED) {
            flags.add("--add-opens");
            flags.add("java.base/" + p + "=ALL-UNNAMED");
        }
        for (String p : EXPORTED) {
            flags.add("--add-exports");
            flags.add("java.base/" + p + "=ALL-UNNAMED");
        }
        return flags;
    }
}
