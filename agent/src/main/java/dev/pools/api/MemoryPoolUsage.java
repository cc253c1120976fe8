package dev.pools.api;

/**
 * One reading of the pools' state.
 *
 * @param numberAllocs  live allocations, not pages
 * @param bytesInUse    bytes those allocations use, excluding padding
 * @param bytesPadding  bytes of padding inside them
 * @param bytesReserved total bytes held from the JDK: at least {@code bytesInUse}, plus pages held for reuse
 */
public record MemoryPoolUsage(long numberAllocs, long bytesInUse, long bytesPadding, long bytesReserved) {}
