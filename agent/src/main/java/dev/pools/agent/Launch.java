package dev.pools.agent;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What this JVM was launched to run, from its command ({@code sun.java.command}: the main class, or
 * the jar given to {@code -jar}, then the arguments), where that keeps the agent out of it.
 *
 * <p>An agent given to every JVM of an image ({@code JAVA_TOOL_OPTIONS}, as the README's Kubernetes
 * setup does) also reaches the JVMs of pools.jar's own command line and of the JDK's tools ({@code
 * jcmd}, {@code jps}, {@code jfr}). None of them runs a tensor framework, and a recording of theirs
 * is worse than none: run under the service's {@code report.file}, {@code java -jar pools.jar report
 * /recordings/*.jfr} replaced the ended service's recording by its own, empty one, and {@code suggest}
 * then read every pool's peak as 0; beside a running service it added an empty row to the fleet.
 */
final class Launch {

    private Launch() {}

    /**
     * Why the agent stays out of a JVM launched with {@code command}, or null when it runs there.
     * {@code agentJar} is the jar the agent's classes come from (null if unknown).
     */
    static String staysOut(String command, Path agentJar) {
        if (command == null || command.isBlank()) {
            return null;
        }
        String first = command.strip();
        int space = first.indexOf(' ');
        String main = space < 0 ? first : first.substring(0, space);
        if (main.equals("dev.pools.cli.PoolsCli")) {
            return "pools.jar's own command line";
        }
        // A JDK tool: "jdk.jcmd/sun.tools.jcmd.JCmd -l", "jdk.jfr/jdk.jfr.internal.tool.Main". Not the
        // launchers that run the user's own code in this JVM: a source file ("java Infer.java", the
        // compiler's launcher) and jshell (whose --execution local runs it in-process).
        int slash = main.indexOf('/');
        String module = slash < 0 ? null : main.substring(0, slash);
        if (module != null
                && (module.startsWith("jdk.") || module.startsWith("java."))
                && !module.equals("jdk.jshell")
                && !main.startsWith("jdk.compiler/com.sun.tools.javac.launcher.")) {
            return "a tool of the JDK (" + main + ")";
        }
        // -jar: the jar's path, which may hold spaces, up to the first ".jar" that ends a word. Only a
        // jar of the agent's jar's name is looked at on disk (one stat of each; a link counts).
        int jar = command.indexOf(".jar");
        while (agentJar != null && jar >= 0) {
            int end = jar + ".jar".length();
            if (end == command.length() || command.charAt(end) == ' ') {
                String launched = command.substring(0, end);
                Path name = agentJar.getFileName();
                if (name == null || !launched.endsWith(name.toString())) {
                    return null;
                }
                try {
                    if (Files.isSameFile(Path.of(launched), agentJar)) {
                        return "pools.jar's own command line";
                    }
                } catch (Exception e) {
                    // Not a file this JVM can see: not the agent's jar.
                }
                return null;
            }
            jar = command.indexOf(".jar", end);
        }
        return null;
    }

    /** Why the agent stays out of this JVM, or null; never throws. */
    static String staysOut() {
        try {
            String command = System.getProperty("sun.java.command");
            Path jar = null;
            if (command != null && command.contains(".jar")) {
                try {
                    // The URL's path, decoded only if it must be (a URI's parser costs start-up time).
                    String path = PoolsAgent.class
                            .getProtectionDomain()
                            .getCodeSource()
                            .getLocation()
                            .getPath();
                    if (path.indexOf('%') >= 0) {
                        path = URLDecoder.decode(path.replace("+", "%2B"), StandardCharsets.UTF_8);
                    }
                    jar = Path.of(path);
                } catch (Exception | LinkageError e) {
                    // Unknown: only the class name and the JDK's tools are told apart.
                }
            }
            return staysOut(command, jar);
        } catch (Exception | LinkageError e) {
            return null;
        }
    }
}
