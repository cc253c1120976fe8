package dev.pools.arch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * The package graph of the agent's own classes, read from the compiled classes by the JDK's
 * {@code jdeps}: every package sits in a layer, and a package uses only packages of lower layers.
 * So the graph has no cycle, and each arrow follows the data: the public types, the memory, the
 * layout that configures it, the host instrumentation, the recording, the agent that wires them,
 * and the offline CLI. Host folders ({@code hosts.<framework>}) use only what lies below them, not
 * each other. A package missing here fails the test: place it in a layer first.
 */
class PackageLayersTest {

    static final Map<String, Integer> LAYERS = Map.ofEntries(
            Map.entry("dev.pools.log", 0),
            Map.entry("dev.pools.api", 0),
            Map.entry("dev.pools.memory", 1),
            Map.entry("dev.pools.layout", 2),
            Map.entry("dev.pools.hosts", 3),
            Map.entry("dev.pools.hosts.djl", 4),
            Map.entry("dev.pools.hosts.onnxruntime", 4),
            Map.entry("dev.pools.recording", 5),
            Map.entry("dev.pools.agent", 6),
            Map.entry("dev.pools.cli", 7));

    @Test
    void every_package_uses_only_packages_of_lower_layers() {
        Path classes = Path.of("target/classes");
        assertTrue(Files.isDirectory(classes.resolve("dev/pools")), "compiled classes at " + classes.toAbsolutePath());
        ToolProvider jdeps =
                ToolProvider.findFirst("jdeps").orElseThrow(() -> new AssertionError("no jdeps in this JDK"));
        StringWriter out = new StringWriter();
        int status = jdeps.run(
                new PrintWriter(out),
                new PrintWriter(out),
                "-verbose:package",
                "-filter:none",
                "-e",
                "dev\\.pools\\..*",
                classes.toString());
        assertEquals(0, status, out.toString());

        TreeSet<String> packages = new TreeSet<>();
        List<String> wrong = new ArrayList<>();
        int edges = 0;
        for (String line : out.toString().split("\\R")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 3
                    || !f[1].equals("->")
                    || !f[0].startsWith("dev.pools.")
                    || !f[2].startsWith("dev.pools.")) {
                continue;
            }
            String from = f[0];
            String to = f[2];
            if (from.startsWith("dev.pools.shaded") || to.startsWith("dev.pools.shaded") || from.equals(to)) {
                continue;
            }
            packages.add(from);
            packages.add(to);
            edges++;
            Integer a = LAYERS.get(from);
            Integer b = LAYERS.get(to);
            if (a == null || b == null) {
                wrong.add(from + " -> " + to + " (a package with no layer)");
            } else if (b >= a) {
                wrong.add(from + " (layer " + a + ") -> " + to + " (layer " + b + ")");
            }
        }
        assertTrue(edges > 10, "jdeps reported the graph: " + out);
        assertEquals(List.of(), wrong, "uses against the layers");
        assertEquals(new TreeSet<>(LAYERS.keySet()), packages, "every package has a layer, and every layer a package");
    }
}
