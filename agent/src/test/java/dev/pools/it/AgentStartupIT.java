package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.it.apps.ApiApp;
import dev.pools.layout.LayoutRulesTest;
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
        Forked.Result r = Forked.app(
                dir,
                List.of(Forked.agent(Path.of("layout.yaml"))),
                ApiApp.class,
                "reports",
                "alloc",
                "reports",
                "usage",
                "install",
                "free",
                "gc",
                "install",
                "reports",
                "install-invalid",
                "reports");
        assertEquals(0, r.exit(), r.toString());
        List<String> out = r.out().lines().toList();
        assertEquals(
                List.of(
                        "main ran",
                        "report 1048576 0 0 0",
                        "report 8388608 0 0 0",
                        "report 1048576 0 0 0",
                        "report 8388608 1 1 100000",
                        "usage MemoryPoolUsage[numberAllocs=1, bytesInUse=100000, bytesPadding=32, bytesReserved=8388608]",
                        "refused POOLS_IN_USE 100000 transient=true",
                        "installed",
                        "report 4194304 0 0 0",
                        "report 33554432 0 0 0",
                        "refused INVALID_LAYOUT the pool layout cannot be honoured: pools[0].max_slice (2 MiB) is larger than its page_size (1 MiB)",
                        "report 4194304 0 0 0",
                        "report 33554432 0 0 0"),
                out);
        assertEquals("", r.err(), "a good start says nothing");
    }

    /**
     * Start-up time: a file of the plain shape (what {@code suggest} writes) is read without loading
     * any class of SnakeYAML Engine, whose node classes alone cost {@code premain} milliseconds.
     */
    @Test
    void a_plain_layout_file_is_read_without_snakeyaml() throws Exception {
        write("layout.yaml", """
                layout: sliced
                pools:
                  - page_size: 1 MiB    # 1048576 B
                    max_slice: 64 KiB
                    pages: 2
                intercept:
                  packages: [it.host]
                release: gc
                report:
                  file: none
                """);
        Forked.Result r = Forked.app(
                dir,
                List.of(Forked.agent(Path.of("layout.yaml")), "-Xlog:class+load=info:file=classes.txt"),
                ApiApp.class,
                "reports");
        assertEquals(0, r.exit(), r.toString());
        assertEquals(
                List.of("main ran", "report 1048576 0 0 0"), r.out().lines().toList());
        List<String> loaded = Files.readAllLines(dir.resolve("classes.txt"));
        assertTrue(
                loaded.stream().anyMatch(l -> l.contains(" dev.pools.layout.PlainYaml ")), "read by the plain reader");
        assertEquals(
                List.of(),
                loaded.stream().filter(l -> l.contains("snakeyaml")).toList(),
                "no class of SnakeYAML Engine is loaded");
    }

    /**
     * A trace whose file cannot be written costs the trace only: the pools run, and it is said once.
     * Before, the whole agent stayed off ("could not start; the host runs on its own allocations").
     */
    @Test
    void a_trace_that_cannot_be_written_is_dropped_alone() throws Exception {
        write("layout.yaml", """
                layout: sliced
                pools:
                  - page_size: 1 MiB
                intercept:
                  packages: [it.host]
                report:
                  file: none
                  trace: nowhere/trace-%p.txt
                """);
        Forked.Result r = Forked.app(dir, List.of(Forked.agent(Path.of("layout.yaml"))), ApiApp.class, "reports");
        assertEquals(0, r.exit(), r.toString());
        assertEquals(
                List.of("main ran", "report 1048576 0 0 0"), r.out().lines().toList(), "the pools run");
        assertEquals(1, r.errLines().size(), r.toString());
        assertTrue(r.errLines().get(0).startsWith("pools: report.trace: cannot write nowhere/trace-"), r.toString());
        assertTrue(r.errLines().get(0).endsWith("; no trace is written"), r.toString());
    }

    @Test
    void without_an_argument_the_agent_runs_the_host_default() throws Exception {
        Forked.Result r =
                Forked.app(dir, List.of(Forked.agent(null), "-XX:MaxDirectMemorySize=256m"), ApiApp.class, "reports");
        assertEquals(0, r.exit(), r.toString());
        // Sliced pools of 64 KiB, 1 MiB and 2 MiB pages, then the exclusive tail of P = min(1 GiB, 256 MiB / 4) = 64
        // MiB
        assertEquals(
                List.of(
                        "main ran",
                        "report 65536 0 0 0",
                        "report 1048576 0 0 0",
                        "report 2097152 0 0 0",
                        "report 67108864 0 0 0"),
                r.out().lines().toList());
    }

    @Test
    void without_the_agent_the_api_is_unsupported() throws Exception {
        Forked.Result r = Forked.withoutAgent(dir, ApiApp.class, "install", "reports", "usage");
        assertEquals(0, r.exit(), r.toString());
        assertEquals(
                List.of(
                        "main ran",
                        "refused UNSUPPORTED 0 transient=false",
                        "usage MemoryPoolUsage[numberAllocs=0, bytesInUse=0, bytesPadding=0, bytesReserved=0]"),
                r.out().lines().toList());
    }

    /** The wiring, on a few cases; every rule is checked in milliseconds by {@code LayoutRulesTest}. */
    static Stream<Arguments> badFiles() {
        return LayoutRulesTest.badFiles()
                .filter(a -> List.of("yaml syntax", "max_slice above page_size", "jdk package", "missing file")
                        .contains((String) a.get()[0]));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFiles")
    void a_bad_layout_stops_the_jvm_before_main_with_one_line_and_status_2(String what, String text, String expected)
            throws Exception {
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

    /**
     * A report.file this JVM cannot write (a folder, a device, a missing folder) stops it before main,
     * with the file's line; before, it was said once at the recording's deferred start, or at the JVM's
     * end for a short run: after the run it was to measure. {@code check} takes the same file: it may
     * run on another machine, whose folders differ.
     */
    @Test
    void a_recording_this_jvm_cannot_write_stops_it_before_main() throws Exception {
        Files.createDirectory(dir.resolve("folder"));
        for (String name : List.of("folder", "/dev/null", "missing/pools-%p.jfr")) {
            write("bad.yaml", "layout: sliced\npools:\n  - page_size: 1 MiB\nreport:\n  file: " + name + "\n");
            Forked.Result r = Forked.app(dir, List.of(Forked.agent(Path.of("bad.yaml"))), ApiApp.class, "reports");
            assertEquals(2, r.exit(), r.toString());
            assertEquals("", r.out(), "main never ran");
            assertEquals(1, r.errLines().size(), r.toString());
            String line = r.errLines().get(0);
            assertTrue(line.startsWith("pools: bad.yaml:5: report.file "), line);
            assertTrue(
                    line.endsWith(": this JVM cannot write its recording there (none turns the recording off)"), line);
            if (name.startsWith("missing")) {
                assertTrue(
                        line.matches(
                                ".* missing/pools-[0-9]+\\.jfr is in a folder that does not exist \\(.*/missing\\):.*"),
                        line);
            }
            Forked.Result check = Forked.cli(dir, "check", "bad.yaml");
            assertEquals(0, check.exit(), check.toString());
        }
        assertFalse(Files.exists(dir.resolve("missing")), "nothing made");
    }

    /** A layout given through a pipe, as {@code -javaagent:pools.jar=<(...)} does: JDK 17 refused it ("Illegal seek"). */
    @Test
    void a_layout_read_from_a_pipe_is_installed() throws Exception {
        Path fifo = dir.resolve("layout.fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, mkfifo.waitFor(), "mkfifo");
        Thread writer = new Thread(() -> {
            try {
                // Opening a pipe to write waits for its reader: the agent, in the forked JVM.
                Files.writeString(
                        fifo, "layout: sliced\npools:\n  - page_size: 2 MiB\nintercept:\n  packages: [it.host]\n");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        writer.setDaemon(true);
        writer.start();
        Forked.Result r = Forked.app(
                dir, List.of(Forked.agent(Path.of("layout.fifo")), "-Dpools.quiet=true"), ApiApp.class, "reports");
        // (A JVM that never opened the pipe leaves the writer waiting: a daemon, it ends with the tests.)
        assertEquals(0, r.exit(), r.toString());
        assertEquals(
                List.of("main ran", "report 2097152 0 0 0"), r.out().lines().toList(), r.toString());
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
