package dev.pools.layout;

import dev.pools.api.MemoryPoolLayout;
import dev.pools.api.SlicedPool;
import dev.pools.memory.PoolSpec;
import dev.pools.memory.Sizes;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.function.LongSupplier;

/**
 * Writes a {@link PoolsConfig} as a normalised layout file: every default filled in, every size in
 * human units with its bytes in a comment, and the pools a preset expands to. What it writes parses
 * back, unchanged, into the same configuration.
 */
public final class LayoutPrinter {

    private LayoutPrinter() {}

    /** The whole file. */
    public static String print(PoolsConfig c, long defaultMaxPageSize) {
        return print(c, new Constant(defaultMaxPageSize));
    }

    /**
     * The same, with the default largest page asked for only by a preset without {@code max_page_size}:
     * a sliced layout does not make the agent read the JDK's direct memory limit to be printed.
     */
    public static String print(PoolsConfig c, LongSupplier defaultMaxPageSize) {
        StringBuilder b = new StringBuilder();
        layout(b, c.layout(), defaultMaxPageSize);
        return b.append(printSettings(c)).toString();
    }

    private record Constant(long value) implements LongSupplier {
        @Override
        public long getAsLong() {
            return value;
        }
    }

    /** The keys after the layout: interception, release, exhaustion, poisoning, the recording. */
    public static String printSettings(PoolsConfig c) {
        StringBuilder b = new StringBuilder();
        b.append("intercept:\n  packages: [")
                .append(String.join(", ", c.intercept()))
                .append("]\n");
        b.append("release: ").append(c.release().label()).append('\n');
        b.append("on_exhausted: ").append(c.onExhausted().label()).append('\n');
        b.append("poison_on_free: ").append(c.poisonOnFree()).append('\n');
        b.append("report:\n");
        b.append("  file: ")
                .append(c.reportFile() == null ? PoolsConfig.NO_REPORT : scalar(c.reportFile()))
                .append('\n');
        b.append("  period: ").append(Quantities.duration(c.reportPeriod())).append('\n');
        if (c.reportMaxSize() != PoolsConfig.DEFAULT_REPORT_MAX_SIZE) {
            b.append("  max_size: ")
                    .append(c.reportMaxSize() == 0 ? PoolsConfig.NO_REPORT : Layouts.describe(c.reportMaxSize()))
                    .append('\n');
        }
        if (c.report().trace() != null) {
            b.append("  trace: ").append(scalar(c.report().trace())).append('\n');
        }
        return b.toString();
    }

    /**
     * A file name as a YAML scalar that reads back as the same string: plain when it is letters,
     * digits and {@code _ . / - + %} that YAML reads as a string (not starting with {@code -} or
     * {@code %}, not a number, a boolean or null), double-quoted otherwise ({@code "run #%p.jfr"},
     * {@code "%h-%p.jfr"}).
     */
    static String scalar(String value) {
        if (plain(value)) {
            return value;
        }
        StringBuilder q = new StringBuilder("\"");
        for (int i = 0; i < value.length(); i++) {
            char ch = value.charAt(i);
            if (ch == '"' || ch == '\\') {
                q.append('\\').append(ch);
            } else if (ch < 0x20) {
                q.append("\\x").append(Character.forDigit(ch >> 4, 16)).append(Character.forDigit(ch & 15, 16));
            } else {
                q.append(ch);
            }
        }
        return q.append('"').toString();
    }

    /** No lambda, regex or formatter: this runs at the recording's start. */
    private static boolean plain(String value) {
        if (value.isEmpty() || value.charAt(0) == '-' || value.charAt(0) == '%') {
            return false;
        }
        boolean numberLike = true;
        for (int i = 0; i < value.length(); i++) {
            char ch = value.charAt(i);
            boolean letter = ch < 128 && Character.isLetter(ch);
            if (!(letter || (ch >= '0' && ch <= '9') || "_./-+%".indexOf(ch) >= 0)) {
                return false;
            }
            if (i == 0 && letter || ch == '/' || ch == '%') {
                numberLike = false;
            }
        }
        if (numberLike) {
            return false; // 123, 1.5, .5, +1, 0x10, 1e3: YAML may read a number
        }
        switch (value.toLowerCase(Locale.ROOT)) {
            case "null", "true", "false", "yes", "no", "on", "off", "y", "n" -> {
                return false;
            }
            default -> {
                return true;
            }
        }
    }

