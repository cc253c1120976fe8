package dev.pools.cli;

import dev.pools.memory.Sizes;
import dev.pools.recording.Recorder;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "html",
        mixinStandardHelpOptions = true,
        description = "Writes one self-contained HTML page (no scripts, nothing fetched) with charts of a recording:"
                + " bytes reserved against bytes in use over time, pages per pool against its cap, the peak of each pool,"
                + " request sizes per pool, and the top call sites.")
final class HtmlCommand implements Callable<Integer> {

    private static final String[] COLORS = {"#3b7dd8", "#e67e22", "#27ae60", "#8e44ad", "#c0392b", "#16a085", "#7f8c8d"
    };

    @Parameters(
            paramLabel = "RECORDING",
            arity = "1..*",
            description = "A recording (.jfr) written by the agent, with what was set aside of it at report.max_size"
                    + " (<file>.1) if any: one JVM's.")
    List<Path> files;

    @Option(
            names = {"-o", "--output"},
            required = true,
            paramLabel = "FILE",
            description = "The HTML file to write (- for standard output).")
    Path output;

    @Override
    public Integer call() throws IOException {
        List<RecordingSummary> read = RecordingSummary.readAll(files, true);
        if (read.size() > 1) {
            throw new BadInput("html draws one JVM's recording, and " + read.size() + " JVMs' were given ("
                    + String.join(
                            ", ", read.stream().map(RecordingSummary::name).toList())
                    + "); give one JVM's files (a recording and its .1), or use report for a fleet");
        }
        OutputFile.write(output, page(read.get(0)), files);
        return ExitStatus.DONE;
    }

    static String page(RecordingSummary s) {
        StringBuilder b = new StringBuilder();
        b.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>pools: ")
                .append(Charts.esc(s.file.getFileName().toString()))
                .append("</title>\n<style>\n")
                .append("body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:900px}")
                .append(
                        "h1{font-size:22px}h2{font-size:17px;margin-top:28px}pre{background:#f6f6f6;padding:10px;overflow:auto}")
                .append(
                        "table{border-collapse:collapse}td,th{padding:3px 10px;text-align:right;border-bottom:1px solid #ddd}")
                .append(
                        "td:first-child,th:first-child{text-align:left}.note{color:#666;font-size:13px}\n</style>\n</head>\n<body>\n");
        b.append("<h1>pools: ")
                .append(Charts.esc(s.file.getFileName().toString()))
                .append("</h1>\n");
        double duration = seconds(s.start, s.end);
        b.append("<p class=\"note\">")
                .append(ReportCommand.TIME.format(s.start))
                .append(" to ")
                .append(ReportCommand.TIME.format(s.end))
                .append(" (")
                .append(Charts.elapsed(duration))
                .append(")")
                .append(", layout ")
                .append(Charts.esc(s.layoutKind))
                .append(" (")
                .append(Charts.esc(s.layoutOrigin()))
                .append(")</p>\n");
        b.append("<pre>").append(Charts.esc(ReportCommand.text(s, 10))).append("</pre>\n");

        b.append("<h2 id=\"usage\">Bytes reserved and in use</h2>\n");
        int n = s.usageTimeline.size();
        double[] t = new double[n];
        double[] reserved = new double[n];
        double[] inUse = new double[n];
        for (int i = 0; i < n; i++) {
            RecordingSummary.Usage u = s.usageTimeline.get(i);
            t[i] = seconds(s.start, u.time());
            reserved[i] = u.bytesReserved();
            inUse[i] = u.bytesInUse();
        }
        b.append(Charts.lines(
                "bytes reserved and in use over time",
                List.of(
                        new Charts.Series("reserved", "#c0392b", false, t, reserved),
                        new Charts.Series("in use", "#3b7dd8", false, t, inUse)),
                Charts.Kind.BYTES,
                duration,
                s.start));
        budget(b, s, duration);

        b.append("<h2 id=\"pages\">Pages per pool</h2>\n");
        for (RecordingSummary.Pool last : s.pools.values()) {
            List<RecordingSummary.Pool> points = new ArrayList<>();
            for (RecordingSummary.Pool p : s.poolTimeline) {
                if (p.index() == last.index() && !p.time().isBefore(s.layoutTime)) {
                    points.add(p);
                }
            }
            double[] x = new double[points.size()];
            double[] pages = new double[points.size()];
            for (int i = 0; i < points.size(); i++) {
                x[i] = seconds(s.start, points.get(i).time());
                pages[i] = points.get(i).pages();
            }
            List<Charts.Series> series = new ArrayList<>();
            series.add(new Charts.Series(
                    "pool " + last.index() + " pages", COLORS[last.index() % COLORS.length], false, x, pages));
            if (last.pagesCap() > 0 && x.length > 0) {
                series.add(new Charts.Series(
                        "cap " + last.pagesCap(), "#c0392b", true, new double[] {x[0], x[x.length - 1]}, new double[] {
                            last.pagesCap(), last.pagesCap()
                        }));
            }
            b.append("<h3>pool ")
                    .append(last.index())
                    .append(": ")
                    .append(Charts.esc(last.kind()))
                    .append(last.pageSize() > 0 ? ", " + Sizes.human(last.pageSize()) + " pages" : "")
                    .append("</h3>\n");
            b.append(Charts.lines(
                    "pages of pool " + last.index() + " over time", series, Charts.Kind.WHOLE, duration, s.start));
        }

        b.append("<h2 id=\"peaks\">Peak pages per pool (red: cap)</h2>\n");
        List<String> labels = new ArrayList<>();
        double[] peaks = new double[s.pools.size()];
        double[] caps = new double[s.pools.size()];
        int i = 0;
        for (RecordingSummary.Pool p : s.pools.values()) {
            labels.add("pool " + p.index() + " (" + p.kind()
                    + (p.pageSize() > 0 ? ", " + Sizes.human(p.pageSize()) : "") + ")");
            peaks[i] = p.pagesPeak();
            caps[i++] = Math.max(0, p.pagesCap());
        }
        b.append(Charts.bars("peak pages per pool", labels, peaks, caps, false));

        b.append("<h2 id=\"sizes\">Request sizes per pool</h2>\n");
        for (Map.Entry<Integer, Map<Long, Long>> e : s.requestSizes.entrySet()) {
            List<String> buckets = new ArrayList<>();
            double[] counts = new double[e.getValue().size()];
            int j = 0;
            for (Map.Entry<Long, Long> bucket : e.getValue().entrySet()) {
                buckets.add(Recorder.bucketRange(bucket.getKey()));
                counts[j++] = bucket.getValue();
            }
            b.append("<h3>pool ").append(e.getKey()).append("</h3>\n");
            b.append(Charts.bars("request sizes of pool " + e.getKey(), buckets, counts, null, false));
        }

        b.append("<h2 id=\"sites\">Top call sites, by bytes requested</h2>\n");
        List<RecordingSummary.Site> sites = ReportCommand.topSites(s, 10);
        List<String> siteLabels = new ArrayList<>();
        double[] bytes = new double[sites.size()];
        for (int k = 0; k < sites.size(); k++) {
            String name = sites.get(k).site();
            siteLabels.add(name.length() > 40 ? "..." + name.substring(name.length() - 37) : name);
            bytes[k] = sites.get(k).bytes();
        }
        b.append(Charts.bars("bytes requested per call site", siteLabels, bytes, null, true));
        b.append("<table><tr><th>site</th><th>requests</th><th>bytes</th><th>peak live</th><th>fallbacks</th></tr>\n");
        for (RecordingSummary.Site site : sites) {
            b.append("<tr><td>")
                    .append(Charts.esc(site.site()))
                    .append("</td><td>")
                    .append(site.count())
                    .append("</td><td>")
                    .append(Sizes.human(site.bytes()))
                    .append("</td><td>")
                    .append(Sizes.human(site.peakLiveBytes()))
                    .append("</td><td>")
                    .append(site.fallbacks())
                    .append("</td></tr>\n");
        }
        b.append("</table>\n<h2>Layout</h2>\n<pre>")
                .append(Charts.esc(s.layoutYaml))
                .append("</pre>\n</body>\n</html>\n");
        return b.toString();
    }

