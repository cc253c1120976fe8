package dev.pools.recording;

import dev.pools.recording.ChunkWriter.Bytes;

/**
 * What the event classes share: how {@link EventFile} writes their fields. Each class writes its own
 * public fields in the order it declares them, the order of its type in the file; reflection would
 * do the same, but on JDK 18 and later the first read of each field builds method handles, some
 * 10 ms of the recording's start on JDK 25 for the first batch alone. {@code EventFileTest} checks
 * every field of every class through the JDK's reader.
 */
public abstract class FileEvent {

    FileEvent() {}

    /** Writes the public fields, in declaration order. */
    abstract void writeFields(Bytes out);
}