    private static void layout(StringBuilder b, MemoryPoolLayout layout, LongSupplier defaultMaxPageSize) {
        String kind = PoolsConfig.kindOf(layout);
        b.append("layout: ").append(kind).append('\n');
        if (layout instanceof MemoryPoolLayout.Sliced s) {
            b.append("pools:\n");
            for (SlicedPool p : s.pools()) {
                long page = Sizes.roundUp(p.pageSize());
                b.append("  - ").append(sizeLine("page_size", page));
                b.append("    ")
                        .append(sizeLine("max_slice", Sizes.roundUp(p.maxSlice().orElse(page))));
                if (p.pages().isPresent()) {
                    b.append("    pages: ").append(p.pages().getAsLong()).append('\n');
                } else {
                    b.append("    # pages: no cap, the pool grows (measuring)\n");
                }
            }
            return;
        }
        if (layout instanceof MemoryPoolLayout.Direct) {
            return;
        }
        OptionalLong given = layout instanceof MemoryPoolLayout.Host host
                ? host.maxPageSize()
                : layout instanceof MemoryPoolLayout.SubSlices sub
                        ? sub.maxPageSize()
                        : ((MemoryPoolLayout.ExclusivePages) layout).maxPageSize();
        long p = given.isPresent() ? Sizes.roundUp(given.getAsLong()) : defaultMaxPageSize.getAsLong();
        b.append(sizeLine("max_page_size", p));
        if (given.isEmpty()) {
            b.append("# max_page_size: the default, min(1 GiB, MaxDirectMemorySize / 4) on this JVM\n");
        }
        List<PoolSpec> pools = layout instanceof MemoryPoolLayout.Host
                ? Layouts.host(p)
                : layout instanceof MemoryPoolLayout.SubSlices ? Layouts.subSlices(p) : Layouts.exclusivePages(p);
        b.append("# ").append(kind).append(" expands to ").append(pools.size()).append(" pools:\n");
        for (int i = 0; i < pools.size(); i++) {
            b.append("#   ")
                    .append(i)
                    .append(": ")
                    .append(describe(pools.get(i)))
                    .append('\n');
        }
    }

    /** One pool in words, as {@code check} and {@code report} show it. */
    public static String describe(PoolSpec spec) {
        if (spec instanceof PoolSpec.Sliced s) {
            return "sliced, page_size " + size(s.pageSize()) + ", max_slice " + size(s.maxSlice())
                    + (s.capped() ? ", pages " + s.pagesCap() : ", no cap");
        }
        if (spec instanceof PoolSpec.Exclusive e) {
            return "exclusive, max_alloc " + size(e.maxAlloc()) + ", dealloc_period " + e.deallocPeriod();
        }
        return "direct";
    }

    /** A size in human units, with its bytes when the units round it: {@code 16 MiB}, {@code 50.3 KiB (51520 B)}. */
    private static String size(long bytes) {
        String human = Sizes.human(bytes);
        return human.contains(".") ? human + " (" + bytes + " B)" : human;
    }

    /** One {@code key: size} line, human units first and the bytes in a comment. */
    public static String sizeLine(String key, long bytes) {
        String human = Layouts.describe(bytes);
        String line = key + ": " + human;
        if (human.endsWith(" B")) {
            return line + "\n";
        }
        // As String.format("%-24s # %d B"), whose formatter costs the agent's start more than the rest.
        StringBuilder b = new StringBuilder(line);
        while (b.length() < 24) {
            b.append(' ');
        }
        return b.append(" # ").append(bytes).append(" B\n").toString();
    }
}
