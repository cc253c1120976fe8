package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.it.apps.ApiApp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code java -javaagent:pools.jar[=layout.yaml]}: what a user sees at start-up, through the shaded jar in a JVM of its own. */
class AgentStartupIT {

    @TempDir
    Path dir;

    private static final List<String> QUIET_RECORDING = List.of();

    private Path write(String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    @Test
    void a_valid_layout_is_installed_as_written_and_read_back_through_the_api() throws Exception {
        write("layout.yaml", """
                # two pools: small tensors share 1 MiB pages, larger ones 8 MiB pages
                layout: sliced
                pools:
                  - page_size: 1 MiB
                    max_slice: 64 KiB
                    pages: 16
                  - page_size: 8 MiB
                intercept:
                  packages: [it.host]
                report:
                  file: none
                """);
        Forked.Result r = Forked.app(dir, List.of(Forked.agent(Path.of("layout.yaml"))), ApiApp.class,
                "reports", "alloc", "reports", "usage", "install", "free", "gc", "install", "reports", "install-invalid", "reports");
        assertEquals(0, r.exit(), r.toString());
        List<String> out = r.out().lines().toList();
        assertEquals(List.of("main ran",
                "report 1048576 0 0 0", "report 8388608 0 0 0",
                "report 1048576 0 0 0", "report 8388608 1 1 100000",
                "usage MemoryPoolUsage[numberAllocs=1, bytesInUse=100000, bytesPadding=32, bytesReserved=8388608]",
                "refused POOLS_IN_USE 100000 transient=true",
                "installed",
                "report 4194304 0 0 0", "report 33554432 0 0 0",
                "refused INVALID_LAYOUT the pool layout cannot be honoured: pools[0].max_slice (2 MiB) is larger than its page_size (1 MiB)",
                "report 4194304 0 0 0", "report 33554432 0 0 0"), out);
        assertEquals("", r.err(), "a good start says nothing");
    }

    @Test
    void without_an_argument_the_agent_runs_the_sub_slices_default() throws Exception {
        Forked.Result r = Forked.app(dir, List.of(Forked.agent(null), "-XX:MaxDirectMemorySize=256m"), ApiApp.class, "reports");
        assertEquals(0, r.exit(), r.toString());
        // P = min(1 GiB, 256 MiB / 4) = 64 MiB: one sliced pool of 16 MiB pages, then the exclusive tail of 64 MiB
        assertEquals(List.of("main ran", "report 16777216 0 0 0", "report 67108864 0 0 0"), r.out().lines().toList());
    }

    @Test
    void without_the_agent_the_api_is_unsupported() throws Exception {
        Forked.Result r = Forked.run(dir, List.of(Forked.java(), "-cp", Forked.TEST_CLASSES + java.io.File.pathSeparator + Forked.JAR,
                ApiApp.class.getName(), "install", "reports", "usage"));
        assertEquals(0, r.exit(), r.toString());
        assertEquals(List.of("main ran", "refused UNSUPPORTED 0 transient=false",
                "usage MemoryPoolUsage[numberAllocs=0, bytesInUse=0, bytesPadding=0, bytesReserved=0]"), r.out().lines().toList());
    }

    static Stream<Arguments> badFiles() {
        return Stream.of(
                Arguments.of("yaml syntax", "layout: [sliced\n", "bad.yaml:2: YAML syntax:"),
                Arguments.of("tab indentation", "layout: sliced\npools:\n\t- page_size: 1 MiB\n", "bad.yaml:3: YAML syntax: found character '\\t(TAB)'"),
                Arguments.of("unknown key", "layout: sub-slices\nreleases: gc\n", "bad.yaml:2: unknown key 'releases' (did you mean 'release'?)"),
                Arguments.of("misspelled top key", "layuot: sliced\n", "bad.yaml:1: unknown key 'layuot' (did you mean 'layout'?)"),
                Arguments.of("misspelled pool key", "layout: sliced\npools:\n  - page_sise: 1 MiB\n",
                        "bad.yaml:3: unknown key 'pools[0].page_sise' (did you mean 'page_size'?)"),
                Arguments.of("unknown nested key", "report:\n  flie: x.jfr\n", "bad.yaml:2: unknown key 'report.flie' (did you mean 'file'?)"),
                Arguments.of("negative size", "layout: sliced\npools:\n  - page_size: -1 MiB\n",
                        "bad.yaml:3: pools[0].page_size: '-1 MiB' is negative (expected a size of at least 1 byte)"),
                Arguments.of("overflowing size", "layout: sliced\npools:\n  - page_size: 99999999999999999999999\n",
                        "bad.yaml:3: pools[0].page_size: 99999999999999999999999 is too large (the largest size is 2 GiB)"),
                Arguments.of("size past a direct buffer", "layout: sliced\npools:\n  - page_size: 3 GiB\n",
                        "bad.yaml:3: pools[0].page_size (3 GiB) is larger than 2147483584 B (a direct buffer holds at most 2 GiB)"),
                Arguments.of("unknown unit", "layout: sliced\npools:\n  - page_size: 1 TB\n",
                        "bad.yaml:3: pools[0].page_size: unknown unit 'TB' in '1 TB'"),
                Arguments.of("max_slice above page_size", "layout: sliced\npools:\n  - page_size: 1 MiB\n  - page_size: 1 MiB\n    max_slice: 2 MiB\n",
                        "bad.yaml:5: pools[1].max_slice (2 MiB) is larger than its page_size (1 MiB)"),
                Arguments.of("pages 0", "layout: sliced\npools:\n  - page_size: 1 MiB\n    pages: 0\n",
                        "bad.yaml:4: pools[0].pages (0) is outside 1..=65535"),
                Arguments.of("pages 70000", "layout: sliced\npools:\n  - page_size: 1 MiB\n    pages: 70000\n",
                        "bad.yaml:4: pools[0].pages (70000) is outside 1..=65535"),
                Arguments.of("pages not a number", "layout: sliced\npools:\n  - page_size: 1 MiB\n    pages: many\n",
                        "bad.yaml:4: pools[0].pages: 'many' is not a whole number"),
                Arguments.of("zero size", "layout: sliced\npools:\n  - page_size: 0\n",
                        "bad.yaml:3: pools[0].page_size is 0 (a size must be at least 1 byte)"),
                Arguments.of("empty pool list", "layout: sliced\npools: []\n", "bad.yaml:2: pools is empty (a sliced layout needs at least one pool)"),
                Arguments.of("sliced without pools", "layout: sliced\n", "bad.yaml:1: pools is missing (layout: sliced needs a list of pools)"),
                Arguments.of("pools under a preset", "layout: sub-slices\npools:\n  - page_size: 1 MiB\n",
                        "bad.yaml:3: pools is only for layout: sliced (this layout is sub-slices)"),
                Arguments.of("max_page_size under sliced", "layout: sliced\npools:\n  - page_size: 1 MiB\nmax_page_size: 1 GiB\n",
                        "bad.yaml:4: max_page_size is only for the presets sub-slices and exclusive-pages (this layout is sliced)"),
                Arguments.of("max_page_size too small", "layout: exclusive-pages\nmax_page_size: 512 KiB\n",
                        "bad.yaml:2: max_page_size (512 KiB) is outside 1 MiB..2147483584 B"),
                Arguments.of("unknown layout", "layout: slice\n", "bad.yaml:1: unknown value 'slice' for layout (did you mean 'sliced'?)"),
                Arguments.of("unknown release", "release: gcc\n", "bad.yaml:1: unknown value 'gcc' for release (did you mean 'gc'?); expected gc, close"),
                Arguments.of("unknown on_exhausted", "on_exhausted: panic\n", "bad.yaml:1: unknown value 'panic' for on_exhausted; expected fallback, fail"),
                Arguments.of("not a boolean", "poison_on_free: maybe\n", "bad.yaml:1: poison_on_free: 'maybe' is not true or false"),
                Arguments.of("bad duration", "report:\n  period: 1 hour\n", "bad.yaml:2: report.period: unknown unit 'hour' in '1 hour' (expected ms, s or min)"),
                Arguments.of("bad report file", "report:\n  file: out-%x.jfr\n", "bad.yaml:2: report.file: 'out-%x.jfr' has an unknown placeholder"),
                Arguments.of("jdk package", "intercept:\n  packages: [java.nio]\n",
                        "bad.yaml:2: intercept.packages: 'java.nio' cannot be intercepted"),
                Arguments.of("duplicate key", "layout: sliced\nlayout: direct\n", "bad.yaml:2: duplicate key 'layout' (first at line 1)"),
                Arguments.of("top level not a mapping", "- layout: sliced\n", "bad.yaml:1: the top level is not a mapping"),
                Arguments.of("empty file", "\n\n", "bad.yaml: the file is empty (expected a layout, e.g. 'layout: sub-slices')"),
                Arguments.of("comments only", "# nothing here\n", "bad.yaml: the file is empty"),
                Arguments.of("missing file", null, "bad.yaml: no such file"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFiles")
    void a_bad_layout_stops_the_jvm_before_main_with_one_line_and_status_2(String what, String text, String expected) throws Exception {
        if (text != null) {
            write("bad.yaml", text);
        }
        Forked.Result r = Forked.app(dir, List.of(Forked.agent(Path.of("bad.yaml"))), ApiApp.class, "reports");
        assertEquals(2, r.exit(), r.toString());
        assertEquals("", r.out(), "main never ran");
        assertEquals(1, r.errLines().size(), "exactly one line: " + r.err());
        String line = r.errLines().get(0);
        assertTrue(line.startsWith("pools: " + expected), "expected 'pools: " + expected + "...' but got: " + line);
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), "no stack trace: " + r.err());

        Forked.Result check = Forked.cli(dir, "check", "bad.yaml");
        assertEquals(2, check.exit(), check.toString());
        assertEquals(List.of(line), check.errLines(), "check says the same as the agent");
    }

    @Test
    void check_prints_a_good_file_normalised_and_its_output_is_a_valid_layout() throws Exception {
        write("good.yaml", "layout: sub-slices\nmax_page_size: 1 GiB\nrelease: close\n");
        Forked.Result r = Forked.cli(dir, "check", "good.yaml");
        assertEquals(0, r.exit(), r.toString());
        String out = r.out();
        assertTrue(out.contains("max_page_size: 1 GiB"), out);
        assertTrue(out.contains("#   0: sliced, page_size 16 MiB, max_slice 2 MiB, no cap"), out);
        assertTrue(out.contains("#   3: exclusive, max_alloc 1 GiB, dealloc_period 10000"), out);
        assertTrue(out.contains("release: close"), out);
        assertTrue(out.contains("on_exhausted: fallback"), out);
        write("normalised.yaml", out);
        Forked.Result again = Forked.cli(dir, "check", "normalised.yaml");
        assertEquals(0, again.exit(), again.toString());
        assertEquals(out.lines().skip(1).toList(), again.out().lines().skip(1).toList(), "normalising is idempotent");
    }
}
