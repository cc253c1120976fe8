package dev.pools.cli;

import dev.pools.layout.LayoutException;
import dev.pools.layout.LayoutFile;
import dev.pools.layout.LayoutPrinter;
import dev.pools.layout.Layouts;
import dev.pools.layout.PoolsConfig;
import dev.pools.memory.Sizes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "suggest",
        mixinStandardHelpOptions = true,
        description = {
            "Writes the measured layout back with each pool capped at the most pages it held (the maximum over"
                    + " all recordings given, plus headroom, rounded up): the layout to run on next. Its output is a valid"
                    + " layout file as it is.",
            "All recordings must come from the same layout. A preset (sub-slices, exclusive-pages) is written out as"
                    + " the sliced pools it stands for; a direct layout, which has no pages to cap, becomes a growable sliced"
                    + " layout to measure next."
        })
final class SuggestCommand implements Callable<Integer> {

    @Parameters(paramLabel = "RECORDING", arity = "1..*", description = "Recordings (.jfr) of the same layout.")
    List<Path> files;

    @Option(
            names = "--headroom",
            defaultValue = "0",
            paramLabel = "PERCENT",
            description = "Extra pages on top of each measured peak, in percent: 10 or 10%% (default: none).")
    String headroom;

    @Option(
            names = "--report-file",
            paramLabel = "NAME",
            description = "The report.file of the capped run, e.g. capped-%%p.jfr (default: the one recorded).")
    String reportFile;

    @Option(
            names = {"-o", "--output"},
            paramLabel = "FILE",
            description = "Write the layout here instead of to standard output.")
    Path output;

    @Override
    public Integer call() throws IOException {
        double extra = headroom(headroom);
        List<RecordingSummary> runs = new ArrayList<>();
        for (Path f : files) {
            runs.add(RecordingSummary.read(f, false));
        }
        RecordingSummary first = runs.get(0);
        for (RecordingSummary other : runs.subList(1, runs.size())) {
            List<String> a = first.poolShapes();
            List<String> b = other.poolShapes();
            if (!a.equals(b)) {
                throw new BadInput(other.file + " was recorded under a different layout than " + first.file + ": "
                        + difference(a, b));
            }
        }
        PoolsConfig config;
        try {
            config = LayoutFile.parse(first.file + " (recorded layout)", first.layoutYaml, Layouts.GIB);
        } catch (LayoutException e) {
            throw new BadInput(e.getMessage());
        }
        if (reportFile != null) {
            String file;
            try {
                // The same rules as in a layout file, applied by the same parser.
                file = LayoutFile.parse(
                                "--report-file",
                                "report:\n  file: '" + reportFile.replace("'", "''") + "'\n",
                                Layouts.GIB)
                        .reportFile();
            } catch (LayoutException e) {
                throw new BadInput("--report-file " + e.rule().replaceFirst("^report\\.file: ", ""));
            }
            config = config.withReport(new PoolsConfig.Report(
                    file, config.reportPeriod(), config.report().trace()));
        }
        String text = new CappedLayout(config, runs, extra).write();
        try {
            LayoutFile.parse("suggested layout", text, Layouts.GIB);
        } catch (LayoutException e) {
            throw new IllegalStateException("the suggested layout is not valid: " + e.getMessage() + "\n" + text, e);
        }
        if (output == null) {
            System.out.print(text);
        } else {
            Files.writeString(output, text);
            System.err.println("pools: wrote " + output);
        }
        return ExitStatus.DONE;
    }

    static double headroom(String text) {
        String t = text.strip();
        if (t.endsWith("%")) {
            t = t.substring(0, t.length() - 1).strip();
        }
        try {
            double v = Double.parseDouble(t);
            if (v < 0 || v > 1000 || Double.isNaN(v)) {
                throw new NumberFormatException();
            }
            return v / 100;
        } catch (NumberFormatException e) {
            throw new BadInput("--headroom " + text + ": expected a percentage from 0% to 1000%, e.g. 10%");
        }
    }

