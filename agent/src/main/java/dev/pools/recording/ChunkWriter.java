package dev.pools.recording;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bytes of one JFR chunk (file format 2.0, the one JDK 11 to 25 write and read), for a recording
 * written without starting the JDK's Flight Recorder: a 68-byte header, the metadata that declares
 * the event types, an empty constant pool, then the events, each self-contained (strings and stack
 * traces inline, no constant pool). Integers are the format's compressed varints; the header's are
 * big-endian.
 *
 * <p>Not thread-safe: {@link RecordingFile} serialises its use.
 */
final class ChunkWriter {

    static final int HEADER_SIZE = 68;
    static final int CHUNK_SIZE_POSITION = 8;
    static final int CONSTANT_POOL_POSITION = 16;
    static final int METADATA_POSITION = 24;
    static final int DURATION_POSITION = 40;
    static final int START_TICKS_POSITION = 48;
    static final int FILE_STATE_POSITION = 64;
    static final int FLAG_POSITION = 67;
    /** The header's flag for the last chunk of a recording: set when the JVM ended normally. */
    static final int FINAL_CHUNK = 1 << 1;
    /** The header's flag for integers written as varints, as every chunk of format 2 has them. */
    static final int COMPRESSED_INTEGERS = 1;

    private static final long METADATA_TYPE = 0;
    private static final long CHECKPOINT_TYPE = 1;
    private static final byte STRING_NULL = 0;
    private static final byte STRING_EMPTY = 1;
    private static final byte STRING_UTF8 = 3;

    /** A value type of the format: a primitive, a string, or a composite written inline. */
    record Type(long id, String name, String superType, List<Member> fields, List<Annotation> annotations) {}

    /**
     * A field of a type; {@code array} for a field of dimension 1, {@code pooled} for one whose values
     * are keys into the chunk's constant pool of its type.
     */
    record Member(String name, long typeId, boolean array, boolean pooled, List<Annotation> annotations) {}

    /**
     * An annotation of a type or field: the annotation type's id and its {@code value}, or its values
     * for an annotation whose {@code value} is an array.
     */
    record Annotation(long typeId, boolean array, List<String> values) {
        static Annotation of(long typeId, String... values) {
            return new Annotation(typeId, false, List.of(values));
        }
    }

    private ChunkWriter() {}

    /** The header of a chunk that holds {@code size} bytes from its start, the metadata at {@code metadata}. */
    static byte[] header(
            long size,
            long constantPool,
            long metadata,
            long startNanos,
            long durationNanos,
            long startTicks,
            boolean finished,
            boolean last) {
        Bytes b = new Bytes();
        b.raw(new byte[] {'F', 'L', 'R', 0});
        b.rawShort(2);
        b.rawShort(0);
        b.rawLong(size);
        b.rawLong(constantPool);
        b.rawLong(metadata);
        b.rawLong(startNanos);
        b.rawLong(durationNanos);
        b.rawLong(startTicks);
        b.rawLong(1_000_000_000L); // ticks are nanoseconds of System.nanoTime
        b.write(finished ? 0 : 1); // the file state: 0 for a chunk that readers may read to its size
        b.write(0);
        b.write(0);
        b.write(COMPRESSED_INTEGERS | (last ? FINAL_CHUNK : 0));
        return b.toByteArray();
    }

    /** The metadata event that declares {@code types}, with the time zone's offset in milliseconds. */
    static byte[] metadata(List<Type> types, long ticks, int gmtOffsetMillis, String locale) {
        Element root = new Element("root");
        Element metadata = root.child("metadata");
        for (Type t : types) {
            Element c = metadata.child("class").attr("name", t.name()).attr("id", Long.toString(t.id()));
            if (t.superType() != null) {
                c.attr("superType", t.superType());
            }
            annotate(c, t.annotations());
            for (Member f : t.fields()) {
                Element fe = c.child("field").attr("name", f.name()).attr("class", Long.toString(f.typeId()));
                if (f.array()) {
                    fe.attr("dimension", "1");
                }
                if (f.pooled()) {
                    fe.attr("constantPool", "true");
                }
                annotate(fe, f.annotations());
            }
        }
        root.child("region").attr("locale", locale).attr("gmtOffset", Integer.toString(gmtOffsetMillis));
        Map<String, Integer> strings = new LinkedHashMap<>();
        root.collect(strings);
        Bytes body = new Bytes();
        body.varint(METADATA_TYPE);
        body.varint(ticks);
        body.varint(0); // duration
        body.varint(1); // the metadata's id: one metadata per recording
        body.varint(strings.size());
        for (String s : strings.keySet()) {
            body.string(s);
        }
        root.write(body, strings);
        return body.sized();
    }

