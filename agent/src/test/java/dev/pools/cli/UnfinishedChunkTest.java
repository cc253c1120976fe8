package dev.pools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a recording file is told apart: ended, left by a killed JVM, or still written by a running
 * one (its writer holds the file's lock), whatever its header says at the moment it is read.
 */
class UnfinishedChunkTest {

    @TempDir
    Path dir;

    /** A chunk of {@code length} bytes whose header counts {@code counted} and carries {@code flags}. */
    private Path chunk(String name, int length, long counted, int flags) throws Exception {
        ByteBuffer b = ByteBuffer.allocate(length);
        b.putInt(0, 0x464C5200);
        b.putLong(8, counted);
        b.put(67, (byte) flags);
        Path file = dir.resolve(name);
        Files.write(file, b.array());
        return file;
    }

    /**
     * A running writer rewrites the header in place after each batch; a reader that catches the size
     * half rewritten may see more than the file holds. Such a file, locked, is still a running JVM's
     * (before, it was said to be a killed JVM's: "did not end the recording (killed?)").
     */
    @Test
    void a_locked_file_whose_header_counts_more_than_it_holds_is_still_written() throws Exception {
        Path file = chunk("torn.jfr", 200, 1L << 40 | 200, 0);
        try (FileChannel writer = FileChannel.open(file, StandardOpenOption.WRITE);
                FileLock lock = writer.lock()) {
            UnfinishedChunk.Whole whole = UnfinishedChunk.whole(file);
            try {
                assertTrue(whole.running());
                assertFalse(whole.ended());
                assertNotEquals(file, whole.readable(), "a copy, which the writer does not change");
            } finally {
                Files.deleteIfExists(whole.readable());
            }
        }
    }

    @Test
    void a_locked_whole_chunk_is_read_from_a_copy_of_its_whole_chunks() throws Exception {
        Path file = chunk("running.jfr", 300, 200, 0);
        try (FileChannel writer = FileChannel.open(file, StandardOpenOption.WRITE);
                FileLock lock = writer.lock()) {
            UnfinishedChunk.Whole whole = UnfinishedChunk.whole(file);
            try {
                assertTrue(whole.running());
                assertEquals(200, Files.size(whole.readable()), "the bytes past the counted chunk left out");
            } finally {
                Files.deleteIfExists(whole.readable());
            }
        }
    }

    @Test
    void an_unlocked_file_is_a_killed_jvms_or_an_ended_one() throws Exception {
        UnfinishedChunk.Whole killed = UnfinishedChunk.whole(chunk("killed.jfr", 200, 200, 0));
        assertFalse(killed.running());
        assertFalse(killed.ended());
        assertEquals(dir.resolve("killed.jfr"), killed.readable());

        UnfinishedChunk.Whole cut = UnfinishedChunk.whole(chunk("cut.jfr", 300, 200, 0));
        assertFalse(cut.running());
        try {
            assertEquals(200, Files.size(cut.readable()));
        } finally {
            Files.deleteIfExists(cut.readable());
        }

        UnfinishedChunk.Whole ended = UnfinishedChunk.whole(chunk("ended.jfr", 200, 200, 2));
        assertTrue(ended.ended());
        assertFalse(ended.running());
    }
}