    /** The process's memory over time, stacked by part, with its resident set over it. */
    private static void budget(StringBuilder b, RecordingSummary s, double duration) {
        List<RecordingSummary.ProcessSample> samples = s.processTimeline;
        if (samples.isEmpty()) {
            return;
        }
        int n = samples.size();
        double[] t = new double[n];
        double[][] parts = new double[6][n];
        double[] rss = new double[n];
        double[] peak = new double[n];
        for (int i = 0; i < n; i++) {
            RecordingSummary.ProcessSample p = samples.get(i);
            t[i] = seconds(s.start, p.time());
            parts[0][i] = p.heapCommitted();
            parts[1][i] = p.nonHeap();
            parts[2][i] = p.poolsReserved();
            parts[3][i] = p.directOutsidePools();
            parts[4][i] = Math.max(0, p.nativeOther());
            parts[5][i] = Math.max(0, p.rssFile());
            rss[i] = Math.max(0, p.rss());
            peak[i] = Math.max(0, p.rssPeak());
        }
        String[] names = {
            "Java heap (committed)",
            "metaspace, code, other non-heap",
            "pools reserved",
            "direct buffers outside the pools",
            "native, other",
            "file-backed"
        };
        String[] colors = {"#8e44ad", "#16a085", "#3b7dd8", "#e67e22", "#7f8c8d", "#bdc3c7"};
        List<Charts.Series> layers = new ArrayList<>();
        for (int k = 0; k < names.length; k++) {
            layers.add(new Charts.Series(names[k], colors[k], false, t, parts[k]));
        }
        b.append("<h2 id=\"budget\">Process memory</h2>\n");
        b.append("<p class=\"note\">The parts of the process's memory, stacked; the resident set (RSS) over"
                + " them, and its peak as the kernel kept it. Committed heap counts in full.</p>\n");
        b.append(Charts.stacked(
                "process memory over time, by part",
                layers,
                List.of(
                        new Charts.Series("resident set", "#222222", false, t, rss),
                        new Charts.Series("peak resident set", "#c0392b", true, t, peak)),
                duration,
                s.start));
    }

    private static double seconds(Instant start, Instant t) {
        return Duration.between(start, t).toMillis() / 1000.0;
    }
}