    /** A constant-pool event without pools, the last of its chain. */
    static byte[] emptyConstantPool(long ticks) {
        Bytes body = new Bytes();
        body.varint(CHECKPOINT_TYPE);
        body.varint(ticks);
        body.varint(0); // duration
        body.varint(0); // delta to the next one: none
        body.write(0); // not a flush
        body.varint(0); // no pools
        return body.sized();
    }

    private static void annotate(Element e, List<Annotation> annotations) {
        for (Annotation a : annotations) {
            Element ae = e.child("annotation").attr("class", Long.toString(a.typeId()));
            if (!a.array()) {
                for (String v : a.values()) {
                    ae.attr("value", v);
                }
            } else {
                for (int i = 0; i < a.values().size(); i++) {
                    ae.attr("value-" + i, a.values().get(i));
                }
            }
        }
    }

    /** An element of the metadata's tree: a name, attributes in order, children. */
    private static final class Element {
        final String name;
        final List<String[]> attributes = new ArrayList<>();
        final List<Element> children = new ArrayList<>();

        Element(String name) {
            this.name = name;
        }

        Element child(String childName) {
            Element e = new Element(childName);
            children.add(e);
            return e;
        }

        Element attr(String key, String value) {
            attributes.add(new String[] {key, value});
            return this;
        }

        void collect(Map<String, Integer> strings) {
            strings.putIfAbsent(name, strings.size());
            for (String[] a : attributes) {
                strings.putIfAbsent(a[0], strings.size());
                strings.putIfAbsent(a[1], strings.size());
            }
            for (Element c : children) {
                c.collect(strings);
            }
        }

        void write(Bytes out, Map<String, Integer> strings) {
            out.varint(strings.get(name));
            out.varint(attributes.size());
            for (String[] a : attributes) {
                out.varint(strings.get(a[0]));
                out.varint(strings.get(a[1]));
            }
            out.varint(children.size());
            for (Element c : children) {
                c.write(out, strings);
            }
        }
    }

    /** A growing byte array with the format's encodings. */
    static final class Bytes extends ByteArrayOutputStream {

        Bytes() {
            super(256);
        }

        /** The format's compressed integer: 7 bits a byte, low first, the ninth byte whole. */
        void varint(long v) {
            for (int i = 0; i < 8; i++) {
                if ((v & ~0x7FL) == 0) {
                    write((int) v);
                    return;
                }
                write((int) (v & 0x7F) | 0x80);
                v >>>= 7;
            }
            write((int) v);
        }

        void bool(boolean v) {
            write(v ? 1 : 0);
        }

        void string(String s) {
            if (s == null) {
                write(STRING_NULL);
            } else if (s.isEmpty()) {
                write(STRING_EMPTY);
            } else {
                byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
                write(STRING_UTF8);
                varint(utf8.length);
                write(utf8, 0, utf8.length);
            }
        }

        void raw(byte[] b) {
            write(b, 0, b.length);
        }

        void rawShort(int v) {
            write(v >>> 8);
            write(v);
        }

        void rawLong(long v) {
            for (int shift = 56; shift >= 0; shift -= 8) {
                write((int) (v >>> shift));
            }
        }

        /**
         * These bytes as an event: preceded by their size, the size's own bytes included, as a varint
         * padded to four bytes (events up to 256 MiB).
         */
        byte[] sized() {
            int size = count + 4;
            if (size >= 1 << 28) {
                throw new IllegalStateException("an event of " + size + " bytes");
            }
            byte[] out = new byte[size];
            out[0] = (byte) ((size & 0x7F) | 0x80);
            out[1] = (byte) (((size >>> 7) & 0x7F) | 0x80);
            out[2] = (byte) (((size >>> 14) & 0x7F) | 0x80);
            out[3] = (byte) ((size >>> 21) & 0x7F);
            System.arraycopy(buf, 0, out, 4, count);
            return out;
        }
    }
}
