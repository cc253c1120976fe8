package dev.pools.memory;

/** Alignment arithmetic (docs/POOLS.md §1). */
public final class Sizes {

    /** Alignment of slice addresses and effective sizes, in bytes. */
    public static final int ALIGNMENT = NativeAccess.ALIGNMENT;

    /**
     * The largest page or block: a direct buffer holds at most {@code Integer.MAX_VALUE} bytes, and a
     * page is allocated with {@code ALIGNMENT - 1} bytes of slack to align it.
     */
    public static final long MAX_PAGE = (Integer.MAX_VALUE - (ALIGNMENT - 1)) & -ALIGNMENT;

    private Sizes() {}

    /** {@code size} rounded up to the alignment; overflows only past {@code Long.MAX_VALUE - 63}. */
    public static long roundUp(long size) {
        return (size + ALIGNMENT - 1) & -ALIGNMENT;
    }

    static int effective(int size) {
        return (int) roundUp(size);
    }

    /** Padding of a request: {@code (A - s mod A) mod A}. */
    static int padding(int size) {
        return effective(size) - size;
    }

    /** Index of the log2 bucket of a request: bucket {@code b} holds sizes in {@code (2^(b-1), 2^b]}, bucket 0 holds 0 and 1. */
    public static int log2Bucket(long size) {
        return size <= 1 ? 0 : 64 - Long.numberOfLeadingZeros(size - 1);
    }

    /** Human form with a binary unit, exact where it can be: {@code 1 MiB}, {@code 1.5 KiB}, {@code 100 B}. */
    public static String human(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        if (bytes < 1024) {
            return bytes + " B";
        }
        int unit = (63 - Long.numberOfLeadingZeros(bytes)) / 10;
        long unitBytes = 1L << (10 * unit);
        if (bytes % unitBytes == 0) {
            return bytes / unitBytes + " " + units[unit];
        }
        long tenths = Math.round(bytes * 10.0 / unitBytes);
        if (tenths >= 10240 && unit + 1 < units.length) {
            return "1.0 " + units[unit + 1]; // 1023.96 KiB reads better as 1.0 MiB than as 1024.0 KiB
        }
        return tenths / 10 + "." + tenths % 10 + " " + units[unit];
    }
}
