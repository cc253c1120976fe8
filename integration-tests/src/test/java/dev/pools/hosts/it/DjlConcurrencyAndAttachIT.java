package dev.pools.hosts.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.tools.attach.VirtualMachine;
import dev.pools.hosts.it.apps.DjlLateAttach;
import dev.pools.hosts.it.apps.DjlThreads;
import dev.pools.it.Forked;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DjlConcurrencyAndAttachIT {

    @TempDir
    Path dir;

    private Path layout() throws Exception {
        return layout("gc");
    }

    private Path layout(String release) throws Exception {
        return Files.writeString(dir.resolve("layout.yaml"), """
                layout: sliced
                pools:
                  - page_size: 256 KiB
                    max_slice: 4 KiB
                  - page_size: 1 MiB
                release: %s
                report:
                  file: none
                """.formatted(release));
    }

    @Test
    void four_threads_with_their_own_managers_compute_correctly_and_give_everything_back() throws Exception {
        layout();
        Forked.Result r = HostJvm.run(dir, List.of(Forked.agent(Path.of("layout.yaml"))), DjlThreads.class, "150");
        assertEquals(0, r.exit(), r.toString());
        assertEquals("600", HostJvm.value(r, "checked"));
        assertEquals("0", HostJvm.value(r, "wrong"), r.toString());
        assertEquals("0 0 0", HostJvm.value(r, "usage-end"), r.toString());
    }

    /** Under {@code release: close} the retransformed classes also get DJL's return hooks. */
    @ParameterizedTest
    @ValueSource(strings = {"gc", "close"})
    void a_late_attach_routes_the_allocations_made_after_it(String release) throws Exception {
        Path layout = layout(release).toAbsolutePath();
        List<String> flags = new ArrayList<>(List.of("-XX:+EnableDynamicAgentLoading"));
        Process p = new ProcessBuilder(HostJvm.command(flags, DjlLateAttach.class))
                .directory(dir.toFile())
                .redirectError(dir.resolve("err.txt").toFile())
                .start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        List<String> lines = new ArrayList<>();
        String line;
        while ((line = out.readLine()) != null && !line.startsWith("ready ")) {
            lines.add(line);
        }
        assertTrue(line != null, "the target never got ready: " + lines + Files.readString(dir.resolve("err.txt")));
        String pid = line.substring("ready ".length());
        VirtualMachine vm = VirtualMachine.attach(pid);
        try {
            vm.loadAgent(Forked.JAR.toString(), layout.toString());
        } finally {
            vm.detach();
        }
        try (Writer in = p.outputWriter()) {
            in.write("go\n");
        }
        while ((line = out.readLine()) != null) {
            lines.add(line);
        }
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        String err = Files.readString(dir.resolve("err.txt"));
        assertEquals(0, p.exitValue(), lines + err);
        assertTrue(lines.contains("agent-before false"), lines.toString());
        assertTrue(lines.contains("agent-after true"), lines.toString());
        assertTrue(lines.contains("pooled-before false"), "made before the attach: the JDK's own buffer: " + lines);
        assertTrue(lines.contains("pooled-after true"), "made after the attach: a pool buffer: " + lines);
        assertTrue(lines.contains("result [6.0, 8.0, 10.0, 12.0]"), lines.toString());
        assertTrue(lines.contains("usage-end 0 0 0"), lines.toString());
        assertTrue(err.contains("pools: attached late:"), err);
        Matcher counts = Pattern.compile("(\\d+) already loaded classes re-instrumented \\((\\d+) changed")
                .matcher(err);
        assertTrue(counts.find(), err);
        int changed = Integer.parseInt(counts.group(2));
        // DJL's managers call allocateDirect; most of its classes do not, and are given back unchanged.
        assertTrue(changed >= 1 && changed < Integer.parseInt(counts.group(1)), err);
        assertEquals(release.equals("close"), err.contains("release at close on"), err);
        // Hidden classes (DJL's lambdas) cannot be changed and are not given to transformers: skipped, not warned of.
        assertFalse(err.contains("cannot instrument"), err);
    }
}
