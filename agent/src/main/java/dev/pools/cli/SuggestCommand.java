package dev.pools.cli;

import dev.pools.layout.LayoutException;
import dev.pools.layout.LayoutFile;
import dev.pools.layout.LayoutPrinter;
import dev.pools.layout.Layouts;
import dev.pools.layout.PoolsConfig;
import dev.pools.memory.PoolKind;
import dev.pools.memory.PoolSpec;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
            names = "--fit",
            paramLabel = "TRACE",
            description = "Choose page sizes and slice limits too: replay these allocation traces (report.trace) of the"
                    + " measured runs through candidate layouts of one to three pools, keep the one that reserves least,"
                    + " and cap it at the pages it held. Without it, only caps change.")
    List<Path> fit;

    @Option(
            names = {"-o", "--output"},
            paramLabel = "FILE",
            description = "Write the layout here instead of to standard output.")
    Path output;

    @Override
    public Integer call() throws IOException {
        double extra = headroom(headroom);
        List<RecordingSummary> runs = RecordingSummary.readAll(files, false);
        RecordingSummary first = runs.get(0);
        for (RecordingSummary run : runs) {
            String stop = run.stoppedBy;
            if (stop != null) {
                // What the workload held after the stop went to the JDK, unmeasured by the pools: caps
                // from such a run would be below what it needs.
                throw new BadInput(run.file + ": " + stop + " during this run (README, Troubleshooting), so what the"
                        + " workload held after that was not measured; measure again");
            }
        }
        for (RecordingSummary other : runs.subList(1, runs.size())) {
            List<String> a = first.poolShapes();
            List<String> b = other.poolShapes();
            if (!a.equals(b)) {
                throw new BadInput(other.file + " was recorded under a different layout than " + first.file + ": "
                        + difference(a, b));
            }
        }
        PoolsConfig config = recorded(first);
        for (RecordingSummary other : runs.subList(1, runs.size())) {
            // The settings the capped layout carries over (interception, release, exhaustion) must be the
            // same too: the output took the first file's, so its release or exhaustion rule depended on the
            // order the files were given in (a review). The recording's own settings may differ by file.
            List<String> a = settingsBeforeReport(config);
            List<String> b = settingsBeforeReport(recorded(other));
            if (!a.equals(b)) {
                throw new BadInput(other.file + " was recorded under a different layout than " + first.file + ": "
                        + difference(a, b));
            }
        }
        if (reportFile != null) {
            // The same rule as report.file in a layout file.
            String rule = LayoutFile.fileNameRule(reportFile, "--report-file", "capped-%p.jfr");
            if (rule != null) {
                throw new BadInput(rule.replaceFirst("^--report-file: ", "--report-file "));
            }
            String file = PoolsConfig.isNone(reportFile) ? null : reportFile.trim();
            config = config.withReport(new PoolsConfig.Report(
                    file, config.reportPeriod(), config.report().trace(), config.reportMaxSize()));
        }
        PageFit.Search search = null;
        if (fit != null && !fit.isEmpty()) {
            List<PageFit.Trace> traces = new ArrayList<>();
            for (Path t : fit) {
                traces.add(PageFit.read(t));
            }
            search = PageFit.search(traces, recordedSliced(first));
        }
        // No trace in the capped run, with or without --fit: tracing serializes allocations (it is for
        // measuring runs), and the capped run's trace would overwrite the measured one's file.
        config = config.withReport(
                new PoolsConfig.Report(config.reportFile(), config.reportPeriod(), null, config.reportMaxSize()));
        String text = new CappedLayout(config, runs, extra, search).write();
        try {
            LayoutFile.parse("suggested layout", text, Layouts.GIB);
        } catch (LayoutException e) {
            throw new IllegalStateException("the suggested layout is not valid: " + e.getMessage() + "\n" + text, e);
        }
        if (output == null) {
            System.out.print(text);
        } else {
            List<Path> inputs = new ArrayList<>(files);
            if (fit != null) {
                inputs.addAll(fit);
            }
            OutputFile.write(output, text, inputs);
        }
        return ExitStatus.DONE;
    }

    /** The recorded pools, when all are sliced: the baseline the fitted layout is compared with. */
    private static List<PoolSpec.Sliced> recordedSliced(RecordingSummary first) {
        List<PoolSpec.Sliced> out = new ArrayList<>();
        for (RecordingSummary.Pool p : first.pools.values()) {
            if (!p.kind().equals(PoolKind.SLICED.label())) {
                return List.of();
            }
            out.add(new PoolSpec.Sliced(p.pageSize(), p.maxSlice(), PoolSpec.UNCAPPED));
        }
        return out;
    }

    static double headroom(String text) {
        String t = text.strip();
        if (t.endsWith("%")) {
            t = t.substring(0, t.length() - 1).strip();
        }
        try {
            // Plain decimals only: Double.parseDouble also takes 10d, 0x1p3 and 1e1. At most 4 places, all
            // of which the output's header prints: a headroom too small to print still adds a page to a cap.
            if (!t.matches("[0-9]+(\\.[0-9]{1,4})?")) {
                throw new NumberFormatException();
            }
            double v = Double.parseDouble(t);
            if (v < 0 || v > 1000 || Double.isNaN(v)) {
                throw new NumberFormatException();
            }
            return v / 100;
        } catch (NumberFormatException e) {
            throw new BadInput("--headroom " + text
                    + ": expected a percentage from 0% to 1000%, at most 4 decimal places, e.g. 10%");
        }
    }

    private static PoolsConfig recorded(RecordingSummary run) {
        try {
            return LayoutFile.parse(run.file + " (recorded layout)", run.layoutYaml, Layouts.GIB);
        } catch (LayoutException e) {
            throw new BadInput(e.getMessage());
        }
    }

    /** The settings lines of a layout before its {@code report:} section. */
    private static List<String> settingsBeforeReport(PoolsConfig config) {
        String settings = LayoutPrinter.printSettings(config);
        int report = settings.indexOf("\nreport:");
        return (report < 0 ? settings : settings.substring(0, report)).lines().toList();
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
}
