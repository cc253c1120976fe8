package dev.pools.cli;

import dev.pools.layout.LayoutException;
import dev.pools.layout.LayoutFile;
import dev.pools.layout.Layouts;
import dev.pools.memory.PoolKind;
import dev.pools.memory.Sizes;
import dev.pools.recording.EventNames;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;

/**
 * The process's memory budget from {@code pools.ProcessMemory}: the peak of each part over the run
 * (of one JVM, or the largest of many), and the limits it calls for.
 */
final class Budget {

    /** The parts, in the order they are printed; the JSON keys are the event's field names. */
    static final List<String> FIELDS = List.of(
            EventNames.RSS_PEAK,
            EventNames.RSS_ANON,
            EventNames.RSS_FILE,
            EventNames.HEAP_USED,
            EventNames.HEAP_COMMITTED,
            EventNames.METASPACE,
            EventNames.CODE_CACHE,
            EventNames.OTHER_NON_HEAP,
            EventNames.THREADS,
            EventNames.JDK_DIRECT,
            EventNames.POOLS_RESERVED,
            EventNames.POOLS_IN_USE,
            EventNames.NATIVE_OTHER);

    /**
     * Direct memory outside the pools' pages (host buffers not intercepted, fallbacks), at its peak: the
     * largest sample, or, when more, the most right after a fallback (the agent's, which no sample misses).
     */
    static final String DIRECT_OUTSIDE_POOLS = "directOutsidePools";

    /** The largest sample of the direct memory outside the pools' pages. */
    private static final String SAMPLED_OUTSIDE = "sampledOutside";

    /**
     * The most native memory outside the JVM's parts there can have been, at its peak: the anonymous
     * resident set minus only what is surely resident of those parts (the heap's used part, the direct
     * buffers outside the pools and the pools' slices in use, which were all written; metaspace and
     * code as committed). {@code nativeOther}, from the committed heap and every pool page, is the
     * least; the memory nobody else accounts for lies between the two, which touched pages of the
     * committed heap and the pools decide.
     */
    static final String NATIVE_OTHER_AT_MOST = "nativeOtherAtMost";

    private final Map<String, Long> peaks = new LinkedHashMap<>();
    private int samples;

    int samples() {
        return samples;
    }

    long peak(String field) {
        if (field.equals(DIRECT_OUTSIDE_POOLS)) {
            long sampled = peaks.getOrDefault(SAMPLED_OUTSIDE, -1L);
            return sampled < 0 ? sampled : Math.max(sampled, atFallbacks());
        }
        return peaks.getOrDefault(field, -1L);
    }

    /** The most direct memory outside the pools' pages right after a fallback; -1 if none or unknown. */
    long atFallbacks() {
        return peaks.getOrDefault(EventNames.DIRECT_OUTSIDE_AT_FALLBACKS, -1L);
    }

    void accept(RecordedEvent e) {
        samples++;
        for (String f : FIELDS) {
            long v = e.getLong(f);
            if (f.equals(EventNames.RSS_PEAK)) {
                v = Math.max(v, e.getLong(EventNames.RSS));
            }
            peaks.merge(f, v, Math::max);
        }
        long outside = directOutside(e);
        peaks.merge(SAMPLED_OUTSIDE, outside, Math::max);
        if (e.hasField(EventNames.DIRECT_OUTSIDE_AT_FALLBACKS)) {
            peaks.merge(
                    EventNames.DIRECT_OUTSIDE_AT_FALLBACKS,
                    e.getLong(EventNames.DIRECT_OUTSIDE_AT_FALLBACKS),
                    Math::max);
        }
        peaks.merge(NATIVE_OTHER_AT_MOST, nativeOtherAtMost(e, outside), Math::max);
    }

    /**
     * The direct memory outside the pools' pages at one sample; -1 if unknown. Recordings of agents
     * before 2026-12-06 have only the JDK's count and the pools' reserve from their reports, taken a
     * moment before: a page reserved in between counts there as outside.
     */
    static long directOutside(RecordedEvent e) {
        if (e.hasField(EventNames.DIRECT_OUTSIDE)) {
            return e.getLong(EventNames.DIRECT_OUTSIDE);
        }
        long direct = e.getLong(EventNames.JDK_DIRECT);
        return direct < 0 ? -1 : Math.max(0, direct - e.getLong(EventNames.POOLS_RESERVED));
    }

