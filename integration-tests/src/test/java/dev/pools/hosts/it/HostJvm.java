package dev.pools.hosts.it;

import dev.pools.it.Forked;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A JVM that runs a test application on real DJL and ONNX Runtime, offline, with or without the agent. */
final class HostJvm {

    static final String CLASSPATH;

    static {
        try {
            CLASSPATH = Forked.TEST_CLASSES
                    + File.pathSeparator
                    + Files.readString(Path.of(System.getProperty("pools.hostClasspath")))
                            .strip();
        } catch (IOException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private HostJvm() {}

    /** The flags every host JVM runs with: offline DJL, quiet native access on recent JDKs. */
    static List<String> hostFlags() {
        List<String> flags = new ArrayList<>(List.of("-Dai.djl.offline=true", "-Xmx1g"));
        if (Runtime.version().feature() >= 22) {
            flags.add("--enable-native-access=ALL-UNNAMED");
        }
        return flags;
    }

    static List<String> command(List<String> jvmArgs, Class<?> main, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Forked.java());
        cmd.addAll(hostFlags());
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(CLASSPATH);
        cmd.add(main.getName());
        cmd.addAll(List.of(args));
        return cmd;
    }

    static Forked.Result run(Path dir, List<String> jvmArgs, Class<?> main, String... args)
            throws IOException, InterruptedException {
        return Forked.run(dir, command(jvmArgs, main, args));
    }

    /** Lines of standard output that start with {@code key}, without it. */
    static List<String> values(Forked.Result r, String key) {
        return r.out()
                .lines()
                .filter(l -> l.startsWith(key + " "))
                .map(l -> l.substring(key.length() + 1))
                .toList();
    }

    static String value(Forked.Result r, String key) {
        List<String> v = values(r, key);
        if (v.size() != 1) {
            throw new AssertionError("expected one '" + key + "' line, got " + v + "\n" + r);
        }
        return v.get(0);
    }
}
