package dev.pools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
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

    /** A JVM that has just taken the name and not written its start yet: said so, in one line, not as a damaged file. */
    @Test
    void a_locked_file_without_a_whole_chunk_is_a_recording_just_started() throws Exception {
        Path file = chunk("starting.jfr", 200, 1L << 40 | 200, 0);
        try (FileChannel writer = FileChannel.open(file, StandardOpenOption.WRITE);
                FileLock lock = writer.lock()) {
            BadInput e = assertThrows(BadInput.class, () -> UnfinishedChunk.whole(file));
            assertEquals(
                    file + ": a running JVM has just started this recording and written no whole part of it yet;"
                            + " read it again in a moment",
                    e.getMessage());
        }
    }

    /**
     * A running writer appends a batch, then rewrites the header in place to count it: a reader that
     * took the length before a flush and the header after it saw more than the file held, and read the
     * file in place as a killed JVM's ("did not end the recording (killed?)", or "Not a Flight
     * Recorder file": 15 of 250 reports of a JVM flushing every millisecond). A locked file is a
     * running JVM's whatever a scan of it said: read from a copy, whose header counts only what the
     * copy holds.
     */
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