    private static String difference(List<String> a, List<String> b) {
        for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
            String x = i < a.size() ? a.get(i) : "(no pool " + i + ")";
            String y = i < b.size() ? b.get(i) : "(no pool " + i + ")";
            if (!x.equals(y)) {
                return x + " vs " + y;
            }
        }
        return "same pools";
    }

    /** The capped layout, with a comment on every decision that is not just "peak plus headroom". */
    static final class CappedLayout {
        private final PoolsConfig config;
        private final List<RecordingSummary> runs;
        private final double headroom;
        private final StringBuilder b = new StringBuilder();

        CappedLayout(PoolsConfig config, List<RecordingSummary> runs, double headroom) {
            this.config = config;
            this.runs = runs;
            this.headroom = headroom;
        }

        String write() {
            RecordingSummary first = runs.get(0);
            b.append("# Suggested by 'pools.jar suggest' from ")
                    .append(runs.size())
                    .append(runs.size() == 1 ? " recording" : " recordings")
                    .append(" of layout ")
                    .append(first.layoutKind)
                    .append(", headroom ")
                    .append(Math.round(headroom * 100))
                    .append("%.\n");
            b.append("# Each pool is capped at the most pages it held, plus headroom.\n");
            if (first.layoutKind.equals("direct")) {
                growableFromDirect();
            } else {
                capped();
            }
            refusals();
            return b.append(LayoutPrinter.printSettings(config)).toString();
        }

        private long peak(int index) {
            long peak = 0;
            for (RecordingSummary r : runs) {
                peak = Math.max(peak, r.pools.get(index).pagesPeak());
            }
            return peak;
        }

        private long largest(int index) {
            long largest = 0;
            for (RecordingSummary r : runs) {
                largest = Math.max(largest, r.pools.get(index).largestAlloc());
            }
            return largest;
        }

        private long cap(long peak) {
            return Math.min(Layouts.MAX_PAGES, Math.max(1, (long) Math.ceil(peak * (1 + headroom) - 1e-9)));
        }

        private void capped() {
            b.append("layout: sliced\npools:\n");
            for (RecordingSummary.Pool p : runs.get(0).pools.values()) {
                long peak = peak(p.index());
                long largest = largest(p.index());
                if (p.kind().equals("exclusive")) {
                    if (peak == 0) {
                        b.append("  # pool ")
                                .append(p.index())
                                .append(": the exclusive pool for requests up to ")
                                .append(Sizes.human(p.maxSlice()))
                                .append(" was never used; left out (such requests go to the next pool"
                                        + " that takes them, or are exhausted)\n");
                        continue;
                    }
                    long page = Sizes.roundUp(largest);
                    b.append("  # pool ")
                            .append(p.index())
                            .append(": was an exclusive pool (one page per allocation, up to ")
                            .append(Sizes.human(p.maxSlice()))
                            .append("); as a sliced pool its pages are sized to the largest request\n");
                    pool(page, page, peak, largest);
                    continue;
                }
                if (peak == 0) {
                    b.append("  # pool ")
                            .append(p.index())
                            .append(" was never used in the recordings; it keeps one page,"
                                    + " allocated only if a request comes\n");
                }
                if (largest > p.maxSlice()) {
                    b.append("  # pool ")
                            .append(p.index())
                            .append(" also took requests above its max_slice, up to ")
                            .append(Sizes.human(largest))
                            .append(", by the near-page rule of uncapped pools: no pool takes them by")
                            .append(
                                    " size. Capped, they find no pool; to keep them, raise max_slice or add a pool for them, and")
                            .append(" measure again\n");
                }
                pool(p.pageSize(), p.maxSlice(), peak, largest);
            }
        }

        private void pool(long pageSize, long maxSlice, long peak, long largest) {
            b.append("  - ").append(LayoutPrinter.sizeLine("page_size", pageSize));
            b.append("    ").append(LayoutPrinter.sizeLine("max_slice", maxSlice));
            b.append("    pages: ")
                    .append(cap(peak))
                    .append("  # peak ")
                    .append(peak)
                    .append(largest > 0 ? ", largest request " + Sizes.human(largest) : "")
                    .append('\n');
        }

        /** A direct layout measured request sizes but no pages: propose size classes from the histogram, uncapped. */
        private void growableFromDirect() {
            Map<Long, Long> sizes = new TreeMap<>();
            for (RecordingSummary r : runs) {
                for (Map<Long, Long> h : r.requestSizes.values()) {
                    h.forEach((bucket, count) -> sizes.merge(bucket, count, Long::sum));
                }
            }
            long largest = 0;
            for (RecordingSummary r : runs) {
                for (RecordingSummary.Pool p : r.pools.values()) {
                    largest = Math.max(largest, p.largestAlloc());
                }
            }
            b.append("# A direct layout has no pages to cap. These size classes come from its request sizes;\n");
            b.append("# run on them (they grow), then suggest again to cap them.\n");
            b.append("layout: sliced\npools:\n");
            long[][] classes = {{64 * 1024, 1 << 20}, {1 << 20, 16 << 20}, {16 << 20, 128 << 20}};
            long covered = 0;
            for (long[] c : classes) {
                if (covered >= Math.max(largest, 1)) {
                    break;
                }
                long requests = 0;
                for (Map.Entry<Long, Long> e : sizes.entrySet()) {
                    if (e.getKey() > covered && e.getKey() <= c[0]) {
                        requests += e.getValue();
                    }
                }
                long maxSlice = Math.min(c[0], Sizes.roundUp(Math.max(largest, 1)));
                b.append("  # requests above ")
                        .append(Sizes.human(covered))
                        .append(" up to ")
                        .append(Sizes.human(maxSlice))
                        .append(": about ")
                        .append(requests)
                        .append('\n');
                b.append("  - ").append(LayoutPrinter.sizeLine("page_size", Math.max(c[1], maxSlice)));
                b.append("    ").append(LayoutPrinter.sizeLine("max_slice", maxSlice));
                covered = maxSlice;
            }
            if (covered < largest) {
                long page = Sizes.roundUp(largest);
                b.append("  # the largest requests, up to ")
                        .append(Sizes.human(largest))
                        .append(", a page each\n");
                b.append("  - ").append(LayoutPrinter.sizeLine("page_size", page));
            }
        }

        /** Requests no pool could serve: say how many, and which pool would take them. */
        private void refusals() {
            long count = 0;
            long largest = 0;
            for (RecordingSummary r : runs) {
                for (RecordingSummary.Refusals x : r.refusals.values()) {
                    count += x.count();
                    largest = Math.max(largest, x.size());
                }
            }
            if (count == 0) {
                return;
            }
            long maxSlice = Sizes.roundUp(largest);
            long page = Math.min(Sizes.MAX_PAGE & -Sizes.ALIGNMENT, Long.highestOneBit(Math.max(1, maxSlice - 1)) << 3);
            b.append("# ")
                    .append(count)
                    .append(" requests of up to ")
                    .append(Sizes.human(largest))
                    .append(
                            " found no pool during the measurement (see 'report'). To pool them, measure again with a pool such as:\n")
                    .append("#   - page_size: ")
                    .append(Sizes.human(Math.max(page, maxSlice)))
                    .append('\n')
                    .append("#     max_slice: ")
                    .append(Sizes.human(maxSlice))
                    .append('\n');
        }
    }
}
