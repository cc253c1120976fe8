package dev.pools.cli;

import dev.pools.memory.Sizes;
import dev.pools.recording.EventNames;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Many recordings side by side, one row per JVM (the executors of a cluster, the replicas of a
 * service), and the fleet's maximum of each column: what one layout for all of them must hold.
 */
final class FleetReport {

    private final List<RecordingSummary> runs;

    FleetReport(List<RecordingSummary> runs) {
        this.runs = runs;
    }

    /** Each pool's peak pages, in pool order: the numbers {@code suggest} caps at. */
    static List<Long> peakPages(RecordingSummary s) {
        List<Long> out = new ArrayList<>();
        for (RecordingSummary.Pool p : s.pools.values()) {
            out.add(p.pagesPeak());
        }
        return out;
    }

    /**
     * The per-pool maximum over all runs, or null when their pools differ (in number, kind, page size
     * or slice limit): pages of different sizes have no maximum.
     */
    List<Long> maxPeakPages() {
        List<Long> max = null;
        List<String> shapes = null;
        for (RecordingSummary s : runs) {
            List<Long> pages = peakPages(s);
            List<String> shape = new ArrayList<>();
            for (RecordingSummary.Pool p : s.pools.values()) {
                shape.add(p.kind() + " " + p.pageSize() + " " + p.maxSlice());
            }
            if (max == null) {
                max = new ArrayList<>(pages);
                shapes = shape;
            } else if (!shapes.equals(shape)) {
                return null;
            } else {
                for (int i = 0; i < pages.size(); i++) {
                    max.set(i, Math.max(max.get(i), pages.get(i)));
                }
            }
        }
        return max;
    }

    /** The folder every recording is in, when they share one: the table then names files only. */
    private Path commonFolder() {
        Path folder = null;
        for (RecordingSummary s : runs) {
            Path parent = s.file.toAbsolutePath().getParent();
            if (folder != null && !folder.equals(parent)) {
                return null;
            }
            folder = parent;
        }
        return folder;
    }

    static String state(RecordingSummary s) {
        return s.recoveredFrom == null ? "complete" : s.running ? "running" : "recovered";
    }

    /**
     * What the peaks in bytes are: a JVM that held 7.6 MiB between two batches showed 0 B there, as the
     * fleet's row does not say "as sampled" as a single recording's line does.
     */
    static final String SAMPLED =
            "peak reserved and peak in use are as sampled (at each batch, report.period apart, and"
                    + " at the end): a peak between two batches is missed there, not in the pools' peak pages nor in each"
                    + " call site's peak live";

    String text() {
        Table t = new Table(
                        "recording",
                        "pid",
                        "duration",
                        "state",
                        "peak reserved",
                        "peak in use",
                        "peak pages per pool",
                        "fallbacks",
                        "refusals")
                .rightAligned(1, 2, 4, 5, 7, 8);
        long reserved = 0;
        long inUse = 0;
        long fallbacks = 0;
        long refusals = 0;
        long totalFallbacks = 0;
        long totalRefusals = 0;
        Path folder = commonFolder();
        for (RecordingSummary s : runs) {
            t.row(
                    folder == null ? s.name() : Path.of(s.name()).getFileName(),
                    s.pid < 0 ? "-" : s.pid,
                    ReportCommand.span(s.start, s.end),
                    state(s),
                    Sizes.human(s.peakReserved),
                    Sizes.human(s.peakInUse),
                    pages(peakPages(s)),
                    s.usage.fallbackAllocs(),
                    s.refusals());
            reserved = Math.max(reserved, s.peakReserved);
            inUse = Math.max(inUse, s.peakInUse);
            fallbacks = Math.max(fallbacks, s.usage.fallbackAllocs());
            refusals = Math.max(refusals, s.refusals());
            totalFallbacks += s.usage.fallbackAllocs();
            totalRefusals += s.refusals();
        }
        List<Long> max = maxPeakPages();
        t.row(
                "fleet maximum",
                "",
                "",
                "",
                Sizes.human(reserved),
                Sizes.human(inUse),
                max == null ? "(layouts differ)" : pages(max),
                fallbacks,
                refusals);
        StringBuilder b = new StringBuilder();
        b.append("fleet: ").append(runs.size()).append(" JVMs");
        long recovered =
                runs.stream().filter(s -> s.recoveredFrom != null && !s.running).count();
        long running = runs.stream().filter(s -> s.running).count();
        if (recovered > 0) {
            b.append(", ")
                    .append(recovered)
                    .append(" recovered from a JVM that did not exit cleanly (up to its last batch)");
        }
        if (running > 0) {
            b.append(", ").append(running).append(" read while the JVM runs (up to its last batch)");
        }
        if (folder != null) {
            b.append(", recordings in ").append(folder);
        }
        b.append("\n\n").append(t);
        b.append("fleet total:       ")
                .append(totalFallbacks)
                .append(" fallbacks, ")
                .append(totalRefusals)
                .append(" refusals\n");
        b.append(SAMPLED).append('\n');
        ReportCommand.appendCollections(
                b,
                runs.stream().mapToLong(s -> s.usage.collections()).sum(),
                runs.stream().mapToLong(s -> s.usage.collectionNanos()).sum(),
                " in all JVMs");
        return b.toString();
    }

    Map<String, Object> json() {
        List<Object> rows = new ArrayList<>();
        for (RecordingSummary s : runs) {
            rows.add(row(
                    s.file.toString(),
                    s.pid,
                    state(s),
                    s.peakReserved,
                    s.peakInUse,
                    peakPages(s),
                    s.usage.fallbackAllocs(),
                    s.refusals()));
        }
        long reserved = runs.stream().mapToLong(s -> s.peakReserved).max().orElse(0);
        long inUse = runs.stream().mapToLong(s -> s.peakInUse).max().orElse(0);
        long fallbacks =
                runs.stream().mapToLong(s -> s.usage.fallbackAllocs()).max().orElse(0);
        long refusals =
                runs.stream().mapToLong(RecordingSummary::refusals).max().orElse(0);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("jvms", rows);
        m.put("maximum", row(null, -1, null, reserved, inUse, maxPeakPages(), fallbacks, refusals));
        m.put("limits", Budget.limits(runs));
        return m;
    }

    private static Map<String, Object> row(
            String file,
            long pid,
            String state,
            long reserved,
            long inUse,
            List<Long> pages,
            long fallbacks,
            long refusals) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (file != null) {
            m.put("file", file);
            m.put("pid", pid);
            m.put("state", state);
        }
        m.put("peak", Json.obj(EventNames.BYTES_RESERVED, reserved, EventNames.BYTES_IN_USE, inUse, "sampled", true));
        m.put(EventNames.PAGES_PEAK, pages == null ? null : new ArrayList<Object>(pages));
        m.put(EventNames.FALLBACK_ALLOCS, fallbacks);
        m.put("refusals", refusals);
        return m;
    }

    private static String pages(List<Long> pages) {
        StringBuilder b = new StringBuilder();
        for (Long p : pages) {
            b.append(b.length() == 0 ? "" : " / ").append(p);
        }
        return b.toString();
    }
}
