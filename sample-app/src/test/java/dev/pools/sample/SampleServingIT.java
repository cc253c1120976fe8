package dev.pools.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.it.Forked;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sample app's serving mode (BENCHMARKS.md, B6): four request threads, a predictor each, under
 * the agent with no layout file compute what they compute without it, and the recording shows
 * four threads served from the pools with no fallback and no refusal.
 */
class SampleServingIT {

    private static final Pattern SERVED = Pattern.compile("served (\\d+) images in .* checksum (\\p{XDigit}{16})");
    /** B6 compares the CPU time of the window the throughput counts, start-up left out. */
    private static final Pattern WINDOW_CPU = Pattern.compile("(?m)^process CPU in that time: (\\d+\\.\\d\\d) s$");

    @TempDir
    Path dir;

    private Matcher serve(List<String> agent) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Forked.java()));
        cmd.addAll(agent);
        cmd.addAll(List.of(
                "-Dai.djl.offline=true",
                "--enable-native-access=ALL-UNNAMED",
                "-jar",
                SampleLoopIT.APP,
                "serve",
                "4",
                "40",
                "10"));
        Forked.Result r = Forked.run(dir, cmd);
        assertEquals(0, r.exit(), r.toString());
        Matcher m = SERVED.matcher(r.out());
        assertTrue(m.find(), r.toString());
        Matcher cpu = WINDOW_CPU.matcher(r.out());
        assertTrue(cpu.find() && Double.parseDouble(cpu.group(1)) > 0, r.toString());
        return m;
    }

    @Test
    void four_request_threads_serve_the_same_classes_under_the_default_layout() throws Exception {
        Matcher plain = serve(List.of());
        // The run is short: it waits for the agent's recording to have started, or it could end while
        // the recording starts and leave none (a JVM's end is not held up for it).
        Matcher pooled = serve(List.of(Forked.agent(null), "-Dsample.awaitAgent=true"));
        assertEquals(plain.group(1), pooled.group(1), "the same images served");
        assertEquals(plain.group(2), pooled.group(2), "the same classes computed");

        Forked.Result report = Forked.reportOfDefaultRecording(dir);
        assertEquals(0, report.exit(), report.toString());
        assertTrue(report.out().contains("fallbacks:         0 (0 B)   refusals: 0"), report.out());
        Matcher site = Pattern.compile("(?m)^ +ai\\.djl\\.pytorch\\.engine\\.PtNDManager#allocateDirect +(\\d+) ")
                .matcher(report.out());
        assertTrue(site.find(), report.out());
        // 4 threads x 50 requests, each a batch made from Java data: every one asks the pools.
        assertTrue(Long.parseLong(site.group(1)) >= 200, report.out());
    }
}
