package dev.pools.layout;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Optional;

/** The placeholders of {@code report.file} and {@code report.trace}. */
public final class FileNames {

    /** Made at the first {@code %t}: java.time's formatting costs a start-up that names no time. */
    private static final class StartTime {
        static final DateTimeFormatter FORMAT =
                DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneId.systemDefault());
    }

    private FileNames() {}

    /**
     * {@code %p}: the process id; {@code %t}: the JVM's start time, {@code yyyyMMdd-HHmmss};
     * {@code %h}: the host name (in a container, its own: a Kubernetes pod's name); {@code %%}: a
     * percent sign.
     */
    public static String expand(String pattern, long pid, Instant start, String host) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '%' && i + 1 < pattern.length()) {
                char k = pattern.charAt(++i);
                b.append(
                        switch (k) {
                            case 'p' -> String.valueOf(pid);
                            case 't' -> StartTime.FORMAT.format(start);
                            case 'h' -> host;
                            default -> String.valueOf(k);
                        });
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /** A pattern expanded for this JVM. */
    public static String expand(String pattern) {
        String host = pattern.contains("%h") ? hostName() : "";
        Instant start = Instant.EPOCH;
        if (pattern.contains("%t")) {
            Optional<Instant> s = ProcessHandle.current().info().startInstant();
            start = s.isPresent() ? s.get() : Instant.now();
        }
        return expand(pattern, pid(), start, host);
    }

    /**
     * This process's id: on Linux the name of {@code /proc/self}, which is cheaper at start-up than
     * {@link ProcessHandle#current()} (whose class starts the JDK's process machinery); else that.
     */
    public static long pid() {
        try {
            return Long.parseLong(Files.readSymbolicLink(Path.of("/proc/self")).toString());
        } catch (IOException | RuntimeException e) {
            return ProcessHandle.current().pid();
        }
    }

    /**
     * Why this JVM cannot write a file at {@code name} (relative to the working directory), or null
     * when it can as far as the file system tells now: the name is a folder, a device, a pipe or a
     * socket, or a file it may not write; or its folder is missing, not a folder, or one it may not
     * create files in. Through {@code java.io.File}, which the JVM has loaded before any agent.
     */
    public static String whyNotWritable(String name) {
        File file = new File(name).getAbsoluteFile();
        if (file.exists()) {
            if (file.isDirectory()) {
                return "is a folder";
            }
            if (!file.isFile()) {
                return "is not a regular file (a device, a pipe or a socket)";
            }
            return file.canWrite() ? null : "is a file this JVM's user may not write";
        }
        File folder = file.getParentFile();
        if (folder == null) {
            return null;
        }
        if (!folder.exists()) {
            return "is in a folder that does not exist (" + folder + ")";
        }
        if (!folder.isDirectory()) {
            return "is in " + folder + ", which is not a folder";
        }
        return folder.canWrite() ? null : "is in a folder this JVM's user may not create files in (" + folder + ")";
    }

    /**
     * The host name, without a name lookup: the kernel's (a container's own, under its UTS
     * namespace), else {@code HOSTNAME}, else {@code localhost}; made safe for a file name.
     */
    static String hostName() {
        String name = null;
        try {
            name = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
        } catch (IOException | RuntimeException e) {
            // Not Linux: the environment, then a constant.
        }
        if (name == null || name.isEmpty()) {
            name = System.getenv("HOSTNAME");
        }
        if (name == null || name.isBlank()) {
            name = "localhost";
        }
        return name.strip().replaceAll("[^A-Za-z0-9._-]", "_");
    }
}
