package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class MallocThresholdsTest {

    @Test
    void the_hint_is_the_largest_slice_within_what_glibc_takes_as_a_signal() {
        assertEquals(0, MallocThresholds.hintSize(64 << 10), "below glibc's default threshold a free says nothing");
        assertEquals(0, MallocThresholds.hintSize(128 << 10));
        assertEquals(4L << 20, MallocThresholds.hintSize(4L << 20));
        assertEquals(31L << 20, MallocThresholds.hintSize(1L << 30), "glibc ignores a freed block over 32 MiB");
        assertEquals(31L << 20, MallocThresholds.hintSize(Sizes.MAX_PAGE));
    }
}
