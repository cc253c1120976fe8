package dev.pools.recording;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProcessMemoryTest {

    @Test
    void the_resident_set_is_read_from_proc_status_in_bytes_with_shared_memory_counted_as_file_backed() {
        List<String> status = List.of(
                "Name:\tjava",
                "VmPeak:\t 9000000 kB",
                "VmHWM:\t  310000 kB",
                "VmRSS:\t  300000 kB",
                "RssAnon:\t  250000 kB",
                "RssFile:\t   45000 kB",
                "RssShmem:\t    5000 kB",
                "Threads:\t40");
        assertArrayEquals(
                new long[] {300000L * 1024, 310000L * 1024, 250000L * 1024, 50000L * 1024},
                ProcessMemory.residentSet(status));
    }

    @Test
    void what_the_kernel_does_not_give_is_minus_one() {
        assertArrayEquals(new long[] {-1, -1, -1, -1}, ProcessMemory.residentSet(List.of("Name:\tjava", "VmRSS: x")));
    }

    @Test
    void this_jvm_reads_its_own_status_on_linux() throws Exception {
        long[] rss = ProcessMemory.residentSet(Files.readAllLines(Path.of("/proc/self/status")));
        assertTrue(rss[0] > 0 && rss[1] >= rss[0] && rss[2] > 0 && rss[3] > 0, Arrays.toString(rss));
        assertEquals(rss[0], rss[2] + rss[3], 64 * 1024 * 1024, "VmRSS is about anonymous plus file-backed");
    }
}
