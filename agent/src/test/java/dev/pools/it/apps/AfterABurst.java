package dev.pools.it.apps;

import it.host.Tensors;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Near the direct memory limit after a burst the pools served and the application dropped: first 200
 * buffers of 1 MiB through the intercepted package, each dropped for the next; then, with nothing of
 * them kept, direct memory asked for outside the intercepted package (four {@code allocateDirect} of
 * 1 MiB kept, and a write of a heap buffer through a file channel, for which the JDK makes a temporary
 * direct buffer of its own); then requests of 1 MiB through the intercepted package with every 16th of
 * 3 MiB, which no pool of the test's layout takes. Prints each outcome.
 */
public final class AfterABurst {

    private static final int MIB = 1 << 20;

    public static void main(String[] args) throws Exception {
        ByteBuffer last = null;
        for (int i = 0; i < 200; i++) {
            last = Tensors.allocate(MIB);
            last.put(0, (byte) i);
        }
        last = null;
        System.gc();
        ByteBuffer[] outside = new ByteBuffer[4];
        try {
            for (int i = 0; i < outside.length; i++) {
                outside[i] = ByteBuffer.allocateDirect(MIB);
            }
            System.out.println("outside allocateDirect: ok");
        } catch (OutOfMemoryError e) {
            System.out.println("outside allocateDirect: " + e);
        }
        Path file = Path.of(args[0]);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(MIB));
            System.out.println("heap buffer written: ok");
        } catch (OutOfMemoryError e) {
            System.out.println("heap buffer written: " + e);
        }
        Files.delete(file);
        int refused = 0;
        for (int i = 0; i < 160; i++) {
            try {
                last = Tensors.allocate(i % 16 == 15 ? 3 * MIB : MIB);
                last.put(0, (byte) i);
            } catch (OutOfMemoryError e) {
                refused++;
            }
        }
        System.out.println("larger than any pool takes, refused: " + refused);
        System.out.println("outside kept: " + outside.length);
    }
}
