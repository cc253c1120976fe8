package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.pools.it.apps.ApiApp;
import dev.pools.it.apps.HeapHeldAtStart;
import dev.pools.it.apps.RecordedWorkload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which JVMs the agent goes into, and what it says of the system properties and agent arguments it
 * reads, through the shaded jar in JVMs of their own.
 */
class AgentReachIT {

    @TempDir
    Path dir;

    private List<String> recordings() throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".jfr"))
                    .sorted()
                    .toList();
        }
    }

    /**
     * The README's Kubernetes setup gives the agent to every JVM through {@code JAVA_TOOL_OPTIONS}. The
     * service's ended recording is then read by {@code java -jar pools.jar report} and looked at with
     * {@code jcmd}, JVMs that read the same variable: before, the CLI's JVM recorded itself at the
     * same name, replacing the service's recording with an empty one (suggest then read every peak
     * as 0). Now neither the CLI nor a JDK tool is recorded, and the file is as the service left it.
     */
    @Test
    void the_agent_stays_out_of_its_own_command_line_and_of_the_jdks_tools() throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), """
                layout: sliced
                pools:
                  - page_size: 1 MiB
                intercept:
                  packages: [it.host]
                report:
                  file: service.jfr
                """);
        Map<String, String> env = Map.of("JAVA_TOOL_OPTIONS", Forked.agent(dir.resolve("layout.yaml")));
        Forked.Result service = Forked.run(
                dir,
                List.of(
                        Forked.java(),
                        "-cp",
                        Forked.TEST_CLASSES.toString(),
                        RecordedWorkload.class.getName(),
                        "normal"),
                env);
        assertEquals(0, service.exit(), service.toString());
        byte[] recorded = Files.readAllBytes(dir.resolve("service.jfr"));

        Forked.Result report =
                Forked.run(dir, List.of(Forked.java(), "-jar", Forked.JAR.toString(), "report", "service.jfr"), env);
        assertEquals(0, report.exit(), report.toString());
        assertTrue(report.out().contains("allocations"), report.toString());
        Forked.Result byClass = Forked.run(
                dir,
                List.of(Forked.java(), "-cp", Forked.JAR.toString(), "dev.pools.cli.PoolsCli", "check", "layout.yaml"),
                env);
        assertEquals(0, byClass.exit(), byClass.toString());
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (Files.isExecutable(jcmd)) {
            Forked.Result tool = Forked.run(dir, List.of(jcmd.toString(), "-l"), env);
            assertEquals(0, tool.exit(), tool.toString());
        }
        assertEquals(List.of("service.jfr"), recordings(), "no other JVM recorded");
        assertArrayEquals(
                recorded, Files.readAllBytes(dir.resolve("service.jfr")), "the service's recording as it was");
    }

    /**
     * A value of {@code -Dpools.mallocHint} or {@code -Dpools.quiet} that is neither true nor false,
     * and a name under {@code pools.} the agent does not read, are said in one line each; before, they
     * were taken as their default without a word. The host runs.
     */
    @Test
    void a_property_the_agent_cannot_take_or_does_not_know_is_said_in_one_line() throws Exception {
        Forked.Result r = Forked.app(
                dir,
                List.of("-Dpools.mallocHint=no", "-Dpools.quite=true", Forked.agent(null)),
                ApiApp.class,
                "reports");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().startsWith("main ran"), r.toString());
        assertEquals(
                List.of(
                        "pools: -Dpools.mallocHint=no is neither true nor false; it keeps its default, true",
                        "pools: -Dpools.quite is not a property of the agent's (it reads -Dpools.quiet and"
                                + " -Dpools.mallocHint); ignored"),
                r.errLines().stream().sorted().toList(),
                r.toString());
        Forked.Result cased =
                Forked.app(dir, List.of("-Dpools.mallocHint=FALSE", Forked.agent(null)), ApiApp.class, "reports");
        assertEquals(List.of(), cased.errLines(), "any case: " + cased);
    }

    /**
     * Under the C locale of many containers the JVM cannot make a path of a non-ASCII name: the
     * layout cannot be honoured, as a missing file cannot, so the JVM stops with one line and status
     * 2. Before, the agent said "could not start" (or nothing, under -Dpools.quiet=true) and the host
     * ran without its layout. The name is made by the shell, so that the test's own locale does not
     * matter.
     */
    @Test
    void a_layout_name_the_locale_cannot_encode_stops_the_jvm_with_one_line() throws Exception {
        String command = "exec env LC_ALL=C LANG=C '" + Forked.java() + "' -Dpools.quiet=true"
                + " -javaagent:'" + Forked.JAR + "'=\"$(printf 'l\\303\\244yout.yaml')\""
                + " -cp '" + Forked.TEST_CLASSES + "' " + ApiApp.class.getName() + " reports";
        Forked.Result r = Forked.run(dir, List.of("sh", "-c", command));
        assertEquals(2, r.exit(), r.toString());
        assertEquals("", r.out(), "main never ran");
        assertEquals(1, r.errLines().size(), r.toString());
        assertTrue(r.errLines().get(0).contains("yout.yaml: not a file name this JVM can use ("), r.toString());
    }

    /**
     * A host whose heap is nearly full, live, when the recording would start: the start waits until
     * the heap has room (8 MiB here), since it is the first to use some JDK classes, and one whose
     * initialisation meets a full heap stays unusable for the host too. Before, the file was created
     * during the hold, and in 5 of 16 runs of a host that lived at a full heap then, the host's own
     * {@code FileChannel.open} and {@code ZonedDateTime.now()} later threw {@code NoClassDefFoundError}.
     */
    @Test
    void the_recording_starts_once_the_heap_has_room_not_while_the_host_holds_it_full() throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), """
                layout: sliced
                pools:
                  - page_size: 1 MiB
                intercept:
                  packages: [it.host]
                report:
                  file: held.jfr
                  period: 200 ms
                """);
        Path full = dir.resolve("heap-full");
        Files.deleteIfExists(full);
        Forked.Result r = Forked.app(
                dir,
                List.of("-Xmx32m", "-Dpools.test.recordingStartGate=" + full, Forked.agent(dir.resolve("layout.yaml"))),
                HeapHeldAtStart.class,
                dir.resolve("held.jfr").toString(),
                full.toString());
        assertEquals(0, r.exit(), r.toString());
        assertEquals(
                List.of("file during the hold false", "file after the hold true", "time zone true"),
                r.out().lines().toList(),
                r.toString());
        Forked.Result report = Forked.cli(dir, "report", "held.jfr");
        assertEquals(0, report.exit(), report.toString());
    }

    /**
     * JDK 17 with a security manager of the default policy, which refuses the agent its system
     * properties and shutdown hook: the host runs, with at most one line. Before, the agent's first
     * property read threw out of {@code premain} and the JVM aborted (status 134). Later JDKs cannot
     * enable a security manager.
     */
    @Test
    void under_a_security_manager_the_host_runs_and_the_agent_says_at_most_one_line() throws Exception {
        assumeTrue(Runtime.version().feature() < 24, "no security manager on JDK 24 and later");
        Forked.Result r =
                Forked.app(dir, List.of("-Djava.security.manager", Forked.agent(null)), ApiApp.class, "reports");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().startsWith("main ran"), r.toString());
        List<String> said =
                r.errLines().stream().filter(l -> l.startsWith("pools:")).toList();
        assertTrue(said.size() <= 1, r.toString());
        assertTrue(r.errLines().stream().noneMatch(l -> l.contains("FATAL")), r.toString());
    }
}