    private static long nativeOtherAtMost(RecordedEvent e, long directOutside) {
        long anon = e.getLong(EventNames.RSS_ANON);
        if (anon < 0 || e.getLong(EventNames.NATIVE_OTHER) < 0) {
            return -1;
        }
        long surelyResident = e.getLong(EventNames.HEAP_USED)
                + e.getLong(EventNames.METASPACE)
                + e.getLong(EventNames.CODE_CACHE)
                + e.getLong(EventNames.OTHER_NON_HEAP)
                + Math.max(0, directOutside)
                + Math.max(0, e.getLong(EventNames.POOLS_IN_USE));
        return Math.max(0, anon - surelyResident);
    }

    /**
     * A run whose process memory was sampled once: with {@code report.period: 0} (at its end only), or
     * by a JVM that ended or was killed before its second batch. Its direct memory outside the pools
     * at that moment may be below its peak; null if none.
     */
    static RecordingSummary sampledOnce(List<RecordingSummary> runs) {
        for (RecordingSummary r : runs) {
            if (r.budget.samples == 1) {
                return r;
            }
        }
        return null;
    }

    /**
     * Whether no run was sampled more than once: then no direct memory limit can be derived (a single
     * sample is not a peak). With others sampled over their run, a run sampled once counts with what
     * its sample holds, and the limit says so.
     */
    static boolean sampledOnceOnly(List<RecordingSummary> runs) {
        for (RecordingSummary r : runs) {
            if (r.budget.samples > 1) {
                return false;
            }
        }
        return sampledOnce(runs) != null;
    }

    /** Why {@code run} has one sample of the process's memory, as the comments say it. */
    static String sampledOnceWhy(RecordingSummary run) {
        boolean periodZero = false;
        try {
            periodZero = run.layoutYaml != null
                    && LayoutFile.parse("recorded", run.layoutYaml, Layouts.GIB)
                            .reportPeriod()
                            .isZero();
        } catch (LayoutException | RuntimeException e) {
            // An older agent's layout: said without the period.
        }
        return periodZero
                ? "has the process's memory at its end only (report.period: 0), not at its peak"
                : "has one sample of the process's memory (its JVM ended or was killed before its second batch),"
                        + " maybe not its peak";
    }

    /** How long after its JVM's start a recording may begin and still be whole: the agent's start, the first batch. */
    static final long WHOLE_WITHIN_MILLIS = 10_000;

    /**
     * A run whose recording misses its JVM's start: an agent attached to a running JVM (said by the
     * recording), or a recording that begins well after its JVM started (its earlier part set aside
     * and replaced at {@code report.max_size}); null if none.
     */
    static RecordingSummary beganLate(List<RecordingSummary> runs) {
        for (RecordingSummary r : runs) {
            if (r.attachedLate
                    || (r.jvmStart >= 0
                            && r.start != null
                            && r.start.toEpochMilli() - r.jvmStart > WHOLE_WITHIN_MILLIS)) {
                return r;
            }
        }
        return null;
    }

    /** The largest of each part over several runs: what one limit for all of them must hold. */
    static Budget largest(List<RecordingSummary> runs) {
        Budget b = new Budget();
        for (RecordingSummary r : runs) {
            b.samples += r.budget.samples;
            r.budget.peaks.forEach((k, v) -> b.peaks.merge(k, v, Math::max));
        }
        return b;
    }

    /** A container memory limit: the peak resident set plus headroom, in whole MiB; -1 when unknown. */
    long containerLimit(double headroom) {
        long rss = peak(EventNames.RSS_PEAK);
        return rss < 0 ? -1 : roundUpMib(rss * (1 + headroom));
    }

    /**
     * {@code -XX:MaxDirectMemorySize} for {@code cappedPages} bytes of capped pages (their caps hold the
     * headroom already, and the pools never reserve more) and the direct memory outside the pools at its
     * peak plus headroom, in whole MiB.
     */
    long maxDirectMemory(long cappedPages, double headroom) {
        long outside = Math.max(0, peak(DIRECT_OUTSIDE_POOLS));
        return roundUpMib(cappedPages + outside * (1 + headroom));
    }

    static long roundUpMib(double bytes) {
        long mib = 1 << 20;
        return (long) Math.ceil(bytes / mib - 1e-9) * mib;
    }

