package dev.pools.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class MallocThresholdsTest {

    @Test
    void a_hint_is_the_request_at_least_an_eighth_above_the_last_and_within_what_glibc_takes_as_a_signal() {
        long def = MallocThresholds.GLIBC_DEFAULT;
        assertEquals(1L << 20, MallocThresholds.blockFor(1L << 20, def), "the request itself");
        assertEquals(def + def / 8, MallocThresholds.blockFor(def + 1, def), "at least 1/8 above the last hint");
        assertEquals(9L << 20, MallocThresholds.blockFor(9L << 20, 8L << 20));
        assertEquals(
                31L << 20, MallocThresholds.blockFor(1 << 30, 1L << 20), "glibc ignores a freed block over 32 MiB");
        assertEquals(31L << 20, MallocThresholds.blockFor(30L << 20, 29L << 20));
    }

    @Test
    void hints_follow_the_largest_request_and_end_at_glibcs_ceiling() {
        MallocThresholds.follow(t -> {
            throw new AssertionError(t);
        });
        try {
            MallocThresholds.served(64 << 10);
            assertEquals(MallocThresholds.GLIBC_DEFAULT, MallocThresholds.hinted(), "below the default: no hint");
            MallocThresholds.served(1 << 20);
            assertEquals(1L << 20, MallocThresholds.hinted());
            MallocThresholds.served(1000 << 10);
            assertEquals(1L << 20, MallocThresholds.hinted(), "a smaller request says nothing new");
            MallocThresholds.served((1 << 20) + 1);
            assertEquals((1L << 20) + (1L << 17), MallocThresholds.hinted());
            MallocThresholds.served(31 << 20);
            assertEquals(Long.MAX_VALUE, MallocThresholds.hinted(), "past glibc's ceiling nothing more is said");
        } finally {
            MallocThresholds.stop();
        }
    }
}
