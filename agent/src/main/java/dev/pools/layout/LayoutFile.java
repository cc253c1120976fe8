package dev.pools.layout;

import dev.pools.api.MemoryPoolLayout;
import dev.pools.api.SlicedPool;
import dev.pools.layout.YamlNode.Entry;
import dev.pools.layout.YamlNode.Mapping;
import dev.pools.layout.YamlNode.Scalar;
import dev.pools.layout.YamlNode.Sequence;
import dev.pools.layout.YamlNode.Type;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CoderResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.LongSupplier;

/**
 * Reads a layout file (CONTRACT.md §2) into a {@link PoolsConfig}, or refuses it with one line that
 * names the file, the line and the rule broken. Nothing is applied from a file that is refused.
 *
 * <p>This class is the schema: the YAML arrives as nodes from {@link YamlNodes} (not bound to
 * objects) so that every key keeps its line, and every key is checked: unknown keys and duplicates are errors, with a "did you mean" where one
 * known key is close.
 */
public final class LayoutFile {

    static final List<String> TOP_KEYS = List.of(
            "layout", "pools", "max_page_size", "intercept", "release", "on_exhausted", "poison_on_free", "report");
    static final List<String> LAYOUT_KEYS = List.of("layout", "pools", "max_page_size");
    static final List<String> POOL_KEYS = List.of("page_size", "max_slice", "pages");
    static final List<String> INTERCEPT_KEYS = List.of("packages");
    static final List<String> REPORT_KEYS = List.of("file", "period", "trace", "max_size");
    static final List<String> LAYOUT_KINDS = List.of("sliced", "direct", "host", "sub-slices", "exclusive-pages");

    /** Aliases to lists or mappings allowed in one file: a guard against alias bombs, as SnakeYAML's own. */
    private final String source;

    private final LongSupplier defaultMaxPageSize;
    private final Map<String, Integer> lines = new HashMap<>();

    /**
     * Read by the agent that runs it: the names it writes are checked on this machine as well
     * ({@code check} may run elsewhere, where the folders differ).
     */
    private final boolean toRun;

    private LayoutFile(String source, LongSupplier defaultMaxPageSize, boolean toRun) {
        this.source = source;
        this.defaultMaxPageSize = defaultMaxPageSize;
        this.toRun = toRun;
    }

    /** Reads and validates a layout file; {@code path} is named in messages as given. */
    /** The largest layout file read. */
    static final int MAX_FILE_BYTES = 1 << 20;

    public static PoolsConfig read(Path path, long defaultMaxPageSize) throws LayoutException {
        return read(path, () -> defaultMaxPageSize);
    }

    /** The same, with the default largest page asked for only when a preset needs it ({@link Layouts#compile}). */
    public static PoolsConfig read(Path path, LongSupplier defaultMaxPageSize) throws LayoutException {
        return read(path, defaultMaxPageSize, false);
    }

    /**
     * As the agent reads the file it runs: a {@code report.file} the file sets is also checked on this
     * machine, so that a recording this JVM cannot write (a folder, a device, a missing folder) stops
     * it before {@code main}, as any layout that cannot be honoured, instead of being said once when
     * the recording starts, after the run it was to measure.
     */
    public static PoolsConfig readToRun(Path path, LongSupplier defaultMaxPageSize) throws LayoutException {
        return read(path, defaultMaxPageSize, true);
    }

