package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.it.apps.TracedGaps;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A layout capped at a traced run's peaks fits the same workload again, with and without {@code
 * suggest --fit}. A traced run kept no thread caches, and the capped run does: its released slices
 * stay in their threads' caches and later requests land elsewhere. A review's workloads of one and
 * of two threads (one after the other) needed 2 pages where the traced run had measured 1, and were
 * refused under both layouts suggest wrote (with --fit, the replay kept one cache for all threads).
 */
class TracedCapsIT {

    private static final String MEASURE = """
            layout: sliced
            pools:
              - page_size: 64 KiB
            intercept:
              packages: [it.host]
            on_exhausted: fail
            report:
              file: measure.jfr
              trace: measure.trace
            """;

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"one", "two"})
    void caps_from_a_traced_run_fit_the_same_workload(String threads) throws Exception {
        Files.writeString(dir.resolve("measure.yaml"), MEASURE);
        Forked.Result measure =
                Forked.app(dir, List.of(Forked.agent(Path.of("measure.yaml"))), TracedGaps.class, threads);
        assertEquals(0, measure.exit(), measure.toString());
        for (List<String> suggest : List.of(
                List.of("suggest", "measure.jfr", "--report-file", "capped.jfr", "-o", "capped.yaml"),
                List.of(
                        "suggest",
                        "measure.jfr",
                        "--fit",
                        "measure.trace",
                        "--report-file",
                        "capped.jfr",
                        "-o",
                        "capped.yaml"))) {
            Forked.Result s = Forked.cli(dir, suggest.toArray(String[]::new));
            assertEquals(0, s.exit(), s.toString());
            String capped = Files.readString(dir.resolve("capped.yaml"));
            assertTrue(capped.contains("on_exhausted: fail"), capped);
            if (!suggest.contains("--fit")) {
                // The measured pool's peak, as the run has it with its caches (--fit may choose other pools).
                assertTrue(capped.contains("pages: 2"), "the pages the run needs with its caches: " + capped);
            }
            Forked.Result again =
                    Forked.app(dir, List.of(Forked.agent(Path.of("capped.yaml"))), TracedGaps.class, threads);
            assertEquals(0, again.exit(), suggest + "\n" + capped + "\n" + again);
            assertEquals(List.of("served"), again.out().lines().toList(), again.toString());
        }
    }
}
