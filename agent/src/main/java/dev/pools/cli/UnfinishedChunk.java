package dev.pools.cli;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A chunk of a JFR repository that its JVM never finished (it was killed), made readable.
 *
 * <p>A chunk's header holds its size as of the last flush and a file-state byte that is 0 once the
 * chunk is finished. JDK 17's reader reads an unfinished chunk up to that size; later readers wait
 * for the state to become 0, which after a kill it never does ("stuck in locked stream state"). So
 * the chunk is copied up to the size its header gives, the state set to finished, and the copy
 * read: exactly what the JVM had flushed, on every JDK.
 */
final class UnfinishedChunk {

    /** Header layout of JFR chunks, file format 2.x. */
    private static final int HEADER_SIZE = 68;

    private static final int CHUNK_SIZE_POSITION = 8;
    private static final int FILE_STATE_POSITION = 64;

    private UnfinishedChunk() {}

    /**
     * A readable copy of {@code chunk}, or {@code chunk} itself when it is finished; the caller
     * deletes a copy (it differs from {@code chunk}).
     */
    static Path readable(Path chunk) throws IOException {
        long size;
        try (RandomAccessFile in = new RandomAccessFile(chunk.toFile(), "r")) {
            if (in.length() < HEADER_SIZE) {
                return chunk;
            }
            in.seek(FILE_STATE_POSITION);
            if (in.readByte() == 0) {
                return chunk;
            }
            in.seek(CHUNK_SIZE_POSITION);
            size = in.readLong();
            if (size < HEADER_SIZE || size > in.length()) {
                // Killed while it rewrote the header: the size cannot be trusted; read what is there.
                size = in.length();
            }
        }
        Path copy = Files.createTempFile("pools-chunk", ".jfr");
        try (FileChannel from = FileChannel.open(chunk, StandardOpenOption.READ);
                FileChannel to = FileChannel.open(copy, StandardOpenOption.WRITE)) {
            long done = 0;
            while (done < size) {
                done += from.transferTo(done, size - done, to);
            }
            to.write(ByteBuffer.wrap(new byte[] {0}), FILE_STATE_POSITION);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(copy);
            throw e;
        }
        return copy;
    }
}