    private static PoolsConfig read(Path path, LongSupplier defaultMaxPageSize, boolean toRun) throws LayoutException {
        String source = path.toString();
        String text;
        // Through FileInputStream, not Files.readString: that loads two dozen channel classes the JVM
        // has not loaded yet, on the start-up path of every JVM the agent runs in.
        try (InputStream in = new FileInputStream(path.toFile())) {
            // Read no further than a layout can be: not a whole large file (or /dev/zero) into memory.
            byte[] bytes = readAtMost(in, MAX_FILE_BYTES + 1);
            if (bytes.length > MAX_FILE_BYTES) {
                throw new LayoutException(
                        source, 0, "the file is larger than 1 MiB (a layout is a few lines; is this the right file?)");
            }
            text = utf8(source, bytes);
        } catch (FileNotFoundException e) {
            if (!path.toFile().exists()) {
                throw new LayoutException(source, 0, "no such file");
            }
            throw new LayoutException(source, 0, "cannot read the file (" + e.getMessage() + ")");
        } catch (IOException e) {
            throw new LayoutException(
                    source, 0, "cannot read the file (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
        return parse(source, text, defaultMaxPageSize, toRun);
    }

    /**
     * Up to {@code max} bytes of {@code in}, read by plain reads: {@code FileInputStream.readNBytes}
     * of JDK 17 asks the file's size and position first, which a pipe has not ("Illegal seek": a layout
     * given as {@code -javaagent:pools.jar=<(...)} was refused).
     */
    private static byte[] readAtMost(InputStream in, int max) throws IOException {
        byte[] buffer = new byte[8192];
        int n = 0;
        for (int r; n < max && (r = in.read(buffer, n, Math.min(buffer.length, max) - n)) >= 0; ) {
            n += r;
            if (n == buffer.length && n < max) {
                buffer = Arrays.copyOf(buffer, Math.min(max, buffer.length * 2));
            }
        }
        return Arrays.copyOf(buffer, n);
    }

    /** {@code bytes} as UTF-8 text; refused with the line of the first byte that is not UTF-8. */
    private static String utf8(String source, byte[] bytes) throws LayoutException {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult result = StandardCharsets.UTF_8.newDecoder().decode(in, out, true);
        if (result.isError()) {
            int at = in.position();
            int line = 1;
            for (int i = 0; i < at; i++) {
                if (bytes[i] == '\n') {
                    line++;
                }
            }
            throw new LayoutException(
                    source,
                    line,
                    String.format("not UTF-8 text (byte 0x%02x; save the file as UTF-8)", bytes[at] & 0xff));
        }
        return out.flip().toString();
    }

    /** Parses and validates the text of a whole layout file. */
    public static PoolsConfig parse(String source, String text, long defaultMaxPageSize) throws LayoutException {
        return parse(source, text, () -> defaultMaxPageSize, false);
    }

    private static PoolsConfig parse(String source, String text, LongSupplier defaultMaxPageSize, boolean toRun)
            throws LayoutException {
        LayoutFile f = new LayoutFile(source, defaultMaxPageSize, toRun);
        return f.config(compose(source, text), TOP_KEYS);
    }

    /**
     * Parses the layout part of a file ({@code layout}, {@code pools}, {@code max_page_size}), as a
     * running JVM can install it; the other keys are set at start-up and refused here.
     */
    public static MemoryPoolLayout parseLayout(String source, String text, long defaultMaxPageSize)
            throws LayoutException {
        LayoutFile f = new LayoutFile(source, () -> defaultMaxPageSize, false);
        return f.config(compose(source, text), LAYOUT_KEYS).layout();
    }

    /**
     * The document's root node; refused with its line when the YAML is broken or holds no document.
     * A file of the plain shape {@code suggest} writes is read by {@link PlainYaml}, the rest by
     * SnakeYAML Engine ({@link YamlNodes}), whose classes are then loaded only for such a file.
     */
    private static YamlNode compose(String source, String text) throws LayoutException {
        if (text == null) {
            // The MBean's install takes a string that a JMX client may send as null (a review: a
            // NullPointerException where every other bad layout is one line).
            throw new LayoutException(source, 0, "no layout given (null); give the layout's YAML text");
        }
        YamlNode plain = PlainYaml.read(text);
        return plain != null ? plain : YamlNodes.composeInFull(source, text);
    }

    private PoolsConfig config(YamlNode root, List<String> allowed) throws LayoutException {
        Map<String, YamlNode> top = mapping(root, "", "the top level", allowed);
        for (String key : top.keySet()) {
            if (!allowed.contains(key)) {
                throw error(
                        top.get(key),
                        key + " is set at start-up only (install takes " + String.join(", ", allowed) + ")");
            }
        }
        String kind = top.containsKey("layout") ? choice(top.get("layout"), "layout", LAYOUT_KINDS) : "host";
        MemoryPoolLayout layout = layout(kind, top);
        try {
            Layouts.compile(layout, defaultMaxPageSize);
        } catch (LayoutException e) {
            Integer line = e.path() == null ? null : lines.get(e.path());
            throw e.in(source, line == null ? 0 : line);
        }
        PoolsConfig d = PoolsConfig.defaults();
        List<String> intercept = d.intercept();
        if (top.containsKey("intercept")) {
            Map<String, YamlNode> m = mapping(top.get("intercept"), "intercept.", "intercept", INTERCEPT_KEYS);
            if (m.containsKey("packages")) {
                intercept = packages(m.get("packages"));
            }
        }
        PoolsConfig.Release release = top.containsKey("release")
                ? PoolsConfig.Release.valueOf(choice(top.get("release"), "release", List.of("gc", "close"))
                        .toUpperCase(Locale.ROOT))
                : d.release();
        PoolsConfig.OnExhausted onExhausted = top.containsKey("on_exhausted")
                ? PoolsConfig.OnExhausted.valueOf(
                        choice(top.get("on_exhausted"), "on_exhausted", List.of("fallback", "fail"))
                                .toUpperCase(Locale.ROOT))
                : d.onExhausted();
        boolean poison = top.containsKey("poison_on_free")
                ? bool(top.get("poison_on_free"), "poison_on_free")
                : d.poisonOnFree();
        String file = d.reportFile();
        Duration period = d.reportPeriod();
        String trace = null;
        long maxSize = d.reportMaxSize();
        if (top.containsKey("report")) {
            Map<String, YamlNode> m = mapping(top.get("report"), "report.", "report", REPORT_KEYS);
            if (m.containsKey("file")) {
                file = fileName(m.get("file"), "report.file", "pools-%p.jfr");
                String expanded = file == null || !toRun ? null : FileNames.expand(file);
                String why = expanded == null ? null : FileNames.whyNotWritable(expanded);
                if (why != null) {
                    throw error(
                            m.get("file"),
                            "report.file " + expanded + " " + why
                                    + ": this JVM cannot write its recording there (none turns the recording off)");
                }
            }
            if (m.containsKey("period")) {
                period = duration(m.get("period"), "report.period");
                if (period.compareTo(PoolsConfig.MAX_REPORT_PERIOD) > 0) {
                    throw error(
                            m.get("period"),
                            "report.period: " + Quantities.duration(period) + " is longer than a day, the longest"
                                    + " (0 records only at the end)");
                }
            }
            if (m.containsKey("trace")) {
                trace = fileName(m.get("trace"), "report.trace", "trace-%p.txt");
            }
            if (m.containsKey("max_size")) {
                maxSize = maxSize(m.get("max_size"));
            }
            // Each name its own file: two writers of one file leave neither readable.
            if (trace != null && file != null && sameFile(trace, file)) {
                throw error(
                        m.get("trace"),
                        "report.trace names the same file as report.file (" + trace + "): the trace and the"
                                + " recording would overwrite each other");
            }
            // Nor the name the recording is set aside as at report.max_size, which replaced a trace there.
            if (trace != null && file != null && maxSize > 0 && sameFile(trace, file + ".1")) {
                throw error(
                        m.get("trace"),
                        "report.trace names the file report.file is set aside as at report.max_size (" + trace
                                + "), which would replace the trace");
            }
            if (file != null && maxSize > 0 && sameFile(file + ".1", source)) {
                throw error(
                        m.containsKey("file") ? m.get("file") : m.get("max_size"),
                        "report.file is set aside at report.max_size as this layout file itself (" + file
                                + ".1), which it would replace");
            }
            for (String key : List.of("file", "trace")) {
                String name = key.equals("file") ? file : trace;
                if (m.containsKey(key) && name != null && sameFile(name, source)) {
                    throw error(
                            m.get(key),
                            "report." + key + " names this layout file itself (" + name + "), which it would"
                                    + " overwrite");
                }
            }
        }
        return new PoolsConfig(
                source,
                layout,
                intercept,
                release,
                onExhausted,
                poison,
                new PoolsConfig.Report(file, period, trace, maxSize));
    }

    private MemoryPoolLayout layout(String kind, Map<String, YamlNode> top) throws LayoutException {
        boolean sliced = kind.equals("sliced");
        boolean preset = kind.equals("host") || kind.equals("sub-slices") || kind.equals("exclusive-pages");
        if (top.containsKey("pools") && !sliced) {
            throw new LayoutException(
                    source,
                    lines.getOrDefault("pools", 0),
                    "pools is only for layout: sliced (this layout is " + kind + ")");
        }
        if (top.containsKey("max_page_size") && !preset) {
            throw error(
                    top.get("max_page_size"),
                    "max_page_size is only for the presets host, sub-slices and exclusive-pages" + " (this layout is "
                            + kind + ")");
        }
        OptionalLong maxPageSize = top.containsKey("max_page_size")
                ? OptionalLong.of(size(top.get("max_page_size"), "max_page_size"))
                : OptionalLong.empty();
        switch (kind) {
            case "sliced":
                if (!top.containsKey("pools")) {
                    throw error(top.get("layout"), "pools is missing (layout: sliced needs a list of pools)");
                }
                return new MemoryPoolLayout.Sliced(pools(top.get("pools")));
            case "direct":
                return new MemoryPoolLayout.Direct();
            case "host":
                return new MemoryPoolLayout.Host(maxPageSize);
            case "sub-slices":
                return new MemoryPoolLayout.SubSlices(maxPageSize);
            default:
                return new MemoryPoolLayout.ExclusivePages(maxPageSize);
        }
    }

    private List<SlicedPool> pools(YamlNode node) throws LayoutException {
        if (!(node instanceof Sequence seq)) {
            throw error(node, "pools is not a list (expected '- page_size: ...' items)");
        }
        List<SlicedPool> out = new ArrayList<>();
        List<YamlNode> items = seq.items();
        for (int i = 0; i < items.size(); i++) {
            String at = "pools[" + i + "]";
            Map<String, YamlNode> m = mapping(items.get(i), at + ".", at, POOL_KEYS);
            if (!m.containsKey("page_size")) {
                throw error(items.get(i), at + ".page_size is missing (every pool needs a page size)");
            }
            long pageSize = size(m.get("page_size"), at + ".page_size");
            OptionalLong maxSlice = optional(m.get("max_slice"), at + ".max_slice", "for the default")
                    ? OptionalLong.of(size(m.get("max_slice"), at + ".max_slice"))
                    : OptionalLong.empty();
            OptionalLong pages = optional(m.get("pages"), at + ".pages", "for no cap")
                    ? OptionalLong.of(count(m.get("pages"), at + ".pages"))
                    : OptionalLong.empty();
            out.add(new SlicedPool(pageSize, pages, maxSlice));
        }
        return out;
    }

    /**
     * Present; a key with no value is refused, as for every other key: {@code pages:} with its number
     * forgotten read as no cap, silently.
     */
    private boolean optional(YamlNode node, String key, String leftOut) throws LayoutException {
        if (node != null && YamlNode.isNull(node)) {
            throw error(node, key + " has no value (leave the key out " + leftOut + ")");
        }
        return node != null;
    }

    /**
     * The keys of a mapping, each checked against {@code known} (misspellings get a suggestion)
     * and for duplicates, with their lines recorded under {@code prefix + key}.
     */
    private Map<String, YamlNode> mapping(YamlNode node, String prefix, String what, List<String> known)
            throws LayoutException {
        if (!(node instanceof Mapping map)) {
            throw error(node, what + " is not a mapping (expected 'key: value' lines)");
        }
        Map<String, YamlNode> out = new LinkedHashMap<>();
        Map<String, Integer> seen = new HashMap<>();
        for (Entry t : map.entries()) {
            YamlNode keyNode = t.key();
            if (!(keyNode instanceof Scalar k)) {
                throw error(keyNode, "a key in " + what + " is not a plain name");
            }
            String key = k.value();
            Integer first = seen.get(key);
            if (first != null) {
                throw error(keyNode, "duplicate key '" + prefix + key + "' (first at line " + first + ")");
            }
            if (!known.contains(key) && !(prefix.isEmpty() && TOP_KEYS.contains(key))) {
                String near = DidYouMean.closest(key, known);
                throw error(
                        keyNode,
                        "unknown key '" + prefix + key + "'" + (near == null ? "" : " (did you mean '" + near + "'?)")
                                + "; expected one of " + String.join(", ", known));
            }
            seen.put(key, keyNode.line());
            lines.put(prefix + key, keyNode.line());
            out.put(key, t.value());
        }
        return out;
    }

    private Scalar scalar(YamlNode node, String key, String expected) throws LayoutException {
        if (!(node instanceof Scalar s) || YamlNode.isNull(node)) {
            throw error(
                    node,
                    key + " has " + (YamlNode.isNull(node) ? "no value" : "a list or mapping") + " (expected "
                            + expected + ")");
        }
        return s;
    }

    private long size(YamlNode node, String key) throws LayoutException {
        Scalar s = scalar(node, key, "a size such as 65536 or 64 KiB");
        if (s.type() == Type.INT) {
            BigInteger v;
            try {
                v = new BigInteger(s.value().replace("_", ""));
            } catch (NumberFormatException e) {
                throw error(
                        node,
                        key + ": '" + s.value()
                                + "' is not a size (write a plain decimal number of bytes or use a unit)");
            }
            if (v.signum() < 0) {
                throw error(node, key + ": " + v + " is negative (expected a size of at least 1 byte)");
            }
            if (v.bitLength() > 62) {
                throw error(node, key + ": " + v + " is too large (the largest size is 2 GiB)");
            }
            return v.longValueExact();
        }
        if (s.type() != Type.STR) {
            throw error(
                    node, key + ": '" + s.value() + "' is not a size (expected bytes or a number with a unit: 64 KiB)");
        }
        try {
            return Quantities.size(key, s.value());
        } catch (IllegalArgumentException e) {
            throw error(node, e.getMessage());
        }
    }

    private long count(YamlNode node, String key) throws LayoutException {
        Scalar s = scalar(node, key, "a whole number of pages");
        if (s.type() != Type.INT) {
            throw error(
                    node, key + ": '" + s.value() + "' is not a whole number (expected a number of pages, 1..=65535)");
        }
        BigInteger v;
        try {
            v = new BigInteger(s.value().replace("_", ""));
        } catch (NumberFormatException e) {
            // A value tagged !!int that is no decimal number (!!int abc, !!int 0x10).
            throw error(
                    node, key + ": '" + s.value() + "' is not a whole number (expected a number of pages, 1..=65535)");
        }
        if (v.bitLength() > 62) {
            throw error(node, key + " (" + v + ") is outside 1..=" + Layouts.MAX_PAGES);
        }
        return v.longValueExact();
    }

    private boolean bool(YamlNode node, String key) throws LayoutException {
        Scalar s = scalar(node, key, "true or false");
        String v = s.value().toLowerCase(Locale.ROOT);
        // A value tagged !!bool is whatever it says (!!bool yes): only true and false are.
        if (s.type() != Type.BOOL || !(v.equals("true") || v.equals("false"))) {
            throw error(node, key + ": '" + s.value() + "' is not true or false");
        }
        return v.equals("true");
    }

    private String choice(YamlNode node, String key, List<String> values) throws LayoutException {
        Scalar s = scalar(node, key, String.join(" or ", values));
        String v = s.value().trim();
        for (String value : values) {
            if (value.equalsIgnoreCase(v)) {
                return value;
            }
        }
        String near = DidYouMean.closest(v, values);
        throw error(
                node,
                "unknown value '" + v + "' for " + key + (near == null ? "" : " (did you mean '" + near + "'?)")
                        + "; expected " + String.join(", ", values));
    }

    /** {@code report.max_size}: a size of at least {@link PoolsConfig#MIN_REPORT_MAX_SIZE}, or none (0). */
    private long maxSize(YamlNode node) throws LayoutException {
        if (node instanceof Scalar s && PoolsConfig.isNone(s.value())) {
            return 0;
        }
        long v = size(node, "report.max_size");
        if (v < PoolsConfig.MIN_REPORT_MAX_SIZE) {
            throw error(
                    node,
                    "report.max_size: " + Layouts.describe(v) + " is less than "
                            + Layouts.describe(PoolsConfig.MIN_REPORT_MAX_SIZE)
                            + ", the least a file needs (or none: the file grows for as long as the JVM runs)");
        }
        return v;
    }

    private Duration duration(YamlNode node, String key) throws LayoutException {
        Scalar s = scalar(node, key, "a duration such as 1 s");
        try {
            return Quantities.duration(key, s.value());
        } catch (IllegalArgumentException e) {
            throw error(node, e.getMessage());
        }
    }

    private List<String> packages(YamlNode node) throws LayoutException {
        if (!(node instanceof Sequence seq)) {
            throw error(node, "intercept.packages is not a list (expected e.g. [ai.djl, ai.onnxruntime])");
        }
        List<String> out = new ArrayList<>();
        for (YamlNode item : seq.items()) {
            String p =
                    scalar(item, "intercept.packages", "a package name").value().trim();
            if (!isPackageName(p)) {
                throw error(item, "intercept.packages: '" + p + "' is not a Java package name");
            }
            String kept = leftAlone(p);
            if (kept != null) {
                throw error(
                        item,
                        "intercept.packages: '" + p + "' cannot be intercepted: it "
                                + (p.equals(kept) || p.startsWith(kept + ".") ? "is" : "contains") + " " + kept
                                + " (JDK and pools classes are left alone)");
            }
            out.add(p);
        }
        return out;
    }

    /**
     * Whether {@code p} is dot-separated identifiers of ASCII letters, digits, '_' and '$', none
     * starting with a digit (the regular expression {@code [A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*},
     * read by hand: the first regular expression of a JVM costs premain milliseconds).
     */
    static boolean isPackageName(String p) {
        boolean start = true;
        for (int i = 0; i < p.length(); i++) {
            char c = p.charAt(i);
            boolean letter = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_' || c == '$';
            if (c == '.' && !start) {
                start = true;
            } else if (letter || !start && c >= '0' && c <= '9') {
                start = false;
            } else {
                return false;
            }
        }
        return !start;
    }

    /** Whether every '%' in {@code f} starts %p, %t, %h or %% (the regular expression {@code ([^%]|%[pth%])*}). */
    static boolean knownPlaceholders(String f) {
        for (int i = 0; i < f.length(); i++) {
            if (f.charAt(i) == '%') {
                if (i + 1 == f.length() || "pth%".indexOf(f.charAt(i + 1)) < 0) {
                    return false;
                }
                i++;
            }
        }
        return true;
    }

    /** Packages never instrumented: the JDK's and the agent's own. */
    static final List<String> LEFT_ALONE = List.of("java", "jdk", "sun", "dev.pools");

    /** The package of {@link #LEFT_ALONE} that {@code p} is, lies in, or contains; null if none. */
    static String leftAlone(String p) {
        for (String kept : LEFT_ALONE) {
            if (p.equals(kept) || p.startsWith(kept + ".") || kept.startsWith(p + ".")) {
                return kept;
            }
        }
        return null;
    }

    /** A file name pattern ({@code %p}, {@code %t}), or {@code none} (null). */
    private String fileName(YamlNode node, String key, String example) throws LayoutException {
        String f = scalar(node, key, "a file name, or none").value();
        String rule = fileNameRule(f, key, example);
        if (rule != null) {
            throw error(node, rule);
        }
        f = f.trim();
        return PoolsConfig.isNone(f) ? null : f;
    }

    /**
     * The rule a file name pattern ({@code %p}, {@code %t}, {@code %h}, or {@code none}) breaks, as the layout
     * file says it for {@code key}; null when it is fine. For the CLI's options too.
     */
    public static String fileNameRule(String value, String key, String example) {
        String f = value.trim();
        if (f.isEmpty()) {
            return key + " is empty (expected a file name such as " + example + ", or none)";
        }
        if (!PoolsConfig.isNone(f) && !knownPlaceholders(f)) {
            return key + ": '" + f
                    + "' has an unknown placeholder (expected %p for the process id, %t for the start time, %h for the host"
                    + " name)";
        }
        return null;
    }

    /** Whether two file names (relative to the working directory) are one file, as far as their text says. */
    private static boolean sameFile(String a, String b) {
        try {
            return Path.of(a)
                    .toAbsolutePath()
                    .normalize()
                    .equals(Path.of(b).toAbsolutePath().normalize());
        } catch (RuntimeException e) {
            return a.equals(b); // not a path here: the writer says so when it opens it
        }
    }

    private LayoutException error(YamlNode node, String rule) {
        String r = rule;
        if (node instanceof Scalar s && s.value().length() > SHOWN) {
            // A value of half a million digits is not echoed whole: the line stays one line to read.
            for (String v :
                    List.of(s.value(), s.value().replace("_", ""), s.value().trim())) {
                r = r.replace(v, v.substring(0, SHOWN / 2) + "... (" + v.length() + " characters)");
            }
        }
        return new LayoutException(source, node == null ? 0 : node.line(), r);
    }

    /** The longest value an error repeats whole. */
    static final int SHOWN = 80;
}
