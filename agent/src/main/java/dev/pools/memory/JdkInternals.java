package dev.pools.memory;

import java.util.ArrayList;
import java.util.List;

/**
 * The packages of {@code java.base} the pools reach into (see {@link NativeAccess} for why each):
 * the one list. The agent opens them to itself the first time anything reaches them ({@link
 * #openWith}); tests, benchmarks and scripts that run the pools without the agent pass {@link
 * #commandLineFlags()}, and a test checks that the build files and scripts pass exactly these.
 */
public final class JdkInternals {

    /** Opened: private members are reached by reflection. */
    public static final List<String> OPENED = List.of("java.nio");

    /** Exported: public members of internal packages. */
    public static final List<String> EXPORTED =
            List.of("jdk.internal.misc", "jdk.internal.access", "jdk.internal.ref", "sun.nio.ch");

    private static Runnable opener;
    private static Throwable openFailure;

    private JdkInternals() {}

    /**
     * How to open the packages, run once by the first {@link #open}: the agent's background start
     * or, should the host allocate first, its first allocation. Not in {@code premain}: the JDK's
     * {@code Instrumentation.redefineModule} costs a JVM's start-up several milliseconds on JDK 25.
     */
    public static synchronized void openWith(Runnable how) {
        opener = how;
        openFailure = null;
    }

    /** Opens the packages if a way was given and they are not open yet; a failure is kept for {@link #openFailure}. */
    static synchronized void open() {
        Runnable how = opener;
        opener = null;
        if (how != null) {
            try {
                how.run();
            } catch (Throwable t) {
                openFailure = t;
            }
        }
    }

    /** Why opening the packages failed; null when it did not (or nothing asked). */
    static synchronized Throwable openFailure() {
        return openFailure;
    }

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
