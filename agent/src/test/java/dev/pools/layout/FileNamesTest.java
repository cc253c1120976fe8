package dev.pools.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class FileNamesTest {

    @Test
    void placeholders_expand_to_the_process_id_the_start_time_and_the_host_name() {
        assertEquals(
                "/data/pools-web-7f9c-1-%-x.jfr",
                FileNames.expand("/data/pools-%h-%p-%%-x.jfr", 1, Instant.EPOCH, "web-7f9c"));
        assertEquals("a-42.jfr", FileNames.expand("a-%p.jfr", 42, Instant.EPOCH, "h"));
    }

    @Test
    void this_jvms_names_have_its_process_id_and_its_start_only_when_asked() {
        long pid = ProcessHandle.current().pid();
        assertEquals(pid, FileNames.pid());
        assertEquals("pools-" + pid + ".jfr", FileNames.expand("pools-%p.jfr"));
        Instant start = ProcessHandle.current().info().startInstant().orElseThrow();
        assertEquals(FileNames.expand("pools-%t.jfr", pid, start, ""), FileNames.expand("pools-%t.jfr"));
    }

    @Test
    void the_host_name_is_the_kernels_made_safe_for_a_file_name() throws Exception {
        String host = FileNames.hostName();
        assertTrue(host.matches("[A-Za-z0-9._-]+"), host);
        Path kernel = Path.of("/proc/sys/kernel/hostname");
        if (Files.isReadable(kernel)) {
            assertEquals(Files.readString(kernel).strip().replaceAll("[^A-Za-z0-9._-]", "_"), host);
        }
    }

    @Test
    void the_layout_file_accepts_h_and_names_it_among_the_placeholders() {
        assertNull(LayoutFile.fileNameRule("/data/pools-%h-%p.jfr", "report.file", "x"));
        assertTrue(LayoutFile.fileNameRule("x-%x.jfr", "report.file", "x").contains("%h for the host name"));
    }
}