    String text() {
        StringBuilder b = new StringBuilder();
        b.append("process memory, the peak of each part over the run (")
                .append(samples)
                .append(" samples; the resident set's peak is the kernel's high-water mark):\n");
        Table t = new Table("part", "peak", "").rightAligned(1);
        t.row(
                "resident set (RSS)",
                size(EventNames.RSS_PEAK),
                "anonymous " + size(EventNames.RSS_ANON) + ", file-backed " + size(EventNames.RSS_FILE));
        t.row("Java heap", size(EventNames.HEAP_COMMITTED), "committed; " + size(EventNames.HEAP_USED) + " used");
        t.row("metaspace", size(EventNames.METASPACE), "");
        t.row("code cache", size(EventNames.CODE_CACHE), "");
        t.row("other non-heap", size(EventNames.OTHER_NON_HEAP), "");
        t.row(
                "JDK direct buffers",
                size(EventNames.JDK_DIRECT),
                "the pools' pages included; " + size(DIRECT_OUTSIDE_POOLS) + " outside them" + fallbackShare());
        t.row("pools", size(EventNames.POOLS_RESERVED), "reserved; " + size(EventNames.POOLS_IN_USE) + " in use");
        t.row(
                "native, other",
                nativeOther(),
                "RSS minus the JVM's parts: native libraries, malloc, thread stacks; from the committed heap"
                        + " and pool pages all resident to only their used part");
        t.row("threads", peak(EventNames.THREADS) < 0 ? "-" : String.valueOf(peak(EventNames.THREADS)), "");
        return b.append(t).toString();
    }

    /**
     * The limits at the measured peaks (no headroom; {@code suggest} adds it), over one or many
     * runs: the pools' pages at each pool's largest peak plus the direct memory outside them, and
     * the largest resident set. -1 where unknown.
     */
    static Map<String, Object> limits(List<RecordingSummary> runs) {
        Map<Integer, Long> pageBytes = new LinkedHashMap<>();
        for (RecordingSummary r : runs) {
            for (RecordingSummary.Pool p : r.pools.values()) {
                long bytes;
                if (p.kind().equals(PoolKind.EXCLUSIVE.label())) {
                    // As suggest caps it: pages of the largest request, one per live allocation at most.
                    long pages = p.allocsPeak() >= 0 ? Math.min(p.pagesPeak(), p.allocsPeak()) : p.pagesPeak();
                    bytes = pages * Sizes.roundUp(p.largestAlloc());
                } else {
                    bytes = p.pageSize() > 0 ? p.pagesPeak() * p.pageSize() : p.bytesReserved();
                }
                pageBytes.merge(p.index(), bytes, Math::max);
            }
        }
        long pages = pageBytes.values().stream().mapToLong(Long::longValue).sum();
        Budget b = largest(runs);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("maxDirectMemorySize", b.samples == 0 || sampledOnceOnly(runs) ? -1 : b.maxDirectMemory(pages, 0));
        m.put("containerMemory", b.samples == 0 ? -1 : b.containerLimit(0));
        return m;
    }

    Map<String, Object> json() {
        Map<String, Object> m = new LinkedHashMap<>();
        peaks.forEach((k, v) -> {
            if (k.equals(SAMPLED_OUTSIDE)) {
                m.put(DIRECT_OUTSIDE_POOLS, peak(DIRECT_OUTSIDE_POOLS));
            } else {
                m.put(k, v);
            }
        });
        m.put("samples", samples);
        long limit = containerLimit(0);
        m.put("containerLimitAtPeak", limit);
        return m;
    }

    /** What of the direct memory outside the pools the fallbacks took, when they took any. */
    private String fallbackShare() {
        long atFallbacks = atFallbacks();
        long sampled = peaks.getOrDefault(SAMPLED_OUTSIDE, -1L);
        return atFallbacks < 0 || atFallbacks <= sampled
                ? ""
                : " (right after a fallback, by the JDK's count; the samples saw at most "
                        + Sizes.human(Math.max(0, sampled)) + ")";
    }

    /** The native memory nobody else accounts for, as the range the samples allow: "12 MiB to 80 MiB". */
    private String nativeOther() {
        long least = peak(EventNames.NATIVE_OTHER);
        long most = peak(NATIVE_OTHER_AT_MOST);
        if (least < 0) {
            return "-";
        }
        return most < 0 || most == least ? Sizes.human(least) : Sizes.human(least) + " to " + Sizes.human(most);
    }

    private String size(String field) {
        long v = peak(field);
        return v < 0 ? "-" : Sizes.human(v);
    }
}
