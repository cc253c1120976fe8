package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

    @Test
    void the_jar_manifest_opens_and_exports_these_packages_for_the_cli() throws Exception {
        String pom = Files.readString(ROOT.resolve("agent/pom.xml"));
        Matcher opens = Pattern.compile("<Add-Opens>([^<]*)</Add-Opens>").matcher(pom);
        Matcher exports = Pattern.compile("<Add-Exports>([^<]*)</Add-Exports>").matcher(pom);
        assertTrue(opens.find() && exports.find(), "agent/pom.xml sets Add-Opens and Add-Exports");
        assertEquals(
                JdkInternals.OPENED.stream().map(p -> "java.base/" + p).toList(),
                List.of(opens.group(1).trim().split("\\s+")));
        assertEquals(
                JdkInternals.EXPORTED.stream().map(p -> "java.base/" + p).toList(),
                List.of(exports.group(1).trim().split("\\s+")));
    }

    /**
     * The agent hands over how to open the packages in {@code premain}; they are opened by the first
     * thing that reaches them, once, and a failure is kept for the pools to name.
     */
    @Test
    void the_packages_are_opened_once_by_the_first_that_reaches_them() {
        assertNull(NativeAccess.failure(), "this JVM runs with the flags"); // initialised before the opener below
        AtomicInteger runs = new AtomicInteger();
        JdkInternals.openWith(runs::incrementAndGet);
        assertEquals(0, runs.get(), "not opened when handed over");
        JdkInternals.open();
        JdkInternals.open();
        assertEquals(1, runs.get(), "opened once");
        assertNull(JdkInternals.openFailure());

        IllegalStateException refused = new IllegalStateException("refused");
        JdkInternals.openWith(() -> {
            throw refused;
        });
        JdkInternals.open();
        assertSame(refused, JdkInternals.openFailure(), "the failure is kept");
        JdkInternals.openWith(runs::incrementAndGet);
        assertNull(JdkInternals.openFailure(), "a new way forgets the old failure");
        JdkInternals.open();
        assertEquals(2, runs.get());
    }
}
