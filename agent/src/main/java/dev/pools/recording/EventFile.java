package dev.pools.recording;

import dev.pools.log.Log;
import dev.pools.recording.ChunkWriter.Annotation;
import dev.pools.recording.ChunkWriter.Bytes;
import dev.pools.recording.ChunkWriter.Member;
import dev.pools.recording.ChunkWriter.Type;
import java.io.Closeable;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TimeZone;
import java.util.zip.CRC32;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * A JFR recording written by the agent itself, one chunk that grows: the JDK's Flight Recorder is
 * never started for it, so a recorded run does not pay for JFR's start (its threads, buffers, class
 * retransformations, and the compilation of its code). The file is what {@code jfr},
 * {@code jdk.jfr.consumer.RecordingFile} and JDK Mission Control read.
 *
 * <p>The event types are declared from the {@code pools.*} event classes, their names, labels,
 * descriptions, categories, and {@code @DataAmount} and {@code @Timespan} fields; each event is
 * written from an instance of its class. Stack traces go to the chunk's constant pools, one entry per
 * distinct stack; everything else is inline.
 *
 * <p>Events are kept in memory until {@link #flush}, which appends them and then updates the header,
 * so that the file read at any time holds whole events: after {@link #flush} returns, a killed JVM
 * loses nothing of what was flushed. {@link #close} sets the header's flag for a recording that
 * ended with its JVM.
 */
final class EventFile implements Closeable {

    /** The super type of every event type. */
    private static final String EVENT = "jdk.jfr.Event";

    /** The JDK's type of the event that names the JVM. */
    static final String JVM_INFORMATION = "jdk.JVMInformation";

    /** The agent's own classes, whose frames a stack leaves out at its top. */
    private static final String OWN_PACKAGE = "dev.pools.";

    /** The most frames kept of a stack, as JFR's default. */
    static final int STACK_DEPTH = 64;

    private static final long T_BOOLEAN = 4;
    private static final long T_INT = 5;
    private static final long T_LONG = 6;
    private static final long T_STRING = 7;
    private static final long T_CLASS = 8;
    private static final long T_METHOD = 9;
    private static final long T_FRAME = 10;
    private static final long T_STACK = 11;
    private static final long T_THREAD = 12;
    private static final long A_LABEL = 20;
    private static final long A_DESCRIPTION = 21;
    private static final long A_CATEGORY = 22;
    private static final long A_CONTENT_TYPE = 23;
    private static final long A_DATA_AMOUNT = 24;
    private static final long A_TIMESPAN = 25;
    private static final long A_TIMESTAMP = 26;
    private static final long FIRST_EVENT = 100;

    /** Walks stacks with the classes, which the frames' descriptors need (JDK 25). */
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    /**
     * The calling thread's stack below the agent's own frames: the host's code that asked first, at most
     * {@link #STACK_DEPTH} frames and one more, so that a deeper stack is said to be truncated.
     */
    static List<Frame> callerStack() {
        return WALKER.walk(s -> s.dropWhile(f -> f.getClassName().startsWith(OWN_PACKAGE))
                .limit(STACK_DEPTH + 1L)
                .map(Frame::of)
                .toList());
    }

    /** A frame of a stack, as the file keeps it. */
    record Frame(String className, String method, String descriptor, int line, int bytecodeIndex, boolean isNative) {
        static Frame of(StackWalker.StackFrame f) {
            return new Frame(
                    f.getClassName(),
                    f.getMethodName(),
                    f.getDescriptor(),
                    f.getLineNumber(),
                    f.getByteCodeIndex(),
                    f.isNativeMethod());
        }
    }

    /** How an event class is written: its type, and whether its events carry a thread and stack. */
    private record EventClass(long id, boolean stackTrace) {}

    private final FileChannel channel;
    private Path path;
    private final Map<Class<?>, EventClass> classes = new HashMap<>();
    private final long jvmInformation;
    private final long checksum;
    /** For tests: run before a batch is written (after its checksum is made); null otherwise. */
    static volatile Runnable beforeBatchWrite;

    /** The last checksum in the file, where the next one's range starts; null before the first. */
    private byte[] lastChecksum;
    /** The header and declarations the first checksum covers (its range starts with them); null after it. */
    private byte[] firstHeader;

    private byte[] firstDeclarations;

    private final long startTicks;
    private final long startNanos;
    private final Bytes pending = new Bytes();
    private final Pool<Long> threads = new Pool<>(T_THREAD);
    private final Pool<String> javaClasses = new Pool<>(T_CLASS);
    private final Pool<String> methods = new Pool<>(T_METHOD);
    private final Pool<List<Frame>> stacks = new Pool<>(T_STACK);
    private final List<Pool<?>> pools = List.of(threads, javaClasses, methods, stacks);
    private long size;
    private long constantPool;
    private final long metadata;
    private long lastTicks;
    private boolean closed;
    /** Set once a write failed ({@link #stop}): events are counted, not kept, and nothing more is written. */
    private boolean stopped;
    /** The most bytes of events kept in memory between flushes; see {@link #add(FileEvent, List)}. */
    private long pendingLimit = PENDING_LIMIT;
    /** Events not kept: past {@link #pendingLimit}, or after {@link #stop}. */
    private long dropped;

    private EventFile(Path path, FileChannel channel, List<Class<?>> eventClasses, long startTicks, long startMillis)
            throws IOException {
        this.path = path;
        this.channel = channel;
        this.startTicks = startTicks;
        this.startNanos = startMillis * 1_000_000L;
        this.lastTicks = startTicks;
        List<Type> types = baseTypes();
        long id = FIRST_EVENT;
        for (Class<?> c : eventClasses) {
            types.add(declare(c, id));
            id++;
        }
        jvmInformation = id;
        types.add(jvmInformationType(id));
        checksum = id + 1;
        types.add(checksumType(checksum));
        byte[] meta = ChunkWriter.metadata(
                types,
                startTicks,
                TimeZone.getDefault().getRawOffset(),
                Locale.getDefault().toString());
        byte[] pool = ChunkWriter.emptyConstantPool(startTicks);
        metadata = ChunkWriter.HEADER_SIZE;
        constantPool = metadata + meta.length;
        size = constantPool + pool.length;
        firstHeader = header(false);
        firstDeclarations = new byte[meta.length + pool.length];
        System.arraycopy(meta, 0, firstDeclarations, 0, meta.length);
        System.arraycopy(pool, 0, firstDeclarations, meta.length, pool.length);
        channel.truncate(0);
        write(ChunkWriter.HEADER_SIZE, meta);
        write(constantPool, pool);
        writeHeader(false);
    }

    /** Creates or empties {@code path} and writes the declarations of {@code eventClasses} to it; it starts now. */
    static EventFile create(Path path, List<Class<?>> eventClasses) throws IOException {
        return create(path, eventClasses, System.nanoTime(), System.currentTimeMillis());
    }

    /**
     * As above, for a recording whose time began earlier: at {@code startTicks} ({@link System#nanoTime})
     * and {@code startMillis} (the wall clock at the same moment), so that events kept from before the
     * file's creation fall within it.
     */
    static EventFile create(Path path, List<Class<?>> eventClasses, long startTicks, long startMillis)
            throws IOException {
        FileChannel channel = FileChannel.open(
                path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        try {
            // The file a rotation renames over the recording's name holds its lock too (createBesideOthers).
            try {
                channel.tryLock();
            } catch (IOException | OverlappingFileLockException e) {
                // Unlocked: only a later JVM's choice of name is at stake, and the file is whole anyway.
            }
            return new EventFile(path, channel, eventClasses, startTicks, startMillis);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * A recording's first file, at {@code path} unless that holds what must be kept: a recording
     * another running JVM writes (it holds a lock on it, as this one does on its own), or one whose
     * JVM did not end it (killed, as a container is at its memory limit: the recording that explains
     * the kill; a restart with the same {@code %h} name came back to it, and truncated it). This one
     * then goes to the first free {@code <name>-2<.ext>}, {@code -3}, ..., said once on stderr. A
     * recording that was ended, or a file that is no recording, is replaced, as before.
     */
    static EventFile createBesideOthers(Path path, List<Class<?>> eventClasses, long startTicks, long startMillis)
            throws IOException {
        String kept = null;
        int moved = 0;
        for (int n = 1; n <= MAX_OTHERS; n++) {
            Path candidate = n == 1 ? path : numbered(path, n);
            if (Files.exists(candidate) && !Files.isRegularFile(candidate)) {
                // A device, a pipe, a folder: never written, renamed at report.max_size nor deleted after
                // a failed write (as root, a recording at /dev/full deleted the device).
                throw new IOException(candidate + " is not a regular file");
            }
            Object before = fileKey(candidate);
            FileChannel channel = FileChannel.open(
                    candidate, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            boolean ours = false;
            try {
                String other = othersRecording(channel);
                if (other == null && before != null && !before.equals(fileKey(candidate)) && moved++ < MAX_MOVES) {
                    // Another file was renamed to the name between the open and the lock (a JVM's
                    // rotation at report.max_size, which ends and lets go of its old file just after):
                    // the file locked is no longer at the name. Look again.
                    channel.close();
                    n--;
                    continue;
                }
                if (other == null) {
                    EventFile file = replacing(candidate, channel, eventClasses, startTicks, startMillis);
                    if (file != null) {
                        try {
                            channel.close(); // the replaced file's lock, held until the new file took its name
                        } catch (IOException e) {
                            // Its lock goes with the descriptor anyway; the new file is written.
                        }
                    } else {
                        ours = true;
                        file = new EventFile(candidate, channel, eventClasses, startTicks, startMillis);
                    }
                    if (kept != null) {
                        Log.once("moved:" + path, path + " " + kept + "; this JVM's recording goes to " + candidate);
                    }
                    return file;
                }
                if (kept == null) {
                    kept = other;
                }
                channel.close();
            } catch (IOException | RuntimeException | Error e) {
                channel.close();
                if (ours) {
                    // Not half a file of ours (a full heap, say), which the next try would keep as a killed JVM's.
                    deleteIfRegular(candidate);
                }
                throw e;
            }
        }
        throw new IOException(path + " and " + (MAX_OTHERS - 1) + " numbered names beside it hold recordings to keep");
    }

    /**
     * A new file that has taken the place of what {@code channel} holds at {@code path} (an ended
     * recording, or a file that is no recording), or null if it is empty (written in place) or the new
     * file could not be made beside it. The new file is written at another name and renamed over the
     * old one, so that a reader who has the ended recording open (a {@code report} of it, a copy
     * being made) goes on reading it whole, where emptying it in place cut it under them. The caller
     * holds the old file's lock until then, and lets go of it after: a JVM that locks it next finds
     * another file at the name, and looks again (see {@link #createBesideOthers}).
     */
    private static EventFile replacing(
            Path path, FileChannel replaced, List<Class<?>> eventClasses, long startTicks, long startMillis)
            throws IOException {
        if (replaced.size() == 0 || Files.isSymbolicLink(path)) {
            return null; // nothing to keep whole; or a link, which names a file elsewhere: in place
        }
        Path fresh = path.resolveSibling(
                path.getFileName() + "." + ProcessHandle.current().pid() + ".new");
        FileChannel channel;
        try {
            // Only the holder of the replaced file's lock makes this name: one already there is a killed JVM's
            // (in a container every JVM is pid 1).
            Files.deleteIfExists(fresh);
            channel = FileChannel.open(
                    fresh, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (IOException | RuntimeException e) {
            return null; // no room for a second file there (a directory one may not create in): in place
        }
        boolean done = false;
        try {
            try {
                channel.tryLock();
            } catch (IOException | OverlappingFileLockException e) {
                // A file system without locks: as for the file itself
            }
            try {
                // The new file is read as the old one was (a collector of another user's).
                Files.setPosixFilePermissions(fresh, Files.getPosixFilePermissions(path));
            } catch (IOException | RuntimeException e) {
                // Not a POSIX file system, or not the owner: the new file's as created.
            }
            EventFile file = new EventFile(path, channel, eventClasses, startTicks, startMillis);
            Files.move(fresh, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            done = true;
            return file;
        } catch (IOException e) {
            return null; // a file system that cannot rename over a file: in place, as before
        } finally {
            if (!done) {
                channel.close();
                Files.deleteIfExists(fresh);
            }
        }
    }

    /** How many names {@link #createBesideOthers} tries. */
    static final int MAX_OTHERS = 1000;

    /** How many times {@link #createBesideOthers} looks again at a name another file was renamed to. */
    private static final int MAX_MOVES = 100;

    /** What tells the file at {@code path} from another (device and inode), or null if there is none. */
    private static Object fileKey(Path path) {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** {@code pools-web.jfr} as {@code pools-web-2.jfr}; {@code out} as {@code out-2}. */
    static Path numbered(Path path, int n) {
        String name = path.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String numbered = dot > 0 ? name.substring(0, dot) + "-" + n + name.substring(dot) : name + "-" + n;
        return path.resolveSibling(numbered);
    }

    /**
     * Why the file open on {@code channel} must be kept, or null if this JVM may write it: then it
     * holds the file's lock until the channel closes (its JVM's end, a kill included).
     */
    private static String othersRecording(FileChannel channel) throws IOException {
        FileLock lock;
        boolean locks = true;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // this JVM writes it already (a second recording of the same name)
        } catch (IOException e) {
            // A file system without locks (some network mounts): no running writer can be told; a
            // killed JVM's recording still can.
            lock = null;
            locks = false;
        }
        if (lock == null && locks) {
            return "is written by another running JVM";
        }
        ByteBuffer header = ByteBuffer.allocate(ChunkWriter.HEADER_SIZE);
        while (header.hasRemaining() && channel.read(header, header.position()) > 0) {
            // read the header, or what there is of it
        }
        if (header.position() < ChunkWriter.HEADER_SIZE
                || header.get(0) != 'F'
                || header.get(1) != 'L'
                || header.get(2) != 'R'
                || header.get(3) != 0
                || (header.get(ChunkWriter.FLAG_POSITION) & ChunkWriter.FINAL_CHUNK) != 0) {
            return null;
        }
        if (lock != null) {
            lock.release();
        }
        return "holds the recording of a JVM that did not end it (killed?), which is kept";
    }

    /**
     * The most bytes of events kept in memory between two flushes by default. Events that host threads
     * add (refusals) wait in memory for the next batch; past this, or past {@link #limitPending}, they
     * are counted and not kept, so that a storm of refusals, a recording with {@code report.period: 0}
     * (everything waits for the JVM's end) or a file that can no longer be written never grows the
     * host's heap without bound.
     */
    static final long PENDING_LIMIT = 4L << 20;

    /** The most bytes of events kept between flushes. */
    synchronized long pendingLimit() {
        return pendingLimit;
    }

    /** The least {@link #limitPending} lowers the limit to: a second's refusals of a busy host, at about 50 B each. */
    static final long PENDING_FLOOR = 1L << 20;

    /** Lowers the most bytes of events kept between flushes, to no less than {@link #PENDING_FLOOR}. */
    synchronized void limitPending(long bytes) {
        pendingLimit = Math.max(PENDING_FLOOR, Math.min(PENDING_LIMIT, bytes));
    }

    /**
     * After a failed write: nothing more is written or kept (what waits is let go); events are counted
     * (refusals, in {@link #dropped}). The file stays as of its last flush.
     */
    synchronized void stop() {
        stopped = true;
        pending.reset();
        for (Pool<?> p : pools) {
            p.forget();
        }
    }

    /** Refusals that were counted and not kept: past the limit of what waits for a flush, or after {@link #stop}. */
    synchronized long dropped() {
        return dropped;
    }

    /** Adds an event, with the time of now; its class must be one of those declared. Nothing once closed. */
    synchronized void add(FileEvent e) {
        add(e, null);
    }

    /**
     * Adds an event with a stack, top frame first, of which the first {@link #STACK_DEPTH} frames are
     * kept; for an event class with stacks, the calling thread is the event's thread. False once the
     * file is closed: nothing was added.
     */
    synchronized boolean add(FileEvent e, List<Frame> stack) {
        if (closed) {
            return false;
        }
        if (stopped || (stack != null && pending.size() >= pendingLimit)) {
            // A host thread's event (a refusal, with its stack) past what may wait for the next flush.
            if (stack != null) {
                dropped++;
            }
            return true;
        }
        add(e, stack, Thread.currentThread(), now());
        return true;
    }

    /**
     * Adds an event that happened at {@code ticks} ({@link System#nanoTime}, not before the file's
     * start) on {@code thread}, as kept from before the recording started. A time before the last
     * event's is given the last event's, so that the file stays in time order.
     */
    synchronized void add(FileEvent e, List<Frame> stack, Thread thread, long ticks) {
        if (closed) {
            return; // after the JVM's end: a thread that still allocates
        }
        if (stopped) {
            if (stack != null) {
                dropped++;
            }
            return;
        }
        EventClass c = classes.get(e.getClass());
        if (c == null) {
            throw new IllegalArgumentException("not declared: " + e.getClass().getName());
        }
        Bytes b = new Bytes();
        b.varint(c.id());
        b.varint(at(ticks));
        b.varint(0); // duration: an instant
        if (c.stackTrace()) {
            b.varint(threadKey(thread));
            b.varint(stack == null ? 0 : stackKey(stack));
        }
        e.writeFields(b);
        byte[] event = b.sized();
        pending.write(event, 0, event.length);
    }

    /** Adds the event that names this JVM, with the JDK's type and field names, at the file's start. */
    synchronized void addJvmInformation(
            String jvmName,
            String jvmVersion,
            String jvmArguments,
            String javaArguments,
            long jvmStartMillis,
            long pid) {
        Bytes b = new Bytes();
        b.varint(jvmInformation);
        // At the file's start, as JFR writes it at each chunk's: a recording whose file was created
        // later (at its first batch, or at the JVM's end) still spans the time from its start.
        b.varint(at(startTicks));
        b.varint(0);
        b.string(jvmName);
        b.string(jvmVersion);
        b.string(jvmArguments);
        b.string("");
        b.string(javaArguments);
        b.varint(jvmStartMillis);
        b.varint(pid);
        byte[] event = b.sized();
        pending.write(event, 0, event.length);
    }

    /** Appends the events added since the last flush, then makes the header count them. */
    synchronized void flush() throws IOException {
        if (closed || stopped) {
            return;
        }
        appendPending(false);
        writeHeader(false);
    }

    /** Flushes, and marks the recording as ended with its JVM. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        try {
            if (!stopped) {
                appendPending(true);
                writeHeader(true);
            }
        } finally {
            closed = true;
            channel.close();
        }
    }

    /** Bytes in the file: what its header counts. */
    synchronized long length() {
        return size;
    }

    /** Where the file is. */
    synchronized Path path() {
        return path;
    }

    /**
     * Gives the file the name {@code target} as well (a hard link, replacing any file there at once),
     * and makes it the name the file is known by; it stays open, and stays at its old name too until
     * another file is moved there. On failure, nothing changed.
     */
    synchronized void linkAs(Path target) throws IOException {
        Path link = target.resolveSibling(target.getFileName() + ".link");
        Files.deleteIfExists(link);
        Files.createLink(link, path);
        try {
            Files.move(link, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(link);
            throw e;
        }
        path = target;
    }

    /** Renames the file to {@code target} (replacing any file there); it stays open, and is written there. */
    synchronized void moveTo(Path target) throws IOException {
        Files.move(path, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        path = target;
    }

    /** For a recording that could not start whole: closes the file and deletes it; nothing is added after. */
    synchronized void abandon() {
        closed = true;
        try {
            channel.close();
            deleteIfRegular(path);
        } catch (IOException e) {
            // Nothing more to undo.
        }
    }

    /** Deletes {@code file} if it is a regular file: not a link to the file written, nor anything else. */
    private static void deleteIfRegular(Path file) throws IOException {
        if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            Files.deleteIfExists(file);
        }
    }

    private long now() {
        return at(System.nanoTime());
    }

    private long at(long ticks) {
        // The events of one file in time order: nanoTime does not go back, but keep it so for readers that sort.
        long t = ticks;
        if (t - lastTicks < 0) {
            t = lastTicks;
        }
        lastTicks = t;
        return t;
    }

    /** Appends what waits, then its checksum; {@code last} for the recording's end, which always has one. */
    private void appendPending(boolean last) throws IOException {
        int added = 0;
        for (Pool<?> p : pools) {
            added += p.added > 0 ? 1 : 0;
        }
        if (added == 0 && pending.size() == 0 && !last) {
            return;
        }
        if (added > 0) {
            // The new pool goes after the pending events; the header points at it once it is in the file.
            long at = size + pending.size();
            Bytes cp = new Bytes();
            cp.varint(1);
            cp.varint(lastTicks);
            cp.varint(0);
            cp.varint(constantPool - at); // the delta to the pool before: readers follow the chain
            cp.write(0);
            cp.varint(added);
            for (Pool<?> p : pools) {
                p.drainTo(cp);
            }
            byte[] event = cp.sized();
            pending.write(event, 0, event.length);
            // In what waits from now on, which goes to the file whole or not at all: the next pool, after a
            // failed try, chains to this one.
            constantPool = at;
        }
        // The batch ends with its checksum (ChunkChecksum) of what the file holds since the one before.
        // Nothing changes until both are in the file: a try that fails (a full heap) is made again whole.
        byte[] body = pending.toByteArray();
        long at = size + body.length;
        CRC32 crc = lastChecksum == null ? ChunkChecksum.start(firstHeader) : new CRC32();
        crc.update(lastChecksum == null ? firstDeclarations : lastChecksum);
        crc.update(body);
        Bytes b = new Bytes();
        b.varint(checksum);
        b.varint(lastTicks);
        b.varint(0);
        b.varint(at);
        b.varint(crc.getValue());
        b.varint(constantPool);
        b.bool(last);
        byte[] event = b.sized();
        Runnable hook = beforeBatchWrite;
        if (hook != null) {
            hook.run();
        }
        write(size, body);
        write(at, event);
        size = at + event.length;
        pending.reset();
        lastChecksum = event;
        firstHeader = null;
        firstDeclarations = null;
    }

    /**
     * One of the chunk's constant pools: keys from 1, in the order values are first seen, and the
     * entries not yet in the file.
     */
    private static final class Pool<K> {
        private final long type;
        private final Map<K, Long> keys = new HashMap<>();
        private final Bytes entries = new Bytes();
        private int added;

        Pool(long type) {
            this.type = type;
        }

        /** The key of {@code value}, or 0 when it has none yet. */
        long known(K value) {
            Long key = keys.get(value);
            return key == null ? 0 : key;
        }

        /** Gives {@code value} the next key and starts its entry, which the caller then writes. */
        Bytes entry(K value) {
            long key = keys.size() + 1L;
            keys.put(value, key);
            entries.varint(key);
            added++;
            return entries;
        }

        /** Forgets every value and entry: for a file nothing more is written to. */
        void forget() {
            keys.clear();
            entries.reset();
            added = 0;
        }

        void drainTo(Bytes cp) {
            if (added > 0) {
                cp.varint(type);
                cp.varint(added);
                cp.write(entries.toByteArray(), 0, entries.size());
                entries.reset();
                added = 0;
            }
        }
    }

    private void writeHeader(boolean last) throws IOException {
        write(0, header(last));
    }

    private byte[] header(boolean last) {
        return ChunkWriter.header(
                size, constantPool, metadata, startNanos, lastTicks - startTicks, startTicks, true, last);
    }

    private void write(long position, byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        long at = position;
        while (b.hasRemaining()) {
            at += channel.write(b, at);
        }
    }

    /** The thread that added an event: its name when first seen, its id; the OS's id is not known here. */
    private long threadKey(Thread t) {
        long id = t.getId();
        long known = threads.known(id);
        if (known > 0) {
            return known;
        }
        Bytes b = threads.entry(id);
        b.string(t.getName());
        b.varint(-1);
        b.string(t.getName());
        b.varint(id);
        return threads.known(id);
    }

    private long stackKey(List<Frame> stack) {
        long known = stacks.known(stack);
        if (known > 0) {
            return known;
        }
        List<Frame> frames = List.copyOf(stack.subList(0, Math.min(stack.size(), STACK_DEPTH)));
        List<Long> keys = new ArrayList<>();
        for (Frame f : frames) {
            keys.add(methodKey(f));
        }
        List<Frame> whole = List.copyOf(stack);
        Bytes b = stacks.entry(whole);
        b.bool(stack.size() > STACK_DEPTH);
        b.varint(frames.size());
        for (int i = 0; i < frames.size(); i++) {
            Frame f = frames.get(i);
            b.varint(keys.get(i));
            b.varint(f.line());
            b.varint(f.bytecodeIndex());
            b.string(f.isNative() ? "Native" : "Java");
        }
        return stacks.known(whole);
    }

    private long methodKey(Frame f) {
        String name = f.className() + "#" + f.method() + f.descriptor();
        long known = methods.known(name);
        if (known > 0) {
            return known;
        }
        long type = classKey(f.className());
        Bytes b = methods.entry(name);
        b.varint(type);
        b.string(f.method());
        b.string(f.descriptor());
        b.varint(0);
        b.bool(false);
        return methods.known(name);
    }

    private long classKey(String className) {
        long known = javaClasses.known(className);
        if (known > 0) {
            return known;
        }
        Bytes b = javaClasses.entry(className);
        b.string(className);
        b.varint(0);
        b.bool(false);
        return javaClasses.known(className);
    }

    // The declarations.

    private static List<Type> baseTypes() {
        List<Type> t = new ArrayList<>();
        t.add(new Type(T_BOOLEAN, "boolean", null, List.of(), List.of()));
        t.add(new Type(T_INT, "int", null, List.of(), List.of()));
        t.add(new Type(T_LONG, "long", null, List.of(), List.of()));
        t.add(new Type(T_STRING, "java.lang.String", null, List.of(), List.of()));
        String annotation = "java.lang.annotation.Annotation";
        Member value = new Member("value", T_STRING, false, false, List.of());
        List<Annotation> content = List.of(Annotation.of(A_CONTENT_TYPE));
        t.add(new Type(A_LABEL, Label.class.getName(), annotation, List.of(value), List.of()));
        t.add(new Type(A_DESCRIPTION, Description.class.getName(), annotation, List.of(value), List.of()));
        t.add(new Type(
                A_CATEGORY,
                Category.class.getName(),
                annotation,
                List.of(new Member("value", T_STRING, true, false, List.of())),
                List.of()));
        t.add(new Type(A_CONTENT_TYPE, "jdk.jfr.ContentType", annotation, List.of(), List.of()));
        t.add(new Type(A_DATA_AMOUNT, DataAmount.class.getName(), annotation, List.of(value), content));
        t.add(new Type(A_TIMESPAN, Timespan.class.getName(), annotation, List.of(value), content));
        t.add(new Type(A_TIMESTAMP, "jdk.jfr.Timestamp", annotation, List.of(value), content));
        t.add(new Type(
                T_CLASS,
                "java.lang.Class",
                null,
                List.of(
                        field("name", T_STRING, "Name"),
                        field("modifiers", T_INT, "Access Modifiers"),
                        field("hidden", T_BOOLEAN, "Hidden")),
                labels("Java Class")));
        t.add(new Type(
                T_METHOD,
                "jdk.types.Method",
                null,
                List.of(
                        new Member("type", T_CLASS, false, true, labels("Type")),
                        field("name", T_STRING, "Name"),
                        field("descriptor", T_STRING, "Descriptor"),
                        field("modifiers", T_INT, "Modifiers"),
                        field("hidden", T_BOOLEAN, "Hidden")),
                labels("Java Method")));
        t.add(new Type(
                T_FRAME,
                "jdk.types.StackFrame",
                null,
                List.of(
                        new Member("method", T_METHOD, false, true, labels("Java Method")),
                        field("lineNumber", T_INT, "Line Number"),
                        field("bytecodeIndex", T_INT, "Bytecode Index"),
                        field("type", T_STRING, "Frame Type")),
                List.of()));
        t.add(new Type(
                T_STACK,
                "jdk.types.StackTrace",
                null,
                List.of(
                        field("truncated", T_BOOLEAN, "Truncated"),
                        new Member("frames", T_FRAME, true, false, labels("Stack Frames"))),
                labels("Stacktrace")));
        t.add(new Type(
                T_THREAD,
                "java.lang.Thread",
                null,
                List.of(
                        field("osName", T_STRING, "OS Thread Name"),
                        field("osThreadId", T_LONG, "OS Thread Id"),
                        field("javaName", T_STRING, "Java Thread Name"),
                        field("javaThreadId", T_LONG, "Java Thread Id")),
                labels("Thread")));
        return t;
    }

    private static Member field(String name, long type, String label) {
        return new Member(name, type, false, false, labels(label));
    }

    private static List<Annotation> labels(String label) {
        return List.of(Annotation.of(A_LABEL, label));
    }

    private static List<Member> eventFields(boolean stackTrace) {
        List<Member> fields = new ArrayList<>();
        fields.add(new Member(
                "startTime",
                T_LONG,
                false,
                false,
                List.of(Annotation.of(A_LABEL, "Start Time"), Annotation.of(A_TIMESTAMP, "TICKS"))));
        fields.add(new Member(
                "duration",
                T_LONG,
                false,
                false,
                List.of(Annotation.of(A_LABEL, "Duration"), Annotation.of(A_TIMESPAN, "TICKS"))));
        if (stackTrace) {
            fields.add(new Member("eventThread", T_THREAD, false, true, labels("Event Thread")));
            fields.add(new Member("stackTrace", T_STACK, false, true, labels("Stack Trace")));
        }
        return fields;
    }

    private Type declare(Class<?> c, long id) throws IOException {
        ClassFileAnnotations read = ClassFileAnnotations.of(c);
        List<String> name = read.ofClass(Name.class);
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException(c.getName() + " has no @Name");
        }
        List<String> stack = read.ofClass(StackTrace.class);
        boolean stackTrace = stack == null || stack.isEmpty() || Boolean.parseBoolean(stack.get(0));
        List<Member> fields = eventFields(stackTrace);
        for (Field f : recordedFields(c)) {
            long type;
            if (f.getType() == long.class) {
                type = T_LONG;
            } else if (f.getType() == int.class) {
                type = T_INT;
            } else if (f.getType() == boolean.class) {
                type = T_BOOLEAN;
            } else if (f.getType() == String.class) {
                type = T_STRING;
            } else {
                throw new IllegalArgumentException(c.getName() + "." + f.getName() + ": " + f.getType());
            }
            String field = f.getName();
            List<Annotation> annotations = new ArrayList<>();
            annotate(annotations, A_LABEL, read.ofField(field, Label.class), null);
            annotate(annotations, A_DESCRIPTION, read.ofField(field, Description.class), null);
            annotate(annotations, A_DATA_AMOUNT, read.ofField(field, DataAmount.class), DataAmount.BYTES);
            annotate(annotations, A_TIMESPAN, read.ofField(field, Timespan.class), Timespan.NANOSECONDS);
            fields.add(new Member(field, type, false, false, annotations));
        }
        classes.put(c, new EventClass(id, stackTrace));
        List<Annotation> annotations = new ArrayList<>();
        annotate(annotations, A_LABEL, read.ofClass(Label.class), null);
        annotate(annotations, A_DESCRIPTION, read.ofClass(Description.class), null);
        List<String> category = read.ofClass(Category.class);
        if (category != null) {
            annotations.add(new Annotation(A_CATEGORY, true, List.copyOf(category)));
        }
        return new Type(id, name.get(0), EVENT, fields, annotations);
    }

    /**
     * Adds annotation {@code type} with its one value, read from a class file ({@code values}, null
     * when the element has no such annotation), or with {@code otherwise} when it was written without one.
     */
    private static void annotate(List<Annotation> into, long type, List<String> values, String otherwise) {
        if (values == null) {
            return;
        }
        String value = values.isEmpty() ? otherwise : values.get(0);
        if (value == null) {
            throw new IllegalArgumentException("annotation " + type + " without its value");
        }
        into.add(Annotation.of(type, value));
    }

    /** The fields of an event class that its events hold: the public ones that are not static, in order. */
    static List<Field> recordedFields(Class<?> c) {
        List<Field> fields = new ArrayList<>();
        for (Field f : c.getDeclaredFields()) {
            int m = f.getModifiers();
            if (Modifier.isPublic(m) && !Modifier.isStatic(m)) {
                fields.add(f);
            }
        }
        return fields;
    }

    private static Type checksumType(long id) {
        List<Member> fields = eventFields(false);
        fields.add(field(ChunkChecksum.POSITION, T_LONG, "Position"));
        fields.add(field(ChunkChecksum.CRC32, T_LONG, "CRC-32"));
        fields.add(field(ChunkChecksum.CONSTANT_POOL, T_LONG, "Constant Pool"));
        fields.add(field(ChunkChecksum.LAST, T_BOOLEAN, "Last"));
        return new Type(
                id,
                ChunkChecksum.EVENT,
                EVENT,
                fields,
                List.of(
                        Annotation.of(A_LABEL, "Checksum"),
                        Annotation.of(A_DESCRIPTION, "The CRC-32 of the recording's chunk before this event"),
                        new Annotation(A_CATEGORY, true, List.of(EventNames.CATEGORY))));
    }

    private static Type jvmInformationType(long id) {
        Map<String, String> strings = new LinkedHashMap<>();
        strings.put("jvmName", "JVM Name");
        strings.put("jvmVersion", "JVM Version");
        strings.put("jvmArguments", "JVM Command Line Arguments");
        strings.put("jvmFlags", "JVM Settings File Arguments");
        strings.put("javaArguments", "Java Application Arguments");
        List<Member> fields = eventFields(false);
        for (Map.Entry<String, String> s : strings.entrySet()) {
            fields.add(field(s.getKey(), T_STRING, s.getValue()));
        }
        fields.add(new Member(
                "jvmStartTime",
                T_LONG,
                false,
                false,
                List.of(
                        Annotation.of(A_LABEL, "JVM Start Time"),
                        Annotation.of(A_TIMESTAMP, "MILLISECONDS_SINCE_EPOCH"))));
        fields.add(field("pid", T_LONG, "Process Identifier"));
        return new Type(
                id,
                JVM_INFORMATION,
                EVENT,
                fields,
                List.of(
                        Annotation.of(A_LABEL, "JVM Information"),
                        Annotation.of(A_DESCRIPTION, "Description of JVM and the Java application"),
                        new Annotation(A_CATEGORY, true, List.of("Java Virtual Machine"))));
    }
}
