package dev.pools.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which launch commands keep the agent out ({@link Launch}): the CLI's and the JDK tools', no other. */
class LaunchTest {

    @TempDir
    Path dir;

    @Test
    void the_cli_and_the_jdks_tools_keep_the_agent_out_and_an_application_does_not() throws Exception {
        Path jar = Files.createFile(dir.resolve("my pools.jar")); // a space in the name
        Path other = Files.createFile(dir.resolve("app.jar"));
        String cli = "pools.jar's own command line";
        assertEquals(cli, Launch.staysOut(jar + " report run.jfr", jar));
        assertEquals(cli, Launch.staysOut(jar.toString(), jar));
        assertEquals(cli, Launch.staysOut(dir.resolve(".").resolve("my pools.jar") + " check x.yaml", jar));
        assertEquals(cli, Launch.staysOut("dev.pools.cli.PoolsCli suggest a.jfr", jar));
        assertEquals(
                "a tool of the JDK (jdk.jcmd/sun.tools.jcmd.JCmd)",
                Launch.staysOut("jdk.jcmd/sun.tools.jcmd.JCmd -l", jar));
        assertEquals(
                "a tool of the JDK (jdk.jfr/jdk.jfr.internal.tool.Main)",
                Launch.staysOut("jdk.jfr/jdk.jfr.internal.tool.Main summary x.jfr", null));

        assertNull(
                Launch.staysOut("jdk.compiler/com.sun.tools.javac.launcher.Main Infer.java", jar),
                "a source file run by the JDK 17 launcher: the user's code");
        assertNull(Launch.staysOut("jdk.compiler/com.sun.tools.javac.launcher.SourceLauncher Infer.java", jar));
        assertNull(Launch.staysOut("jdk.jshell/jdk.internal.jshell.tool.JShellToolProvider --execution local", jar));
        assertNull(
                Launch.staysOut(other + " --model " + jar, jar), "another jar, even with the agent's as an argument");
        assertNull(Launch.staysOut("com.example.Serve " + jar, jar));
        assertNull(Launch.staysOut("org.apache.spark.executor.CoarseGrainedExecutorBackend --driver-url x", jar));
        assertNull(Launch.staysOut("app/com.example.Main", jar), "a module of the application's");
        assertNull(Launch.staysOut(jar + " report", null), "the agent's jar unknown");
        assertNull(Launch.staysOut("", jar));
        assertNull(Launch.staysOut(null, jar));
    }
}
