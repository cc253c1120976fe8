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
        Files.writeString(
                dir.resolve("good.yaml"),
                """
                layout: sliced
                pools:
                  - page_size: 1 MiB
                intercept:
                  packages: [it.host]
                report:
                  file: none
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
            assertTrue(bad.err().matches("pools: bad\\.yaml:2: .*\\R"), bad.err());
            assertEquals("", bad.out());

            Forked.Result good = Forked.cli(dir, "attach", pid, "good.yaml");
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
                    "served by the pools true, capacities 100 1000",
                    Files.readString(out, StandardCharsets.UTF_8).strip());
            String said = Files.readString(err, StandardCharsets.UTF_8);
            assertTrue(said.lines().allMatch(l -> l.startsWith("pools: ")), "only the agent's own lines: " + said);
            assertTrue(!said.contains("bad.yaml"), "nothing of the refused layout: " + said);
        } finally {
            target.destroyForcibly();
        }
    }
}
