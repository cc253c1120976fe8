package dev.pools.memory;

/**
 * What pools hold at one moment (docs/POOLS.md §7), plus what was served outside them.
 *
 * @param numberAllocs   live allocations in pools
 * @param bytesInUse     bytes they asked for
 * @param bytesPadding   bytes added to round them up to the alignment
 * @param bytesReserved  bytes of pages and blocks held, used or not
 * @param fallbackAllocs allocations handed to the host's own path since start (not pool memory)
 * @param fallbackBytes  bytes of those
 */
public record Usage(
        long numberAllocs,
        long bytesInUse,
        long bytesPadding,
        long bytesReserved,
        long fallbackAllocs,
        long fallbackBytes) {

    public static final Usage ZERO = new Usage(0, 0, 0, 0, 0, 0);

    Usage plus(Usage o) {
        return new Usage(
                numberAllocs + o.numberAllocs,
                bytesInUse + o.bytesInUse,
                bytesPadding + o.bytesPadding,
                bytesReserved + o.bytesReserved,
                fallbackAllocs + o.fallbackAllocs,
                fallbackBytes + o.fallbackBytes);
    }
}
