package dev.pools.cli;

import java.io.EOFException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
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

    /** {@code FLR\0}, the first bytes of every chunk. */
    private static final int MAGIC = 0x464C5200;

    private static final int FLAG_POSITION = 67;

    /** The header's flag of the last chunk of a recording that ended with its JVM. */
    private static final int FINAL_CHUNK = 1 << 1;

    private UnfinishedChunk() {}

    /**
     * A recording file as read: {@code readable} (the file, or a copy of its whole chunks that the
     * caller deletes), whether the recording ended with its JVM, and whether a running JVM still
     * writes it (its writer holds the file's lock; false for an ended one).
     */
    record Whole(Path readable, boolean ended, boolean running) {}

    /**
     * The whole chunks of {@code file} and whether its last one is marked as the recording's end. The
     * agent's writer appends a batch, then makes the header count it: a JVM killed in between leaves
     * bytes past the chunk's size, which are left out. A file whose first chunk is not whole is read
     * as it is (the reader then says what is wrong with it).
     */
    static Whole whole(Path file) throws IOException {
        long[] scan = scan(file);
        if (ended(scan)) {
            return new Whole(file, true, false);
        }
        if (!written(file)) {
            // A killed JVM's, or one that ended since the scan (its last header may have been read
            // half rewritten): unlocked, it changes no more, so this scan is the file as it stays.
            scan = scan(file);
            if (ended(scan) || scan[0] == 0) {
                return new Whole(file, ended(scan), false);
            }
            // Bytes past the chunks it counted are left out.
            return scan[0] == scan[1]
                    ? new Whole(file, false, false)
                    : new Whole(copy(file, scan[0], false), false, false);
        }
        // A running JVM's, which appends a batch, then rewrites the header to count it. Read in place,
        // what it appends meanwhile would follow the chunk as a damaged next one ("Not a Flight
        // Recorder file"); and a copy of the size read before may come with a header rewritten since,
        // which counts more than the copy holds. So: copy all there is (the header first, so it counts
        // only bytes written before it, which never change), then keep its whole chunks.
        // A JVM that has just taken the name has emptied the file and not yet written its start (a few
        // milliseconds): looked at again, a little later, before it is said so.
        for (int look = 1; ; look++) {
            Path copy = copy(file, Long.MAX_VALUE, false);
            try {
                long whole = scan(copy)[0];
                if (whole > 0) {
                    try (FileChannel c = FileChannel.open(copy, StandardOpenOption.WRITE)) {
                        c.truncate(whole);
                    }
                    return new Whole(copy, false, true);
                }
            } catch (IOException | RuntimeException e) {
                Files.deleteIfExists(copy);
                throw e;
            }
            Files.deleteIfExists(copy);
            if (look == STARTING_LOOKS) {
                throw new BadInput(
                        file + ": a running JVM has just started this recording and written no whole part of it yet;"
                                + " read it again in a moment",
                        true);
            }
            try {
                Thread.sleep(STARTING_PAUSE_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BadInput(file + ": interrupted while its JVM starts the recording", true);
            }
        }
    }

    /** How many times, {@link #STARTING_PAUSE_MILLIS} apart, a running JVM's file without a whole chunk is looked at. */
    static final int STARTING_LOOKS = 10;

    static final long STARTING_PAUSE_MILLIS = 100;

    /**
     * Whether a running JVM writes {@code file}: the agent holds a lock on the file it writes, which a
     * shared lock of this reader's conflicts with (or, held by this JVM, overlaps). False where the
     * file system has no locks (nor did the writer then).
     */
    static boolean written(Path file) {
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.READ)) {
            FileLock lock = c.tryLock(0, Long.MAX_VALUE, true);
            if (lock == null) {
                return true;
            }
            lock.release();
            return false;
        } catch (OverlappingFileLockException e) {
            return true; // this JVM holds a lock on it: it writes it
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Whether a {@link #scan} shows whole chunks only, the last one marked as the recording's end. */
    private static boolean ended(long[] scan) {
        return scan[0] == scan[1] && scan[0] > 0 && (scan[2] & FINAL_CHUNK) != 0;
    }

    /**
     * The end of {@code file}'s whole chunks, its length, and the last whole chunk's flags. Each
     * header is read in one read: a running writer rewrites it in place, and a size read in parts
     * may mix the old and the new one.
     */
    private static long[] scan(Path file) throws IOException {
        long end = 0;
        int flags = 0;
        long length;
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            length = in.length();
            byte[] bytes = new byte[HEADER_SIZE];
            ByteBuffer header = ByteBuffer.wrap(bytes);
            while (end + HEADER_SIZE <= length) {
                in.seek(end);
                try {
                    in.readFully(bytes);
                } catch (EOFException e) {
                    break; // emptied since its length was read (a JVM that takes the name now)
                }
                if (header.getInt(0) != MAGIC) {
                    break;
                }
                long size = header.getLong(CHUNK_SIZE_POSITION);
                if (size < HEADER_SIZE || end + size > length) {
                    break;
                }
                flags = bytes[FLAG_POSITION] & 0xff;
                end += size;
            }
        }
        return new long[] {end, length, flags};
    }

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
        Path copy = copy(chunk, size, true);
        return copy;
    }

    /** A temporary copy of the first {@code size} bytes of {@code file}, its chunk marked as finished if {@code finish}. */
    private static Path copy(Path file, long size, boolean finish) throws IOException {
        Path copy = Files.createTempFile("pools-recording", ".jfr");
        try (FileChannel from = FileChannel.open(file, StandardOpenOption.READ);
                FileChannel to = FileChannel.open(copy, StandardOpenOption.WRITE)) {
            long done = 0;
            long n;
            // Long.MAX_VALUE: all there is, as it is read (the file may grow meanwhile).
            while (done < size && (n = from.transferTo(done, size - done, to)) > 0) {
                done += n;
            }
            if (finish) {
                to.write(ByteBuffer.wrap(new byte[] {0}), FILE_STATE_POSITION);
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(copy);
            throw e;
        }
        return copy;
    }
}
