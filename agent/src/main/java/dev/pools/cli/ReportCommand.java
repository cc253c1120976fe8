package dev.pools.cli;

import dev.pools.memory.PoolKind;
import dev.pools.memory.Sizes;
import dev.pools.recording.EarlyRefusals;
import dev.pools.recording.EventNames;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "report",
        mixinStandardHelpOptions = true,
        description =
                "Prints what each recording says at its end: per pool its kind, page size, slice limit, cap, pages,"
                        + " peak pages against the cap and largest allocation; the usage and its peak over the run; fallbacks and"
                        + " refusals; the top call sites. Given several recordings (the JVMs of a fleet), it ends with one row"
                        + " per JVM and the fleet's maximum. A recording left empty by a killed JVM is read from the JFR"
                        + " repository the agent keeps beside it (<file>.d), up to its last flush.")
final class ReportCommand implements Callable<Integer> {

    static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

    @Parameters(paramLabel = "RECORDING", arity = "1..*", description = "Recordings (.jfr) written by the agent.")
    List<Path> files;

    @Option(names = "--json", description = "Print the same content as JSON, for scripts.")
    boolean json;

    @Option(
            names = "--top",
            defaultValue = "10",
            description = "How many call sites to list (default: ${DEFAULT-VALUE}).")
    int top;

    @Override
    public Integer call() {
        if (top < 0) {
            throw new BadInput("--top " + top + ": expected a number of call sites, 0 or more");
        }
        List<RecordingSummary> summaries = RecordingSummary.readAll(files, false);
        if (json) {
            List<Object> out = new ArrayList<>();
            for (RecordingSummary s : summaries) {
                out.add(toJson(s));
            }
            Map<String, Object> all = Json.obj("recordings", out);
            if (summaries.size() > 1) {
                all.put("fleet", new FleetReport(summaries).json());
            }
            System.out.print(Json.write(all));
        } else {
            for (int i = 0; i < summaries.size(); i++) {
                System.out.print((i > 0 ? "\n" : "") + text(summaries.get(i), top));
            }
            if (summaries.size() > 1) {
                System.out.print("\n" + new FleetReport(summaries).text());
            }
        }
        return ExitStatus.DONE;
    }

    /**
     * How long a recording spans, as the HTML report says it: tenths of a second below a minute when
     * they count (a JVM recorded whole at its end spans less than its first period), then minutes.
     */
    static String span(Instant start, Instant end) {
        return Charts.elapsed(Duration.between(start, end).toMillis() / 1000.0);
    }

