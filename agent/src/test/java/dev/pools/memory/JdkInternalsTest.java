package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The build files and scripts that run the pools without the agent pass exactly the access that
 * {@link JdkInternals} lists: the list is written once, and this test finds the copies that a
 * build file or an annotation cannot take from Java.
 */
class JdkInternalsTest {

    private static final Path ROOT = Path.of("..");

    @Test
    void every_place_that_passes_the_flags_passes_these_flags() throws Exception {
        List<String> flags = JdkInternals.commandLineFlags();
        for (String file : List.of(
                "pom.xml",
                "benchmarks/run-all.sh",
                "benchmarks/src/main/java/dev/pools/bench/jmh/AllocateRelease.java")) {
            String text = Files.readString(ROOT.resolve(file)).replaceAll("[\"\\s,]+", " ");
            for (int i = 0; i < flags.size(); i += 2) {
                String flag = flags.get(i) + " " + flags.get(i + 1);
                assertTrue(text.contains(flag), file + " passes " + flag);
            }
            long passed = text.split("--add-(opens|exports) java\\.base/", -1).length - 1;
            assertTrue(
                    passed == flags.size() / 2,
                    file + " passes " + passed + " such flags, the list has " + flags.size() / 2);
        }
    }
}
