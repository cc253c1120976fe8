package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/** pools.jar is one self-contained jar whose own dependencies cannot clash with the host's. */
class ShadedJarIT {

    @Test
    void every_class_in_the_jar_lives_under_dev_pools() throws Exception {
        List<String> foreign = new ArrayList<>();
        List<String> unused = new ArrayList<>();
        try (JarFile jar = new JarFile(Forked.JAR.toFile())) {
            for (var e = jar.entries(); e.hasMoreElements(); ) {
                String name = e.nextElement().getName();
                if (name.endsWith(".class")) {
                    if (!name.startsWith("dev/pools/")) {
                        foreign.add(name);
                    }
                    if (name.startsWith("dev/pools/shaded/bytebuddy/")
                            && !name.startsWith("dev/pools/shaded/bytebuddy/jar/asm/")) {
                        unused.add(name);
                    }
                }
                if (name.startsWith("META-INF/versions/")) {
                    foreign.add(name);
                }
            }
            assertEquals(List.of(), foreign, "unrelocated entries");
            assertEquals(List.of(), unused, "of Byte Buddy only its ASM is used, and shipped");
            for (String dependency : List.of(
                    "dev/pools/shaded/bytebuddy/jar/asm/ClassReader.class",
                    "dev/pools/shaded/snakeyaml/v2/api/lowlevel/Compose.class",
                    "dev/pools/shaded/picocli/CommandLine.class",
                    "META-INF/licenses/ASM")) {
                assertTrue(jar.getEntry(dependency) != null, "the jar carries " + dependency);
            }
        }
    }

    @Test
    void the_manifest_names_the_agent_the_cli_and_allows_retransformation() throws Exception {
        try (JarFile jar = new JarFile(Forked.JAR.toFile())) {
            Attributes a = jar.getManifest().getMainAttributes();
            assertEquals("dev.pools.agent.PoolsAgent", a.getValue("Premain-Class"));
            assertEquals("dev.pools.agent.PoolsAgent", a.getValue("Agent-Class"));
            assertEquals("dev.pools.cli.PoolsCli", a.getValue("Main-Class"));
            assertEquals("true", a.getValue("Can-Retransform-Classes"));
            assertTrue(jar.getEntry("META-INF/LICENSE") != null, "the jar carries its license");
        }
    }
}
