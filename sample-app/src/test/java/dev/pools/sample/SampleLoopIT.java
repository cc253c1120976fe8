package dev.pools.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.it.Forked;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop of the README on the real sample app: measure under growable pools, suggest, compare
 * with the capped layout checked in beside it, run under the caps: no refusal, no fallback, every
 * peak within its cap.
 */
class SampleLoopIT {

    @TempDir
    Path dir;

    static final Path LAYOUTS = Path.of(System.getProperty("sample.layouts"));
    static final String APP = Path.of(System.getProperty("sample.jar")).toString();

    private Forked.Result sample(Path layout) throws Exception {
        Forked.Result r = Forked.run(
                dir,
                List.of(
                        Forked.java(),
                        Forked.agent(layout),
                        "-Dai.djl.offline=true",
                        "--enable-native-access=ALL-UNNAMED",
                        "-jar",
                        APP));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("accuracy"), r.out());
        return r;
    }

    @Test
    void measure_suggest_and_rerun_capped_with_no_refusal() throws Exception {
        Forked.Result measured = sample(LAYOUTS.resolve("measure.yaml"));
        assertTrue(Files.exists(dir.resolve("measure.jfr")), measured.toString());

        Forked.Result suggest =
                Forked.cli(dir, "suggest", "measure.jfr", "--report-file", "capped.jfr", "-o", "capped.yaml");
        assertEquals(0, suggest.exit(), suggest.toString());
        // Under release: gc the pages a pool reaches depend on when the collector ran, and the
        // process limits follow the resident set, so page counts and limits are compared as
        // numbers only where they are a measurement: the rest is exact.
        assertEquals(
                withoutPageCounts(Files.readString(LAYOUTS.resolve("capped.yaml"))),
                withoutPageCounts(Files.readString(dir.resolve("capped.yaml"))),
                "sample-app/layouts/capped.yaml is what suggest makes of a measured run; regenerate it with run-sample.sh");

        Forked.Result capped = sample(dir.resolve("capped.yaml"));
        assertEquals(
                lines(measured.out(), "accuracy"), lines(capped.out(), "accuracy"), "the same results under the caps");
        Forked.Result report = Forked.cli(dir, "report", "capped.jfr");
        assertEquals(0, report.exit(), report.toString());
        assertTrue(report.out().contains("fallbacks:         0 (0 B)   refusals: 0"), report.out());
        Matcher row = Pattern.compile(
                        "\\n\\s+(\\d+)\\s+sliced\\s+\\S+ \\S+\\s+\\S+ \\S+\\s+(\\d+)\\s+\\d+\\s+(\\d+)\\s")
                .matcher(report.out());
        int pools = 0;
        while (row.find()) {
            pools++;
            assertTrue(
                    Long.parseLong(row.group(3)) <= Long.parseLong(row.group(2)),
                    "pool " + row.group(1) + " peak within cap: " + report.out());
        }
        assertEquals(3, pools, "the sample app uses three pools: " + report.out());
    }

    private static String withoutPageCounts(String layout) {
        return layout.replaceAll("pages: \\d+  # peak \\d+,", "pages: N  # peak N,")
                .lines()
                // The process limits are measurements too: a number with its unit (32.2 KiB one run, 0 B the next).
                .map(l -> l.startsWith("#   ") ? l.replaceAll("\\d+(\\.\\d+)?( ?(B|KiB|MiB|GiB))?", "N") : l)
                .collect(Collectors.joining("\n", "", "\n"));
    }

    private static List<String> lines(String out, String word) {
        return out.lines()
                .filter(l -> l.contains(word))
                .map(l -> l.replaceAll("\\(\\d+ ms\\)|[\\d.]+ s in all", ""))
                .toList();
    }
}
