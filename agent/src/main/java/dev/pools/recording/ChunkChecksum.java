package dev.pools.recording;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The checksums of the agent's own recording file. JFR's format has none, so a changed byte is read
 * as a value: one byte set to 0xff made a report of 1 PiB of direct buffers. Each batch the agent
 * appends ends with a {@code pools.Checksum} event that holds where it starts and the CRC-32 of the
 * file since the checksum before it, that one's event included (for the first: the header's fields
 * that never change, then every byte from the declarations on), the header's constant pool as of that batch, and whether it ends the recording. A reader that finds such events checks
 * each, and that the last one ends the chunk where its header says.
 */
public final class ChunkChecksum {

    /** The event type, declared only in the agent's own file; never mirrored to the JDK's recorder. */
    public static final String EVENT = "pools.Checksum";

    public static final String POSITION = "position";
    public static final String CRC32 = "crc32";
    public static final String CONSTANT_POOL = "constantPool";
    public static final String LAST = "last";

    private ChunkChecksum() {}

    /**
     * A checksum event as read: where it starts in the chunk, its CRC-32, its constant pool, and
     * whether it ends the recording (the JVM ended it).
     */
    public record Mark(long position, long crc32, long constantPool, boolean last) {}

    /** A new checksum of a chunk whose header is {@code header}: its fields that never change. */
    static CRC32 start(byte[] header) {
        CRC32 crc = new CRC32();
        crc.update(header, 0, ChunkWriter.CHUNK_SIZE_POSITION); // magic and version
        crc.update(
                header, ChunkWriter.METADATA_POSITION, ChunkWriter.DURATION_POSITION - ChunkWriter.METADATA_POSITION);
        crc.update(
                header,
                ChunkWriter.START_TICKS_POSITION,
                ChunkWriter.FILE_STATE_POSITION - ChunkWriter.START_TICKS_POSITION);
        return crc;
    }

    /**
     * What is wrong with the single chunk of {@code file} by its checksum events {@code marks}, in
     * the order read; null when every one matches and the last ends the chunk.
     */
    public static String damage(Path file, List<Mark> marks) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] header = in.readNBytes(ChunkWriter.HEADER_SIZE);
            if (header.length < ChunkWriter.HEADER_SIZE) {
                return "its header is cut short";
            }
            ByteBuffer h = ByteBuffer.wrap(header);
            long size = h.getLong(ChunkWriter.CHUNK_SIZE_POSITION);
            CRC32 crc = start(header);
            long at = ChunkWriter.HEADER_SIZE;
            byte[] buffer = new byte[64 * 1024];
            Mark last = null;
            for (Mark m : marks) {
                if (m.position() < at || m.position() > size) {
                    return "a checksum says it is at byte " + m.position() + ", outside bytes " + at + " to " + size;
                }
                while (at < m.position()) {
                    int n = in.read(buffer, 0, (int) Math.min(buffer.length, m.position() - at));
                    if (n < 0) {
                        return "it ends at byte " + at + ", before its checksum at byte " + m.position();
                    }
                    crc.update(buffer, 0, n);
                    at += n;
                }
                if (crc.getValue() != m.crc32()) {
                    return "bytes " + (last == null ? ChunkWriter.HEADER_SIZE : last.position()) + " to " + m.position()
                            + " do not match the checksum the agent wrote after them";
                }
                // The next checksum's range starts with this one's event.
                crc = new CRC32();
                last = m;
            }
            if (last == null) {
                return null;
            }
            // The last checksum ends the chunk: its record's size is its first varint.
            byte[] rest = in.readNBytes((int) Math.min(size - at, 64));
            long recordSize = 0;
            int shift = 0;
            for (int i = 0; i < rest.length && i < 9; i++) {
                recordSize |= (rest[i] & 0x7fL) << shift;
                shift += 7;
                if ((rest[i] & 0x80) == 0) {
                    break;
                }
            }
            if (last.position() + recordSize != size) {
                return "its header says it ends at byte " + size + ", not where its last checksum ends ("
                        + (last.position() + recordSize) + ")";
            }
            if (h.getLong(ChunkWriter.CONSTANT_POOL_POSITION) != last.constantPool()) {
                return "its header's constant pool (byte " + h.getLong(ChunkWriter.CONSTANT_POOL_POSITION)
                        + ") is not the one its last checksum names (" + last.constantPool() + ")";
            }
            boolean ended = (header[ChunkWriter.FLAG_POSITION] & ChunkWriter.FINAL_CHUNK) != 0;
            if (ended != last.last()) {
                return "its header says its JVM " + (ended ? "ended it" : "did not end it") + ", its last checksum"
                        + " the opposite";
            }
            return null;
        }
    }
}
