package dev.pools.layout;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/** The placeholders of {@code report.file} and {@code report.trace}. */
public final class FileNames {

    private static final DateTimeFormatter START_TIME =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneId.systemDefault());

    private FileNames() {}

    /** {@code %p}: the process id; {@code %t}: the JVM's start time, {@code yyyyMMdd-HHmmss}; {@code %%}: a percent sign. */
    public static String expand(String pattern, long pid, Instant start) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '%' && i + 1 < pattern.length()) {
                char k = pattern.charAt(++i);
                b.append(k == 'p' ? String.valueOf(pid) : k == 't' ? START_TIME.format(start) : String.valueOf(k));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /** A pattern expanded for this JVM. */
    public static String expand(String pattern) {
        ProcessHandle self = ProcessHandle.current();
        return expand(pattern, self.pid(), self.info().startInstant().orElseGet(Instant::now));
    }
}
