package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PlatformBeansTest {

    /** Pool names and buffer pool names (sorted: ManagementFactory keeps them in a map), the pid, on one line. */
    static String describe(PlatformBeans b) {
        List<String> names = new ArrayList<>();
        for (MemoryPoolMXBean p : b.memoryPools) {
            names.add(p.getName());
        }
        for (BufferPoolMXBean p : b.bufferPools) {
            names.add("buffers " + p.getName());
        }
        names.sort(null);
        return names + " pid " + b.runtime.getPid() + " threads " + (b.threads.getThreadCount() > 0);
    }

    @Test
    void without_the_export_the_beans_are_managementfactorys() {
        // Surefire's JVM exports java.base's packages only: the helper is out of reach.
        assertNull(PlatformBeans.fromHelper());
        PlatformBeans b = PlatformBeans.get();
        assertFalse(b.direct);
        assertSame(ManagementFactory.getMemoryMXBean(), b.memory);
        assertEquals(describe(PlatformBeans.fromFactory()), describe(b));
    }

    @Test
    void with_the_export_they_come_from_the_helper_and_are_the_same_beans() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> cmd = new ArrayList<>(List.of(java.toString()));
        // The java.base internals the agent opens for the pools, and the management package.
        cmd.addAll(JdkInternals.commandLineFlags());
        cmd.addAll(List.of(
                "--add-exports",
                PlatformBeans.MODULE + "/" + PlatformBeans.EXPORTED + "=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                Helper.class.getName()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        List<String> lines = out.lines().toList();
        assertEquals("direct", lines.get(0), out);
        assertEquals(lines.get(1), lines.get(2), "the helper's beans are ManagementFactory's");
        assertTrue(lines.get(1).contains("Metaspace") && lines.get(1).contains("buffers direct"), out);
    }

    /** Run in a JVM of its own, with the export: says which way the beans came, then both descriptions. */
    static final class Helper {
        public static void main(String[] args) throws IOException {
            PlatformBeans b = PlatformBeans.get();
            System.out.println(b.direct ? "direct" : "factory");
            System.out.println(describe(b));
            System.out.println(describe(PlatformBeans.fromFactory()));
            if (b.memory != ManagementFactory.getMemoryMXBean()) {
                System.out.println("not the same MemoryMXBean");
                System.exit(3);
            }
        }
    }
}
