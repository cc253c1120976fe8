package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.it.apps.AfterABurst;
import dev.pools.it.apps.CachedAtTheLimit;
import dev.pools.it.apps.DropAndAllocate;
import dev.pools.it.apps.DropAtTheLimit;
import dev.pools.it.apps.EmptiedDuringALook;
import dev.pools.it.apps.RefusedOnce;
import dev.pools.it.apps.RoundsOfSizes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One capped 320 MiB page and twenty 300 MiB buffers, each dropped before the next, under
 * {@code on_exhausted: fail}: every request is served, because the exhausted path waits until the
 * collector's releases are back in the pool before it refuses; the recording counts the
 * collections the pools made for it, and report shows them.
 */
class ExhaustionIT {

    /** A sliced pool of 1 MiB pages that takes requests up to 64 KiB, for it.host. */
    private static final String ONE_MIB_PAGES = """
            layout: sliced
            pools:
              - page_size: 1 MiB
                max_slice: 64 KiB
            intercept:
              packages: [it.host]
            report:
              file: none
            """;

    @TempDir
    Path dir;

    /**
     * Also with {@code -XX:+ExplicitGCInvokesConcurrent}, which services set to keep {@code System.gc()}
     * from stopping them for a full collection: the pools' collection is then a concurrent cycle, and
     * the exhausted path must still find every unreachable buffer back before it refuses.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"-XX:-ExplicitGCInvokesConcurrent", "-XX:+ExplicitGCInvokesConcurrent"})
    void a_capped_page_full_of_unreachable_buffers_never_refuses(String explicitGc) throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), """
                layout: sliced
                pools:
                  - page_size: 320 MiB
                    pages: 1
                intercept:
                  packages: [it.host]
                on_exhausted: fail
                report:
                  file: run.jfr
                """);
        Forked.Result r = Forked.app(
                dir,
                List.of(Forked.agent(Path.of("layout.yaml")), "-Xmx256m", "-XX:MaxDirectMemorySize=1g", explicitGc),
                DropAndAllocate.class,
                "20",
                "300");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().startsWith("served 20, "), r.out());
        assertTrue(r.err().isBlank(), r.err());

        Forked.Result report = Forked.cli(dir, "report", "run.jfr");
        assertEquals(0, report.exit(), report.toString());
        Matcher line = Pattern.compile("(?m)^collections: +(\\d+) made by the pools for a full pool, (\\d+) ms waited")
                .matcher(report.out());
        assertTrue(line.find(), report.out());
        // Each request after the first finds the page full of the buffer just dropped: one collection
        // each, unless the collector happened to run in between.
        long collections = Long.parseLong(line.group(1));
        assertTrue(collections >= 1 && collections <= 19, report.out());
        assertTrue(Long.parseLong(line.group(2)) > 0, report.out());
    }

    /**
     * Room the pools hold empty (blocks of another size, the pages of another pool) is given back when
     * the JDK refuses a page at the direct memory limit, also right after a collection that gave
     * nothing back: before, a request then fell back while tens of MiB sat empty in the pools, and
     * the fallback itself failed at the same limit with an {@code OutOfMemoryError} in the host.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"direct", "sliced"})
    void at_the_direct_memory_limit_empty_room_is_given_back_before_a_request_falls_back(String layout)
            throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), (layout.equals("direct") ? "layout: direct\n" : """
                                layout: sliced
                                pools:
                                  - page_size: 4 MiB
                                    max_slice: 512 KiB
                                  - page_size: 8 MiB
                                """) + """
                        intercept:
                          packages: [it.host]
                        report:
                          file: none
                        """);
        Forked.Result r = Forked.app(
                dir,
                List.of(Forked.agent(Path.of("layout.yaml")), "-XX:MaxDirectMemorySize=64m"),
                RoundsOfSizes.class,
                layout);
        assertEquals(0, r.exit(), r.toString());
        assertEquals("fallbacks 0", r.out().strip(), r.toString());
        assertTrue(r.err().isBlank(), r.err());
    }

    /**
     * Buffers left to the collector with a heap that hardly fills: the pools' pages reach the direct
     * memory limit before any collection. A request the pools cannot serve then falls back to the JDK,
     * which fails at the same limit (its own collection frees the dropped buffers into the pools'
     * pages, not into its direct memory). Before, the host got that OutOfMemoryError (6 of 6 runs of a
     * review's reproducer), which it never gets without the agent; now the pools collect and serve it.
     */
    @Test
    void buffers_dropped_at_the_direct_memory_limit_never_make_the_host_run_out() throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), """
                layout: sliced
                pools:
                  - page_size: 256 KiB
                    max_slice: 64 KiB
                  - page_size: 4 MiB
                    max_slice: 2 MiB
                intercept:
                  packages: [it.host]
                report:
                  file: run.jfr
                  period: 0
                """);
        Forked.Result r = Forked.app(
                dir, List.of(Forked.agent(Path.of("layout.yaml")), "-Xmx256m"), DropAtTheLimit.class, "3000");
        assertEquals(0, r.exit(), r.toString());
        assertEquals("made 6000", r.out().strip(), r.toString());
        Forked.Result report = Forked.cli(dir, "report", "run.jfr");
        assertEquals(0, report.exit(), report.toString());
        assertTrue(report.out().contains("\ncollections: "), "the pools collected at the limit: " + report.out());
    }

    /**
     * After a burst the application dropped, the pools' pages hold the direct memory limit, empty once
     * the JDK's own collection has run. Before, what the JDK then refused anyone else (its temporary
     * buffer for a file write, a library the layout does not intercept) and a request no pool takes
     * stayed refused: nothing gave the empty pages back (a review's reproducer, on JDK 17 and 25).
     * Now a collection near the limit has the release thread give them back, and a refused fallback
     * is asked again once they are.
     */
    @Test
    void after_a_dropped_burst_the_rest_of_the_process_gets_direct_memory_as_without_the_agent() throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), """
                layout: sliced
                pools:
                  - page_size: 4 MiB
                    max_slice: 1 MiB
                intercept:
                  packages: [it.host]
                report:
                  file: none
                """);
        List<String> expected = List.of(
                "outside allocateDirect: ok",
                "heap buffer written: ok",
                "larger than any pool takes, refused: 0",
                "outside kept: 4");
        Forked.Result without =
                Forked.app(dir, List.of("-Xmx256m", "-XX:MaxDirectMemorySize=32m"), AfterABurst.class, "out.bin");
        assertEquals(0, without.exit(), without.toString());
        assertEquals(expected, without.out().lines().toList(), "without the agent: " + without);
        Forked.Result r = Forked.app(
                dir,
                List.of(Forked.agent(Path.of("layout.yaml")), "-Xmx256m", "-XX:MaxDirectMemorySize=32m"),
                AfterABurst.class,
                "out.bin");
        assertEquals(0, r.exit(), r.toString());
        assertEquals(expected, r.out().lines().toList(), r.toString());
    }

    /**
     * A request the JDK refuses, with nothing the pools could give back, is refused after the JDK's
     * one collection and half second of retries, as without the agent: before, the pools asked the JDK
     * a second time whatever they had given back, and the host waited twice (a review measured 1.03 s
     * against 0.52 s without the agent, JDK 17 and 25). Counted in full collections, not in time.
     */
    @Test
    void a_request_the_jdk_refuses_is_refused_after_one_collection() throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), ONE_MIB_PAGES);
        Forked.Result r = Forked.app(
                dir,
                List.of(
                        Forked.agent(Path.of("layout.yaml")),
                        "-XX:+UseG1GC",
                        "-Xmx256m",
                        "-XX:MaxDirectMemorySize=32m"),
                RefusedOnce.class);
        assertEquals(0, r.exit(), r.toString());
        assertEquals(
                List.of("refused: java.lang.OutOfMemoryError", "full collections 1", "held 31"),
                r.out().lines().toList(),
                r.toString());
    }

    /**
     * Pages emptied by a collection that comes while the release thread looks after an earlier one,
     * after its first look: they go back too. Before, that collection was folded into the look in
     * progress, which had counted no page as empty, and nothing looked after it: the pages stayed,
     * and a request the JDK refused just then was refused for good (`ExhaustionIT`'s burst, once in
     * CI). The second collection comes 30 ms after the first, between the two looks (20 and 40 ms);
     * at 0 and 100 ms, before the first look and after the second.
     */
    @ParameterizedTest(name = "{0} ms")
    @ValueSource(strings = {"30", "0", "100"})
    void pages_emptied_while_the_release_thread_looks_are_given_back_at_the_limit(String between) throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), """
                layout: sliced
                pools:
                  - page_size: 1 MiB
                intercept:
                  packages: [it.host]
                report:
                  file: none
                """);
        Forked.Result r = Forked.app(
                dir,
                List.of(Forked.agent(Path.of("layout.yaml")), "-Xmx256m", "-XX:MaxDirectMemorySize=32m"),
                EmptiedDuringALook.class,
                between);
        assertEquals(0, r.exit(), r.toString());
        assertEquals(List.of("in use 0, pages held 0"), r.out().lines().toList(), r.toString());
    }

    /**
     * Room that idle threads' caches hold keeps every page in use: the release thread's two looks
     * find no empty page, so it takes the caches back and looks twice more. Before, the JDK refused
     * direct memory outside the pools, which the release thread's first give-back (that drained the
     * caches at every collection) and a run without the agent serve (a review's reproducer).
     */
    @Test
    void slices_idle_threads_keep_cached_are_given_back_at_the_limit() throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), ONE_MIB_PAGES);
        Forked.Result r = Forked.app(
                dir,
                List.of(Forked.agent(Path.of("layout.yaml")), "-Xmx256m", "-XX:MaxDirectMemorySize=32m"),
                CachedAtTheLimit.class);
        assertEquals(0, r.exit(), r.toString());
        assertEquals(
                List.of("in use 0", "outside allocateDirect: ok"),
                r.out().lines().toList(),
                r.toString());
    }
}