    static String text(RecordingSummary s, int top) {
        StringBuilder b = new StringBuilder();
        b.append(s.name())
                .append(": ")
                .append(TIME.format(s.start))
                .append(" to ")
                .append(TIME.format(s.end))
                .append(" (")
                .append(span(s.start, s.end))
                .append("), layout ")
                .append(s.layoutKind)
                .append(" (")
                .append(s.layoutOrigin())
                .append(")\n");
        if (s.pid >= 0) {
            b.append("process ").append(s.pid).append('\n');
        }
        if (s.attachedLate) {
            b.append("attached late: the agent was loaded into the running JVM; what it held before is not here\n");
        }
        if (s.running) {
            b.append("read while its JVM runs: ")
                    .append(s.recoveredFrom)
                    .append(" is what it had written up to its last batch, without the call sites and request sizes")
                    .append(" of its end\n");
        } else if (s.recoveredFrom != null) {
            b.append("recovered from ")
                    .append(s.recoveredFrom)
                    .append(
                            ": its JVM did not end the recording (killed, or its file could not be written to the end, as"
                                    + " on a full disk, which the JVM's output says); this is what it had written, up to")
                    .append(" about one report.period before it ended, without the call sites and request sizes of the")
                    .append(" end\n");
        }
        b.append('\n');
        Table t = new Table(
                        "pool",
                        "kind",
                        "page size",
                        "max slice",
                        "cap",
                        "pages",
                        "peak",
                        "peak/cap",
                        "largest alloc",
                        "allocs",
                        "in use",
                        "reserved")
                .rightAligned(0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
        for (RecordingSummary.Pool p : s.pools.values()) {
            t.row(
                    p.index(),
                    p.kind(),
                    p.pageSize() == 0 ? "-" : Sizes.human(p.pageSize()),
                    p.kind().equals(PoolKind.DIRECT.label()) ? "-" : Sizes.human(p.maxSlice()),
                    p.pagesCap() < 0 ? "none" : p.pagesCap(),
                    p.pages(),
                    p.pagesPeak(),
                    p.pagesCap() < 0 ? "-" : Math.round(100.0 * p.pagesPeak() / p.pagesCap()) + " %",
                    p.largestAlloc() == 0 ? "-" : Sizes.human(p.largestAlloc()),
                    p.numberAllocs(),
                    Sizes.human(p.bytesInUse()),
                    Sizes.human(p.bytesReserved()));
        }
        b.append(t).append('\n');
        RecordingSummary.Usage u = s.usage;
        b.append("usage at the end:  ")
                .append(u.numberAllocs())
                .append(" allocations, ")
                .append(Sizes.human(u.bytesInUse()))
                .append(" in use, ")
                .append(Sizes.human(u.bytesPadding()))
                .append(" padding, ")
                .append(Sizes.human(u.bytesReserved()))
                .append(" reserved\n");
        appendRuns(b, s);
        b.append("peak over the run: ")
                .append(Sizes.human(s.peakReserved))
                .append(" reserved, ")
                .append(Sizes.human(s.peakInUse))
                .append(" in use (as sampled by the recording)\n");
        b.append("fallbacks:         ")
                .append(u.fallbackAllocs())
                .append(" (")
                .append(Sizes.human(u.fallbackBytes()))
                .append(")   refusals: ")
                .append(s.refusals())
                .append('\n');
        long recorded = s.refusedCount(null);
        if (recorded < s.refusals()) {
            // The counters cover the JVM's whole run; the refusals listed are those this recording holds one by one.
            b.append("                   ")
                    .append(s.refusals() - recorded)
                    .append(" of the refusals are counted only, not recorded one by one here: before this file")
                    .append(" (report.max_size), past the first " + EarlyRefusals.KEPT + " before the recording")
                    .append(" started, or more than the recording keeps between two batches\n");
        }
        if (s.stoppedBy != null) {
            b.append("stopped:           ")
                    .append(s.stoppedBy)
                    .append("; from then on the JDK served every request, the pools' figures end there")
                    .append(" (README, Troubleshooting)\n");
        }
        appendCollections(b, u.collections(), u.collectionNanos(), "");
        if (s.budget.samples() > 0) {
            b.append('\n').append(s.budget.text());
        }
        List<RecordingSummary.Site> sites = topSites(s, top);
        if (!sites.isEmpty()) {
            b.append("\ntop call sites, by bytes requested:\n");
            Table c = new Table("site", "requests", "bytes", "peak live", "fallbacks").rightAligned(1, 2, 3, 4);
            for (RecordingSummary.Site site : sites) {
                c.row(
                        site.site(),
                        site.count(),
                        Sizes.human(site.bytes()),
                        Sizes.human(site.peakLiveBytes()),
                        site.fallbacks());
            }
            b.append(c);
            if (sites.stream().anyMatch(site -> site.fallbacks() > 0)) {
                // A review read the column as the site's whole: 976.6 KiB for 8.6 MiB held, 8 MB of it fallbacks.
                b.append("  peak live counts the pools' buffers; fallbacks are the JDK's, counted apart (their bytes"
                        + " are in the direct memory outside the pools)\n");
            }
        }
        if (!s.refusals.isEmpty()) {
            b.append("\nrefused requests:\n");
            // The most frequent first; a run that refused many sizes (one line each) lists its first
            // few and counts the rest, which --json lists whole.
            List<RecordingSummary.Refusals> kinds = s.refusals.values().stream()
                    .sorted(Comparator.comparingLong(RecordingSummary.Refusals::count)
                            .reversed()
                            .thenComparingLong(RecordingSummary.Refusals::size))
                    .toList();
            for (RecordingSummary.Refusals r : kinds.subList(0, Math.min(kinds.size(), TOP_REFUSALS))) {
                b.append("  ")
                        .append(r.count())
                        .append(" x ")
                        .append(Sizes.human(r.size()))
                        .append(" at ")
                        .append(r.site())
                        .append(" (")
                        .append(r.outcome())
                        .append("): ")
                        .append(r.reason())
                        .append('\n');
            }
            if (kinds.size() > TOP_REFUSALS) {
                List<RecordingSummary.Refusals> rest = kinds.subList(TOP_REFUSALS, kinds.size());
                b.append("  and ")
                        .append(rest.size())
                        .append(" more of other sizes or sites (")
                        .append(rest.stream()
                                .mapToLong(RecordingSummary.Refusals::count)
                                .sum())
                        .append(" requests): report --json lists them all\n");
            }
        }
        return b.toString();
    }

    /**
     * The runs each sliced pool held at the end: their bytes count as reserved and, but for the slots
     * in use, as free room that only requests of each run's slot size can take. Nothing for a
     * recording without runs.
     */
    /** How many kinds of refusal (size, site, outcome) the report lists one by one. */
    static final int TOP_REFUSALS = 20;

    static void appendRuns(StringBuilder b, RecordingSummary s) {
        String label = "runs at the end:   ";
        for (RecordingSummary.Pool p : s.pools.values()) {
            if (p.runs() > 0) {
                b.append(label)
                        .append("pool ")
                        .append(p.index())
                        .append(": ")
                        .append(p.runs())
                        .append(p.runs() == 1 ? " run" : " runs")
                        .append(" of equal slots (")
                        .append(Sizes.human(p.bytesInRuns()))
                        .append(" of its ")
                        .append(Sizes.human(p.bytesReserved()))
                        .append("): free slots only for requests of their size\n");
                label = "                   ";
            }
        }
    }

    static List<RecordingSummary.Site> topSites(RecordingSummary s, int top) {
        return s.sites.values().stream()
                .sorted(Comparator.comparingLong(RecordingSummary.Site::bytes).reversed())
                .limit(top)
                .toList();
    }

    /**
     * The JSON of {@code report --json}: the keys of the recording's events (see {@link EventNames})
     * wherever a value is an event field, so that a field has one name across the recording, the
     * JSON and the table headers.
     */
    private Map<String, Object> toJson(RecordingSummary s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("file", s.file.toString());
        if (s.parts.size() > 1) {
            List<Object> parts = new ArrayList<>();
            for (Path p : s.parts) {
                parts.add(p.toString());
            }
            m.put("parts", parts);
        }
        m.put("start", s.start.toString());
        m.put("end", s.end.toString());
        m.put("pid", s.pid);
        m.put("recoveredFrom", s.recoveredFrom == null ? null : s.recoveredFrom.toString());
        m.put("running", s.running);
        m.put("stoppedBy", s.stoppedBy);
        m.put(
                "layout",
                Json.obj(EventNames.KIND, s.layoutKind, EventNames.SOURCE, s.layoutSource, "yaml", s.layoutYaml));
        List<Object> pools = new ArrayList<>();
        for (RecordingSummary.Pool p : s.pools.values()) {
            Map<String, Object> pm = new LinkedHashMap<>();
            pm.put(EventNames.INDEX, p.index());
            pm.put(EventNames.KIND, p.kind());
            pm.put(EventNames.PAGE_SIZE, p.pageSize());
            pm.put(EventNames.MAX_SLICE, p.maxSlice());
            pm.put(EventNames.PAGES_CAP, p.pagesCap());
            pm.put(EventNames.PAGES, p.pages());
            pm.put(EventNames.PAGES_PEAK, p.pagesPeak());
            pm.put(EventNames.LARGEST_ALLOC, p.largestAlloc());
            pm.put(EventNames.NUMBER_ALLOCS, p.numberAllocs());
            pm.put(EventNames.BYTES_IN_USE, p.bytesInUse());
            pm.put(EventNames.BYTES_RESERVED, p.bytesReserved());
            pm.put(EventNames.RUNS, p.runs());
            pm.put(EventNames.BYTES_IN_RUNS, p.bytesInRuns());
            pools.add(pm);
        }
        m.put("pools", pools);
        RecordingSummary.Usage u = s.usage;
        Map<String, Object> um = new LinkedHashMap<>();
        um.put(EventNames.NUMBER_ALLOCS, u.numberAllocs());
        um.put(EventNames.BYTES_IN_USE, u.bytesInUse());
        um.put(EventNames.BYTES_PADDING, u.bytesPadding());
        um.put(EventNames.BYTES_RESERVED, u.bytesReserved());
        um.put(EventNames.FALLBACK_ALLOCS, u.fallbackAllocs());
        um.put(EventNames.FALLBACK_BYTES, u.fallbackBytes());
        um.put(EventNames.FAILED_ALLOCS, u.failedAllocs() < 0 ? null : u.failedAllocs());
        um.put(EventNames.COLLECTIONS, u.collections());
        um.put("collectionMillis", u.collectionNanos() / 1_000_000);
        m.put("usage", um);
        m.put("peak", Json.obj(EventNames.BYTES_RESERVED, s.peakReserved, EventNames.BYTES_IN_USE, s.peakInUse));
        m.put("processMemory", s.budget.samples() > 0 ? s.budget.json() : null);
        m.put("limits", Budget.limits(List.of(s)));
        List<Object> sites = new ArrayList<>();
        for (RecordingSummary.Site site : topSites(s, top)) {
            sites.add(Json.obj(
                    EventNames.SITE,
                    site.site(),
                    EventNames.COUNT,
                    site.count(),
                    EventNames.BYTES,
                    site.bytes(),
                    EventNames.PEAK_LIVE_BYTES,
                    site.peakLiveBytes(),
                    EventNames.FALLBACKS,
                    site.fallbacks()));
        }
        m.put("callSites", sites);
        List<Object> refusals = new ArrayList<>();
        for (RecordingSummary.Refusals r : s.refusals.values()) {
            refusals.add(Json.obj(
                    EventNames.SITE,
                    r.site(),
                    EventNames.SIZE,
                    r.size(),
                    EventNames.OUTCOME,
                    r.outcome(),
                    EventNames.COUNT,
                    r.count(),
                    EventNames.REASON,
                    r.reason()));
        }
        m.put("refusals", refusals);
        return m;
    }

    /**
     * The collections the pools made for requests a full pool could not serve, if any: what a cap
     * costs while buffers are left to the collector, which they are under either release mode
     * ({@code release: close} leaves every buffer without a safe close signal to it).
     */
    static void appendCollections(StringBuilder b, long count, long nanos, String where) {
        if (count > 0) {
            b.append("collections:       ")
                    .append(count)
                    .append(" made by the pools for a full pool, ")
                    .append(nanos / 1_000_000)
                    .append(" ms waited")
                    .append(where)
                    .append(" (buffers left to the collector, under a cap)\n");
        }
    }
}
