package dev.pools.recording;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import jdk.jfr.DataAmount;
import jdk.jfr.EventType;
import jdk.jfr.Name;
import jdk.jfr.ValueDescriptor;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's own JFR writer, read back by the JDK's reader of this JVM. */
class EventFileTest {

    @TempDir
    Path dir;

    @Test
    void every_field_of_every_event_class_reads_back_with_its_label_and_unit() throws Exception {
        Path file = dir.resolve("a.jfr");
        Instant before = Instant.now();
        try (EventFile out = EventFile.create(file, Recorder.EVENT_CLASSES)) {
            PoolReportEvent p = new PoolReportEvent();
            p.index = 3;
            p.kind = "sliced";
            p.pageSize = 1 << 20;
            p.maxSlice = 65536;
            p.pagesCap = -1;
            p.pages = 7;
            p.pagesPeak = 9;
            p.largestAlloc = 123_456;
            p.numberAllocs = Long.MAX_VALUE;
            p.bytesInUse = Long.MIN_VALUE;
            p.bytesReserved = 0;
            p.runs = 2;
            p.bytesInRuns = 12_288;
            out.add(p);
            LayoutEvent l = new LayoutEvent();
            l.kind = "host";
            l.layout = "pools:\n  - kind: sliced  # é, ✓\n";
            l.source = null;
            out.add(l);
            UsageEvent u = new UsageEvent();
            u.collectionTime = 1_500_000;
            u.collections = 4;
            out.add(u);
            out.addJvmInformation(
                    "OpenJDK 64-Bit Server VM", "17", "-Xmx1g", "app.jar serve", 1_700_000_000_000L, 4242);
        }
        Instant after = Instant.now();
        List<RecordedEvent> events = events(file);
        assertEquals(4, events.size(), events.toString());
        RecordedEvent p = events.get(0);
        assertEquals("pools.PoolReport", p.getEventType().getName());
        assertEquals("Pool Report", p.getEventType().getLabel());
        assertEquals(List.of("pools"), p.getEventType().getCategoryNames());
        assertEquals(3, p.getInt("index"));
        assertEquals("sliced", p.getString("kind"));
        assertEquals(1 << 20, p.getLong("pageSize"));
        assertEquals(-1, p.getLong("pagesCap"));
        assertEquals(Long.MAX_VALUE, p.getLong("numberAllocs"));
        assertEquals(Long.MIN_VALUE, p.getLong("bytesInUse"));
        assertEquals(12_288, p.getLong("bytesInRuns"));
        assertFalse(p.getStartTime().isBefore(before.minusMillis(1)), p.getStartTime() + " " + before);
        assertFalse(p.getEndTime().isAfter(after.plusMillis(1)), p.getEndTime() + " " + after);
        assertEquals(Duration.ZERO, p.getDuration());
        assertNull(p.getStackTrace());
        ValueDescriptor pageSize = p.getEventType().getField("pageSize");
        assertEquals("Page Size", pageSize.getLabel());
        assertEquals(DataAmount.BYTES, pageSize.getAnnotation(DataAmount.class).value());
        assertEquals(DataAmount.class.getName(), pageSize.getContentType());
        RecordedEvent l = events.get(1);
        assertEquals("pools:\n  - kind: sliced  # é, ✓\n", l.getString("layout"));
        assertNull(l.getString("source"));
        RecordedEvent u = events.get(2);
        assertEquals(Duration.ofNanos(1_500_000), u.getDuration("collectionTime"));
        assertEquals(4, u.getLong("collections"));
        RecordedEvent jvm = events.get(3);
        assertEquals(EventFile.JVM_INFORMATION, jvm.getEventType().getName());
        assertEquals(4242, jvm.getLong("pid"));
        assertEquals(Instant.ofEpochMilli(1_700_000_000_000L), jvm.getInstant("jvmStartTime"));
        assertEquals("app.jar serve", jvm.getString("javaArguments"));
        // Every declared field of the classes is in the file's types, in order.
        List<EventType> types;
        try (RecordingFile in = new RecordingFile(file)) {
            types = in.readEventTypes();
        }
        for (Class<?> c : Recorder.EVENT_CLASSES) {
            String name = c.getAnnotation(Name.class).value();
            List<String> expected = new ArrayList<>(List.of("startTime", "duration"));
            if (c == AllocationRefusedEvent.class) {
                // The only class without @StackTrace(false): its events carry their thread and stack.
                expected.addAll(List.of("eventThread", "stackTrace"));
            }
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isPublic(f.getModifiers()) && !Modifier.isStatic(f.getModifiers())) {
                    expected.add(f.getName());
                }
            }
            List<String> written =
                    types.stream().filter(t -> t.getName().equals(name)).findFirst().orElseThrow().getFields().stream()
                            .map(ValueDescriptor::getName)
                            .toList();
            assertEquals(expected, written, c.getName());
        }
    }

    @Test
    void each_class_writes_every_field_under_its_own_name() throws Exception {
        // Each event class writes its own fields (FileEvent): a value in the wrong place or a field
        // left out shows here, each field having a value no other field of its class has.
        Path file = dir.resolve("fields.jfr");
        Map<String, Map<String, Object>> expected = new HashMap<>();
        try (EventFile out = EventFile.create(file, Recorder.EVENT_CLASSES)) {
            long n = 1;
            for (Class<?> c : Recorder.EVENT_CLASSES) {
                FileEvent e = (FileEvent) c.getDeclaredConstructor().newInstance();
                Map<String, Object> values = new HashMap<>();
                for (Field f : EventFile.recordedFields(c)) {
                    n++;
                    // A boolean is true: one left out or out of place reads false.
                    Object v = f.getType() == long.class
                            ? (Object) (n * 1_000_003L)
                            : f.getType() == int.class
                                    ? (Object) (int) n
                                    : f.getType() == boolean.class ? (Object) Boolean.TRUE : "value " + n;
                    f.set(e, v);
                    values.put(f.getName(), v);
                }
                expected.put(c.getAnnotation(Name.class).value(), values);
                out.add(e);
            }
        }
        List<RecordedEvent> events = events(file);
        assertEquals(Recorder.EVENT_CLASSES.size(), events.size());
        for (RecordedEvent e : events) {
            Map<String, Object> values = expected.get(e.getEventType().getName());
            for (Map.Entry<String, Object> v : values.entrySet()) {
                assertEquals(
                        v.getValue(), e.getValue(v.getKey()), e.getEventType().getName() + "." + v.getKey());
            }
        }
    }

    @Test
    void stacks_across_flushes_are_kept_once_each_and_read_as_the_jdk_reads_its_own() throws Exception {
        Path file = dir.resolve("s.jfr");
        List<EventFile.Frame> first = frames();
        List<EventFile.Frame> second = new ArrayList<>(first);
        second.add(0, new EventFile.Frame("it.host.Tensors", "allocate", "(I)Ljava/nio/ByteBuffer;", 12, 3, false));
        try (EventFile out = EventFile.create(file, Recorder.EVENT_CLASSES)) {
            out.add(refusal(1), first);
            out.add(refusal(2), first);
            out.flush();
            out.add(refusal(3), second);
            out.flush();
            out.add(refusal(4), first);
        }
        List<RecordedEvent> events = events(file);
        assertEquals(4, events.size());
        for (RecordedEvent e : events) {
            long size = e.getLong("size");
            List<EventFile.Frame> expected = size == 3 ? second : first;
            assertNotNull(e.getStackTrace(), e.toString());
            List<RecordedFrame> got = e.getStackTrace().getFrames();
            assertEquals(expected.size(), got.size());
            for (int i = 0; i < got.size(); i++) {
                RecordedFrame f = got.get(i);
                EventFile.Frame x = expected.get(i);
                assertEquals(x.className(), f.getMethod().getType().getName());
                assertEquals(x.method(), f.getMethod().getName());
                assertEquals(x.descriptor(), f.getMethod().getDescriptor());
                assertEquals(x.line(), f.getLineNumber());
                assertEquals(x.bytecodeIndex(), f.getBytecodeIndex());
                assertTrue(f.isJavaFrame());
            }
            assertFalse(e.getStackTrace().isTruncated());
            assertEquals(Thread.currentThread().getName(), e.getThread().getJavaName());
            assertEquals(Thread.currentThread().getId(), e.getThread().getJavaThreadId());
        }
        assertTrue(events.toString().contains("it.host.Tensors.allocate(int)"), events.toString());
    }

    @Test
    void a_stack_deeper_than_the_limit_is_kept_truncated() throws Exception {
        Path file = dir.resolve("d.jfr");
        List<EventFile.Frame> deep = new ArrayList<>();
        for (int i = 0; i < EventFile.STACK_DEPTH + 10; i++) {
            deep.add(new EventFile.Frame("a.B", "m" + i, "()V", i, i, false));
        }
        try (EventFile out = EventFile.create(file, Recorder.EVENT_CLASSES)) {
            out.add(refusal(1), deep);
        }
        RecordedEvent e = events(file).get(0);
        assertTrue(e.getStackTrace().isTruncated());
        assertEquals(EventFile.STACK_DEPTH, e.getStackTrace().getFrames().size());
        assertEquals("m0", e.getStackTrace().getFrames().get(0).getMethod().getName());
    }

    @Test
    void what_was_flushed_is_read_while_the_file_is_open_and_nothing_after_it() throws Exception {
        Path file = dir.resolve("f.jfr");
        EventFile out = EventFile.create(file, Recorder.EVENT_CLASSES);
        try {
            assertEquals(List.of(), events(file), "declarations only");
            out.add(refusal(1), frames());
            out.flush();
            out.add(refusal(2), frames());
            // As a JVM killed here leaves it: the first event whole, the second never written.
            List<Long> sizes = events(file).stream().map(e -> e.getLong("size")).collect(Collectors.toList());
            assertEquals(List.of(1L), sizes);
            assertEquals(0, flags(file) & ChunkWriter.FINAL_CHUNK, "not ended with its JVM");
        } finally {
            out.close();
        }
        out.add(refusal(3), frames()); // a thread that allocates after the JVM's end
        out.flush();
        assertEquals(2, events(file).size());
        assertEquals(ChunkWriter.FINAL_CHUNK, flags(file) & ChunkWriter.FINAL_CHUNK);
        assertEquals(Files.size(file), chunkSize(file));
    }

    @Test
    void a_recording_that_could_not_start_whole_leaves_no_file() throws Exception {
        Path file = dir.resolve("a.jfr");
        EventFile out = EventFile.create(file, Recorder.EVENT_CLASSES);
        out.add(refusal(1), frames());
        out.flush();
        assertTrue(Files.size(file) > ChunkWriter.HEADER_SIZE);
        out.abandon();
        assertFalse(Files.exists(file), "no half recording");
        out.add(refusal(2), frames()); // a listener still registered: nothing happens
        out.flush();
        out.close();
        assertFalse(Files.exists(file));
    }

    @Test
    void four_threads_adding_while_another_flushes_lose_no_event() throws Exception {
        Path file = dir.resolve("t.jfr");
        int perThread = 2_000;
        try (EventFile out = EventFile.create(file, Recorder.EVENT_CLASSES)) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                long base = t * 1_000_000L;
                List<EventFile.Frame> stack = new ArrayList<>(frames());
                stack.add(0, new EventFile.Frame("it.host.T" + t, "allocate", "(I)V", t, t, false));
                threads.add(new Thread(
                        () -> {
                            for (int i = 0; i < perThread; i++) {
                                out.add(refusal(base + i), stack);
                            }
                        },
                        "adder-" + t));
            }
            Thread flusher = new Thread(() -> {
                while (threads.stream().anyMatch(Thread::isAlive)) {
                    try {
                        out.flush();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            });
            threads.forEach(Thread::start);
            flusher.start();
            for (Thread t : threads) {
                t.join();
            }
            flusher.join();
        }
        List<RecordedEvent> events = events(file);
        assertEquals(4 * perThread, events.size());
        assertEquals(
                4 * perThread,
                events.stream().map(e -> e.getLong("size")).distinct().count(),
                "each event once");
        for (RecordedEvent e : events) {
            String top =
                    e.getStackTrace().getFrames().get(0).getMethod().getType().getName();
            assertEquals("it.host.T" + e.getLong("size") / 1_000_000L, top, "each with its own thread's stack");
            assertEquals(
                    "adder-" + e.getLong("size") / 1_000_000L, e.getThread().getJavaName(), "and its own thread");
        }
    }

    /** The file's events but its checksums (ChunkChecksum), each of which a reader checks. */
    private static List<RecordedEvent> events(Path file) throws Exception {
        return RecordingFile.readAllEvents(file).stream()
                .filter(e -> !e.getEventType().getName().equals(ChunkChecksum.EVENT))
                .toList();
    }

    private static int flags(Path file) throws Exception {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            f.seek(ChunkWriter.FLAG_POSITION);
            return f.read();
        }
    }

    private static long chunkSize(Path file) throws Exception {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            f.seek(ChunkWriter.CHUNK_SIZE_POSITION);
            return f.readLong();
        }
    }

    private static AllocationRefusedEvent refusal(long size) {
        AllocationRefusedEvent e = new AllocationRefusedEvent();
        e.size = size;
        e.outcome = "fallback";
        e.reason = "no pool takes it";
        e.site = "it.host.Tensors#allocate";
        return e;
    }

    @Test
    void refusals_past_the_limit_between_flushes_are_counted_not_kept_and_batches_are_kept() throws Exception {
        Path file = dir.resolve("l.jfr");
        List<EventFile.Frame> stack = frames();
        int kept;
        try (EventFile out = EventFile.create(file, Recorder.EVENT_CLASSES)) {
            out.limitPending(1); // raised to the floor
            assertEquals(EventFile.PENDING_FLOOR, out.pendingLimit());
            int n = 0;
            while (out.dropped() == 0) {
                out.add(refusal(n++), stack);
            }
            kept = n - 1;
            for (int i = 0; i < 999; i++) {
                out.add(refusal(n++), stack);
            }
            assertEquals(1000, out.dropped());
            out.add(new UsageEvent()); // a batch's event, without a stack: never left out
            out.flush();
            out.add(refusal(n), stack); // room again after the flush
            assertEquals(1000, out.dropped());
        }
        List<RecordedEvent> events = events(file);
        assertEquals(kept + 2, events.size());
        assertTrue(Files.size(file) < EventFile.PENDING_FLOOR * 2, Files.size(file) + " B");
    }

    /**
     * Each flush with something new ends the chunk with a checksum of all before it, which the
     * reader's check ({@link ChunkChecksum#damage}) finds whole; a flush with nothing new adds none.
     */
    @Test
    void each_flush_ends_with_a_checksum_of_the_chunk_before_it() throws Exception {
        Path file = dir.resolve("x.jfr");
        List<EventFile.Frame> stack = frames();
        try (EventFile out = EventFile.create(file, Recorder.EVENT_CLASSES)) {
            out.add(refusal(1), stack);
            out.flush();
            out.flush();
            out.add(refusal(2), frames().subList(1, 3));
            out.add(new UsageEvent());
        }
        List<ChunkChecksum.Mark> marks = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals(ChunkChecksum.EVENT))
                .map(e -> new ChunkChecksum.Mark(
                        e.getLong(ChunkChecksum.POSITION),
                        e.getLong(ChunkChecksum.CRC32),
                        e.getLong(ChunkChecksum.CONSTANT_POOL),
                        e.getBoolean(ChunkChecksum.LAST)))
                .toList();
        assertEquals(2, marks.size(), "the first flush's and the close's");
        assertEquals(
                List.of(false, true),
                marks.stream().map(ChunkChecksum.Mark::last).toList());
        assertNull(ChunkChecksum.damage(file, marks));
        assertTrue(marks.get(1).constantPool() > marks.get(0).constantPool(), "the second batch's new stack");
        assertEquals(
                "bytes " + marks.get(0).position() + " to " + marks.get(1).position()
                        + " do not match the checksum the agent wrote after them",
                ChunkChecksum.damage(
                        file,
                        List.of(
                                marks.get(0),
                                new ChunkChecksum.Mark(marks.get(1).position(), 1, 0, true))));
        assertEquals(
                "its header says it ends at byte " + chunkSize(file) + ", not where its last checksum ends ("
                        + (marks.get(0).position()
                                + recordSize(file, marks.get(0).position())) + ")",
                ChunkChecksum.damage(file, marks.subList(0, 1)));
    }

    /**
     * The size of the event record at {@code position}: its first varint. (The test took it as 23 bytes,
     * which held only while the checksum's CRC took as many bytes to write: it failed once in a run.)
     */
    private static long recordSize(Path file, long position) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        long size = 0;
        for (int i = 0; i < 9; i++) {
            byte b = bytes[(int) position + i];
            size |= (b & 0x7fL) << (7 * i);
            if ((b & 0x80) == 0) {
                return size;
            }
        }
        throw new AssertionError("no varint at " + position);
    }

    /**
     * A flush that fails on a full heap after its checksum was made is made again whole at the next
     * flush (the recorder keeps what waits). Before, the first try had already added the batch to the
     * running checksum, the retry added it again, and every later checksum failed: the recording of a
     * host at the brim of its heap was refused as damaged (a review, 2 runs of 37).
     */
    @Test
    void a_flush_that_failed_for_the_heap_is_made_again_whole() throws Exception {
        Path file = dir.resolve("x.jfr");
        List<EventFile.Frame> stack = frames();
        try (EventFile out = EventFile.create(file, Recorder.EVENT_CLASSES)) {
            out.add(refusal(1), stack);
            out.flush();
            out.add(refusal(2), frames().subList(1, 3));
            boolean[] failed = {false};
            EventFile.beforeBatchWrite = () -> {
                if (!failed[0]) {
                    failed[0] = true;
                    throw new OutOfMemoryError("Java heap space");
                }
            };
            try {
                assertThrows(OutOfMemoryError.class, out::flush);
                out.add(refusal(3), stack);
                out.flush();
            } finally {
                EventFile.beforeBatchWrite = null;
            }
        }
        List<RecordedEvent> all = RecordingFile.readAllEvents(file);
        List<ChunkChecksum.Mark> marks = all.stream()
                .filter(e -> e.getEventType().getName().equals(ChunkChecksum.EVENT))
                .map(e -> new ChunkChecksum.Mark(
                        e.getLong(ChunkChecksum.POSITION),
                        e.getLong(ChunkChecksum.CRC32),
                        e.getLong(ChunkChecksum.CONSTANT_POOL),
                        e.getBoolean(ChunkChecksum.LAST)))
                .toList();
        assertEquals(3, marks.size(), "the first flush's, the retry's and the close's");
        assertNull(ChunkChecksum.damage(file, marks));
        assertEquals(
                List.of(1L, 2L, 3L),
                events(file).stream().map(e -> e.getLong("size")).toList(),
                "each refusal once, its stack read");
    }

    @Test
    void a_stopped_file_stays_as_of_its_last_flush_and_keeps_nothing_more() throws Exception {
        Path file = dir.resolve("x.jfr");
        List<EventFile.Frame> stack = frames();
        EventFile out = EventFile.create(file, Recorder.EVENT_CLASSES);
        out.add(refusal(1), stack);
        out.flush();
        long flushed = Files.size(file);
        out.add(refusal(2), stack);
        out.stop();
        assertTrue(out.add(refusal(3), stack), "taken (and counted), not passed on to another file");
        out.add(new UsageEvent());
        out.flush();
        out.close();
        assertEquals(1, out.dropped(), "the refusal after the stop");
        assertEquals(flushed, Files.size(file));
        List<RecordedEvent> events = events(file);
        assertEquals(1, events.size());
        assertEquals(1, events.get(0).getLong("size"));
    }

    @Test
    void a_file_linked_under_a_second_name_is_written_there_and_stays_at_the_first() throws Exception {
        Path file = dir.resolve("r.jfr");
        Path second = dir.resolve("r.jfr.1");
        Files.writeString(second, "an older file, replaced");
        try (EventFile out = EventFile.create(file, Recorder.EVENT_CLASSES)) {
            out.add(refusal(1), frames());
            out.flush();
            out.linkAs(second);
            assertEquals(second, out.path());
            assertTrue(Files.isSameFile(file, second));
            out.add(refusal(2), frames());
        }
        assertEquals(2, events(second).size());
        assertEquals(List.of("r.jfr", "r.jfr.1"), names());
        // In the way, a directory: nothing changes.
        Path other = dir.resolve("o.jfr");
        Files.createDirectories(dir.resolve("o.jfr.1").resolve("x"));
        try (EventFile out = EventFile.create(other, Recorder.EVENT_CLASSES)) {
            assertThrows(java.io.IOException.class, () -> out.linkAs(dir.resolve("o.jfr.1")));
            assertEquals(other, out.path());
        }
        assertEquals(List.of("o.jfr", "o.jfr.1", "r.jfr", "r.jfr.1"), names());
    }

    /**
     * A JVM that takes the name of an ended recording writes its own file beside it and renames it over
     * the name: a reader that has the ended recording open (a {@code report} of it, a copy) reads it
     * whole. Before, the new JVM emptied the file in place and wrote its start there, and such a reader
     * found an empty file, another JVM's start, or a recording cut short (a probe of reports beside
     * JVMs starting at the name: 254 of 5 648 reads failed so).
     */
    @Test
    void an_ended_recording_is_replaced_by_a_new_file_and_a_reader_that_has_it_open_reads_it_whole() throws Exception {
        Path file = dir.resolve("same.jfr");
        try (EventFile out = EventFile.create(file, Recorder.EVENT_CLASSES)) {
            for (int i = 0; i < 50; i++) {
                out.add(refusal(i), frames());
            }
        }
        byte[] ended = Files.readAllBytes(file);
        Object endedKey = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
        try (FileChannel reader = FileChannel.open(file, StandardOpenOption.READ)) {
            try (EventFile next = EventFile.createBesideOthers(
                    file, Recorder.EVENT_CLASSES, System.nanoTime(), System.currentTimeMillis())) {
                assertEquals(file, next.path());
                ByteBuffer read = ByteBuffer.allocate(ended.length + 1);
                while (reader.read(read) > 0) {
                    // all of it
                }
                assertEquals(ended.length, read.position(), "the reader's file is the ended recording, whole");
                assertTrue(Arrays.equals(ended, Arrays.copyOf(read.array(), ended.length)));
                assertFalse(
                        endedKey.equals(Files.readAttributes(file, BasicFileAttributes.class)
                                .fileKey()),
                        "a new file at the name");
                assertEquals(List.of("same.jfr"), names(), "nothing left beside it");
            }
        }
        assertEquals(0, events(file).size(), "the new JVM's recording, ended");
        // A file at the name that is empty (just created, or emptied) is written in place.
        Path empty = dir.resolve("empty.jfr");
        Files.createFile(empty);
        Object emptyKey = Files.readAttributes(empty, BasicFileAttributes.class).fileKey();
        try (EventFile next = EventFile.createBesideOthers(
                empty, Recorder.EVENT_CLASSES, System.nanoTime(), System.currentTimeMillis())) {
            assertEquals(
                    emptyKey,
                    Files.readAttributes(empty, BasicFileAttributes.class).fileKey());
        }
    }

    /**
     * A name that is not a regular file (a pipe; as root, a device) is never written, renamed or deleted.
     * Before, a recording at /dev/full, whose first write failed, deleted the device as a half-written
     * file of its own (found when a later test's redirection to /dev/full made a regular file there).
     */
    @Test
    void a_name_that_is_not_a_regular_file_is_refused_and_left_as_it_is() throws Exception {
        Path fifo = dir.resolve("pipe.jfr");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor(), "mkfifo");
        List<Path> nodes = new ArrayList<>(List.of(fifo));
        Path device = dir.resolve("full.jfr");
        // A copy of /dev/full (character device 1, 7: every write fails), where this user may make one.
        if (new ProcessBuilder("mknod", device.toString(), "c", "1", "7")
                        .start()
                        .waitFor()
                == 0) {
            nodes.add(device);
        }
        for (Path node : nodes) {
            IOException e = assertThrows(
                    IOException.class,
                    () -> EventFile.createBesideOthers(
                            node, Recorder.EVENT_CLASSES, System.nanoTime(), System.currentTimeMillis()));
            assertEquals(node + " is not a regular file", e.getMessage());
            assertTrue(Files.exists(node) && !Files.isRegularFile(node), node + " is left as it was");
        }
        assertEquals(
                nodes.stream().map(p -> p.getFileName().toString()).sorted().toList(), names(), "nothing made");
    }

    private List<String> names() throws Exception {
        try (var files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    private static List<EventFile.Frame> frames() {
        return StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
                .walk(s -> s.limit(20).map(EventFile.Frame::of).toList());
    }
}
