package dev.pools.layout;

import dev.pools.api.MemoryPoolLayout;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Everything a layout file says, parsed once, with every default filled in (CONTRACT.md §2).
 *
 * @param source       where it came from: a file name, or {@code (default)}
 * @param layout       the pools
 * @param intercept    packages whose direct-buffer allocations are routed to the pools
 * @param release      when a slice goes back
 * @param onExhausted  what happens to a request no pool can serve
 * @param poisonOnFree fill released slices with a pattern
 * @param report       the recording, and the allocation trace
 */
public record PoolsConfig(
        String source,
        MemoryPoolLayout layout,
        List<String> intercept,
        Release release,
        OnExhausted onExhausted,
        boolean poisonOnFree,
        Report report) {

    public static final List<String> DEFAULT_INTERCEPT = List.of("ai.djl", "ai.onnxruntime");
    public static final String DEFAULT_REPORT_FILE = "pools-%p.jfr";
    public static final Duration DEFAULT_REPORT_PERIOD = Duration.ofSeconds(1);
    /** The {@code report.file} value that turns the recording off. */
    public static final String NO_REPORT = "none";

    /** Whether a value says {@link #NO_REPORT}, in any case ({@code none}, {@code None}, {@code NONE}). */
    public static boolean isNone(String value) {
        return value.trim().equalsIgnoreCase(NO_REPORT);
    }

    public PoolsConfig {
        intercept = List.copyOf(intercept);
    }

    /**
     * The {@code report} keys.
     *
     * @param file   the recording's file name pattern ({@code %p}, {@code %t}); null: no recording
     * @param period timeline resolution; zero: only at the end
     * @param trace  where to write every allocation and release, for replaying offline; null: nowhere
     * @param maxSize the size at which the recording's file is set aside as {@code <file>.1} and a new
     *                one begun; 0: none (the file grows for as long as the JVM runs)
     */
    public record Report(String file, Duration period, String trace, long maxSize) {

        /** A recording with the default {@code max_size}. */
        public Report(String file, Duration period, String trace) {
            this(file, period, trace, DEFAULT_REPORT_MAX_SIZE);
        }
    }

    /** The default {@code report.max_size}: at a batch a second and the {@code host} layout, about a day and a half. */
    public static final long DEFAULT_REPORT_MAX_SIZE = 32L << 20;

    /** The longest {@code report.period}. */
    public static final Duration MAX_REPORT_PERIOD = Duration.ofDays(1);

    /** The smallest {@code report.max_size}: a file's declarations and a few batches. */
    public static final long MIN_REPORT_MAX_SIZE = 64L << 10;

    /** What the agent runs with when it is given no file. */
    public static PoolsConfig defaults() {
        return new PoolsConfig(
                "(default)",
                new MemoryPoolLayout.Host(),
                DEFAULT_INTERCEPT,
                Release.GC,
                OnExhausted.FALLBACK,
                false,
                new Report(DEFAULT_REPORT_FILE, DEFAULT_REPORT_PERIOD, null));
    }

    /** The same settings with another layout. */
    public PoolsConfig withLayout(MemoryPoolLayout other) {
        return new PoolsConfig(source, other, intercept, release, onExhausted, poisonOnFree, report);
    }

    /** The same settings with another recording. */
    public PoolsConfig withReport(Report other) {
        return new PoolsConfig(source, layout, intercept, release, onExhausted, poisonOnFree, other);
    }

    /** The recording's file name pattern; null: no recording. */
    public String reportFile() {
        return report.file();
    }

    public Duration reportPeriod() {
        return report.period();
    }

    /** {@code report.max_size} in bytes; 0: none. */
    public long reportMaxSize() {
        return report.maxSize();
    }

    /** When a slice goes back to its pool (docs/POOLS.md §4, docs/HOSTS.md §3). */
    public enum Release {
        /** When no buffer pointing into it is reachable. */
        GC,
        /** When the tensor that owns it is closed; the collector is the backstop. */
        CLOSE;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** What happens to a request that no pool can serve. */
    public enum OnExhausted {
        /** Hand it to the host's own allocation path, and count it. */
        FALLBACK,
        /** Throw {@link OutOfMemoryError}. */
        FAIL;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The name a layout has in a file. */
    public static String kindOf(MemoryPoolLayout layout) {
        if (layout instanceof MemoryPoolLayout.Sliced) {
            return "sliced";
        }
        if (layout instanceof MemoryPoolLayout.Direct) {
            return "direct";
        }
        if (layout instanceof MemoryPoolLayout.Host) {
            return "host";
        }
        if (layout instanceof MemoryPoolLayout.SubSlices) {
            return "sub-slices";
        }
        return "exclusive-pages";
    }
}
