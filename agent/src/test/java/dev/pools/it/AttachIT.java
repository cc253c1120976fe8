package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.it.apps.AttachTarget;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code java -jar pools.jar attach PID LAYOUT} against a JVM started without the agent. */
class AttachIT {

    @TempDir
    Path dir;

    /**
     * A bad layout is one line and exit status 2 on the caller's side, and the other JVM hears nothing
     * of it (a late attach that refused its layout printed the JDK's stack trace there); a good one
     * attaches, with the layout's path made absolute, and the host's next allocation is the pools'; a
     * second attach is refused, saying which layout runs.
     */
    @Test
    void attach_checks_the_layout_here_then_loads_the_agent_once() throws Exception {
        Files.writeString(dir.resolve("bad.yaml"), "pools:\n  - kind: nope\n");
        Files.writeString(dir.resolve("good.yaml"), """
                layout: sliced
                pools:
                  - page_size: 1 MiB
                intercept:
                  packages: [it.host]
                report:
                  file: run.jfr
                """);
        List<String> cmd = new ArrayList<>(List.of(Forked.java()));
        if (Runtime.version().feature() >= 21) {
            cmd.add("-XX:+EnableDynamicAgentLoading");
        }
        cmd.addAll(List.of("-cp", Forked.TEST_CLASSES.toString(), AttachTarget.class.getName()));
        Path out = dir.resolve("target.out");
        Path err = dir.resolve("target.err");
        Process target = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        try {
            for (int i = 0; i < 60_000 && !Files.exists(dir.resolve("ready")) && target.isAlive(); i++) {
                Thread.sleep(1);
            }
            assertTrue(Files.exists(dir.resolve("ready")), "the target started: " + Files.readString(err));
            String pid = Long.toString(target.pid());

            Forked.Result bad = Forked.cli(dir, "attach", pid, "bad.yaml");
            assertEquals(2, bad.exit(), bad.toString());
            assertTrue(bad.err().matches("pools: bad\\.yaml:1: pools is only for layout: sliced .*\\R"), bad.err());
            assertEquals("", bad.out());

            // A path past what the JVM's attach takes: one line, the target untouched (the JDK's
            // connection broke before, an internal error with its stack trace).
            Path deep = dir;
            for (int i = 0; i < 12; i++) {
                deep = deep.resolve("d".repeat(90));
            }
            Files.createDirectories(deep);
            Files.copy(dir.resolve("good.yaml"), deep.resolve("good.yaml"));
            Forked.Result tooLong =
                    Forked.cli(dir, "attach", pid, deep.resolve("good.yaml").toString());
            assertEquals(2, tooLong.exit(), tooLong.toString());
            assertTrue(
                    tooLong.err()
                            .matches("pools: cannot attach: the path of pools.jar and of the layout take \\d+"
                                    + " bytes, more than the 1024 the JVM's attach takes; .*\\R"),
                    tooLong.err());

            // What the target said so far: nothing of the layouts attach refused here.
            String beforeLoad = Files.readString(err, StandardCharsets.UTF_8);
            assertEquals("", beforeLoad, "the target heard nothing of the refused attaches");

            // A refusal the target said (a load by other means than attach, which prints the JDK's
            // own lines too) no longer stands once a layout runs.
            String jcmd =
                    Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
            Process load = new ProcessBuilder(
                            jcmd,
                            pid,
                            "JVMTI.agent_load",
                            Forked.JAR.toString(),
                            dir.resolve("bad.yaml").toString())
                    .redirectErrorStream(true)
                    .start();
            String loadSaid = new String(load.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(load.waitFor(60, TimeUnit.SECONDS), loadSaid);

            Files.createDirectories(dir.resolve("sub"));
            Forked.Result good = Forked.cli(dir, "attach", pid, "sub/../good.yaml");
            assertEquals(0, good.exit(), good.toString());
            assertEquals(
                    "pools: attached to " + pid + ", layout "
                            + dir.resolve("good.yaml").toRealPath(),
                    good.out().strip().replace(dir.toString(), dir.toRealPath().toString()));

            Forked.Result again = Forked.cli(dir, "attach", pid, "good.yaml");
            assertEquals(2, again.exit(), again.toString());
            assertTrue(
                    again.err()
                            .matches("pools: " + pid
                                    + " runs the pools agent already, with layout .*good\\.yaml; .*\\R"),
                    again.err());

            Files.writeString(dir.resolve("go"), "");
            assertTrue(target.waitFor(120, TimeUnit.SECONDS), "the target ended");
            assertEquals(0, target.exitValue(), Files.readString(err));
            assertEquals(
                    List.of(
                            "served by the pools true, capacities 100 1000",
                            "pools.agent " + dir.toRealPath().resolve("good.yaml"),
                            "pools.agent.refused null"),
                    Files.readString(out, StandardCharsets.UTF_8)
                            .replace(dir.toString(), dir.toRealPath().toString())
                            .lines()
                            .toList());
            String said = Files.readString(err, StandardCharsets.UTF_8);
            assertTrue(
                    said.lines().anyMatch(l -> l.matches("pools: .*bad\\.yaml:1: pools is only for layout: sliced .*")),
                    "the load by jcmd said its refusal: " + said);
            assertTrue(said.lines().anyMatch(l -> l.startsWith("pools: attached late: ")), "then attached: " + said);

            // The recording says it misses what the process held before the attach, however soon after
            // the JVM's start it came (within 10 s, suggest took it for whole before).
            Forked.Result report = Forked.cli(dir, "report", "run.jfr");
            assertEquals(0, report.exit(), report.toString());
            assertTrue(
                    report.out()
                            .contains("\nattached late: the agent was loaded into the running JVM; what it held"
                                    + " before is not here\n"),
                    report.out());
            Forked.Result suggest = Forked.cli(dir, "suggest", "run.jfr");
            assertEquals(0, suggest.exit(), suggest.toString());
            assertTrue(
                    suggest.out()
                            .matches("(?s).*\n# run\\.jfr was made by an agent attached to a running JVM \\d+ s after"
                                    + " its JVM started: what the process held before is not in it, in the pools' caps"
                                    + " as in its memory\\.\n.*"),
                    suggest.out());
        } finally {
            target.destroyForcibly();
        }
    }

    /** The layout's path in {@code pools.agent} is the one attach compares: absolute and normalised. */
    @Test
    void the_layout_a_javaagent_runs_is_named_by_its_normalised_path() throws Exception {
        Files.writeString(dir.resolve("good.yaml"), """
                intercept:
                  packages: [it.host]
                report:
                  file: run.jfr
                """);
        Files.createDirectories(dir.resolve("sub"));
        Files.writeString(dir.resolve("go"), "");
        Forked.Result r = Forked.app(dir, List.of(Forked.agent(Path.of("sub/../good.yaml"))), AttachTarget.class);
        assertEquals(0, r.exit(), r.toString());
        assertEquals(
                List.of(
                        "served by the pools true, capacities 100 1000",
                        "pools.agent " + dir.toRealPath().resolve("good.yaml"),
                        "pools.agent.refused null"),
                r.out()
                        .replace(dir.toString(), dir.toRealPath().toString())
                        .lines()
                        .toList(),
                r.toString());
        Forked.Result report = Forked.cli(dir, "report", "run.jfr");
        assertEquals(0, report.exit(), report.toString());
        assertTrue(report.out().contains("\nprocess "), report.out());
        assertTrue(!report.out().contains("attached late"), "started with the JVM: " + report.out());
    }
}
