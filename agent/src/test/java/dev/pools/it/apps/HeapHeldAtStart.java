package dev.pools.it.apps;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * Holds its Java heap nearly full of live data (at most 4 MiB free after a collection) for 3 s once
 * full, allocating garbage all the while, then lets go; creates the second argument's file once full. Prints
 * whether the recording's file (the argument) existed at the end of the hold, waits up to 10 s for
 * it, then uses JDK classes a recording's start first initialises ({@code FileChannel}, the time
 * zones): a class whose initialisation met a full heap would stay unusable.
 */
public final class HeapHeldAtStart {

    private static List<long[]> held = new ArrayList<>();

    /** The last garbage array, read by nobody. */
    static volatile long[] churn;

    private static long free(Runtime rt) {
        return rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
    }

    private static void drop() {
        for (int i = 0; i < 16 && !held.isEmpty(); i++) {
            held.remove(held.size() - 1);
        }
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        Path full = Path.of(args[1]);
        Runtime rt = Runtime.getRuntime();
        // Live data until, after a collection, at most 4 MiB is free.
        for (int round = 0; round < 20 && free(rt) > 4L << 20; round++) {
            while (free(rt) > 4L << 20) {
                try {
                    held.add(new long[8192]);
                } catch (OutOfMemoryError e) {
                    drop();
                    break;
                }
            }
            System.gc();
        }
        // The recording's start waits for this file (a test property), so that it looks for room while the
        // heap is full however slow the machine. Then garbage for 3 s: the heap stays full of live data, and
        // its collector runs.
        Files.createFile(full);
        long end = System.nanoTime() + 3_000_000_000L;
        while (System.nanoTime() - end < 0) {
            try {
                churn = new long[1024];
            } catch (OutOfMemoryError e) {
                drop();
            }
        }
        System.out.println("file during the hold " + Files.exists(file));
        held = null;
        for (int i = 0; i < 1000 && !Files.exists(file); i++) {
            Thread.sleep(10);
        }
        System.out.println("file after the hold " + Files.exists(file));
        try (FileChannel c =
                FileChannel.open(Path.of("probe.txt"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            c.write(ByteBuffer.wrap(new byte[] {1}));
        }
        System.out.println("time zone " + (ZonedDateTime.now().getZone() != null));
    }
}
