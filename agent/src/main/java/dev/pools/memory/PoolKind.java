package dev.pools.memory;

import java.util.Locale;

/** The three kinds of dynamic pool (docs/POOLS.md §3-5), named as the recording and the CLI write them. */
public enum PoolKind {
    SLICED,
    EXCLUSIVE,
    DIRECT;

    /** The lower-case name used in recordings and reports. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
